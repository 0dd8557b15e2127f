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
/// Across a SIGHUP reload whose configuration turns the same screen (the same method, output and
/// command), the screen keeps its rotation: the old output hands it over (``handOver(to:into:)``)
/// instead of turning it upright, and the new one starts from it as what the screen shows, turning
/// only when a settled allowed face differs. A kept rotation the new `orientation.interfaceOrientations`
/// leaves out stays too, as a fresh start leaves the screen as it finds it, until an allowed face
/// settles; the log says so.
final class KioskDaemonOutput: DaemonOutput {
    let name: String
    let turns: KioskTurns
    var controller: KioskController { turns.controller }
    let runner: any RotationActionRunner
    let clock: any MonotonicClock
    private var log: [DaemonEvent] = []
    /// Set once the screen is handed over to a reload's next output: ``restore()`` leaves it.
    private var handedOver = false
    /// The screen a reload handed over, when this output took it.
    private let kept: KioskHandover?

    /// `settings.retry` and `settings.verifyInterval` default to ``KioskTurns``'s: the daemon
    /// always tries a failed turn again and reads the screen back. `kept` is the screen a
    /// reload handed over (``KioskHandover/take(for:)``): the controller starts from its rotation.
    init(backend: KioskBackend, settings: KioskController.Settings, runner: any RotationActionRunner, clock: any MonotonicClock,
         kept: KioskHandover? = nil) {
        turns = KioskTurns(backend: backend, settings: settings, runner: runner, shown: kept?.shown)
        self.kept = kept
        self.runner = runner
        self.clock = clock
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

    func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws {
        // Until an allowed face settles, `interface` is only the session's portrait start: a kiosk
        // started lying face up, or upright in a face not allowed, leaves the screen as it is
        // (see ``KioskTurns/interface(for:session:)``).
        guard let shown = turns.interface(for: orientation, session: interface) else { return }
        turns.observe(shown, at: clock.nowNanoseconds)
        tick()
    }

    /// Called after every batch: turns the screen once the hold-off (or a retry's pause) has passed.
    func gravityUpdated(_ gravity: SIMD3<Double>) throws {
        tick()
    }

    /// A rotation that fails is logged and the daemon keeps running: the sensor and the other
    /// outputs are fine, and the controller tries the turn again after a pause.
    private func tick() {
        for report in turns.tick(at: clock.nowNanoseconds) {
            switch (report.event, report.note) {
            case (.failed, .warning(let message, let fix)?):
                log.append(DaemonEvent(level: .warning, message: "kiosk: \(message)" + (fix.map { " Fix: \($0)" } ?? "")))
            case (.failed, .error(let message, let fix)?):
                log.append(DaemonEvent(level: .error, message: "kiosk: \(message)" + (fix.map { " Fix: \($0)" } ?? "")))
            case (.failed, _):
                break
            case (.rotated(let o, let action, _), let note):
                var message = "kiosk: turned the screen to \(o.rawValue) (\(action))"
                if case .recovered(let failures, let nanoseconds)? = note {
                    message += " after \(failures) failed tr\(failures == 1 ? "y" : "ies") in \(KioskTurns.seconds(nanoseconds))"
                }
                log.append(DaemonEvent(level: .notice, message: message))
            case (.ignoredNotAllowed(let o, _), _):
                log.append(DaemonEvent(level: .info, message: "kiosk: \(o.rawValue) is not in orientation.interfaceOrientations; the screen stays"))
            case (.heldByLock(let o, _), _):
                log.append(DaemonEvent(level: .info, message: "kiosk: \(o.rawValue) held back by the orientation lock"))
            case (.drifted(let o, let shown, _), _):
                let output = controller.backend.output.map { " \($0)" } ?? ""
                log.append(DaemonEvent(level: .notice, message: "kiosk: the screen\(output) shows \(shown), not \(controller.backend.shownWord(for: o)) "
                                       + "(the compositor restarted, or the screen was plugged in again?): turning it to \(o.rawValue) again"))
            }
        }
    }

    /// The controller's decisions since the last call, for the log.
    func takeEvents() -> [DaemonEvent] {
        defer { log.removeAll() }
        return log
    }

    func restore() throws {
        guard !handedOver, let applied = controller.applied, applied != .portrait else { return }
        try runner.perform(controller.backend.action(for: .portrait))
    }

    /// The pipeline this output was made for failed to build: a screen taken from a reload goes
    /// back to its handover as it is, for the pipeline built next (the previous configuration
    /// again, which then keeps it too) or, if none takes it, for ``DaemonHandover/restoreUntaken()``
    /// to turn upright. Turned upright here, the rebuilt output started from nothing and, with the
    /// board lying flat, left a landscape kiosk in portrait. Any other screen is restored.
    func restoreUnused() throws {
        if let kept, !handedOver, controller.applied == kept.shown, kept.giveBack() {
            handedOver = true
            return
        }
        try restore()
    }

    /// Hands the screen over when `next` turns it with the same backend (its `outputs.kiosk`
    /// names the same method, output — or the board's connector — and command); else the screen
    /// is put back upright as on stop.
    func handOver(to next: DaemonSetup, into handover: DaemonHandover) {
        guard let kiosk = next.configuration.outputs.kiosk,
              DaemonFactory.kioskBackend(kiosk, board: next.board.board) == controller.backend else { return }
        handedOver = true
        handover.kiosk = KioskHandover(backend: controller.backend, shown: controller.applied, runner: runner)
    }
}
