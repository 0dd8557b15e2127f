import PlumbDisplay
import PlumbHAL
import PlumbOrientation

/// `outputs.kiosk`: the screen turned to follow the interface orientation through the display
/// module's ``KioskController`` (hold-off, allowed set) and backend (wlr-randr, xrandr, fbcon or a
/// command). Restoring turns the screen back upright.
final class KioskDaemonOutput: DaemonOutput {
    let name: String
    let controller: KioskController
    let runner: any RotationActionRunner
    let clock: any MonotonicClock
    private var reported = 0

    init(backend: KioskBackend, settings: KioskController.Settings, runner: any RotationActionRunner, clock: any MonotonicClock) {
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

    /// Called after every batch: turns the screen once the hold-off has passed.
    func gravityUpdated(_ gravity: SIMD3<Double>) throws {
        tick()
    }

    /// A rotation that fails is logged and the daemon keeps running: the sensor and the other
    /// outputs are fine, and the next change tries again (the controller drops the pending turn).
    private func tick() {
        do { try controller.tick(at: clock.nowNanoseconds) } catch {
            // The runner's diagnosis (RotationToolDiagnosis) carries a fix: the journal line keeps it.
            if case CLIError.failure(let message, let fix?) = error {
                failures.append("\(message) Fix: \(fix)")
            } else {
                failures.append(describe(error))
            }
        }
    }

    private var failures: [String] = []

    /// The controller's decisions since the last call, for the log.
    func takeEvents() -> [DaemonEvent] {
        let events = controller.events.dropFirst(reported)
        reported = controller.events.count
        defer { failures.removeAll() }
        return events.map { event in
            switch event {
            case .failed(let o, let action, _):
                DaemonEvent(level: .error, message: "kiosk: could not turn the screen to \(o.rawValue) (\(action))" + (failures.first.map { ": \($0)" } ?? ""))
            case .rotated(let o, let action, _): DaemonEvent(level: .notice, message: "kiosk: turned the screen to \(o.rawValue) (\(action))")
            case .ignoredNotAllowed(let o, _): DaemonEvent(level: .info, message: "kiosk: \(o.rawValue) is not in orientation.interfaceOrientations; the screen stays")
            case .heldByLock(let o, _): DaemonEvent(level: .info, message: "kiosk: \(o.rawValue) held back by the orientation lock")
            }
        }
    }

    func restore() throws {
        guard let applied = controller.applied, applied != .portrait else { return }
        try runner.perform(controller.backend.action(for: .portrait))
    }
}
