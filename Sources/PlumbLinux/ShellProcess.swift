#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// A command line run by `/bin/sh -c` in a process group of its own, waited for on one thread and
/// stopped, group and all, from another.
///
/// `plumb watch --exec` runs its command this way so that the end of a watch can stop it cleanly:
/// - Its own group (the group id is the shell's process id): a stop signal reaches what the shell
///   started too (a pipeline, the programs of a script), and Ctrl-C at a terminal, which the
///   kernel sends to the foreground group only, reaches plumb, which then gives the command its
///   grace time and stops it itself.
/// - It starts with no signal blocked and SIGINT, SIGTERM, SIGHUP and SIGPIPE at their default
///   actions: plumb ignores SIGPIPE (``SignalMonitor``) and an ignored signal stays ignored across
///   exec; libdispatch's workers block every signal and posix_spawn keeps the caller's mask.
/// - ``waitUntilExit()`` reaps the shell only under the lock ``signalGroup(_:)`` sends under,
///   after waiting without reaping (`waitid` with `WNOWAIT`): until it is reaped the process id
///   and the group id stay the command's, so a stop sent the moment the command ends can never
///   reach a process that was given the id afterwards.
///
/// The corresponding C calls are `posix_spawn` (with `POSIX_SPAWN_SETPGROUP`), `waitid`,
/// `waitpid` and `kill` with a negative process id.
public final class ShellProcess: Sendable {
    /// How a command ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        /// It exited with this status (0–255; the shell's 126 and 127 mean "not executable" and
        /// "not found", POSIX.1-2017 XCU 2.8.2).
        case exited(Int32)
        /// A signal ended it (its number).
        case signaled(Int32)
        /// It ended, but how could not be learned (waitpid's errno; ECHILD when something else
        /// reaped it).
        case unknown(errno: Int32)

        /// "exited with status 3", "was ended by signal 15 (SIGTERM)".
        public var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signaled(let number): "was ended by signal \(number)" + (Self.names[number].map { " (\($0))" } ?? "")
            case .unknown(let errno): "ended, how is unknown (waitpid: \(Sys.describe(errno: errno)))"
            }
        }

        private static let names: [Int32: String] = [SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGKILL: "SIGKILL",
                                                      SIGPIPE: "SIGPIPE", SIGTERM: "SIGTERM", SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT"]
    }

    /// The shell's process id, which is also the group's id.
    public let processID: Int32
    /// Set once the shell has been reaped, under the lock ``signalGroup(_:)`` takes.
    private let ended = Mutex<Termination?>(nil)

    private init(processID: Int32) { self.processID = processID }

    /// Starts `/bin/sh -c command` with exactly `environment`, standard output and error shared
    /// with plumb, standard input from /dev/null (a command in a background group that read
    /// plumb's terminal would be stopped by SIGTTIN; one that read a pipe would take plumb's input).
    ///
    /// - Throws: ``ShellProcessError`` when the shell cannot be started (posix_spawn's errno:
    ///   ENOENT when there is no /bin/sh, EAGAIN or ENOMEM when the system is out of processes).
    public static func start(_ command: String, environment: [String: String]) throws(ShellProcessError) -> ShellProcess {
        let result = Sys.spawnShell(command, environment: environment.map { "\($0.key)=\($0.value)" })
        if result < 0 { throw ShellProcessError(errno: -result) }
        return ShellProcess(processID: result)
    }

    /// Blocks until the command ends and reaps it; later calls return the same termination.
    public func waitUntilExit() -> Termination {
        if let done = ended.withLock({ $0 }) { return done }
        Sys.waitForExit(processID)
        return ended.withLock { state in
            if let done = state { return done }
            let termination = Sys.reap(processID)
            state = termination
            return termination
        }
    }

    /// Sends `signal` to the command's whole process group, unless it has ended and been reaped
    /// (then there is nothing of it to signal, and the id may be another's). Returns whether it
    /// was sent.
    @discardableResult
    public func signalGroup(_ signal: Int32) -> Bool {
        ended.withLock { state in
            guard state == nil else { return false }
            return Sys.kill(-processID, signal) == 0
        }
    }
}

/// Why a shell command could not be started.
public struct ShellProcessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// posix_spawn's error number.
    public var errno: Int32

    public var description: String { "cannot start /bin/sh: \(Sys.describe(errno: errno))" }
}
