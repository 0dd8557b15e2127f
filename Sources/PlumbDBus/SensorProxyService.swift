import CSDBus
import Foundation
import Glibc
import Synchronization

/// A drop-in for iio-sensor-proxy's accelerometer: owns `net.hadess.SensorProxy` and serves
/// `/net/hadess/SensorProxy` so GNOME (mutter), KDE (Qt Sensors' iio-sensor-proxy backend) and Phosh
/// rotate the screen from an ``OrientationSource``.
///
/// - `HasAccelerometer` is true while a source is configured and has not failed to start, and
///   turns false while the running source says its sensor stopped answering
///   (``SensorPresence/absent(_:)``: the chip unplugged during a claim), true again once it
///   answers (``SensorPresence/present``), as iio-sensor-proxy turns it false when udev removes its
///   IIO device and true when one is added (`sensor_changes()` in its iio-sensor-proxy.c);
///   `AccelerometerOrientation` is the last orientation the source reported (`undefined` before the
///   first). Both emit PropertiesChanged; a return sends both in one signal, as iio-sensor-proxy
///   sends the orientation with a device that appears. The claims stand meanwhile (iio-sensor-proxy
///   drops them with the device; here the same chip comes back and the claim reads it again), and
///   the last orientation stays readable (iio-sensor-proxy's goes `undefined`, since a new
///   device's first reading sets it; the notifier here reports only changes, so resetting it
///   would leave the property `undefined` after a return until the device turns).
/// - `ClaimAccelerometer` / `ReleaseAccelerometer` are tracked per client (unique bus name). The
///   source runs only while at least one client holds a claim; a client that leaves the bus loses
///   its claims, as iio-sensor-proxy documents. The last orientation stays readable while stopped.
/// - Light and proximity are reported absent (`HasAmbientLight` and `HasProximity` false,
///   `LightLevelUnit` "lux", `LightLevel` 0, `ProximityNear` false); their claims succeed and are
///   tracked, as the interface allows claiming a sensor that is not there.
///
/// ``run()`` blocks the calling thread, which becomes the bus thread: every method call, property
/// read and signal happens there. Orientation reports from the source's thread are queued and sent
/// in order, one PropertiesChanged each. ``stop()`` may be called from any thread. A service runs
/// once.
///
/// The corresponding C API is sd-bus (libsystemd) through CSDBus.
public final class SensorProxyService: Sendable {
    /// What happened, for logs and tests. Delivered on the bus thread.
    public enum Event: Sendable, Equatable {
        /// The name is owned and the object is served; the connection's unique name.
        case ready(uniqueName: String)
        case claimed(ProxySensor, client: String)
        /// A claim ended: by the client's Release call, or because the client left the bus.
        case released(ProxySensor, client: String, clientLeft: Bool)
        case sensorStarted
        case sensorStopped
        /// The source could not start; HasAccelerometer turns false.
        case sensorFailed(String)
        /// The running source's sensor stopped answering; HasAccelerometer turned false
        /// (PropertiesChanged has been sent).
        case sensorLost(String)
        /// It answers again; HasAccelerometer turned true (PropertiesChanged has been sent).
        case sensorBack
        /// AccelerometerOrientation changed (PropertiesChanged has been sent).
        case orientationChanged(AccelerometerOrientation)
    }

    /// A snapshot of the service's state.
    public struct Status: Sendable, Equatable {
        public var claims: SensorClaims
        public var sensorRunning: Bool
        /// Times the source was started and stopped.
        public var starts: Int
        public var stops: Int
        public var orientation: AccelerometerOrientation
        public var hasAccelerometer: Bool
    }

    private struct State: Sendable {
        var claims = SensorClaims()
        var sensorRunning = false
        var starts = 0
        var stops = 0
        /// Bumped on every start and stop so a late report from an earlier run is dropped.
        var generation: UInt64 = 0
        var orientation = AccelerometerOrientation.undefined
        var hasAccelerometer: Bool
        /// Reports not yet sent, oldest first.
        var pending: [AccelerometerOrientation] = []
        var hasAccelerometerChanged = false
        /// The running source said its sensor stopped answering and has not said it is back: a
        /// start does not turn HasAccelerometer true then, only ``SensorPresence/present`` does.
        var lost = false
        /// ``Event/sensorLost(_:)`` and ``Event/sensorBack`` not yet delivered, oldest first.
        var presenceEvents: [Event] = []
        var stopRequested = false
        var bus: SensorProxyBus?
        var ran = false
    }

