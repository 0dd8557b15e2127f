import Foundation
import PlumbHAL

/// Real time for code that paces a simulation against it without linking PlumbLinux (whose
/// `SystemClock` reads CLOCK_MONOTONIC, the clock of GPIO edge timestamps): the test suites'
/// sample sources (``VirtualTimePacer``). Swift's `ContinuousClock`, slept with `Thread.sleep`.
public final class WallClock: MonotonicClock {
    private let start = ContinuousClock.now

    public init() {}

    public var nowNanoseconds: UInt64 {
        let elapsed = ContinuousClock.now - start
        return UInt64(elapsed.components.seconds) * 1_000_000_000 + UInt64(elapsed.components.attoseconds / 1_000_000_000)
    }

    public func sleep(nanoseconds: UInt64) {
        guard nanoseconds > 0 else { return }
        Thread.sleep(forTimeInterval: Double(nanoseconds) / 1e9)
    }
}
