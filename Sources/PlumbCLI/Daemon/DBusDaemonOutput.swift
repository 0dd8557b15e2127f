import Foundation
import PlumbConfiguration
import PlumbDBus
import PlumbOrientation
import Synchronization

/// `outputs.dbus`: the interface orientation served as iio-sensor-proxy's `net.hadess.SensorProxy`
/// (the service of `plumb dbus`, on its own thread), so GNOME, KDE and Phosh rotate the desktop.
///
/// The daemon's one sensor session feeds it through PlumbDBus's ``OrientationRelay``: every
/// interface orientation change is published; the relay passes it to the bus while a desktop holds
/// a claim and remembers the latest for the next claim. The session also tells it when the chip
/// stops answering inside its stream and when its samples come again
/// (``DaemonOutput/sensorPresenceChanged(_:)``): HasAccelerometer turns false and back with
/// PropertiesChanged, as in `plumb dbus` (``SensorProxyService``).
///
/// Claims and the sensor: the daemon has one sensor session for all its outputs. The level image,
/// kiosk and LEDs need it all the time, so with any of them configured the sensor runs always and a
/// claim only decides whether changes reach the bus. With `dbus` the only output, ``needsSensor``
/// is true only while a client holds a claim, and ``SensorPipeline`` stops the sensor when no
/// output needs it and starts it again on the next claim (within one daemon step, 100 ms) — as
/// iio-sensor-proxy runs its sensor only while claimed.
///
/// Starting waits until the name is owned (or fails: the name is taken by iio-sensor-proxy, the
/// policy forbids it, no bus), so `plumb run` refuses to start rather than run without its output.
/// Restoring releases the name and waits for the bus thread, so a SIGHUP reload can take it again.
final class DBusDaemonOutput: DaemonOutput {
    let name: String
    let relay: OrientationRelay
    private let service: SensorProxyService
    private let shared = Shared()
    private let finished = DispatchSemaphore(value: 0)
    private var stopped = false

    /// Events from the bus thread, drained by ``takeEvents()`` on the daemon's thread.
    private final class Shared: Sendable {
        let events = Mutex<[DaemonEvent]>([])
        let startup = Mutex<StartupState>(.waiting)
        let ready = DispatchSemaphore(value: 0)
        func append(_ event: DaemonEvent) { events.withLock { $0.append(event) } }
    }
    private enum StartupState: Sendable { case waiting, ready, failed(SensorProxyError?) }

    /// - Parameters:
    ///   - bus: a D-Bus address, or nil for the system bus.
    ///   - startupTimeout: how long to wait for the name before giving up, in seconds.
    ///   - allowedInterfaces: `orientation.interfaceOrientations`; the others are not published.
    init(settings: DBusOutput, startupTimeout: Double = 10,
         allowedInterfaces: Set<InterfaceOrientation> = Set(InterfaceOrientation.allCases)) throws {
        relay = OrientationRelay(allowedInterfaces: allowedInterfaces)
        let relay = relay
        let busName = settings.bus ?? SensorProxyError.systemBus
        name = "D-Bus net.hadess.SensorProxy on \(busName)"
        let shared = shared
        service = SensorProxyService(source: relay, busAddress: settings.bus) { event in
            switch event {
            case .ready(let unique):
                shared.startup.withLock { $0 = .ready }
                shared.append(DaemonEvent(level: .info, message: "dbus: owns net.hadess.SensorProxy on \(busName) as \(unique)"))
                shared.ready.signal()
            case .claimed(let sensor, let client):
                shared.append(DaemonEvent(level: .info, message: "dbus: \(client) claimed the \(sensor.rawValue)"))
            case .released(let sensor, let client, let left):
                shared.append(DaemonEvent(level: .info, message: "dbus: \(client) released the \(sensor.rawValue)" + (left ? " (it left the bus)" : "")))
            case .sensorStarted, .sensorStopped:
                break // the pipeline logs when the sensor itself starts and stops
            case .sensorFailed(let reason):
                shared.append(DaemonEvent(level: .error, message: "dbus: \(reason)"))
            case .sensorLost(let reason):
                // The pipeline's own events already say why (the stream's notice).
                shared.append(DaemonEvent(level: .notice, message: "dbus: HasAccelerometer false: \(reason)", followsPresence: true))
            case .sensorBack:
                shared.append(DaemonEvent(level: .notice, message: "dbus: HasAccelerometer true again", followsPresence: true))
            case .orientationChanged(let orientation):
                shared.append(DaemonEvent(level: .info, message: "dbus: AccelerometerOrientation \(orientation.rawValue)"))
            }
        }
        let finished = finished
        service.runInBackground { error in
            let wasStarting = shared.startup.withLock { state -> Bool in
                guard case .waiting = state else { return false }
                state = .failed(error)
                return true
            }
            if wasStarting {
                shared.ready.signal()
            } else if let error {
                shared.append(DaemonEvent(level: .error, message: "dbus: \(error.description); the other outputs keep running (\(error.fix))"))
            }
            finished.signal()
        }
        let answered = shared.ready.wait(timeout: .now() + startupTimeout) == .success
        let state = shared.startup.withLock { $0 }
        switch state {
        case .ready:
            return
        case .failed(let error?):
            throw CLIError.failure("outputs.dbus: \(error.description)", fix: Self.fix(error))
        case .failed(nil), .waiting:
            service.stop()
            if answered || finished.wait(timeout: .now() + 5) == .success {
                throw CLIError.failure("outputs.dbus: the service on \(busName) stopped while starting", fix: nil)
            }
            throw CLIError.failure("outputs.dbus: no answer from \(busName) in \(Int(startupTimeout)) s",
                                   fix: "Check that the bus is running (systemctl status dbus).")
        }
    }

    /// The fix for the daemon: the configuration key instead of `plumb dbus`'s options.
    static func fix(_ error: SensorProxyError) -> String {
        switch error.kind {
        case .connect where error.bus == SensorProxyError.systemBus:
            "Start the system bus (dbus-daemon or dbus-broker), or set outputs.dbus.bus to a D-Bus address."
        case .connect:
            "Check outputs.dbus.bus (for example unix:path=/run/dbus/system_bus_socket) and that the bus is running."
        default:
            error.fix
        }
    }

    /// True while a desktop holds a claim on the accelerometer.
    var needsSensor: Bool { relay.isClaimed }

    func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws {
        relay.publish(device: orientation, interface: interface)
    }

    /// Passed to a claim's run (the relay) and to the service itself, so that HasAccelerometer
    /// follows while no desktop holds a claim too: a chip awaited since the start
    /// (`plumb run --wait-for-sensor`) shows false, and desktops, which claim only an
    /// accelerometer that is there, claim once it answers. During a claim the second telling is
    /// a repeat, which changes nothing.
    func sensorPresenceChanged(_ presence: SensorPresence) {
        relay.tell(presence)
        service.sensorPresenceChanged(presence)
    }

    func takeEvents() -> [DaemonEvent] {
        shared.events.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }

    func restore() throws {
        guard !stopped else { return }
        stopped = true
        service.stop()
        guard finished.wait(timeout: .now() + 5) == .success else {
            throw CLIError.failure("outputs.dbus: the bus thread did not stop within 5 s", fix: nil)
        }
    }
}
