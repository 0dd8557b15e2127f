#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlumbLinux

/// The two ways a user locks a kiosk's orientation: a lock file that exists, or SIGUSR1, which
/// toggles the lock (`kill -USR1 $(pidof plumb)`). Read from any thread (`plumb kiosk`'s kiosk
/// thread): the file's existence, and a count the signal handler keeps atomically.
public final class OrientationLockSources: Sendable {
    /// The lock file, if any.
    public let lockFile: String?
    private let signalBase: Int

    /// - Parameter listenForSignal: install the SIGUSR1 handler (counts signals; async-signal-safe).
    public init(lockFile: String?, listenForSignal: Bool = true) {
        self.lockFile = lockFile
        if listenForSignal { plumb_usr1_install() }
        signalBase = Int(plumb_usr1_count())
    }

    /// True when the lock file exists (stat(2) succeeds).
    public var fileLocked: Bool {
        guard let lockFile else { return false }
        var info = stat()
        return lockFile.withCString { stat($0, &info) } == 0
    }

    /// True after an odd number of SIGUSR1 signals.
    public var signalLocked: Bool { (Int(plumb_usr1_count()) - signalBase) % 2 == 1 }

    /// Either lock.
    public var isLocked: Bool { fileLocked || signalLocked }
}
