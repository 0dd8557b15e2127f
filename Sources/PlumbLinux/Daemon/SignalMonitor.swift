#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// A signal a daemon acts on.
public enum DaemonSignal: String, Sendable, Equatable, CaseIterable {
    /// SIGHUP: reload the configuration.
    case reload
    /// SIGTERM (systemctl stop) or SIGINT (Ctrl-C): stop cleanly.
    case terminate

    var numbers: [Int32] {
        switch self {
        case .reload: [SIGHUP]
        case .terminate: [SIGTERM, SIGINT]
        }
    }
}

/// A signal received: what it asks for, and which signal it came as (``DaemonSignal/terminate``
/// is SIGTERM from `systemctl stop` or SIGINT from Ctrl-C), so that a log can name it.
public struct ReceivedSignal: Sendable, Equatable, CustomStringConvertible {
    public var action: DaemonSignal
    /// SIGHUP, SIGTERM or SIGINT.
    public var number: Int32

    public init(action: DaemonSignal, number: Int32) {
        self.action = action
        self.number = number
    }

    /// "SIGHUP", "SIGTERM" or "SIGINT".
    public var description: String {
        switch number {
        case SIGHUP: "SIGHUP"
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        default: "signal \(number)"
        }
    }
}

/// Signals received and not yet taken, one bit per signal number; written by the handler.
private let pendingSignals = Atomic<UInt64>(0)

/// Catches SIGHUP, SIGTERM and SIGINT and hands them to the daemon's loop as values.
///
/// The handler only sets a bit in an atomic word (async-signal-safe); the loop calls ``take()``
/// between steps, which are bounded (the sensor wait has a timeout), so a signal is acted on
/// within one step. Handlers are installed with SA_RESTART so interrupted reads and writes in
/// other code resume instead of failing with EINTR. SIGPIPE is ignored.
///
/// The corresponding C call is `sigaction`.
public final class SignalMonitor: Sendable {
    public static let shared = SignalMonitor()

    private init() {}

    /// Installs the handlers and unblocks the signals on the calling thread. Idempotent.
    ///
    /// The unblocking matters: a process started by a thread that blocks signals (libdispatch's
    /// workers block them all, and posix_spawn keeps the mask) would otherwise never see them.
    public func install() throws(SignalMonitorError) {
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for number in DaemonSignal.allCases.flatMap(\.numbers) { sigaddset(&unblock, number) }
        let result = pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        if result != 0 { throw SignalMonitorError(signal: 0, errno: result) }
        for number in DaemonSignal.allCases.flatMap(\.numbers) {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signo in
                _ = pendingSignals.bitwiseOr(UInt64(1) << UInt64(signo), ordering: .sequentiallyConsistent)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            if sigaction(number, &action, nil) != 0 { throw SignalMonitorError(signal: number, errno: errno) }
        }
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        sigemptyset(&ignore.sa_mask)
        if sigaction(SIGPIPE, &ignore, nil) != 0 { throw SignalMonitorError(signal: SIGPIPE, errno: errno) }
    }

    /// The signals received since the last call, terminate first.
    public func take() -> [DaemonSignal] {
        var signals: [DaemonSignal] = []
        for received in takeReceived() where !signals.contains(received.action) { signals.append(received.action) }
        return signals
    }

    /// The signals received since the last call, each as the signal it came as: SIGTERM, then
    /// SIGINT, then SIGHUP (those that stop first).
    public func takeReceived() -> [ReceivedSignal] {
        let bits = pendingSignals.exchange(0, ordering: .sequentiallyConsistent)
        return [DaemonSignal.terminate, .reload].flatMap { signal in
            signal.numbers.filter { bits & (UInt64(1) << UInt64($0)) != 0 }.map { ReceivedSignal(action: signal, number: $0) }
        }
    }

    /// Sends `signal` to this process (tests).
    public func raise(_ signal: DaemonSignal) {
        _ = Glibc.raise(signal.numbers[0])
    }
}

/// A handler that could not be installed.
public struct SignalMonitorError: Error, Sendable, Equatable, CustomStringConvertible {
    public var signal: Int32
    public var errno: Int32
    public var description: String {
        (signal == 0 ? "pthread_sigmask" : "sigaction(\(signal))") + " failed: \(String(cString: strerror(errno)))"
    }
}
