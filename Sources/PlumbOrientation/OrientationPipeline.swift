import PlumbDrivers
import PlumbHAL

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
    /// While a turn is in progress in the accelerometer-only (low-energy) mode, the source is
    /// asked to deliver a sample at least this often, in seconds (``wakeHint``); `nil` never.
    /// Default ``EnergySettings/defaultTurnWakeInterval``. Held, given to the initialiser or set,
    /// as ``EnergySettings/turnWakeInterval`` holds it: 0 or less is `nil`, one longer than
    /// ``OrientationClassifier/longestWait`` (`.infinity` too) is that, not a number is the
    /// default.
    public var turnWakeInterval: Double? { didSet { turnWakeInterval = EnergySettings.held(turnWakeInterval: turnWakeInterval) } }
    private var fused: any GravityEstimator
    private var accelerometerOnly: AccelerometerGravity

    /// How long after up left the accepted face's region a turn counts as in progress, in
    /// nanoseconds: past it, a device held at a boundary is resting there, not turning, and is
    /// read at the batch's pace again (1.5 s: every low-energy change on the BROAD trials comes
    /// within 1 s of up crossing into the new face's cone, 1.36 s when waking once a batch).
    public static let turnWakeLimit: UInt64 = 1_500 * Nanoseconds.perMillisecond

    /// The sample time by which the source should wake the reader, earlier than its FIFO
    /// watermark would: in the accelerometer-only mode, while up lies in another face's region
    /// (for at most ``turnWakeLimit``), the end of a waiting face's settle time, or else
    /// ``turnWakeInterval`` after the last sample; `nil` otherwise (and always while the
    /// gyroscope runs, whose batches are short).
    ///
    /// While a face is dwelling (a tuning with a time cap, ``OrientationClassifier/Settings/maximumWait``),
    /// the cap bounds the wait instead of the interval: the reader is woken for the end of the
    /// dwell's maximum wait (``OrientationClassifier/dwellDueNanoseconds``) and for a settle
    /// time's end, and not every ``turnWakeInterval``. Once the cap has passed with the dwell's
    /// rate gate or margin unmet, it is woken for the next sample only while up approaches the
    /// face's axis (``OrientationClassifier/dwellApproaching``): a hand turning on through the
    /// face, away from its axis, is read at the batch's pace. Measured on the BROAD trials with
    /// `steadyAccelerometerOnly`, directly and through both emulated chips: every change within
    /// 0.89 s (0.93 s before), the same spurious changes, and on the tour (`plumb bench energy
    /// --steady`) 11.0× fewer wake-ups than normal mode on the MPU-6050 and 10.4× on the LSM6DSO
    /// instead of 9.7× and 9.3×. Waking for
    /// every sample after the cap cost the tour's 180° turn six wake-ups where it swept through a
    /// face faster than the dwell's gate; waking for none left BROAD changes at 1.10–1.35 s, and
    /// the interval's wake-ups during a dwell bought nothing on BROAD.
    ///
    /// The low-energy mode's batches are 0.56 s long. Without this, a face proposed near the end
    /// of a batch waited for the next batch to be accepted, and a slow turn crossed its
    /// hysteresis mid-batch and was seen only at the batch's end: on the BROAD trials 7 of 44
    /// changes came after more than 1 s. The wake-ups are spent only during turns: a device at
    /// rest is read at the batch's pace.
    public var wakeHint: UInt64? {
        guard !usesGyroscope, let interval = turnWakeInterval else { return nil }
        let last = classifier.lastUpdateNanoseconds
        // The end of a dwell's maximum wait; once it has passed (the dwell waits for its rate
        // gate or margin), the next sample while up approaches the face's axis.
        var dwellDue = classifier.dwellDueNanoseconds
        if let away = classifier.awaySince, last &- away >= Self.turnWakeLimit { return dwellDue.flatMap { $0 > last ? $0 : nil } }
        if let due = dwellDue, due <= last, !classifier.dwellApproaching { dwellDue = nil }
        if let due = classifier.decisionDueNanoseconds { return dwellDue.map { min($0, due) } ?? due }
        // A dwelling face's time cap bounds its wait: no interval wake-ups.
        if classifier.dwellFace != .unknown { return dwellDue }
        guard classifier.awaySince != nil else { return nil }
        return last &+ UInt64((interval * 1e9).rounded())
    }

    /// - Parameters:
    ///   - fused: the estimator used while the gyroscope runs.
    ///   - accelerometerOnly: the estimator used while it does not.
    ///   - classifier: classifier settings with the fused estimator.
    ///   - accelerometerOnlyClassifier: classifier settings with the accelerometer-only estimator.
    ///   - usesGyroscope: which estimator to start with.
    ///   - turnWakeInterval: ``turnWakeInterval``, in seconds (held to its range).
    public init(fused: any GravityEstimator, accelerometerOnly: AccelerometerGravity = AccelerometerGravity(),
                classifier: OrientationClassifier.Settings = .default,
                accelerometerOnlyClassifier: OrientationClassifier.Settings = .accelerometerOnly, usesGyroscope: Bool = true,
                mounting: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) = (SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)),
                turnWakeInterval: Double? = EnergySettings.defaultTurnWakeInterval) {
        self.turnWakeInterval = EnergySettings.held(turnWakeInterval: turnWakeInterval)
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
