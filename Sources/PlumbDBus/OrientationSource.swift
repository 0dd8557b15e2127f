/// Something that reports the screen's orientation while it is running: the live sensor pipeline,
/// the simulator, or a script.
///
/// ``SensorProxyService`` starts its source when the first client claims the accelerometer and stops
/// it when the last claim goes, so a source should read its sensor only between `start` and `stop`.
///
/// A source calls `report` from any thread: once soon after `start` with the orientation it
/// currently sees (``AccelerometerOrientation/undefined`` if it cannot tell yet), then on every
/// change. It must not call `report` after `stop` returns.
public protocol OrientationSource: AnyObject, Sendable {
    /// Starts the sensor. Throws when it cannot (the service then reports the accelerometer absent).
    func start(report: @escaping @Sendable (AccelerometerOrientation) -> Void) throws
    /// Starts the sensor, also telling through `presence` when it stops answering while running
    /// (``SensorPresence/absent(_:)``) and when it answers again (``SensorPresence/present``), so
    /// that the service turns HasAccelerometer false and back as iio-sensor-proxy does when its
    /// device is removed and added. Default: ``start(report:)``, presence never told.
    func start(report: @escaping @Sendable (AccelerometerOrientation) -> Void,
               presence: @escaping @Sendable (SensorPresence) -> Void) throws
    /// Stops the sensor. Calling it when stopped does nothing.
    func stop()
}

extension OrientationSource {
    public func start(report: @escaping @Sendable (AccelerometerOrientation) -> Void,
                      presence: @escaping @Sendable (SensorPresence) -> Void) throws {
        try start(report: report)
    }
}

/// Whether a running source's sensor answers.
public enum SensorPresence: Sendable, Equatable {
    /// It stopped answering (unplugged, its supply gone); what the source said about it.
    case absent(String)
    /// It answers again.
    case present
}
