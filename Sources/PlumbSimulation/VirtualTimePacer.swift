import Foundation

/// Keeps a virtual-time sample source at most `speedup` times ahead of real time, for sources
/// that would otherwise produce samples as fast as their reader takes them.
///
/// A source with no end that nothing paces keeps its reader thread busy for as long as whoever
/// started it waits on something else. In the test suites (Swift Testing runs every test at once),
/// a handful of such readers left the two-thread cooperative pool a fraction of a two-core
/// machine: under AddressSanitizer the whole run took about four times as long (2026-12-07, with
/// gdb: every busy thread outside the pool was a test source's reader).
public struct VirtualTimePacer: Sendable {
    /// Virtual seconds per real second, at most.
    public let speedup: Double
    private var origin: (real: ContinuousClock.Instant, virtual: UInt64)?

    public init(speedup: Double) {
        precondition(speedup > 0, "a pacer's speedup must be positive")
        self.speedup = speedup
    }

    /// Starts over: the next ``pace(virtualNanoseconds:)`` is the new origin (at a source's
    /// restart, real time went on while it was stopped and virtual time did not).
    public mutating func reset() { origin = nil }

    /// Sleeps until real time since the origin has caught up with `virtualNanoseconds / speedup`,
    /// and at least 0.2 ms, so a caller in a loop never spins.
    public mutating func pace(virtualNanoseconds: UInt64) {
        let now = ContinuousClock.now
        guard let origin else {
            origin = (now, virtualNanoseconds)
            return
        }
        let due = Double(virtualNanoseconds &- origin.virtual) / 1e9 / speedup
        let ahead = due - (now - origin.real) / .seconds(1)
        Thread.sleep(forTimeInterval: max(ahead, 0.0002))
    }
}
