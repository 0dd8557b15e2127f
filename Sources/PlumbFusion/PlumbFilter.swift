#if canImport(Glibc)
import Glibc  // tan: math only
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Plumb's own filter, and the default: accelerometer low-pass in an almost-inertial frame, rest
/// detection and gyroscope bias estimation.
///
/// The method is the one published as VQF (D. Laidig and T. Seel, "VQF: Highly accurate IMU
/// orientation estimation with bias estimation and magnetic disturbance rejection", Information
/// Fusion 91 (2023) 187–204), 6-axis part, written from the paper's description:
///
/// 1. The bias-corrected gyroscope is integrated into `qGyro`, which maps the sensor frame into an
///    almost-inertial frame I (inertial but for slow drift).
/// 2. The accelerometer is rotated into I and low-passed there by a second-order Butterworth
///    filter with time constant τ (cut-off √2/(2πτ)). In I, the sensor's rotation no longer
///    smears gravity, and the zero-mean linear accelerations of real motion average out.
/// 3. `qTilt`, a rotation about a horizontal axis, maps I to the z-up earth frame: after each
///    sample it is corrected fully so that the filtered acceleration points up. The attitude is
///    `qTilt ⊗ qGyro`.
/// 4. A `RestDetector` finds stillness; at rest the bias follows the low-passed gyroscope. In
///    motion, the tilt corrections of step 3 measure the horizontal part of the remaining bias
///    (a bias makes I tilt steadily, which step 3 has to undo), and feed it back slowly.
///
/// Where this differs from the paper (choices of this implementation, not the paper's): the bias
/// update uses two fixed time constants instead of a Kalman filter over the bias; the filter
/// coefficients are recomputed only when the sample period changes by more than 0.1 %; the
/// first accelerometer sample initialises the low-pass to its steady state, so the very first
/// output already has the accelerometer's inclination.
public struct PlumbFilter: AttitudeFilter {
    public struct Settings: Equatable, Sendable {
        /// s. Time constant τ of the accelerometer low-pass in the almost-inertial frame.
        /// Longer rides out longer accelerations, shorter follows gyroscope drift faster.
        /// Default 3 s (VQF's `tauAcc`).
        public var accelerometerTimeConstant: Double = 3
        /// s. Time constant with which the bias estimate follows the low-passed gyroscope while
        /// at rest. Default 3 s.
        public var restBiasTimeConstant: Double = 3
        /// s. Time constant with which the horizontal bias follows the tilt corrections during
        /// motion; 0 turns motion bias estimation off. Default 40 s.
        public var motionBiasTimeConstant: Double = 40
        /// rad/s. Largest bias the estimate may reach on any axis. Default 2 °/s (VQF's `biasClip`).
        public var biasClip: Double = 2 * .pi / 180
        /// Rest detection.
        public var rest: RestDetector.Settings = .default
        /// Gaps, saturation and implausible readings.
        public var input: InputSettings = .default

        public init() {}
        public static let `default` = Settings()
    }

    public let settings: Settings
    public private(set) var state: FusionState = .initial
    private var gate: SampleGate
    private var restDetector: RestDetector
    /// Sensor → almost-inertial frame I.
    private var qGyro: Quaternion = .identity
    /// I → earth (a rotation about a horizontal axis).
    private var qTilt: Quaternion = .identity
    private var bias: Vector3 = .zero
    private var lowPass = ButterworthLowPass()
    private var needsAlignment = true

    public init(settings: Settings = .default) {
        self.settings = settings
        self.gate = SampleGate(settings: settings.input)
        self.restDetector = RestDetector(settings: settings.rest)
    }

    public var skippedSampleCount: Int { gate.skipped }

    /// The gyroscope bias estimate, rad/s. Set it to restore one learnt earlier (for example at
    /// boot from a file), which spares the filter the first rest phase.
    public var gyroscopeBias: Vector3 {
        get { bias }
        set { if newValue.isFinite { bias = clipped(newValue); state.gyroscopeBias = bias } }
    }

    public mutating func reset() {
        let keptBias = bias
        state = .initial
        state.gyroscopeBias = keptBias
        gate.reset()
        restDetector.reset()
        qGyro = .identity
        qTilt = .identity
        needsAlignment = true
    }

