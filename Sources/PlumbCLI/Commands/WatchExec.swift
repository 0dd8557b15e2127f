import Foundation
import PlumbLinux
import PlumbOrientation
import Synchronization

/// `plumb watch --exec CMD`: runs CMD for the orientation changes on a thread of its own, so that
/// printing a change never waits for it.
///
/// The audit that asked for this found the command run inside the printer: `--exec 'sleep 30'`
/// printed its first change and then nothing for 30 s, the change at 5.43 s of the simulated tour
/// never appeared, and killing plumb left `sh -c 'sleep 30'` running.
///
/// - One at a time, in order: each run is `/bin/sh -c CMD` (``ShellProcess``) with
///   PLUMB_DEVICE_ORIENTATION and PLUMB_INTERFACE_ORIENTATION set to the change it runs for.
/// - Coalesced: changes are not queued behind a running command. The one that comes while the
///   command runs waits, and a later one takes its place (the earlier is skipped), so the next
///   run acts on the latest orientation — what a hook that rotates a screen or posts a state
///   wants, and what keeps a slow command from falling ever further behind. Stderr says so once
///   (at the first skip) and counts the skipped at the end.
/// - The end (``finish(shouldHurry:)``): the running command and a waiting change get
///   ``endGrace`` (2 s) in all; then the command's process group gets SIGTERM and, after
///   ``termGrace`` (1 s), SIGKILL. 2 s lets a hook that is finishing its work (a D-Bus call, an
///   `xrandr`, which take tens of milliseconds) end by itself, and keeps Ctrl-C answered within
///   about 3 s. A second SIGINT or SIGTERM during the grace stops the command at once. Only a
///   command still running is signalled (``ShellProcess/signalGroup(_:)`` refuses once its shell
///   was reaped, as its id may be reused): what it left behind in the background when its shell
///   ended is not stopped.
/// - Status 127 (the shell found no such command) and 126 (found, not executable) are told once,
///   with the fix; later runs that end the same way are counted and the count told at the end.
///   Other failures are told for each run, as before: they may depend on the change.
final class WatchExec: Sendable {
    /// How long the end of a watch waits for the running command (and a waiting change's run),
    /// in seconds, before it stops the command.
    static let endGrace = 2.0
    /// How long the command's process group has after SIGTERM before SIGKILL, in seconds.
    static let termGrace = 1.0

    /// What the runs came to, told at the end.
    struct Summary: Sendable, Equatable {
        /// Changes handed to the runner.
        var changes = 0
        /// Runs started.
        var runs = 0
        /// Changes not run for, each replaced by a later one while the command ran (a change still
        /// waiting when the end's grace ran out is not counted here: the end tells it).
        var skipped = 0
        /// Runs that ended with status 127 (not found) and 126 (not executable).
        var notFound = 0
        var notExecutable = 0
    }

    private struct Change: Sendable {
        var device: DeviceOrientation
        var interface: InterfaceOrientation
    }

    private struct State: Sendable {
        /// The change the runner runs next, whatever comes meanwhile: set when the command was
        /// idle (the thread may not have woken yet), or the waiting change once a run ends.
        var next: Change?
        /// The change waiting while a run is due or under way; a later one replaces it.
        var pending: Change?
        var running: ShellProcess?
        /// The watch ended: run what waits, then stop.
        var closing = false
        /// The end's grace ran out: start nothing more.
        var abandoned = false
        var saidCoalescing = false
        var summary = Summary()
    }

    let command: String
    private let environment: [String: String]
    private let err: Output
    private let state = Mutex(State())
    /// Wakes the runner thread: a change is waiting, or the watch is closing.
    private let work = DispatchSemaphore(value: 0)
    /// Signalled once, when the runner thread returns.
    private let stopped = DispatchSemaphore(value: 0)

    /// Starts the runner thread for `command`; each run's environment is `environment` with the
    /// change's two variables.
    init(command: String, environment: [String: String], err: Output) {
        self.command = command
        self.environment = environment
        self.err = err
        let thread = Thread { [self] in runLoop() }
        thread.name = "plumb watch --exec"
        thread.start()
    }

