import Synchronization

/// A source of monotonic time in nanoseconds, injected into everything that waits.
///
/// The system implementation (`SystemClock` in PlumbLinux) reads CLOCK_MONOTONIC, the clock of
/// GPIO edge timestamps. ``VirtualClock`` runs in virtual time: sleeping advances it at once, so a
/// 24-hour simulation takes seconds and every run is reproducible.
public protocol MonotonicClock: AnyObject, Sendable {
    /// Now, in nanoseconds since an arbitrary fixed point.
    var nowNanoseconds: UInt64 { get }
    /// Blocks the calling thread for `nanoseconds` (or advances virtual time by it).
    func sleep(nanoseconds: UInt64)
}

extension MonotonicClock {
    /// Now in seconds, for logs and CSV output.
    public var nowSeconds: Double { Double(nowNanoseconds) / 1e9 }
}

/// A clock that moves only when told to: by ``advance(by:)``, ``advance(to:)`` or ``sleep(nanoseconds:)``.
public final class VirtualClock: MonotonicClock {
    private let now = Mutex<UInt64>(0)

    public init(startNanoseconds: UInt64 = 0) {
        now.withLock { $0 = startNanoseconds }
    }

    public var nowNanoseconds: UInt64 { now.withLock { $0 } }

    public func sleep(nanoseconds: UInt64) { advance(by: nanoseconds) }

    public func advance(by nanoseconds: UInt64) {
        now.withLock { $0 &+= nanoseconds }
    }

    /// Moves to `time` if it is later than now; never moves backwards.
    public func advance(to time: UInt64) {
        now.withLock { $0 = max($0, time) }
    }
}

/// Durations in nanoseconds.
public enum Nanoseconds {
    public static let perMicrosecond: UInt64 = 1_000
    public static let perMillisecond: UInt64 = 1_000_000
    public static let perSecond: UInt64 = 1_000_000_000

    public static func seconds(_ s: Double) -> UInt64 { UInt64((s * 1e9).rounded()) }
    public static func milliseconds(_ ms: Double) -> UInt64 { UInt64((ms * 1e6).rounded()) }
}
