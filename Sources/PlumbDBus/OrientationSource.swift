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
    /// Stops the sensor. Calling it when stopped does nothing.
    func stop()
}
