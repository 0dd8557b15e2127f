#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlumbLinux

/// Keeps the text console from drawing over a framebuffer program, and puts it back afterwards,
/// also when SIGINT, SIGTERM or SIGHUP ends the process.
///
/// Switching the virtual terminal to KD_GRAPHICS stops fbcon from drawing text and the blinking
/// cursor over the picture; KD_TEXT puts them back. Only a process on a VT (or with access to
/// /dev/tty0) can do this; elsewhere (over SSH, as a service) the framebuffer still works and the
/// console simply stays as it is. The corresponding ioctls are `KDGETMODE` and `KDSETMODE`
/// (<linux/kd.h>).
public final class ConsoleGuard {
    /// What happened to the console.
    public enum State: Equatable, Sendable {
        /// The VT at this path is in graphics mode until ``restore()``.
        case graphics(tty: String)
        /// No VT could be switched; the reason, for a verbose message.
        case unchanged(reason: String)
    }

    public private(set) var state: State
    private var fd: Int32 = -1
    private var ownsFD = false
    private var previousMode: Int32 = 0

    /// Switches the console to graphics mode: standard input if it is a VT, else `/dev/tty0`.
    public init(candidates: [String] = ["/dev/stdin", "/dev/tty0"]) {
        var reasons: [String] = []
        state = .unchanged(reason: "")
        for path in candidates {
            let isStdin = path == "/dev/stdin"
            let fd = isStdin ? 0 : FBSys.open(path, O_RDWR | O_NOCTTY)
            guard fd >= 0 else { reasons.append("\(path): \(FBSys.describe(-fd))"); continue }
            let mode = FBSys.consoleMode(fd)
            guard mode >= 0 else {
                reasons.append("\(path): not a virtual terminal")
                if !isStdin { FBSys.close(fd) }
                continue
            }
            let r = FBSys.setConsoleMode(fd, Int32(KD_GRAPHICS))
            guard r == 0 else {
                reasons.append("\(path): KDSETMODE: \(FBSys.describe(-r))")
                if !isStdin { FBSys.close(fd) }
                continue
            }
            self.fd = fd
            ownsFD = !isStdin
            previousMode = mode
            _ = plumb_cleanup_add_kd_mode(fd, mode)
            plumb_cleanup_install_signal_handlers()
            state = .graphics(tty: path)
            return
        }
        state = .unchanged(reason: reasons.joined(separator: "; "))
    }

    /// Puts the console back into the mode it had. Safe to call more than once.
    public func restore() {
        guard fd >= 0 else { return }
        _ = FBSys.setConsoleMode(fd, previousMode)
        plumb_cleanup_remove_fd(fd)
        if ownsFD { FBSys.close(fd) }
        fd = -1
    }

    deinit { restore() }
}

/// Bytes to write to a terminal when the process ends, also on SIGINT/SIGTERM/SIGHUP (such as
/// "show the cursor again" after a live terminal preview).
public enum TerminalCleanup {
    /// Registers `bytes` (at most 32) to be written to `fd` at exit or on a signal.
    public static func onExit(write bytes: [UInt8], to fd: Int32 = 1) {
        _ = bytes.withUnsafeBytes { plumb_cleanup_add_write(fd, $0.baseAddress, $0.count) }
        plumb_cleanup_install_signal_handlers()
    }

    /// Runs the registered writes now (a normal exit).
    public static func runNow() { plumb_cleanup_run() }
}

/// The size of a terminal in character cells.
public enum TerminalSize {
    /// Columns and rows of the terminal on `fd`, or nil when it is not a terminal.
    /// The corresponding ioctl is `TIOCGWINSZ`.
    public static func of(fd: Int32 = 1) -> (columns: Int, rows: Int)? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }
}
