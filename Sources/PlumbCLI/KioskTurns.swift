import PlumbDisplay
import PlumbHAL
import PlumbOrientation

/// A kiosk's ``KioskController`` as `plumb run` (outputs.kiosk) and `plumb kiosk` drive it: a turn
/// that fails is tried again until it works, what the screen shows is read back, and each
/// controller event comes with what to tell of it.
///
/// plumb may start before the compositor or X server it turns (plumb.service and a desktop session
/// start side by side at boot; `plumb kiosk` from a session's autostart), and a compositor may
/// restart; a kiosk that stands still would otherwise keep the wrong turn until it is moved. So a
/// failed turn is tried again after ``retry``'s pauses (the controller keeps the schedule), and
/// the output is read back every ``verifyInterval``. Telling: the first failure of a run of them
/// is a warning with its fix and the pause, a different failure another, a failure that lasts
/// ``failingLong`` once an error, and the turn that finally works says after how many tries; the
/// same failure again says nothing.
final class KioskTurns {
    /// After a failed turn: again in 1 s, then 2, 4, 8 s and every 10 s (one short-lived process
    /// each, so a broken setup costs little).
    static let retry = KioskController.Retry(first: Nanoseconds.perSecond, maximum: 10 * Nanoseconds.perSecond)
    /// How often what the screen shows is read back (one short-lived wlr-randr or xrandr each),
    /// so that a turn lost to a restarted compositor or a re-plugged screen is made again.
    static let verifyInterval: UInt64 = 5 * Nanoseconds.perSecond
    /// How long failing turns go on before they are told as an error.
    static let failingLong: UInt64 = 60 * Nanoseconds.perSecond

    /// What to tell of an event beside the event itself.
    enum Note: Sendable, Equatable {
        /// A turn failed for the first time in a run of failures, or differently from the last
        /// one told: `message` says what and when it is tried again, `fix` is the tool's.
        case warning(String, fix: String?)
        /// Turns have failed for ``failingLong``: told once per run of failures.
        case error(String, fix: String?)
        /// The turn worked after `failures` failed tries, the first of them `nanoseconds` before.
        case recovered(failures: Int, nanoseconds: UInt64)
    }

    /// One controller event and what to tell of it (`nil`: nothing beyond the event).
    struct Report: Sendable, Equatable {
        var event: KioskController.Event
        var note: Note?
    }

    let controller: KioskController
    /// The last failure of the current run of failures: its message and fix.
    private(set) var lastFailure: (message: String, fix: String?)?
    private var toldFailure: (message: String, fix: String?)?
    private var toldLong = false

    /// `settings.retry` and `settings.verifyInterval` default to ``retry`` and ``verifyInterval``;
    /// `shown` is what the screen shows already (``KioskController/init(backend:settings:runner:lock:shown:)``).
    init(backend: KioskBackend, settings: KioskController.Settings, runner: any RotationActionRunner,
         lock: any OrientationLock = NoOrientationLock(), shown: InterfaceOrientation? = nil) {
        var settings = settings
        settings.retry = settings.retry ?? Self.retry
        settings.verifyInterval = settings.verifyInterval ?? Self.verifyInterval
        controller = KioskController(backend: backend, settings: settings, runner: runner, lock: lock, shown: shown)
    }

    /// Whether the screen is not showing what it should because its turn keeps failing: a turn is
    /// pending and the last try failed.
    var isFailing: Bool { controller.failuresInARow > 0 && controller.pending != nil }

