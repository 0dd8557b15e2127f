import PlumbDisplay
import PlumbHAL
import PlumbOrientation

/// `outputs.kiosk`: the screen turned to follow the interface orientation through the display
/// module's ``KioskController`` (hold-off, allowed set) and backend (wlr-randr, xrandr, fbcon or a
/// command). Restoring turns the screen back upright.
///
/// A turn that fails is tried again until it works (``retry``): plumb.service may start before the
/// compositor or X server it turns (nothing orders a desktop session before it), and a kiosk that
/// stands still would otherwise never turn. The first failure of a run is logged as a warning with
/// its fix, a different failure again, a failure that lasts ``failingLong`` once as an error, and
/// the turn that finally works says how long it took.
final class KioskDaemonOutput: DaemonOutput {
    /// After a failed turn: again in 1 s, then 2, 4, 8 s and every 10 s (one short-lived process
    /// each, so a broken setup costs little).
    static let retry = KioskController.Retry(first: Nanoseconds.perSecond, maximum: 10 * Nanoseconds.perSecond)
    /// How often what the screen shows is read back (one short-lived wlr-randr or xrandr each),
    /// so that a turn lost to a restarted compositor or a re-plugged screen is made again.
    static let verifyInterval: UInt64 = 5 * Nanoseconds.perSecond
    /// How long failing turns go on before they are logged as an error.
    static let failingLong: UInt64 = 60 * Nanoseconds.perSecond

    let name: String
    let controller: KioskController
    let runner: any RotationActionRunner
    let clock: any MonotonicClock
    private var reported = 0
    private var log: [DaemonEvent] = []
    /// The failure last logged in this run of failures, and whether the long one was.
    private var loggedFailure: String?
    private var loggedLong = false

    /// `settings.retry` defaults to ``retry`` here: the daemon always tries a failed turn again.
    init(backend: KioskBackend, settings: KioskController.Settings, runner: any RotationActionRunner, clock: any MonotonicClock) {
        var settings = settings
        settings.retry = settings.retry ?? Self.retry
        settings.verifyInterval = settings.verifyInterval ?? Self.verifyInterval
        controller = KioskController(backend: backend, settings: settings, runner: runner)
        self.runner = runner
        self.clock = clock
        let usesOutput = backend.kind == .wlrRandr || backend.kind == .xrandr
        name = "kiosk via \(backend.kind.rawValue)" + (usesOutput ? backend.output.map { " on \($0)" } ?? "" : "")
    }

    func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws {
        controller.observe(interface, at: clock.nowNanoseconds)
        tick()
    }

    /// Called after every batch: turns the screen once the hold-off (or a retry's pause) has passed.
    func gravityUpdated(_ gravity: SIMD3<Double>) throws {
        tick()
    }

    /// A rotation that fails is logged and the daemon keeps running: the sensor and the other
    /// outputs are fine, and the controller tries the turn again after a pause.
    private func tick() {
        let failures = controller.failuresInARow
        let since = controller.failingSince
        var failure: String?
        do { try controller.tick(at: clock.nowNanoseconds) } catch {
            // The runner's diagnosis (RotationToolDiagnosis) carries a fix: the journal line keeps it.
            if case CLIError.failure(let message, let fix?) = error {
                failure = "\(message) Fix: \(fix)"
            } else {
                failure = describe(error)
            }
        }
        for event in controller.events.dropFirst(reported) {
            switch event {
            case .failed(let o, let action, let t):
                logFailure(of: o, action: action, at: t, failure ?? "")
            case .rotated(let o, let action, let t):
                var message = "kiosk: turned the screen to \(o.rawValue) (\(action))"
                if failures > 0, let since {
                    message += " after \(failures) failed tr\(failures == 1 ? "y" : "ies") in \(Self.seconds(t &- since))"
                }
                loggedFailure = nil
                loggedLong = false
                log.append(DaemonEvent(level: .notice, message: message))
            case .ignoredNotAllowed(let o, _):
                log.append(DaemonEvent(level: .info, message: "kiosk: \(o.rawValue) is not in orientation.interfaceOrientations; the screen stays"))
            case .heldByLock(let o, _):
                log.append(DaemonEvent(level: .info, message: "kiosk: \(o.rawValue) held back by the orientation lock"))
            case .drifted(let o, let shown, _):
                let output = controller.backend.output.map { " \($0)" } ?? ""
                log.append(DaemonEvent(level: .notice, message: "kiosk: the screen\(output) shows \(shown), not \(controller.backend.shownWord(for: o)) "
                                       + "(the compositor restarted, or the screen was plugged in again?): turning it to \(o.rawValue) again"))
            }
        }
        reported = controller.events.count
    }

    private func logFailure(of o: InterfaceOrientation, action: String, at t: UInt64, _ failure: String) {
        let n = controller.failuresInARow
        let pause = controller.retryAt.map { Self.seconds($0 &- t) } ?? "?"
        if failure != loggedFailure {
            loggedFailure = failure
            let then = n == 1 ? ", then at least every \(Self.seconds(Self.retry.maximum))" : ""
            log.append(DaemonEvent(level: .warning, message: "kiosk: could not turn the screen to \(o.rawValue) (\(action)); "
                                   + "trying again in \(pause)\(then), until it works: \(failure)"))
        } else if !loggedLong, let since = controller.failingSince, t &- since >= Self.failingLong {
            loggedLong = true
            log.append(DaemonEvent(level: .error, message: "kiosk: still cannot turn the screen to \(o.rawValue) after \(n) tries in "
                                   + "\(Self.seconds(t &- since)) (\(action)); trying again every \(pause): \(failure)"))
        }
    }

    /// "1 s", "2.5 s".
    static func seconds(_ nanoseconds: UInt64) -> String {
        nanoseconds % Nanoseconds.perSecond == 0 ? "\(nanoseconds / Nanoseconds.perSecond) s" : "\(fixed(Double(nanoseconds) / 1e9, 1)) s"
    }

    /// The controller's decisions since the last call, for the log.
    func takeEvents() -> [DaemonEvent] {
        defer { log.removeAll() }
        return log
    }

    func restore() throws {
        guard let applied = controller.applied, applied != .portrait else { return }
        try runner.perform(controller.backend.action(for: .portrait))
    }
}