    private let source: (any OrientationSource)?
    private let busAddress: String?
    private let events: @Sendable (Event) -> Void
    private let state: Mutex<State>

    /// - Parameters:
    ///   - source: where orientation comes from; nil serves the interface with no accelerometer.
    ///   - busAddress: a D-Bus address ("unix:path=/tmp/bus"), or nil for the system bus.
    ///   - absentAtStart: why the source's sensor does not answer now (`plumb dbus
    ///     --wait-for-sensor` started while nothing acknowledges the IMU's address), or nil:
    ///     HasAccelerometer is then false from the start, and a claim does not turn it true; the
    ///     source's ``SensorPresence/present`` or ``sensorPresenceChanged(_:)`` does.
    ///   - events: called on the bus thread for every ``Event``.
    public init(source: (any OrientationSource)?, busAddress: String? = nil, absentAtStart: String? = nil,
                events: @escaping @Sendable (Event) -> Void = { _ in }) {
        self.source = source
        self.busAddress = busAddress
        self.events = events
        var initial = State(hasAccelerometer: source != nil && absentAtStart == nil)
        initial.lost = source != nil && absentAtStart != nil
        self.state = Mutex(initial)
    }

    /// The sensor's presence told from outside a run of the source: `plumb dbus --wait-for-sensor`
    /// checks every second a sensor that did not answer at start while no claim runs it, and
    /// tells ``SensorPresence/present`` once it answers, so that HasAccelerometer turns true
    /// (with PropertiesChanged) and desktops, which claim only an accelerometer that is there,
    /// claim it. The same state as the source's own reports (``OrientationSource/start(report:presence:)``):
    /// a repeat changes nothing. Any thread.
    public func sensorPresenceChanged(_ presence: SensorPresence) {
        let bus: SensorProxyBus? = state.withLock { s in
            guard Self.change(&s, to: presence) else { return nil }
            return s.bus
        }
        bus?.wake()
    }

    /// Records `presence` in `s` (HasAccelerometer, the lost flag, the event to deliver); false
    /// when it is no change.
    private static func change(_ s: inout State, to presence: SensorPresence) -> Bool {
        switch presence {
        case .absent(let what):
            guard !s.lost else { return false }
            s.lost = true
            s.presenceEvents.append(.sensorLost(what))
            if s.hasAccelerometer { s.hasAccelerometer = false; s.hasAccelerometerChanged = true }
        case .present:
            guard s.lost else { return false }
            s.lost = false
            s.presenceEvents.append(.sensorBack)
            if !s.hasAccelerometer { s.hasAccelerometer = true; s.hasAccelerometerChanged = true }
        }
        return true
    }

    public var status: Status {
        state.withLock {
            Status(claims: $0.claims, sensorRunning: $0.sensorRunning, starts: $0.starts, stops: $0.stops,
                   orientation: $0.orientation, hasAccelerometer: $0.hasAccelerometer)
        }
    }

    /// Makes ``run()`` return (after stopping the sensor). Any thread; before `run` it makes `run`
    /// return at once.
    public func stop() {
        let bus = state.withLock { s in
            s.stopRequested = true
            return s.bus
        }
        bus?.wake()
    }

    /// Connects, takes the name, and serves until ``stop()`` or a bus failure.
    public func run() throws(SensorProxyError) {
        let alreadyRan = state.withLock { s in
            defer { s.ran = true }
            return s.ran
        }
        precondition(!alreadyRan, "a SensorProxyService runs once")

        let bus = try SensorProxyBus(address: busAddress)
        let context = Unmanaged.passUnretained(self).toOpaque()
        try bus.export(plumb_bus_callbacks(
            context: context,
            method: { context, method, sender in
                guard let context, let sender else { return -EINVAL }
                let service = Unmanaged<SensorProxyService>.fromOpaque(context).takeUnretainedValue()
                return service.handleMethod(method, sender: String(cString: sender))
            },
            property: { context, property, value in
                guard let context, let value else { return -EINVAL }
                let service = Unmanaged<SensorProxyService>.fromOpaque(context).takeUnretainedValue()
                return service.readProperty(property, into: value)
            },
            client_vanished: { context, name in
                guard let context, let name else { return }
                let service = Unmanaged<SensorProxyService>.fromOpaque(context).takeUnretainedValue()
                service.clientLeft(String(cString: name))
            }))
        try bus.requestName()
        let stopEarly = state.withLock { s in
            s.bus = bus
            return s.stopRequested
        }
        defer {
            if state.withLock({ $0.sensorRunning }) { stopSensor() }
            state.withLock { $0.bus = nil }
        }
        if stopEarly { return }
        events(.ready(uniqueName: bus.uniqueName))

        while true {
            try bus.runOnce(timeoutNanoseconds: nil)
            if state.withLock({ $0.stopRequested }) { return }
            try publish(on: bus)
        }
    }