    @discardableResult
    public mutating func update(gyroscope g: Vector3, accelerometer a: Vector3, timestamp: Double) -> FusionState {
        let sample = gate.admit(gyroscope: g, accelerometer: a, timestamp: timestamp)
        if sample.skip { return state }
        if sample.restart { needsAlignment = true }
        let dt = sample.dt

        // Rest: the bias follows the low-passed gyroscope.
        let atRest = restDetector.update(gyroscope: g, accelerometer: a, dt: dt)
        if atRest {
            bias = clipped(bias + (dt / (settings.restBiasTimeConstant + dt)) * (restDetector.gyroscopeMean - bias))
        }
        state.isAtRest = atRest

        if needsAlignment {
            guard sample.accelerometerUsable else { return publish(accelerometer: a) }
            // Keep the heading, take the inclination from this sample, start the low-pass from it.
            let aligned = alignInclination(qTilt * qGyro, accelerometer: a)
            qGyro = aligned
            qTilt = .identity
            lowPass.prime(with: aligned.rotate(a))
            needsAlignment = false
            state.isInitialized = true
            return publish(accelerometer: a)
        }
        guard dt > 0 else { return publish(accelerometer: a) }

        // 1. Strapdown integration into I.
        qGyro = qGyro.integrated((g - bias) * dt)

        // 2. Low-pass of the accelerometer in I. An unusable reading feeds the filter its own
        //    last output, so it holds still.
        lowPass.configure(timeConstant: settings.accelerometerTimeConstant, dt: dt)
        let input = sample.accelerometerUsable ? qGyro.rotate(a) : lowPass.output
        let filtered = lowPass.step(input)

        // 3. Tilt correction: the smallest rotation taking the filtered acceleration (in the earth
        //    frame) to +z; its axis (a_y, −a_x, 0) is horizontal.
        let up = qTilt.rotate(filtered)
        let n = up.norm
        if n > 0 {
            let correction = Quaternion(w: n + up.z, x: up.y, y: -up.x, z: 0).normalized()
            qTilt = (correction * qTilt).normalized()

            // 4. Motion bias: a correction at rate c (earth frame) means the gyroscope turned the
            //    sensor by −c too much, i.e. a residual bias of −Rᵀc (horizontal part only).
            if !atRest, settings.motionBiasTimeConstant > 0 {
                let angle = Vector3(correction.x, correction.y, 0) * 2   // rotation vector, small angle
                let attitude = qTilt * qGyro
                let residual = attitude.inverseRotate(angle)              // rad, sensor frame
                bias = clipped(bias - residual / settings.motionBiasTimeConstant)
            }
        }
        return publish(accelerometer: a)
    }

    private mutating func publish(accelerometer a: Vector3) -> FusionState {
        state.gyroscopeBias = bias
        if state.isInitialized { state.set(attitude: (qTilt * qGyro).normalized(), accelerometer: a) }
        return state
    }

    private func clipped(_ b: Vector3) -> Vector3 {
        let c = settings.biasClip
        return b.clamped(lowerBound: Vector3(repeating: -c), upperBound: Vector3(repeating: c))
    }
}

/// A second-order Butterworth low-pass on three channels, direct form II transposed.
///
/// Cut-off f_c = √2/(2πτ) for time constant τ; coefficients by the bilinear transform with
/// frequency pre-warping (K = tan(π f_c Δt)).
struct ButterworthLowPass: Sendable {
    private var b0 = 0.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
    private var s1: Vector3 = .zero, s2: Vector3 = .zero
    private var configuredDt = 0.0, configuredTau = 0.0
    private(set) var output: Vector3 = .zero

    /// Sets the coefficients for `timeConstant` (s) at sample period `dt` (s); does nothing when
    /// they are within 0.1 % of the current ones.
    mutating func configure(timeConstant tau: Double, dt: Double) {
        if tau == configuredTau, abs(dt - configuredDt) <= 1e-3 * configuredDt { return }
        configuredDt = dt; configuredTau = tau
        let fc = 2.0.squareRoot() / (2 * .pi * tau)
        let k = tan(.pi * fc * dt)
        let k2 = k * k
        let norm = 1 / (1 + 2.0.squareRoot() * k + k2)
        b0 = k2 * norm; b1 = 2 * b0; b2 = b0
        a1 = 2 * (k2 - 1) * norm
        a2 = (1 - 2.0.squareRoot() * k + k2) * norm
        // Keep the output where it is: re-prime the state for the new coefficients.
        prime(with: output)
    }

    /// Sets the state to the steady state for a constant input `x`.
    mutating func prime(with x: Vector3) {
        output = x
        s1 = x * (1 - b0)
        s2 = x * (b2 - a2)
    }

    mutating func step(_ x: Vector3) -> Vector3 {
        let y = b0 * x + s1
        s1 = b1 * x - a1 * y + s2
        s2 = b2 * x - a2 * y
        output = y
        return y
    }
}
