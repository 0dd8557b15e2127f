import PlumbDisplay
import PlumbHAL
import PlumbOrientation

/// `outputs.kiosk`: the screen turned to follow the interface orientation through the display
/// module's ``KioskController`` (hold-off, allowed set) and backend (wlr-randr, xrandr, fbcon or a
/// command). Restoring turns the screen back upright.
///
/// A turn that fails is tried again until it works, and what the screen shows is read back
/// (``KioskTurns``, as `plumb kiosk` does): plumb.service may start before the compositor or X
/// server it turns (nothing orders a desktop session before it). The first failure of a run is
/// logged as a warning with its fix, a different failure again, a failure that lasts
/// ``KioskTurns/failingLong`` once as an error, and the turn that finally works says how long it took.
///
/// The tools run on the kiosk's own thread (``KioskWorker``), never in the daemon's loop: the loop
/// passes each orientation on and ticks the controller by leaving requests (the newest wins while
/// a tool runs), and logs what the thread reports at its next step. On stop the tool under way
/// is waited for (within its deadline) before the screen is turned upright; a reload waits for it
/// likewise before it hands the screen over, so the next output gets what the screen shows.
///
/// Across a SIGHUP reload whose configuration turns the same screen (the same method, output and
/// command), the screen keeps its rotation: the old output hands it over (``handOver(to:into:)``)
/// instead of turning it upright, and the new one starts from it as what the screen shows, turning
/// only when a settled allowed face differs. A kept rotation the new `orientation.interfaceOrientations`
/// leaves out stays too, as a fresh start leaves the screen as it finds it, until an allowed face
/// settles; the log says so.
final class KioskDaemonOutput: DaemonOutput {
    let name: String
    /// How the screen is turned.
    let backend: KioskBackend
    let clock: any MonotonicClock
    /// Runs the controller and its tools (``KioskTurns``), on its own thread in `plumb run`.
    let worker: KioskWorker
    /// Which orientation to follow before and after an allowed face settled (on the loop's thread).
    private var gate: KioskTurns.Gate
    private var log: [DaemonEvent] = []
    /// Set once the screen is handed over to a reload's next output: ``restore()`` leaves it.
    private var handedOver = false
    /// The screen a reload handed over, when this output took it.
    private let kept: KioskHandover?
    /// The worker's end was waited for in vain (its tool outlived ``KioskWorker/endWait``): later
    /// ends do not wait again.
    private var workerHung = false

    /// `settings.retry` and `settings.verifyInterval` default to ``KioskTurns``'s: the daemon
    /// always tries a failed turn again and reads the screen back. `kept` is the screen a
    /// reload handed over (``KioskHandover/take(for:)``): the controller starts from its rotation.
    /// `placement`: where the tools run (``KioskWorker/Placement``); `plumb run`'s is a thread of
    /// their own.
    init(backend: KioskBackend, settings: KioskController.Settings, runner: any RotationActionRunner & Sendable, clock: any MonotonicClock,
         kept: KioskHandover? = nil, placement: KioskWorker.Placement = .ownThread) {
        self.backend = backend
        self.kept = kept
        self.clock = clock
        gate = KioskTurns.Gate(allowed: settings.allowed)
        worker = KioskWorker(backend: backend, settings: settings, runner: runner, shown: kept?.shown, placement: placement)
        let usesOutput = backend.kind == .wlrRandr || backend.kind == .xrandr
        name = "kiosk via \(backend.kind.rawValue)" + (usesOutput ? backend.output.map { " on \($0)" } ?? "" : "")
        if let shown = kept?.shown {
            let screen = "kiosk: the screen" + (usesOutput ? backend.output.map { " \($0)" } ?? "" : "")
            if settings.allowed.contains(shown) {
                log.append(DaemonEvent(level: .info, message: "\(screen) stays \(shown.rawValue) across the reload"))
            } else {
                log.append(DaemonEvent(level: .notice, message: "\(screen) stays \(shown.rawValue) across the reload, though "
                                       + "orientation.interfaceOrientations no longer allows it: it turns once the board settles in an allowed face"))
            }
        }
    }

    /// Released without its restore (a test, a pipeline dropped): the worker's thread exits after
    /// the tool under way.
    deinit { worker.close() }

    /// What the screen shows as far as the controller knew after its last tick.
    var applied: InterfaceOrientation? { worker.applied }

    func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws {
        // Until an allowed face settles, `interface` is only the session's portrait start: a kiosk
        // started lying face up, or upright in a face not allowed, leaves the screen as it is
        // (see ``KioskTurns/Gate``).
        guard let shown = gate.interface(for: orientation, session: interface) else { return }
        worker.want(shown, at: clock.nowNanoseconds)
    }

