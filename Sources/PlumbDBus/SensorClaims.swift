/// The sensors net.hadess.SensorProxy lets a client claim.
public enum ProxySensor: String, Sendable, CaseIterable, Hashable {
    case accelerometer, light, proximity
}

/// Who holds a claim on which sensor, by unique bus name (":1.42").
///
/// Claims are per client, not counted: a client that claims twice holds one claim, and one release
/// ends it (iio-sensor-proxy keeps one entry per sender in its client table). A client that leaves
/// the bus loses every claim it held (the interface's documentation: "resources are freed up if a
/// monitoring application exits without calling ReleaseAccelerometer(), crashes or …").
public struct SensorClaims: Sendable, Equatable {
    private var holders: [ProxySensor: Set<String>] = [:]

    public init() {}

    /// The clients holding a claim on `sensor`.
    public func clients(of sensor: ProxySensor) -> Set<String> { holders[sensor] ?? [] }

    /// True while at least one client holds `sensor`.
    public func isClaimed(_ sensor: ProxySensor) -> Bool { !(holders[sensor]?.isEmpty ?? true) }

    /// Records a claim. Returns true when it is the sensor's first (the sensor should start).
    @discardableResult
    public mutating func claim(_ sensor: ProxySensor, by client: String) -> Bool {
        let wasClaimed = isClaimed(sensor)
        holders[sensor, default: []].insert(client)
        return !wasClaimed
    }

    /// Removes `client`'s claim, if it has one. Returns true when that was the sensor's last claim
    /// (the sensor should stop).
    @discardableResult
    public mutating func release(_ sensor: ProxySensor, by client: String) -> Bool {
        guard holders[sensor]?.remove(client) != nil else { return false }
        guard holders[sensor]?.isEmpty ?? true else { return false }
        holders[sensor] = nil
        return true
    }

    /// Removes every claim `client` holds (it left the bus). Returns the sensors that lost their last
    /// claim, in `ProxySensor.allCases` order.
    public mutating func removeClient(_ client: String) -> [ProxySensor] {
        var emptied: [ProxySensor] = []
        for sensor in ProxySensor.allCases where release(sensor, by: client) {
            emptied.append(sensor)
        }
        return emptied
    }
}
