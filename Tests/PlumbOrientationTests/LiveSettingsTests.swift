import Foundation
import PlumbDrivers
import PlumbHAL
import PlumbSimulation
import Synchronization
import Testing
@testable import PlumbOrientation

/// Settings changed while the sensor runs take effect on the same source: the classifier,
/// mounting and estimator rebuild the pipeline (keeping the orientation), a new energy setting
/// restarts the chip's streaming with it; only ``MotionOrientation/configure(source:)`` makes a
/// new source. A recording or simulation is not played again from its start (the sample times
/// of one stream went 1.2, 6.4, 11.9, 1.2, …), and a live chip is not re-initialised.
@Suite struct LiveSettingsTests {
    /// Where the test holds the source's reads: the reader waits inside a read until the test
    /// has changed a setting, so the change comes at a known sample time.
    final class Hold: Sendable {
        let atNanoseconds: UInt64
        let reached = Mutex(false)
        let resume = DispatchSemaphore(value: 0)
        init(atSeconds: Double) { atNanoseconds = UInt64(atSeconds * 1e9) }
        /// Called by the source on the reader thread; the first time, returns once the test lets
        /// it go (a source made again does not hold again).
        func arrive() {
            let first = reached.withLock { reached in
                defer { reached = true }
                return !reached
            }
            if first { resume.wait() }
        }
        func release() { resume.signal() }
    }

    /// A ``ProfileSource`` whose reads past `hold`'s time wait for the test, once.
    final class HoldingSource: MotionSampleSource {
        let inner: ProfileSource
        let hold: Hold
        var name: String { inner.name }
        var clock: any MonotonicClock { inner.clock }
        init(_ inner: ProfileSource, hold: Hold) { self.inner = inner; self.hold = hold }
        func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration { try inner.start(configuration) }
        func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
            if inner.next >= hold.atNanoseconds { hold.arrive() }
            return try inner.read(into: &samples, timeoutNanoseconds: timeoutNanoseconds)
        }
        func stop() throws(MotionSourceError) { try inner.stop() }
        func close() { inner.close() }
    }

    /// Up along `up`, still, for ever.
    static func resting(up: SIMD3<Double>) -> MotionProfile {
        let state = still(up: up)
        return MotionProfile(name: "resting") { _ in state }
    }

    /// Plays `profile` for `seconds` (`nil`: for ever), holding at `hold`; returns the notifier and what its one
    /// subscriber will have seen.
    static func playing(_ profile: MotionProfile, seconds: Double?, hold: Hold, log: SourceLog,
                        estimator: MotionOrientation.EstimatorFactory? = nil) -> (MotionOrientation, Task<[OrientationChange], Never>) {
        let motion = MotionOrientation(source: { HoldingSource(ProfileSource(profile, log: log, end: seconds, speedup: 1000), hold: hold) },
                                       estimator: estimator)
        let changes = motion.orientationChanges(bufferingPolicy: .unbounded)
        let task = Task { await changes.reduce(into: [OrientationChange]()) { $0.append($1) } }
        return (motion, task)
    }

    static func increasing(_ changes: [OrientationChange]) -> Bool {
        zip(changes, changes.dropFirst()).allSatisfy { $0.sampleNanoseconds < $1.sampleNanoseconds }
    }

    @Test func aClassifierChangedWhileRunningTakesEffectOnTheSameSource() async {
        let log = SourceLog()
        let hold = Hold(atSeconds: 1.5)
        // Portrait, then a turn to landscapeLeft at 3 s.
        let (motion, changes) = Self.playing(portraitThenLandscapeLeft(turnAt: 3), seconds: 6, hold: hold, log: log)
        #expect(await eventually { hold.reached.withLock { $0 } })
        #expect(motion.deviceOrientation == .portrait)
        // A settle time that never ends: the turn at 3 s is never accepted.
        motion.classifierSettings = OrientationClassifier.Settings(settleTime: .infinity)
        hold.release()
        let seen = await changes.value
        #expect(seen.map(\.deviceOrientation) == [.portrait])
        #expect(motion.deviceOrientation == .portrait)
        // The source read on to its end: one source, started once, its samples never going back.
        #expect(log.made == 1)
        #expect(log.starts.count == 1)
        #expect((motion.latestGravity?.sampleNanoseconds ?? 0) > 5_900_000_000)
    }

    @Test func aMountingChangedWhileRunningTakesEffectOnTheSameSource() async {
        let log = SourceLog()
        let hold = Hold(atSeconds: 1)
        let (motion, changes) = Self.playing(Self.resting(up: SIMD3(0, 1, 0)), seconds: 3, hold: hold, log: log)
        #expect(await eventually { hold.reached.withLock { $0 } })
        // The board turned in its case: the sensor's y is the device's x.
        motion.mounting = (SIMD3(0, 1, 0), SIMD3(-1, 0, 0), SIMD3(0, 0, 1))
        hold.release()
        let seen = await changes.value
        #expect(seen.map(\.deviceOrientation) == [.portrait, .landscapeLeft])
        #expect(Self.increasing(seen), "\(seen.map(\.sampleNanoseconds))")
        #expect((seen.last?.sampleNanoseconds ?? 0) >= 1_000_000_000)
        #expect(log.made == 1)
        #expect(log.starts.count == 1)
    }

    @Test func anEstimatorConfiguredWhileRunningTakesEffectOnTheSameSource() async {
        let log = SourceLog()
        let hold = Hold(atSeconds: 1)
        let made = Mutex(0)
        let (motion, changes) = Self.playing(Self.resting(up: SIMD3(0, 1, 0)), seconds: 3, hold: hold, log: log,
                                             estimator: { made.withLock { $0 += 1 }; return AccelerometerGravity() })
        #expect(await eventually { hold.reached.withLock { $0 } })
        let after = Mutex(0)
        motion.configure(estimator: { after.withLock { $0 += 1 }; return AccelerometerGravity() })
        hold.release()
        let seen = await changes.value
        // Kept portrait: the new pipeline carries the orientation over.
        #expect(seen.map(\.deviceOrientation) == [.portrait])
        #expect(made.withLock { $0 } == 1)
        #expect(after.withLock { $0 } == 1)
        #expect(log.made == 1)
        #expect(log.starts.count == 1)
    }

    @Test func energySettingsChangedWhileRunningRestartStreamingOnTheSameSource() async {
        let log = SourceLog()
        let hold = Hold(atSeconds: 1)
        // No end: the checks below wait for the sensor to run.
        let (motion, changes) = Self.playing(Self.resting(up: SIMD3(0, 1, 0)), seconds: nil, hold: hold, log: log)
        #expect(await eventually { hold.reached.withLock { $0 } })
        var energy = motion.energySettings
        energy.normal = IMUConfiguration(outputDataRate: 50, fifoWatermark: 4, gyroscopeEnabled: true)
        motion.energySettings = energy
        hold.release()
        #expect(await eventually { motion.sensorConfiguration == energy.normal })
        #expect(log.starts == [EnergySettings.defaultNormal, energy.normal])
        // A change that is not the chip's (the display switch) does not restart it.
        energy.pausesWhileDisplayBlanked = false
        motion.energySettings = energy
        let reads = log.reads
        #expect(await eventually { log.reads > reads + 5 })
        #expect(log.starts.count == 2)
        #expect(log.made == 1)
        changes.cancel()
        #expect(await changes.value.map(\.deviceOrientation) == [.portrait])
    }
}
