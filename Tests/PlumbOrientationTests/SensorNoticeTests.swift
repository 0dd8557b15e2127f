import Foundation
import PlumbDrivers
import PlumbHAL
import PlumbSimulation
import Synchronization
import Testing
@testable import PlumbOrientation

/// What the sensor says besides samples reaches a library user of ``MotionOrientation``: the
/// gaps and recoveries of the streaming engine under it, and the source's failures and return.
@Suite struct SensorNoticeTests {
    /// The real MPU-6050 driver and streaming engine on the emulated chip, with `faults`, ending
    /// after `seconds` of virtual time.
    static func simulatedSource(faults: String, seconds: Double) throws(MotionSourceError) -> IMUStreamSource {
        guard let model = SimulatedChips.model("mpu6050") else { throw .other("no emulated MPU-6050") }
        let sensor = SimulatedSensor(model: model, profile: .rest(), seed: 3)
        do {
            try FaultPlan(parsing: faults).install(on: sensor)
        } catch {
            throw .other("\(error)")
        }
        let imu: MPU6050
        do {
            imu = try MPU6050(bus: sensor.bus, address: model.address, clock: sensor.clock)
        } catch {
            throw .imu(error)
        }
        let stream = IMUStream(imu: imu, line: sensor.line, clock: sensor.clock)
        return IMUStreamSource(stream: stream, name: "simulated MPU-6050", endNanoseconds: sensor.clock.nowNanoseconds + Nanoseconds.seconds(seconds))
    }

    /// Collects the notices of one stream until it finishes.
    final class Collected: Sendable {
        let notices = Mutex<[SensorNotice]>([])
        let posted = Mutex<[SensorNotice]>([])
        let done = Mutex(false)
    }

    /// Subscribes to `motion`'s ``MotionOrientation/sensorNotices`` now and appends each to
    /// `collected` until the stream ends (then marks it done).
    static func collect(_ motion: MotionOrientation, into collected: Collected) -> Task<Void, Never> {
        let notices = motion.sensorNotices
        return Task {
            for await notice in notices { collected.notices.withLock { $0.append(notice) } }
            collected.done.withLock { $0 = true }
        }
    }

    /// Starts `motion` and collects its ``MotionOrientation/sensorNotices`` until the source ends.
    static func playToTheEnd(_ motion: MotionOrientation, into collected: Collected) async {
        let reader = collect(motion, into: collected)
        motion.start()
        #expect(await eventually { collected.done.withLock { $0 } })
        await reader.value
    }