    /// Hands a change to the runner without waiting: it runs now if the command is idle, else next
    /// (replacing a change that was waiting).
    func submit(device: DeviceOrientation, interface: InterfaceOrientation) {
        let sayCoalescing: Bool = state.withLock { s in
            guard !s.closing else { return false }
            s.summary.changes += 1
            let change = Change(device: device, interface: interface)
            if s.next == nil, s.running == nil {
                s.next = change
                return false
            }
            var say = false
            if s.pending != nil {
                s.summary.skipped += 1
                say = !s.saidCoalescing
                s.saidCoalescing = true
            }
            s.pending = change
            return say
        }
        if sayCoalescing {
            err.line("plumb watch: --exec: changes came while the command still ran; it runs next with the latest only (the ones in between are skipped; counted at the end)")
            err.flush()
        }
        work.signal()
    }

    /// Ends the runs: waits up to ``endGrace`` for the running command and a waiting change's
    /// run, or until `shouldHurry` (checked every 0.1 s) says to stop now; then stops the command
    /// (SIGTERM to its group, SIGKILL after ``termGrace``). Tells the counts on stderr.
    func finish(shouldHurry: () -> Bool = { false }) -> Summary {
        state.withLock { $0.closing = true }
        work.signal()
        let deadline = DispatchTime.now() + Self.endGrace
        var ended = false
        while !ended {
            ended = stopped.wait(timeout: min(deadline, .now() + 0.1)) == .success
            if !ended, DispatchTime.now() >= deadline || shouldHurry() { break }
        }
        if !ended {
            let (process, dropped) = state.withLock { s in
                s.abandoned = true
                let dropped = s.next != nil || s.pending != nil
                s.next = nil
                s.pending = nil
                return (s.running, dropped)
            }
            if let process, process.signalGroup(SIGTERM) {
                // A process of the group stopped (by SIGTSTP, or a read of the terminal, /dev/tty,
                // from the background: SIGTTIN) takes SIGTERM only once it runs again.
                _ = process.signalGroup(SIGCONT)
                err.line("plumb watch: --exec command still running at the end (after \(Self.endGrace.formatted) s at most): sent SIGTERM to its process group \(process.processID)"
                         + (dropped ? "; the change waiting for it is not run" : ""))
                err.flush()
                ended = stopped.wait(timeout: .now() + Self.termGrace) == .success
                if !ended, process.signalGroup(SIGKILL) {
                    err.line("plumb watch: --exec command did not end within \(Self.termGrace.formatted) s of SIGTERM: sent SIGKILL to its process group \(process.processID)")
                    err.flush()
                }
            }
            // SIGKILL ends it at once unless it is stuck in the kernel; plumb does not wait on that.
            if !ended { _ = stopped.wait(timeout: .now() + Self.termGrace) }
        }
        let summary = state.withLock { $0.summary }
        if summary.skipped > 0 {
            err.line("plumb watch: --exec: \(summary.skipped) of \(summary.changes) changes were skipped, each replaced by a later one while the command ran")
        }
        if summary.notFound > 1 { err.line("plumb watch: --exec command exited with status 127 (not found) in \(summary.notFound) of \(summary.runs) runs") }
        if summary.notExecutable > 1 { err.line("plumb watch: --exec command exited with status 126 (not executable) in \(summary.notExecutable) of \(summary.runs) runs") }
        err.flush()
        return summary
    }

    /// The fix for a command the shell could not find (127) or execute (126).
    static func fix(status: Int32) -> String {
        (status == 127 ? "Check the spelling of the command and that its program is on PATH (or give its full path)"
                       : "Make the file executable (chmod +x FILE), or run it through its interpreter (sh FILE); check the path")
            + "; quote the whole command as one argument: --exec 'CMD ARGS'."
    }

    // MARK: - The runner thread

