import CSystemd
import Glibc

/// Tells systemd how the service is doing (sd_notify(3)): ready, reloading, stopping, alive.
///
/// Under a `Type=notify` unit systemd sets `$NOTIFY_SOCKET`; without it every call is a no-op,
/// so the daemon runs the same from a terminal. With `WatchdogSec=` systemd also sets
/// `$WATCHDOG_USEC`, and the service must send `WATCHDOG=1` at least that often.
///
/// The corresponding C calls are `sd_notify` and `sd_watchdog_enabled` (libsystemd).
public final class SystemdNotifier: Sendable {
    public init() {}

    /// Whether systemd is listening (`$NOTIFY_SOCKET` is set).
    public var isActive: Bool { getenvString("NOTIFY_SOCKET") != nil }

    /// Sends newline-separated `KEY=VALUE` assignments ("READY=1\nSTATUS=running").
    ///
    /// - Throws: ``SystemdNotifyError`` when the socket is set but the datagram could not be sent.
    public func notify(_ state: String) throws(SystemdNotifyError) {
        let result = sd_notify(0, state)
        if result < 0 { throw SystemdNotifyError(errno: -result, state: state) }
    }

    /// The watchdog interval systemd expects, in nanoseconds, or `nil` when the watchdog is off
    /// (or meant for another process).
    public var watchdogIntervalNanoseconds: UInt64? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return microseconds * 1_000
    }

    private func getenvString(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }
}

/// A notification that could not be delivered.
public struct SystemdNotifyError: Error, Sendable, Equatable, CustomStringConvertible {
    public var errno: Int32
    public var state: String
    public var description: String {
        "sd_notify(\(state.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " "))) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
