import PlumbDisplay
import PlumbOrientation

/// What `plumb kiosk` prints of its turns: a line per event on standard output, and on standard
/// error what `plumb run` logs of failing turns.
///
/// Standard output gets `TIME s  ORIENTATION: ACTION` per turn, and a line for an orientation
/// not in --allow, one held by the lock, a turn lost on the screen (read back) and a turn that
/// failed; a failed turn tried again (``KioskTurns``) prints no more lines until it works or
/// another orientation's turn fails. Standard error gets the first failure of a run of them as
/// `Warning: …` and `Fix: …` (when, and how often, it is tried again), a different failure
/// again, `Error: …` once when turns have failed for a minute, and a note when the turn works
/// after failed tries.
///
/// The turns run on the kiosk's worker (``KioskWorker``: its own thread on the board's IMU, the
/// loop's in virtual time); the loop prints the reports it takes from it, in order.
final class KioskPrinter {
    let context: CommandContext
    /// The orientation whose failed turn was printed in the current run of failures.
    private var printedFailure: InterfaceOrientation?

    init(context: CommandContext) {
        self.context = context
    }

    /// Prints the reports of the worker's ticks (``KioskWorker/takeReports()``), oldest first.
    func show(_ reports: [KioskTurns.Report]) {
        guard !reports.isEmpty else { return }
        for report in reports {
            print(report)
        }
        context.out.flush()
        context.err.flush()
    }

    /// Ticks `worker` at `t` and prints what its ticks reported (with ``KioskWorker/Placement/callersThread``,
    /// this one's; on its own thread, those that ended since the last call).
    func tick(_ worker: KioskWorker, at t: UInt64) {
        worker.tick(at: t)
        show(worker.takeReports())
    }

    /// At the end of the run, once the worker has ended: throws the last failure (its message and
    /// fix) when the screen does not show the orientation because its turn still fails.
    static func finish(_ worker: KioskWorker) throws(CLIError) {
        if let failure = worker.failureAfterEnd() { throw failure }
    }

    private func print(_ report: KioskTurns.Report) {
        let out = context.out, err = context.err
        switch report.event {
        case .rotated(let o, let action, let t):
            printedFailure = nil
            out.line("\(Kiosk.seconds(t)) s  \(o.rawValue): \(action)")
        case .ignoredNotAllowed(let o, let t):
            out.line("\(Kiosk.seconds(t)) s  \(o.rawValue): not in --allow, screen stays")
        case .failed(let o, let action, let t):
            if printedFailure != o {
                printedFailure = o
                out.line("\(Kiosk.seconds(t)) s  \(o.rawValue): \(action) failed, screen stays")
            }
        case .heldByLock(let o, let t):
            out.line("\(Kiosk.seconds(t)) s  \(o.rawValue): locked, screen stays")
        case .drifted(let o, let shown, let t):
            out.line("\(Kiosk.seconds(t)) s  \(o.rawValue): the screen shows \(shown) now, turning it again")
        }
        switch report.note {
        case .warning(let message, let fix)?:
            err.line("Warning: \(message)")
            if let fix { err.line("Fix: \(fix)") }
        case .error(let message, let fix)?:
            err.line("Error: \(message)")
            if let fix { err.line("Fix: \(fix)") }
        case .recovered(let failures, let nanoseconds)?:
            if case .rotated(let o, _, _) = report.event {
                err.line("plumb kiosk: turned the screen to \(o.rawValue) after \(failures) failed tr\(failures == 1 ? "y" : "ies") in \(KioskTurns.seconds(nanoseconds))")
            }
        case nil:
            break
        }
    }
}
