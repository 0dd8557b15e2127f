import Foundation
import PlumbDrivers
import PlumbHAL
import Synchronization
import Testing
@testable import PlumbOrientation

/// A failing source is tried again at most once a second of wall time, whatever its clock: the
/// pause on a virtual clock takes no time, and a source whose reads always fail was retried in
/// a tight loop (about 214 000 times a second).
@Suite struct ReaderRetryTests {
    /// Counts what the reader did with its sources.
    final class Counts: Sendable {
        let made = Mutex(0)
        let reads = Mutex(0)
    }

    /// A source on a virtual clock whose every read fails.
    final class FailingSource: MotionSampleSource {
        let name = "failing sensor"
        let clock: any MonotonicClock = VirtualClock()
        let counts: Counts
        init(_ counts: Counts) { self.counts = counts; counts.made.withLock { $0 += 1 } }
        func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration { configuration }
        func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
            counts.reads.withLock { $0 += 1 }
            throw .other("no answer at 0x68 on /dev/i2c-1")
        }
        func stop() throws(MotionSourceError) {}
    }

    @Test func aFailingSourceOnAVirtualClockIsRetriedOnceASecond() async throws {
        let counts = Counts()
        let motion = MotionOrientation(source: { FailingSource(counts) })
        let began = ContinuousClock.now
        motion.start()
        // Tried again once, after a second.
        #expect(await eventually { counts.made.withLock { $0 } >= 2 })
        try await Task.sleep(for: .milliseconds(300))
        motion.stop()
        #expect(await eventually { !motion.state.withLock { $0.readerRunning } })
        let elapsed = ContinuousClock.now - began
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        // One try at the start, then at most one a second.
        let most = Int(seconds) + 1
        #expect(counts.reads.withLock { $0 } <= most, "\(counts.reads.withLock { $0 }) reads in \(seconds) s")
        #expect(counts.made.withLock { $0 } <= most)
        #expect(seconds >= 1, "the retry waited a second")
        #expect(motion.lastError == "failing sensor: no answer at 0x68 on /dev/i2c-1")
    }

    /// stop() during the pause ends it: the reader leaves without waiting out the second.
    @Test func stopEndsThePauseBeforeARetry() async throws {
        let counts = Counts()
        let motion = MotionOrientation(source: { FailingSource(counts) })
        motion.state.withLock { $0.retryWallInterval = 3600 }
        motion.start()
        #expect(await eventually { counts.reads.withLock { $0 } >= 1 })
        motion.stop()
        #expect(await eventually(300) { !motion.state.withLock { $0.readerRunning } })
        #expect(counts.made.withLock { $0 } == 1)
    }
}
