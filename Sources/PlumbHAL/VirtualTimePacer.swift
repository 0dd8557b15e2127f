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
    /// Virtual seconds per wall-clock second, at most: ``minimumSpeedup`` or more, `.infinity`
    /// for no pacing but ``minimumPauseNanoseconds``.
    public let speedup: Double
    /// The shortest sleep of a pace that has an origin, even when virtual time is behind.
    public let minimumPauseNanoseconds: UInt64
    private let wall: any MonotonicClock
    private var origin: (wall: UInt64, virtual: UInt64)?

    /// - Parameters:
    ///   - speedup: virtual seconds per wall-clock second (1: real time). Held to
    ///     ``minimumSpeedup`` or more (0 or less is that); `.infinity` waits only for
    ///     `minimumPauseNanoseconds`; not a number is 1.
    ///   - wall: the clock slept on.
    ///   - minimumPauseNanoseconds: the shortest sleep of a pace that has an origin.
    public init(speedup: Double, wall: any MonotonicClock, minimumPauseNanoseconds: UInt64 = 0) {
        self.speedup = speedup.isNaN ? 1 : max(speedup, Self.minimumSpeedup)
        self.wall = wall
        self.minimumPauseNanoseconds = minimumPauseNanoseconds
    }

    /// The slowest pace: a thousandth of real time (`plumb dbus --speed`'s least). A speedup of
    /// 0 or less, or one that is not a number, stopped the process (the precondition, or the
    /// conversion of the wait at the first pace).
    public static let minimumSpeedup = 0.001

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
        // Saturated: at a slow pace a long stretch of virtual time is a wait past UInt64's end.
        let wait = Double(virtualNanoseconds &- origin.virtual) / speedup
        let (due, over) = origin.wall.addingReportingOverflow(wait < 1.8e19 ? UInt64(wait) : UInt64.max)
        let pause = max(over ? UInt64.max &- now : due > now ? due - now : 0, minimumPauseNanoseconds)
        if pause > 0 { wall.sleep(nanoseconds: pause) }
    }
}
