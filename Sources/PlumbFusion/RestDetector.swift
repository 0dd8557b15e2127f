/// Decides when the sensor is still, the way VQF does: the gyroscope and accelerometer stay close
/// to their own low-pass filtered values, the filtered rate is small enough to be bias, and all
/// of that has lasted a minimum time.
///
/// Method: D. Laidig and T. Seel, "VQF: Highly accurate IMU orientation estimation with bias
/// estimation and magnetic disturbance rejection", Information Fusion, 2023 (rest detection);
/// the thresholds are the defaults VQF documents (see ../shared/reference/fusion.md, §1.4). The low-pass here is first order (VQF uses a
/// second-order Butterworth); with these thresholds the difference only shifts the detection by
/// a few samples.
public struct RestDetector: Sendable {
    public struct Settings: Equatable, Sendable {
        /// s. Rest must last this long before it is reported. Default 1.5 s.
        public var minimumDuration: Double = 1.5
        /// s. Time constant of the low-pass the readings are compared with. Default 0.5 s.
        public var filterTimeConstant: Double = 0.5
        /// rad/s. Largest deviation of the gyroscope from its low-passed value. Default 2 °/s.
        public var gyroscopeThreshold: Double = 2 * .pi / 180
        /// m/s². Largest deviation of the accelerometer from its low-passed value. Default 0.5 m/s².
        public var accelerometerThreshold: Double = 0.5
        /// rad/s. Largest low-passed rate on any axis that can still be bias. Default 2 °/s.
        public var biasClip: Double = 2 * .pi / 180

        public init() {}
        public static let `default` = Settings()
    }

    public let settings: Settings
    /// The low-passed gyroscope, rad/s: at rest, the bias.
    public private(set) var gyroscopeMean: Vector3 = .zero
    /// The low-passed accelerometer, m/s².
    public private(set) var accelerometerMean: Vector3 = .zero
    /// s of continuous stillness so far.
    public private(set) var stillTime: Double = 0
    /// True while the sensor has been still for `minimumDuration`.
    public private(set) var isAtRest = false
    private var primed = false
    /// The low-pass coefficient, recomputed when the sample period changes by more than 0.1 %.
    private var alpha = 0.0, alphaDt = 0.0
    private let gyroscopeThresholdSquared: Double
    private let accelerometerThresholdSquared: Double

    public init(settings: Settings = .default) {
        self.settings = settings
        gyroscopeThresholdSquared = settings.gyroscopeThreshold * settings.gyroscopeThreshold
        accelerometerThresholdSquared = settings.accelerometerThreshold * settings.accelerometerThreshold
    }

    /// Forgets the history.
    public mutating func reset() {
        gyroscopeMean = .zero; accelerometerMean = .zero; stillTime = 0; isAtRest = false; primed = false
    }

    /// Feeds one sample (rad/s, m/s²) taken `dt` seconds after the previous one and returns
    /// whether the sensor is at rest. A sample with `dt` ≤ 0 (a repeated timestamp, a gap) only
    /// returns the current verdict.
    @discardableResult @inline(__always)
    public mutating func update(gyroscope g: Vector3, accelerometer a: Vector3, dt: Double) -> Bool {
        guard primed else {
            restart(gyroscope: g, accelerometer: a)
            return isAtRest
        }
        guard dt > 0 else { return isAtRest }
        if abs(dt - alphaDt) > 1e-3 * alphaDt {
            alphaDt = dt
            alpha = dt / (settings.filterTimeConstant + dt)
        }
        gyroscopeMean += alpha * (g - gyroscopeMean)
        accelerometerMean += alpha * (a - accelerometerMean)
        let clip = settings.biasClip
        let still = (g - gyroscopeMean).squaredNorm < gyroscopeThresholdSquared
            && (a - accelerometerMean).squaredNorm < accelerometerThresholdSquared
            && abs(gyroscopeMean.x) < clip && abs(gyroscopeMean.y) < clip && abs(gyroscopeMean.z) < clip
        if still {
            stillTime += dt
            isAtRest = stillTime >= settings.minimumDuration
        } else {
            stillTime = 0
            isAtRest = false
        }
        return isAtRest
    }

    private mutating func restart(gyroscope g: Vector3, accelerometer a: Vector3) {
        gyroscopeMean = g; accelerometerMean = a; stillTime = 0; isAtRest = false; primed = true
    }
}