    // MARK: Bus-thread handlers

    private func handleMethod(_ method: Int32, sender: String) -> Int32 {
        let sensor: ProxySensor
        let isClaim: Bool
        switch UInt32(bitPattern: method) {
        case PLUMB_METHOD_CLAIM_ACCELEROMETER.rawValue: (sensor, isClaim) = (.accelerometer, true)
        case PLUMB_METHOD_RELEASE_ACCELEROMETER.rawValue: (sensor, isClaim) = (.accelerometer, false)
        case PLUMB_METHOD_CLAIM_LIGHT.rawValue: (sensor, isClaim) = (.light, true)
        case PLUMB_METHOD_RELEASE_LIGHT.rawValue: (sensor, isClaim) = (.light, false)
        case PLUMB_METHOD_CLAIM_PROXIMITY.rawValue: (sensor, isClaim) = (.proximity, true)
        case PLUMB_METHOD_RELEASE_PROXIMITY.rawValue: (sensor, isClaim) = (.proximity, false)
        default: return -EINVAL
        }
        if isClaim {
            let (held, first) = state.withLock { s in
                (s.claims.clients(of: sensor).contains(sender), s.claims.claim(sensor, by: sender))
            }
            if !held { events(.claimed(sensor, client: sender)) }
            if first, sensor == .accelerometer { startSensor() }
        } else {
            let (held, last) = state.withLock { s in
                (s.claims.clients(of: sensor).contains(sender), s.claims.release(sensor, by: sender))
            }
            if held { events(.released(sensor, client: sender, clientLeft: false)) }
            if last, sensor == .accelerometer { stopSensor() }
        }
        return 0
    }

    private func clientLeft(_ client: String) {
        let (held, emptied) = state.withLock { s in
            (ProxySensor.allCases.filter { s.claims.clients(of: $0).contains(client) }, s.claims.removeClient(client))
        }
        for sensor in held { events(.released(sensor, client: client, clientLeft: true)) }
        if emptied.contains(.accelerometer) { stopSensor() }
    }

    private func readProperty(_ property: Int32, into value: UnsafeMutablePointer<plumb_bus_value>) -> Int32 {
        let (orientation, hasAccelerometer) = state.withLock { ($0.orientation, $0.hasAccelerometer) }
        switch UInt32(bitPattern: property) {
        case PLUMB_PROPERTY_HAS_ACCELEROMETER.rawValue: value.pointee.boolean = hasAccelerometer ? 1 : 0
        case PLUMB_PROPERTY_ACCELEROMETER_ORIENTATION.rawValue: copy(orientation.rawValue, into: value)
        case PLUMB_PROPERTY_HAS_AMBIENT_LIGHT.rawValue: value.pointee.boolean = 0
        case PLUMB_PROPERTY_LIGHT_LEVEL_UNIT.rawValue: copy("lux", into: value)
        case PLUMB_PROPERTY_LIGHT_LEVEL.rawValue: value.pointee.number = 0
        case PLUMB_PROPERTY_HAS_PROXIMITY.rawValue: value.pointee.boolean = 0
        case PLUMB_PROPERTY_PROXIMITY_NEAR.rawValue: value.pointee.boolean = 0
        default: return -EINVAL
        }
        return 0
    }

