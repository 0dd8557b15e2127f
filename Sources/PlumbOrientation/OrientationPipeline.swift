import PlumbDrivers

/// One sensor's path from samples to orientation: gravity estimation, the mounting rotation into
/// the device frame, then the classifier.
///
/// It uses the fused estimator while the gyroscope runs and the accelerometer-only estimator
/// while it is off (the low-energy mode); switching restarts the estimator it switches to and
/// retunes the classifier to that estimator's settings. Not thread-safe: the reader thread owns
/// it. Nothing per sample allocates.
public struct OrientationPipeline {
    /// The rotation from the sensor frame into the device frame, as three rows (device x, y, z
    /// expressed in sensor axes). Default: identity, the sensor's axes are the device's.
    public var mounting: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)
    public private(set) var classifier: OrientationClassifier
    /// The classifier settings used with the fused estimator.
    public let fusedClassifier: OrientationClassifier.Settings
    /// The classifier settings used with the accelerometer-only estimator.
    public let accelerometerOnlyClassifier: OrientationClassifier.Settings
    /// True while the gyroscope is used.
    public private(set) var usesGyroscope: Bool
    /// The latest gravity estimate in the device frame (unit vector towards the earth), zero before
    /// the first sample.
    public private(set) var gravity: SIMD3<Double> = .zero
    private var fused: any GravityEstimator
    private var accelerometerOnly: AccelerometerGravity

    /// - Parameters:
    ///   - fused: the estimator used while the gyroscope runs.
    ///   - accelerometerOnly: the estimator used while it does not.
    ///   - classifier: classifier settings with the fused estimator.
    ///   - accelerometerOnlyClassifier: classifier settings with the accelerometer-only estimator.
    ///   - usesGyroscope: which estimator to start with.
    public init(fused: any GravityEstimator, accelerometerOnly: AccelerometerGravity = AccelerometerGravity(),
                classifier: OrientationClassifier.Settings = .default,
                accelerometerOnlyClassifier: OrientationClassifier.Settings = .accelerometerOnly, usesGyroscope: Bool = true,
                mounting: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) = (SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1))) {
        self.fused = fused
        self.accelerometerOnly = accelerometerOnly
        self.fusedClassifier = classifier
        self.accelerometerOnlyClassifier = accelerometerOnlyClassifier
        self.classifier = OrientationClassifier(settings: usesGyroscope ? classifier : accelerometerOnlyClassifier)
        self.usesGyroscope = usesGyroscope
        self.mounting = mounting
    }

    /// The accepted device orientation.
    public var orientation: DeviceOrientation { classifier.orientation }

    /// Switches between the fused and the accelerometer-only estimator; the one switched to
    /// starts afresh. The accepted orientation is kept.
    public mutating func useGyroscope(_ on: Bool) {
        guard on != usesGyroscope else { return }
        usesGyroscope = on
        if on { fused.reset() } else { accelerometerOnly.reset() }
        classifier.retune(on ? fusedClassifier : accelerometerOnlyClassifier)
    }

    /// Restarts gravity estimation but keeps the accepted orientation (the sensor paused and
    /// resumed).
    public mutating func restartEstimation() {
        fused.reset()
        accelerometerOnly.reset()
        classifier.reset(to: classifier.orientation)
    }

    /// Keeps `orientation` as the accepted one (a new source replacing an old one).
    public mutating func resume(from orientation: DeviceOrientation) {
        classifier.reset(to: orientation)
    }

    /// Forgets every estimate and the accepted orientation (the sensor restarted).
    public mutating func reset() {
        fused.reset()
        accelerometerOnly.reset()
        classifier.reset()
        gravity = .zero
    }

    /// Feeds one sample.
    ///
    /// - Returns: the new device orientation when it changes.
    @inline(__always)
    public mutating func process(_ sample: IMUSample) -> DeviceOrientation? {
        let g = usesGyroscope ? fused.update(sample) : accelerometerOnly.update(sample)
        let device = SIMD3((mounting.0 * g).sum(), (mounting.1 * g).sum(), (mounting.2 * g).sum())
        gravity = device
        return classifier.update(gravity: device, timeNanoseconds: sample.timestampNanoseconds)
    }
}
