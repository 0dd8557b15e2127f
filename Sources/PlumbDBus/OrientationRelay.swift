import PlumbOrientation
import Synchronization

/// An ``OrientationSource`` fed by a sensor that runs anyway: the entry point for `plumb run`'s
/// `dbus` output, where one sensor session drives several outputs and D-Bus is one of them.
///
/// The daemon publishes every orientation change; the relay passes them on while at least one
/// desktop holds a claim (between ``start(report:)`` and ``stop()``) and remembers the latest,
/// which a new claim receives at once. Until an upright face has been published the property
/// reads `undefined`; face up and face down leave it as it was (as ``MotionOrientationSource``).
///
/// The daemon also tells the relay whether its chip answers (``tell(_:)``): a chip that stopped
/// answering inside its stream (``SensorNotice/Kind/lost``) is ``SensorPresence/absent(_:)``, its
/// samples again ``SensorPresence/present``. The relay passes that on as a source does through
/// ``start(report:presence:)``, so the service turns HasAccelerometer false and back as for
/// `plumb dbus`; a claim made while the chip is away is told so at its start.
///
/// `plumb run` uses it in `DBusDaemonOutput` (Sources/PlumbCLI/Daemon), which also reads
/// ``isClaimed`` to pause the daemon's sensor while no desktop holds a claim and dbus is the only
/// output. In outline:
///
/// ```swift
/// final class DBusDaemonOutput: DaemonOutput {
///     let relay = OrientationRelay()
///     let service: SensorProxyService
///     init(busAddress: String?, log: @escaping @Sendable (SensorProxyService.Event) -> Void) {
///         service = SensorProxyService(source: relay, busAddress: busAddress, events: log)
///         service.runInBackground { error in /* log it; the daemon keeps running */ }
///     }
///     var name: String { "D-Bus net.hadess.SensorProxy" }
///     func orientationChanged(_ device: DeviceOrientation, interface: InterfaceOrientation) {
///         relay.publish(device: device, interface: interface)
///     }
///     func restore() { service.stop() }
/// }
/// ```
public final class OrientationRelay: OrientationSource {
    private struct State {
        var current = AccelerometerOrientation.undefined
        var report: (@Sendable (AccelerometerOrientation) -> Void)?
        var presence: (@Sendable (SensorPresence) -> Void)?
        /// What the daemon last said about its chip.
        var told = SensorPresence.present
    }
    private let state = Mutex(State())
    /// The interface orientations published (`orientation.interfaceOrientations`); the others
    /// are ignored. Default all four.
    public let allowedInterfaces: Set<InterfaceOrientation>

    public init(allowedInterfaces: Set<InterfaceOrientation> = Set(InterfaceOrientation.allCases)) {
        self.allowedInterfaces = allowedInterfaces
    }

    /// True while a desktop holds a claim.
    public var isClaimed: Bool { state.withLock { $0.report != nil } }

    /// The value the property has (or would have) now.
    public var current: AccelerometerOrientation { state.withLock { $0.current } }

    /// Publishes the notifier's latest state. Any thread.
    public func publish(device: DeviceOrientation, interface: InterfaceOrientation) {
        let forward: (@Sendable (AccelerometerOrientation) -> Void, AccelerometerOrientation)? = state.withLock { s in
            // Not allowed: the session's portrait default before an allowed face was seen.
            guard allowedInterfaces.contains(interface), device.isUpright || s.current != .undefined else { return nil }
            let value = AccelerometerOrientation(interface)
            guard value != s.current else { return nil }
            s.current = value
            return s.report.map { ($0, value) }
        }
        if let (report, value) = forward { report(value) }
    }

    /// Tells whether the daemon's chip answers. Any thread. Passed on while a desktop holds a
    /// claim; a repeat is passed on too (the service takes it as the same loss). Passed on
    /// under the relay's lock, so that a claim starting meanwhile cannot pass an older value after it.
    public func tell(_ presence: SensorPresence) {
        state.withLock { s in
            s.told = presence
            s.presence?(presence)
        }
    }

    public func start(report: @escaping @Sendable (AccelerometerOrientation) -> Void) throws {
        try start(report: report, presence: { _ in })
    }

    /// Starts passing changes on: the latest orientation at once, and the chip's presence as the
    /// daemon last told it (``tell(_:)``), so a claim made while it is away finds HasAccelerometer
    /// false, and one made after it came back finds it true. `report` (here) and `presence`
    /// (here and in ``tell(_:)``) are called with the relay's lock held, so they must not call
    /// back into the relay (the lock is not recursive); ``SensorProxyService`` only takes its own
    /// lock and wakes its bus thread.
    ///
    /// The latest orientation is reported under the lock: reported after it, a ``publish(device:interface:)``
    /// that came in between (the daemon's session resumes its sensor as soon as ``isClaimed``
    /// turns true) passed its newer value on first, and the older one after it left the property
    /// as it was, with no PropertiesChanged for the claim (`RunDBusPresenceTests` lost it about
    /// one whole-suite run in four).
    public func start(report: @escaping @Sendable (AccelerometerOrientation) -> Void,
                      presence: @escaping @Sendable (SensorPresence) -> Void) throws {
        state.withLock { s in
            s.report = report
            s.presence = presence
            presence(s.told)
            report(s.current)
        }
    }

    public func stop() {
        state.withLock { s in
            s.report = nil
            s.presence = nil
        }
    }
}