    /// Which interface orientation a kiosk follows: the session's once a face the kiosk allows has
    /// settled since the start; before that the device's own upright face (which the controller
    /// ignores, saying so), and nothing for face up, face down or unknown. `plumb run`'s kiosk and
    /// `plumb kiosk` keep one on their loop's thread, the controller being on their worker's
    /// (``KioskWorker``).
    ///
    /// Until an allowed face settles, the session's interface orientation is only its portrait
    /// start (MotionOrientation's, as iOS's; the session moves it only to allowed faces), not the
    /// device's: a kiosk started lying face up or down, or before any face settled, leaves the
    /// screen as the desktop or the last run left it. Before, it turned the screen to portrait
    /// after the hold-off (a landscape kiosk restarted on a table turned to portrait), or with
    /// portrait not allowed printed "portrait: not in --allow" for a device that was not in
    /// portrait; and gated on any upright face, a kiosk started upside down with
    /// portraitUpsideDown not allowed still turned to that portrait start, upside down to its
    /// viewer.
    struct Gate: Sendable {
        /// The orientations the kiosk may take (``KioskController/Settings/allowed``).
        let allowed: Set<InterfaceOrientation>
        private var sawAllowed = false

        init(allowed: Set<InterfaceOrientation>) { self.allowed = allowed }

        /// What to pass on to the controller for `device` and the session's `session` orientation.
        mutating func interface(for device: DeviceOrientation, session: InterfaceOrientation) -> InterfaceOrientation? {
            if let own = device.interfaceOrientation, allowed.contains(own) { sawAllowed = true }
            return sawAllowed ? session : device.interfaceOrientation
        }
    }

    /// Passes the interface orientation on to the controller.
    func observe(_ orientation: InterfaceOrientation, at now: UInt64) {
        controller.observe(orientation, at: now)
    }

    /// Ticks the controller at `now` (a failed turn is not thrown: it is reported, and tried
    /// again) and returns its events since the last call, each with what to tell.
    func tick(at now: UInt64) -> [Report] {
        let failures = controller.failuresInARow
        let since = controller.failingSince
        var failure: (message: String, fix: String?)?
        do { try controller.tick(at: now) } catch {
            // The runner's diagnosis (RotationToolDiagnosis) carries a fix: it is told with it.
            if case CLIError.failure(let message, let fix) = error {
                failure = (message, fix)
            } else {
                failure = (describe(error), nil)
            }
        }
        return controller.takeEvents().map { event -> Report in
            switch event {
            case .failed(let o, let action, let t):
                return Report(event: event, note: failed(o, action: action, at: t, failure ?? ("", nil)))
            case .rotated(_, _, let t):
                lastFailure = nil
                toldFailure = nil
                toldLong = false
                guard failures > 0, let since else { return Report(event: event) }
                return Report(event: event, note: .recovered(failures: failures, nanoseconds: t &- since))
            case .ignoredNotAllowed, .heldByLock, .drifted:
                return Report(event: event)
            }
        }
    }

    private func failed(_ o: InterfaceOrientation, action: String, at t: UInt64, _ failure: (message: String, fix: String?)) -> Note? {
        lastFailure = failure
        let n = controller.failuresInARow
        let pause = controller.retryAt.map { Self.seconds($0 &- t) } ?? "?"
        if toldFailure?.message != failure.message || toldFailure?.fix != failure.fix {
            toldFailure = failure
            let then = n == 1 ? ", then at least every \(Self.seconds(Self.retry.maximum))" : ""
            return .warning("could not turn the screen to \(o.rawValue) (\(action)); trying again in \(pause)\(then), until it works: \(failure.message)",
                            fix: failure.fix)
        }
        if !toldLong, let since = controller.failingSince, t &- since >= Self.failingLong {
            toldLong = true
            return .error("still cannot turn the screen to \(o.rawValue) after \(n) tries in \(Self.seconds(t &- since)) (\(action)); "
                          + "trying again every \(pause): \(failure.message)", fix: failure.fix)
        }
        return nil
    }

    /// "1 s", "2.5 s".
    static func seconds(_ nanoseconds: UInt64) -> String {
        nanoseconds % Nanoseconds.perSecond == 0 ? "\(nanoseconds / Nanoseconds.perSecond) s" : "\(fixed(Double(nanoseconds) / 1e9, 1)) s"
    }
}
