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
final class KioskPrinter {
    let turns: KioskTurns
    let context: CommandContext
    /// The orientation whose failed turn was printed in the current run of failures.
    private var printedFailure: InterfaceOrientation?

    init(turns: KioskTurns, context: CommandContext) {
        self.turns = turns; self.context = context
    }

    /// Ticks the controller at `t` and prints what happened.
    func tick(at t: UInt64) {
        let reports = turns.tick(at: t)
        guard !reports.isEmpty else { return }
        for report in reports {
            print(report)
        }
        context.out.flush()
        context.err.flush()
    }

    /// At the end of the run: throws the last failure (its message and fix) when the screen does
    /// not show the orientation because its turn still fails.
    func finish() throws(CLIError) {
        if turns.isFailing, let failure = turns.lastFailure { throw .failure(failure.message, fix: failure.fix) }
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