    @Test func aBrownOutReachesTheStreamAndTheNotificationCenter() async throws {
        let motion = MotionOrientation(source: { () throws(MotionSourceError) -> any MotionSampleSource in
            try Self.simulatedSource(faults: "reset@2s", seconds: 5)
        })
        let collected = Collected()
        let token = NotificationCenter.default.addObserver(forName: .motionOrientationSensorNotice, object: motion, queue: nil) { note in
            guard let notice = note.userInfo?[MotionOrientation.UserInfoKey.sensorNotice] as? SensorNotice else { return }
            collected.posted.withLock { $0.append(notice) }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        await Self.playToTheEnd(motion, into: collected)
        let seen = collected.notices.withLock { $0 }
        #expect(seen.contains { if case .gap(let gap) = $0.kind { gap.reason == .chipReset } else { false } }, "\(seen)")
        #expect(seen.contains { $0.kind == .recovery && $0.message.contains("lost its configuration") }, "\(seen)")
        #expect(seen.allSatisfy { $0.source == "simulated MPU-6050" })
        // The notification center got the same notices, in the same order.
        #expect(await eventually(30) { collected.posted.withLock { $0 } == seen })
    }

    @Test func aQuietSensorSaysNothing() async throws {
        let motion = MotionOrientation(source: { () throws(MotionSourceError) -> any MotionSampleSource in
            try Self.simulatedSource(faults: "", seconds: 3)
        })
        let collected = Collected()
        await Self.playToTheEnd(motion, into: collected)
        #expect(collected.notices.withLock { $0 }.isEmpty)
    }

    /// How many sources the factory made.
    final class Attempts: Sendable {
        let made = Mutex(0)
    }

    /// A source that cannot start (a sensor not wired yet) when `fails`.
    final class LateSource: MotionSampleSource {
        let inner: ProfileSource
        let fails: Bool
        var name: String { "late sensor" }
        var clock: any MonotonicClock { inner.clock }
        init(_ inner: ProfileSource, fails: Bool) { self.inner = inner; self.fails = fails }
        func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
            if fails {
                throw .other("no answer at 0x68 on /dev/i2c-1: check the wiring")
            }
            return try inner.start(configuration)
        }
        func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
            try inner.read(into: &samples, timeoutNanoseconds: timeoutNanoseconds)
        }
        func stop() throws(MotionSourceError) { try inner.stop() }
    }

    @Test func aFailureRetriedEverySecondIsSaidOnceAndSoIsItsEnd() async throws {
        let attempts = Attempts()
        let log = SourceLog()
        let motion = MotionOrientation(source: {
            let n = attempts.made.withLock { $0 += 1; return $0 }
            return LateSource(ProfileSource(.rest(), log: log), fails: n <= 4)
        })
        // Retried every 10 ms of wall time rather than every second (the pause on the source's
        // virtual clock takes none).
        motion.state.withLock { $0.retryWallInterval = 0.01 }
        let collected = Collected()
        let reader = Self.collect(motion, into: collected)
        defer { reader.cancel() }
        motion.start()
        defer { motion.stop() }
        #expect(await eventually { collected.notices.withLock { $0.count >= 2 } })
        #expect(attempts.made.withLock { $0 } >= 5)
        let seen = collected.notices.withLock { $0 }
        #expect(seen.map(\.kind) == [.failure, .restored], "\(seen)")
        #expect(seen.first?.message.contains("check the wiring") == true)
        // The error itself, for a program to word its own fix; the other kinds carry none.
        #expect(seen.first?.error == .other("no answer at 0x68 on /dev/i2c-1: check the wiring"))
        #expect(seen.last?.error == nil)
        #expect(seen.last?.message == "reading again after: no answer at 0x68 on /dev/i2c-1: check the wiring")
        #expect(motion.lastError?.contains("late sensor: no answer at 0x68") == true)
    }

    /// The sensor fails, the app stops the notifier and starts it again later, and the sensor
    /// works by then: the notice stream (which outlives stop()) hears that it reads again, or it
    /// would show the failure for ever.
    @Test func aFailureEndedAcrossStopAndStartIsStillSaidToHaveEnded() async throws {
        let broken = Mutex(true)
        let log = SourceLog()
        let motion = MotionOrientation(source: {
            LateSource(ProfileSource(.rest(), log: log), fails: broken.withLock { $0 })
        })
        let collected = Collected()
        let reader = Self.collect(motion, into: collected)
        defer { reader.cancel() }
        motion.start()
        #expect(await eventually { collected.notices.withLock { $0.count >= 1 } })
        motion.stop()
        // The reader thread leaves once it sees the stop.
        #expect(await eventually { !motion.state.withLock { $0.readerRunning } })
        broken.withLock { $0 = false }
        motion.start()
        defer { motion.stop() }
        // Samples flow again once the sensor runs; the notice comes with the first read.
        #expect(await eventually { motion.isSensorRunning && log.entries.withLock { $0.reads } >= 3 })
        #expect(await eventually(5) { collected.notices.withLock { $0.count >= 2 } })
        let seen = collected.notices.withLock { $0 }
        #expect(seen.map(\.kind) == [.failure, .restored], "\(seen)")
        #expect(seen.last?.message == "reading again after: no answer at 0x68 on /dev/i2c-1: check the wiring")
    }

    /// A recording that cannot be read ends the session with a failure; the next session's
    /// streams start afresh: its first samples are not "reading again after" a failure those
    /// streams never heard of.
    @Test func aSessionEndedByAFailureLeavesNothingToTheNext() async throws {
        let attempts = Attempts()
        let log = SourceLog()
        let motion = MotionOrientation(source: { () throws(MotionSourceError) -> any MotionSampleSource in
            let n = attempts.made.withLock { $0 += 1; return $0 }
            if n == 1 { throw .recording("take.csv line 3: 7 columns, expected 6") }
            return ProfileSource(.rest(), log: log)
        })
        let first = Collected()
        await Self.playToTheEnd(motion, into: first)
        #expect(first.notices.withLock { $0 }.map(\.kind) == [.failure])
        #expect(await eventually { !motion.state.withLock { $0.readerRunning } })
        let second = Collected()
        let reader = Self.collect(motion, into: second)
        defer { reader.cancel() }
        motion.start()
        defer { motion.stop() }
        #expect(await eventually { log.entries.withLock { $0.reads } >= 5 })
        try await Task.sleep(for: .milliseconds(20))
        #expect(second.notices.withLock { $0 }.isEmpty, "\(second.notices.withLock { $0 })")
    }

    /// A notice stream does not keep the notifier alive (its termination handler holds it
    /// weakly), so when the app lets go of the notifier the stream must end, or its consumer
    /// waits for ever.
    @Test func aNoticeStreamEndsWhenTheNotifierGoesAway() async throws {
        let log = SourceLog()
        var motion: MotionOrientation? = MotionOrientation(source: { ProfileSource(.rest(), log: log) })
        let notices = try #require(motion?.sensorNotices)
        weak let gone = motion
        let ended = Mutex(false)
        let reader = Task {
            for await _ in notices {}
            ended.withLock { $0 = true }
        }
        defer { reader.cancel() }
        motion = nil
        #expect(gone == nil, "nothing else holds the notifier")
        #expect(await eventually(5) { ended.withLock { $0 } })
    }

    @Test func aNoticeStreamDoesNotRunTheSensor() async throws {
        let log = SourceLog()
        let motion = MotionOrientation(source: { ProfileSource(.rest(), log: log) })
        let notices = motion.sensorNotices
        _ = notices
        try await Task.sleep(for: .milliseconds(50))
        #expect(log.made == 0)
        #expect(!motion.isSensorRunning)
        #expect(motion.subscriberCount == 0)
    }

    /// A reader that never takes the notices keeps at most 64 and a count of the rest: a board
    /// browning out every 2 s for 10 minutes.
    @Test func untakenNoticesAreBounded() throws {
        let source = try Self.simulatedSource(faults: (1...300).map { "reset@\($0 * 2)s" }.joined(separator: ","), seconds: 610)
        _ = try source.start(IMUConfiguration(outputDataRate: 100, fifoWatermark: 5))
        var samples: [IMUSample] = []
        while try source.read(into: &samples, timeoutNanoseconds: 100_000_000) != .finished {
            samples.removeAll(keepingCapacity: true)
        }
        #expect(source.gapCount >= 290)
        let notices = source.takeNotices()
        #expect(notices.count == IMUStreamSource.maximumPendingNotices + 1)
        #expect(notices.first?.message.hasSuffix("earlier notices were dropped (not taken in time)") == true, "\(notices.first?.message ?? "")")
        #expect(source.takeNotices().isEmpty)
    }
}
