import PlumbHAL

/// The kernel's CLOCK_MONOTONIC, the clock of GPIO edge timestamps.
///
/// `sleep` uses nanosleep(2) and resumes after signals, so it never returns early.
/// The corresponding calls are `clock_gettime(CLOCK_MONOTONIC)` and `nanosleep`.
public final class SystemClock: MonotonicClock {
    public init() {}

    public var nowNanoseconds: UInt64 { Sys.monotonicNanoseconds() }

    public func sleep(nanoseconds: UInt64) {
        guard nanoseconds > 0 else { return }
        Sys.sleep(nanoseconds: nanoseconds)
    }
}