    private func copy(_ text: String, into value: UnsafeMutablePointer<plumb_bus_value>) {
        withUnsafeMutableBytes(of: &value.pointee.string) { buffer in
            let bytes = Array(text.utf8.prefix(buffer.count - 1))
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
    }

    // MARK: The sensor

    private func startSensor() {
        guard let source else { return }
        let generation = state.withLock { s in
            s.generation &+= 1
            s.sensorRunning = true
            s.starts += 1
            return s.generation
        }
        do {
            try source.start(report: { [weak self] orientation in self?.sourceReported(orientation, generation: generation) },
                             presence: { [weak self] presence in self?.sourcePresence(presence, generation: generation) })
            // A sensor that failed to start before and starts now is present again; one that was
            // lost is present once it answers.
            let bus: SensorProxyBus? = state.withLock { s in
                guard !s.hasAccelerometer, !s.lost else { return nil }
                s.hasAccelerometer = true
                s.hasAccelerometerChanged = true
                return s.bus
            }
            bus?.wake()
            events(.sensorStarted)
        } catch {
            let bus = state.withLock { s in
                s.sensorRunning = false
                s.generation &+= 1
                if s.hasAccelerometer { s.hasAccelerometer = false; s.hasAccelerometerChanged = true }
                return s.bus
            }
            events(.sensorFailed(String(describing: error)))
            bus?.wake()
        }
    }

    private func stopSensor() {
        guard let source else { return }
        let wasRunning = state.withLock { s in
            defer { s.sensorRunning = false; s.generation &+= 1 }
            if s.sensorRunning { s.stops += 1 }
            return s.sensorRunning
        }
        guard wasRunning else { return }
        source.stop()
        // Reports queued before the stop are still sent: they happened while a client held a claim.
        events(.sensorStopped)
    }

    /// The source's thread: queue the report and wake the bus thread.
    private func sourceReported(_ orientation: AccelerometerOrientation, generation: UInt64) {
        let bus: SensorProxyBus? = state.withLock { s in
            guard s.generation == generation, s.sensorRunning else { return nil }
            s.pending.append(orientation)
            return s.bus
        }
        bus?.wake()
    }

    /// The source's thread: the sensor stopped answering or answers again. HasAccelerometer
    /// follows (the bus thread sends PropertiesChanged); a report from an earlier run is dropped.
    private func sourcePresence(_ presence: SensorPresence, generation: UInt64) {
        let bus: SensorProxyBus? = state.withLock { s in
            guard s.generation == generation, s.sensorRunning, Self.change(&s, to: presence) else { return nil }
            return s.bus
        }
        bus?.wake()
    }

    /// Sends what changed since the last pass, one PropertiesChanged per orientation, in order.
    /// HasAccelerometer turning true carries AccelerometerOrientation with it.
    private func publish(on bus: SensorProxyBus) throws(SensorProxyError) {
        let (hasChanged, present, presenceEvents) = state.withLock { s in
            defer { s.hasAccelerometerChanged = false; s.presenceEvents.removeAll() }
            return (s.hasAccelerometerChanged, s.hasAccelerometer, s.presenceEvents)
        }
        if hasChanged {
            try bus.emitChanged(present ? [PLUMB_PROPERTY_HAS_ACCELEROMETER, PLUMB_PROPERTY_ACCELEROMETER_ORIENTATION]
                                        : [PLUMB_PROPERTY_HAS_ACCELEROMETER])
        }
        for event in presenceEvents { events(event) }
        while true {
            let next: AccelerometerOrientation?? = state.withLock { s in
                guard !s.pending.isEmpty else { return .none }
                let value = s.pending.removeFirst()
                guard value != s.orientation else { return .some(nil) }
                s.orientation = value
                return .some(value)
            }
            guard let changed = next else { return }
            guard let orientation = changed else { continue }
            try bus.emitChanged([PLUMB_PROPERTY_ACCELEROMETER_ORIENTATION])
            events(.orientationChanged(orientation))
        }
    }
}

extension SensorProxyService {
    /// Runs the service on a thread of its own, for a daemon that serves D-Bus beside other
    /// outputs (`plumb run`'s `dbus` output). `finished` is called on that thread when ``run()``
    /// returns: nil after ``stop()``, or the error that ended it.
    public func runInBackground(finished: @escaping @Sendable (SensorProxyError?) -> Void) {
        let thread = Thread { [self] in
            do throws(SensorProxyError) {
                try run()
                finished(nil)
            } catch {
                finished(error)
            }
        }
        thread.name = "plumb-dbus"
        thread.start()
    }

    /// Runs the service on the calling thread until SIGINT, SIGTERM or SIGHUP arrives (or
    /// ``stop()``), then stops the sensor and releases the name. For `plumb dbus`: a hangup (the
    /// ssh session it was started from dropped) ended it at once, the chip left streaming.
    public func runUntilSignalled() throws(SensorProxyError) {
        let queue = DispatchQueue(label: "plumb-dbus-signals")
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in stop() }
            source.resume()
            sources.append(source)
        }
        defer {
            for source in sources { source.cancel() }
            for number in [SIGINT, SIGTERM, SIGHUP] { signal(number, SIG_DFL) }
        }
        try run()
    }
}
