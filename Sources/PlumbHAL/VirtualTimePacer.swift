/// Keeps a virtual-time sample source at most `speedup` times ahead of a wall clock: after each
/// batch, sleeps until the wall time since the origin has caught up with the virtual time since it
/// divided by `speedup`. The first ``pace(virtualNanoseconds:)`` (and the first after ``reset()``,
/// or one whose virtual time went back) sets the origin.
///
/// Two users: `plumb … --simulate` plays the emulated chip at real time (PlumbCLI's
/// `PacedSampleSource`, speedup 1, on `SystemClock`), and the test suites' sources with no end
/// run at most 20 times real time with a minimum pause, so that a reader does not spin. Unpaced
/// (0.2 ms a batch and no more, or nothing), such readers stayed busy for as long as their tests
/// waited on Swift Testing's two-thread pool, which runs every test at once: under
/// AddressSanitizer the whole run took about four times as long (2026-12-07, found with gdb).
public struct VirtualTimePacer: Sendable {
    /// Virtual seconds per wall-clock second, at most.
    public let speedup: Double
    /// The shortest sleep of a pace that has an origin, even when virtual time is behind.
    public let minimumPauseNanoseconds: UInt64
    private let wall: any MonotonicClock
    private var origin: (wall: UInt64, virtual: UInt64)?

    public init(speedup: Double, wall: any MonotonicClock, minimumPauseNanoseconds: UInt64 = 0) {
        precondition(speedup > 0, "a pacer's speedup must be positive")
        self.speedup = speedup
        self.wall = wall
        self.minimumPauseNanoseconds = minimumPauseNanoseconds
    }

    /// Starts over (at a source's stop or restart: wall time goes on meanwhile, virtual time does not).
    public mutating func reset() { origin = nil }

    /// Sleeps until the wall clock has caught up with `virtualNanoseconds` (at least
    /// ``minimumPauseNanoseconds``), or sets the origin.
    public mutating func pace(virtualNanoseconds: UInt64) {
        let now = wall.nowNanoseconds
        guard let origin, virtualNanoseconds >= origin.virtual else {
            origin = (now, virtualNanoseconds)
            return
        }
        let due = origin.wall &+ UInt64(Double(virtualNanoseconds &- origin.virtual) / speedup)
        let pause = max(due > now ? due - now : 0, minimumPauseNanoseconds)
        if pause > 0 { wall.sleep(nanoseconds: pause) }
    }
}
