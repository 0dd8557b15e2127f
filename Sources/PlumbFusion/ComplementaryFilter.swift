/// A complementary filter: the gyroscope integrated, pulled toward the accelerometer's
/// inclination with a time constant.
///
/// Each step turns the attitude by `(ω − b + k·(â × v̂))·Δt`, where v̂ is the predicted up direction
/// in the sensor frame, â the normalised accelerometer and k = 1/τ: the proportional feedback of
/// Mahony's explicit complementary filter (R. Mahony, T. Hamel, J.-M. Pflimlin, "Nonlinear
/// complementary filters on the special orthogonal group", IEEE TAC 53(5), 2008, eq. 32). Below
/// the corner frequency 1/(2πτ) the accelerometer dominates, above it the gyroscope.
///
/// Two additions: the feedback can fade out while the accelerometer's norm is far from 1 g (off by
/// default, see `accelerationTolerance`), and while the `RestDetector` sees the sensor still,
/// the gyroscope bias is learnt as the low-passed rate.
public struct ComplementaryFilter: AttitudeFilter {
    public struct Settings: Equatable, Sendable {
        /// s. Time constant τ of the accelerometer feedback (gain 1/τ). Default 5 s (best of 1,
        /// 2, 3, 5, 7, 10 and 20 s on the BROAD trials; 1 s gives 3.6°, 5 s 1.3°).
        public var timeConstant: Double = 5
        /// m/s². The feedback weight falls linearly from 1 to 0 as the accelerometer's norm moves
        /// this far from standard gravity. Default `.infinity` (off): on the BROAD trials every
        /// finite tolerance tried (1 to 20 m/s²) made the result worse, because the filter then
        /// coasts on the gyroscope through exactly the long accelerations it should average out.
        public var accelerationTolerance: Double = .infinity
        /// s. Time constant with which the bias follows the gyroscope during rest. Default 2 s.
        public var biasTimeConstant: Double = 2
        /// Rest detection (gates bias learning).
        public var rest: RestDetector.Settings = .default
        /// Gaps, saturation and implausible readings.
        public var input: InputSettings = .default

        public init(timeConstant: Double = 5, accelerationTolerance: Double = .infinity, biasTimeConstant: Double = 2,
                    rest: RestDetector.Settings = .default, input: InputSettings = .default) {
            self.timeConstant = timeConstant; self.accelerationTolerance = accelerationTolerance
            self.biasTimeConstant = biasTimeConstant; self.rest = rest; self.input = input
        }

        public static let `default` = Settings()
    }

    public let settings: Settings
    public private(set) var state: FusionState = .initial
    private var gate: SampleGate
    private var restDetector: RestDetector
    private var q: Quaternion = .identity
    private var bias: Vector3 = .zero
    private var needsAlignment = true

    public init(settings: Settings = .default) {
        precondition(settings.timeConstant > 0 && settings.biasTimeConstant > 0 && settings.accelerationTolerance > 0,
                     "ComplementaryFilter.Settings: time constants and tolerance must be positive")
        self.settings = settings
        self.gate = SampleGate(settings: settings.input)
        self.restDetector = RestDetector(settings: settings.rest)
    }

    public var skippedSampleCount: Int { gate.skipped }

    /// The gyroscope bias estimate, rad/s. Set it to restore one learnt earlier.
    public var gyroscopeBias: Vector3 {
        get { bias }
        set { if newValue.isFinite { bias = newValue; state.gyroscopeBias = newValue } }
    }

    public mutating func reset() {
        let keptBias = bias
        state = .initial
        state.gyroscopeBias = keptBias
        gate.reset()
        restDetector.reset()
        q = .identity
        needsAlignment = true
    }

    @discardableResult
    public mutating func update(gyroscope g: Vector3, accelerometer a: Vector3, timestamp: Double) -> FusionState {
        let sample = gate.admit(gyroscope: g, accelerometer: a, timestamp: timestamp)
        if sample.skip { return state }
        if sample.restart { needsAlignment = true }
        let dt = sample.dt
        let atRest = restDetector.update(gyroscope: g, accelerometer: a, dt: dt)
        if atRest {
            bias += (dt / (settings.biasTimeConstant + dt)) * (g - bias)
        }
        state.isAtRest = atRest
        state.gyroscopeBias = bias
        if needsAlignment {
            guard sample.accelerometerUsable else { return state }
            q = alignInclination(q, accelerometer: a)
            needsAlignment = false
            state.isInitialized = true
            state.set(attitude: q, accelerometer: a)
            return state
        }
        var rate = g - bias
        if sample.accelerometerUsable {
            let norm = a.norm
            let weight = 1 - abs(norm - standardGravity) / settings.accelerationTolerance
            if weight > 0 {
                let up = q.upInSensorFrame
                rate += (weight / settings.timeConstant) * (a / norm).cross(up)
            }
        }
        q = q.integrated(rate * dt)
        state.set(attitude: q, accelerometer: a)
        return state
    }
}