    /// Called after every batch: the screen turns once the hold-off (or a retry's pause) has passed.
    func gravityUpdated(_ gravity: SIMD3<Double>) throws {
        worker.tick(at: clock.nowNanoseconds)
    }

    /// The controller's decisions since the last call, for the log, in order. A rotation that
    /// fails is logged and the daemon keeps running: the sensor and the other outputs are fine,
    /// and the controller tries the turn again after a pause.
    func takeEvents() -> [DaemonEvent] {
        for report in worker.takeReports() {
            if let event = event(for: report) { log.append(event) }
        }
        defer { log.removeAll() }
        return log
    }

    /// The log line for one of the turns' reports, if it gets one.
    private func event(for report: KioskTurns.Report) -> DaemonEvent? {
        switch (report.event, report.note) {
        case (.failed, .warning(let message, let fix)?):
            return DaemonEvent(level: .warning, message: "kiosk: \(message)" + (fix.map { " Fix: \($0)" } ?? ""))
        case (.failed, .error(let message, let fix)?):
            return DaemonEvent(level: .error, message: "kiosk: \(message)" + (fix.map { " Fix: \($0)" } ?? ""))
        case (.failed, _):
            return nil
        case (.rotated(let o, let action, _), let note):
            var message = "kiosk: turned the screen to \(o.rawValue) (\(action))"
            if case .recovered(let failures, let nanoseconds)? = note {
                message += " after \(failures) failed tr\(failures == 1 ? "y" : "ies") in \(KioskTurns.seconds(nanoseconds))"
            }
            return DaemonEvent(level: .notice, message: message)
        case (.ignoredNotAllowed(let o, _), _):
            return DaemonEvent(level: .info, message: "kiosk: \(o.rawValue) is not in orientation.interfaceOrientations; the screen stays")
        case (.heldByLock(let o, _), _):
            return DaemonEvent(level: .info, message: "kiosk: \(o.rawValue) held back by the orientation lock")
        case (.drifted(let o, let shown, _), _):
            let output = backend.output.map { " \($0)" } ?? ""
            return DaemonEvent(level: .notice, message: "kiosk: the screen\(output) shows \(shown), not \(backend.shownWord(for: o)) "
                               + "(the compositor restarted, or the screen was plugged in again?): turning it to \(o.rawValue) again")
        }
    }

    /// Ends the worker (``KioskWorker/end(within:)``): the tool under way is waited for, at most
    /// ``KioskWorker/endWait`` (not again once that ran out), and nothing more starts. Whether it
    /// ended.
    private func endWorker() -> Bool {
        guard !workerHung else { return worker.end(within: 0) }
        let ended = worker.end(within: KioskWorker.endWait)
        workerHung = !ended
        return ended
    }

    /// Turns the screen upright once the tool under way has ended (within its deadline); then no
    /// tool runs any more. Nothing when the screen was handed over to a reload's next output, is
    /// upright, or was never turned.
    func restore() throws {
        let ended = endWorker()
        guard !handedOver else { return }
        guard ended else {
            throw CLIError.failure("kiosk: its tool still ran \(Int(KioskWorker.endWait)) s after the stop began, so the screen was not turned upright",
                                   fix: "Check that the compositor or X server answers, and that outputs.kiosk.command returns at once.")
        }
        guard let applied = worker.shownAfterEnd(), applied != .portrait else { return }
        try worker.performAfterEnd(backend.action(for: .portrait))
    }

    /// The pipeline this output was made for failed to build: a screen taken from a reload goes
    /// back to its handover as it is, for the pipeline built next (the previous configuration
    /// again, which then keeps it too) or, if none takes it, for ``DaemonHandover/restoreUntaken()``
    /// to turn upright. Turned upright here, the rebuilt output started from nothing and, with the
    /// board lying flat, left a landscape kiosk in portrait. Any other screen is restored.
    func restoreUnused() throws {
        if let kept, !handedOver, endWorker(), worker.shownAfterEnd() == kept.shown, kept.giveBack() {
            handedOver = true
            return
        }
        try restore()
    }

    /// Hands the screen over when `next` turns it with the same backend (its `outputs.kiosk`
    /// names the same method, output — or the board's connector — and command); else the screen
    /// is put back upright as on stop. The tool under way is waited for first (within its
    /// deadline), so what is handed over is what the screen shows; a tool that outlives
    /// ``KioskWorker/endWait`` hands nothing over (the stop then says so).
    func handOver(to next: DaemonSetup, into handover: DaemonHandover) {
        guard let kiosk = next.configuration.outputs.kiosk,
              DaemonFactory.kioskBackend(kiosk, board: next.board.board) == backend, endWorker() else { return }
        handedOver = true
        handover.kiosk = KioskHandover(backend: backend, shown: worker.shownAfterEnd(), worker: worker)
    }
}
