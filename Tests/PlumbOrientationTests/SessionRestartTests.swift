import Foundation
import PlumbDrivers
import PlumbHAL
import PlumbSimulation
import Synchronization
import Testing
@testable import PlumbOrientation

/// A session that ends because its source ended (a recording played to its end, a bounded
/// simulation's time ran out) is followed by a new one that plays again: a subscriber or
/// ``MotionOrientation/start()`` after the end gets a source the factory makes anew.
@Suite struct SessionRestartTests {
    /// `profile` sampled at 100 Hz for `seconds`, as a recording.
    static func recording(_ profile: MotionProfile, seconds: Double) -> IMURecording {
        IMURecording(samples: (0..<Int(seconds * 100)).map { i in
            let t = Double(i) / 100
            let state = profile.state(at: t)
            return IMUSample(timestampNanoseconds: UInt64(i) * 10_000_000, acceleration: state.specificForce, angularRate: state.angularRate)
        })
    }

    /// Portrait, then a turn to landscapeLeft at 2 s; 5 s in all.
    static let take = recording(portraitThenLandscapeLeft(), seconds: 5)

    /// Counts the sources a factory made.
    final class Made: Sendable {
        let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
    }

    /// A notifier playing `recording`, counting the sources made in `made`; with `gate`, each
    /// source waits to be made until the test signals it.
    static func playing(_ recording: IMURecording, made: Made, gate: DispatchSemaphore? = nil) -> MotionOrientation {
        MotionOrientation(source: {
            gate?.wait()
            made.count.withLock { $0 += 1 }
            return RecordingSource(recording: recording, name: "take.csv")
        })
    }

    /// Registers a stand-in subscriber whose termination runs `body`: the reader runs it on its
    /// own thread while it finishes the session's streams (`finish()` calls a stream's
    /// termination handler there and then), after the session has ended and before the reader
    /// has looked at what to do next — the moment a consumer woken by the end of its stream
    /// subscribes again, without having to win a race to get there. Keep the stream returned
    /// alive (dropping it ends the stand-in at once).
    static func onSessionEnd(of motion: MotionOrientation, _ body: @escaping @Sendable () -> Void) -> AsyncStream<OrientationChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: OrientationChange.self)
        continuation.onTermination = { _ in body() }
        motion.state.withLock { s in
            s.nextSubscriber += 1
            s.subscribers[s.nextSubscriber] = continuation
        }
        return stream
    }

    /// The audit's program: play to the end, then subscribe and start again, many times.
    @Test func aRecordingPlaysAgainEachTimeAfterItEnds() async {
        let made = Made()
        // The subscriber alone starts the sensor: the source waits for start(), or the recording
        // could end before it, and start() would begin a session of its own.
        let gate = DispatchSemaphore(value: 0)
        let motion = Self.playing(Self.take, made: made, gate: gate)
        for round in 1...12 {
            let changes = motion.orientationChanges(bufferingPolicy: .unbounded)
            motion.start()
            gate.signal()
            let got = await changes.reduce(into: [OrientationChange]()) { $0.append($1) }
            #expect(got.map(\.deviceOrientation) == [.portrait, .landscapeLeft], "round \(round)")
            // From the recording's start: portrait settles within its first 0.2 s.
            #expect((got.first?.sampleNanoseconds ?? .max) < 200_000_000, "round \(round)")
            #expect(made.value == round)
            #expect(!motion.isEnabled)
        }
    }

    /// A subscriber and start() that come as the session ends, before the reader has left its
    /// loop: the new session reads a new source from its start, not the ended one (which said
    /// "finished" again and ended the new session with nothing).
    @Test func aSubscriberArrivingAsTheSessionEndsGetsANewSource() async throws {
        let made = Made()
        let motion = Self.playing(Self.take, made: made)
        let next = Mutex<AsyncStream<OrientationChange>?>(nil)
        let standIn = Self.onSessionEnd(of: motion) {
            next.withLock { $0 = motion.orientationChanges(bufferingPolicy: .unbounded) }
            motion.start()
        }
        // The subscriber alone runs the first session (a start() here could come after it).
        let first = motion.orientationChanges(bufferingPolicy: .unbounded)
        let firstChanges = await first.reduce(into: [DeviceOrientation]()) { $0.append($1.deviceOrientation) }
        #expect(firstChanges == [.portrait, .landscapeLeft])
        #expect(await eventually { next.withLock { $0 } != nil })
        let second = try #require(next.withLock { $0 })
        let secondChanges = await second.reduce(into: [OrientationChange]()) { $0.append($1) }
        #expect(secondChanges.map(\.deviceOrientation) == [.portrait, .landscapeLeft])
        #expect((secondChanges.first?.sampleNanoseconds ?? .max) < 200_000_000)
        #expect(made.value == 2)
        withExtendedLifetime(standIn) {}
    }

    /// The same when a bounded simulation's time runs out while the display is blanked (the
    /// sensor paused): the next session gets a source of its own, not the exhausted one.
    @Test func aSessionStartedAsAPausedSimulationRunsOutGetsANewSource() async throws {
        let log = SourceLog()
        let monitor = TestPowerMonitor()
        monitor.set(PowerState(displayBlanked: true))
        let motion = MotionOrientation(source: { ProfileSource(.rest(), log: log, end: 1) },
                                       energy: EnergySettings(pollInterval: 0.05), monitor: monitor)
        let next = Mutex<AsyncStream<OrientationChange>?>(nil)
        let standIn = Self.onSessionEnd(of: motion) {
            next.withLock { $0 = motion.orientationChanges }
        }
        let first = motion.orientationChanges
        for await _ in first {}
        #expect(await eventually { next.withLock { $0 } != nil })
        let second = try #require(next.withLock { $0 })
        for await _ in second {}
        #expect(log.made == 2)
        #expect(log.starts.isEmpty, "paused throughout")
        withExtendedLifetime(standIn) {}
    }
}