    private func runLoop() {
        defer { stopped.signal() }
        while true {
            // Started under the lock, so that `finish` either sees the process to stop or
            // has set `abandoned` before it could start.
            let next: Result<(ShellProcess, Change)?, ShellProcessError>? = state.withLock { s in
                if s.abandoned { return nil }
                if s.next == nil { swap(&s.next, &s.pending) }
                guard let change = s.next else { return s.closing ? nil : .success(nil) }
                s.next = nil
                var environment = self.environment
                environment["PLUMB_DEVICE_ORIENTATION"] = change.device.rawValue
                environment["PLUMB_INTERFACE_ORIENTATION"] = change.interface.rawValue
                do throws(ShellProcessError) {
                    let process = try ShellProcess.start(command, environment: environment)
                    s.running = process
                    s.summary.runs += 1
                    return .success((process, change))
                } catch {
                    return .failure(error)
                }
            }
            switch next {
            case nil:
                return
            case .success(nil):
                work.wait()
            case .failure(let error):
                err.line("plumb watch: --exec: \(error)")
                err.flush()
            case .success(let (process, change)?):
                let termination = process.waitUntilExit()
                let (abandoned, summary) = state.withLock { s in
                    s.running = nil
                    // In order: the waiting change is due before any that comes after this.
                    swap(&s.next, &s.pending)
                    if termination == .exited(127) { s.summary.notFound += 1 }
                    if termination == .exited(126) { s.summary.notExecutable += 1 }
                    return (s.abandoned, s.summary)
                }
                // A command stopped at the end is told by `finish`.
                if !abandoned { report(termination, change: change, summary: summary) }
            }
        }
    }

    private func report(_ termination: ShellProcess.Termination, change: Change, summary: Summary) {
        switch termination {
        case .exited(0):
            return
        case .exited(127):
            guard summary.notFound == 1 else { return }
            err.line("plumb watch: --exec command '\(command)' exited with status 127: the shell found no command by that name (later runs that do so are counted, not told)")
            err.line("Fix: \(Self.fix(status: 127))")
        case .exited(126):
            guard summary.notExecutable == 1 else { return }
            err.line("plumb watch: --exec command '\(command)' exited with status 126: the shell found it but could not execute it (later runs that do so are counted, not told)")
            err.line("Fix: \(Self.fix(status: 126))")
        default:
            err.line("plumb watch: --exec command \(termination) (run for device \(change.device.rawValue), interface \(change.interface.rawValue))")
        }
        err.flush()
    }
}

extension Watch {
    /// Ends `printer`'s --exec runs (``WatchExec/finish(shouldHurry:)``: the running command's
    /// grace, then SIGTERM and SIGKILL to its process group) and fails when every run exited with
    /// status 127 or 126.
    ///
    /// Why a failure then, although the changes were printed: the command never did what the
    /// user asked for any change (a typo, a PATH without it, a script without its x bit, or
    /// `--exec` given a command and its arguments unquoted), and the exit status is all that a
    /// wrapper script or a systemd unit sees. The first such run is told with its fix at once,
    /// so a long watch does not hide it until the end. When some runs succeed, the failures
    /// depend on the run (a command a script runs in one branch), and the watch exits 0; a watch
    /// with no change ran nothing and exits 0 too.
    static func finishExec(_ printer: ChangePrinter) throws(CLIError) {
        guard let exec = printer.exec else { return }
        let summary = exec.finish(shouldHurry: printer.shouldStop ?? { false })
        guard summary.runs > 0, summary.notFound + summary.notExecutable == summary.runs else { return }
        let status: Int32 = summary.notFound > 0 ? 127 : 126
        let what = summary.notExecutable == 0 ? "status 127 (not found)"
            : summary.notFound == 0 ? "status 126 (not executable)" : "status 127 (not found) or 126 (not executable)"
        throw CLIError.failure("--exec command '\(exec.command)' never ran: \(summary.runs == 1 ? "its run" : "each of its \(summary.runs) runs") exited with \(what).",
                               fix: WatchExec.fix(status: status))
    }
}

private extension Double {
    /// "2", "0.5": seconds as a user wrote them.
    var formatted: String { self == rounded() ? String(Int(self)) : String(self) }
}
