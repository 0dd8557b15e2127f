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
/// Fusion, 2023), 6-axis part, written from the paper's description, not from any code:
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
/// Additions and differences (choices of this implementation, not the paper's):
/// - Drift compensation: the low-pass lags a steady drift of I by τ (its group delay at 0 Hz);
///   extrapolating the filtered vector along its rate of change, averaged over 10 s so that
///   back-and-forth accelerations cancel, removes that lag. Gyroscope scale and misalignment
///   errors (about 1 % in the BROAD sensor) drift I steadily during sustained rotation; on the
///   BROAD trials this lowers the mean inclination error from 0.634° to 0.582°.
/// - At rest the low-pass runs with τ = 0.5 s (no linear acceleration to average out) and the
///   drift estimate is dropped, so the inclination settles within a second of a rest starting.
/// - The bias update uses two fixed time constants instead of a Kalman filter over the bias.
/// - The first accelerometer sample initialises the low-pass to its steady state, so the very
///   first output already has the accelerometer's inclination.
/// - Coefficients depending on the sample period are recomputed only when it changes by more
///   than 0.1 %, so an update costs no division or trigonometric function in the steady state.
///
/// Measured on the 13 BROAD trials in ../shared/data/broad (`scripts/eval-fusion`): mean RMS
/// inclination error 0.582°, against 0.633° for VQF 6D (PyPI `vqf` 2.1.2, same run).
public struct PlumbFilter: AttitudeFilter {
    public struct Settings: Equatable, Sendable {
        /// s. Time constant τ of the accelerometer low-pass in the almost-inertial frame.
        /// Longer rides out longer accelerations, shorter follows gyroscope drift faster.
        /// Default 3 s (VQF's `tauAcc`).
        public var accelerometerTimeConstant: Double = 3
        /// s. Time constant of the accelerometer low-pass while the `RestDetector` reports rest.
        /// Default 0.5 s.
        public var restAccelerometerTimeConstant: Double = 0.5
        /// s. Time constant with which the bias estimate follows the low-passed gyroscope while
        /// at rest. Default 3 s.
        public var restBiasTimeConstant: Double = 3
        /// s. Time constant with which the horizontal bias follows the tilt corrections during
        /// motion; 0 turns motion bias estimation off. Default 300 s.
        public var motionBiasTimeConstant: Double = 300
        /// Drift compensation, as a fraction of τ: the low-passed acceleration is extrapolated
        /// along its own averaged rate of change by this many time constants, which removes the
        /// low-pass's lag behind a steady drift of the almost-inertial frame (gyroscope bias,
        /// scale and misalignment errors during sustained rotation). 0 turns it off. Default 1
        /// (the 2nd-order Butterworth's group delay at 0 Hz is exactly τ).
        public var driftCompensation: Double = 1
        /// s. Averaging time of that rate of change; long enough that back-and-forth linear
        /// accelerations cancel out. Default 10 s.
        public var driftAveragingTime: Double = 10
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
    /// I → earth: the accumulated tilt corrections.
    private var qTilt: Quaternion = .identity
    private var bias: Vector3 = .zero
    private var lowPass = ButterworthLowPass()
    private var needsAlignment = true
    /// Rate of change of the low-passed acceleration in I, m/s³, averaged.
    private var drift: Vector3 = .zero
    // Per-sample-period coefficients (refreshCoefficients) and constants from the settings.
    private var coefficientsDt = 0.0
    private var inverseDt = 0.0
    private var restBiasAlpha = 0.0
    private var driftAlpha = 0.0
    private let driftGain: Double
    private var pendingBias: Vector3 = .zero
    private var pendingCount = 0
    private let motionBiasGain: Double

    public init(settings: Settings = .default) {
        precondition(settings.accelerometerTimeConstant > 0 && settings.restAccelerometerTimeConstant > 0
                     && settings.restBiasTimeConstant > 0 && settings.driftAveragingTime > 0,
                     "PlumbFilter.Settings: time constants must be positive")
        precondition(settings.motionBiasTimeConstant >= 0 && settings.driftCompensation.isFinite && settings.biasClip >= 0,
                     "PlumbFilter.Settings: motionBiasTimeConstant, driftCompensation and biasClip out of range")
        self.settings = settings
        self.gate = SampleGate(settings: settings.input)
        self.restDetector = RestDetector(settings: settings.rest)
        self.driftGain = settings.driftCompensation * settings.accelerometerTimeConstant
        self.motionBiasGain = settings.motionBiasTimeConstant > 0 ? 1 / settings.motionBiasTimeConstant : 0
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
        drift = .zero
        pendingBias = .zero
        pendingCount = 0
        needsAlignment = true
    }

    @discardableResult
    public mutating func update(gyroscope g: Vector3, accelerometer a: Vector3, timestamp: Double) -> FusionState {
        let sample = gate.admit(gyroscope: g, accelerometer: a, timestamp: timestamp)
        if sample.skip { return state }
        if sample.restart { needsAlignment = true }
        let dt = sample.dt
        if dt > 0 { refreshCoefficients(dt: dt) }

        // Rest: the bias follows the low-passed gyroscope.
        let atRest = restDetector.update(gyroscope: g, accelerometer: a, dt: dt)
        if atRest, dt > 0 {
            bias = clipped(bias + restBiasAlpha * (restDetector.gyroscopeMean - bias))
        }
        state.isAtRest = atRest
        if dt > 0 {
            // At rest there is no linear acceleration to average out: a short low-pass lets the
            // inclination settle on the accelerometer within a second, and the drift estimate
            // (a property of motion) is dropped.
            lowPass.configure(timeConstant: atRest ? settings.restAccelerometerTimeConstant : settings.accelerometerTimeConstant, dt: dt)
            if atRest { drift = .zero }
        }

        if needsAlignment {
            guard sample.accelerometerUsable else { return publish(accelerometer: a) }
            // Keep the heading, take the inclination from this sample, start the low-pass from it.
            let aligned = alignInclination(qTilt * qGyro, accelerometer: a)
            qGyro = aligned
            qTilt = .identity
            lowPass.prime(with: aligned.rotate(a))
            drift = .zero
            needsAlignment = false
            state.isInitialized = true
            return publish(accelerometer: a)
        }
        guard dt > 0 else { return publish(accelerometer: a) }

        // 1. Strapdown integration into I.
        qGyro = qGyro.integrated((g - bias) * dt)

        // 2. Low-pass of the accelerometer in I. An unusable reading feeds the filter its own
        //    last output, so it holds still.
        let previous = lowPass.output
        var filtered = lowPass.step(sample.accelerometerUsable ? qGyro.rotate(a) : previous)
        if driftGain != 0 {
            drift += driftAlpha * ((filtered - previous) * inverseDt - drift)
            filtered += driftGain * drift
        }

        // 3. Tilt correction: the smallest rotation taking the filtered acceleration u (in the
        //    earth frame) to +z, about the horizontal axis (u_y, −u_x, 0). After the first sample
        //    u stays within a few thousandths of a degree of +z, where the half-angle form
        //    (1, u_y/2u_z, −u_x/2u_z, 0) is exact to 1e-15 and needs one division; far from +z
        //    (a saturated or corrupted history) the exact form is used.
        let up = qTilt.rotate(filtered)
        var correction: Quaternion
        let horizontal = up.x * up.x + up.y * up.y
        if up.z > 0, horizontal < 1e-6 * up.z * up.z {
            let h = 0.5 / up.z
            correction = Quaternion(w: 1, x: up.y * h, y: -up.x * h, z: 0)
        } else {
            let n = up.norm
            let w = n + up.z
            let scale = w > 1e-300 ? 1 / (2 * n * w).squareRoot() : 0
            correction = scale > 0 ? Quaternion(w: w * scale, x: up.y * scale, y: -up.x * scale, z: 0)
                                   : Quaternion(w: 0, x: 1, y: 0, z: 0)   // u = −z: turn over about x
        }
        qTilt = (correction * qTilt).nearUnitNormalized()
        if !qTilt.isFinite { qTilt = .identity; needsAlignment = true }
        let attitude = qTilt * qGyro

        // 4. Motion bias: a correction by rotation vector c (earth frame) means the gyroscope
        //    turned the sensor by −c too much: a residual bias of −Rᵀc/Δt, horizontal part
        //    only. Collected every sample, applied every 16, which keeps the bias out of the
        //    per-sample chain of dependent arithmetic; at this gain the delay is immaterial.
        if !atRest, motionBiasGain > 0 {
            let angle = Vector3(correction.x, correction.y, 0) * 2
            pendingBias -= motionBiasGain * attitude.inverseRotate(angle)
            pendingCount &+= 1
            if pendingCount >= 16 {
                bias = clipped(bias + pendingBias)
                pendingBias = .zero
                pendingCount = 0
            }
        }
        state.gyroscopeBias = bias
        state.set(attitude: attitude, accelerometer: a)
        return state
    }

    /// Recomputes what depends on the sample period, when it changed by more than 0.1 %.
    private mutating func refreshCoefficients(dt: Double) {
        if abs(dt - coefficientsDt) <= 1e-3 * coefficientsDt { return }
        coefficientsDt = dt
        inverseDt = 1 / dt
        restBiasAlpha = dt / (settings.restBiasTimeConstant + dt)
        driftAlpha = dt / (settings.driftAveragingTime + dt)
    }

    private mutating func publish(accelerometer a: Vector3) -> FusionState {
        state.gyroscopeBias = bias
        if state.isInitialized { state.set(attitude: (qTilt * qGyro).normalized(), accelerometer: a) }
        return state
    }

    @inline(__always)
    private func clipped(_ b: Vector3) -> Vector3 {
        let c = settings.biasClip
        return b.clamped(lowerBound: Vector3(repeating: -c), upperBound: Vector3(repeating: c))
    }
}

/// A second-order Butterworth low-pass on three channels, direct form I.
///
/// Cut-off f_c = √2/(2πτ) for time constant τ; coefficients by the bilinear transform with
/// frequency pre-warping (K = tan(π f_c Δt)).
///
/// Direct form I keeps the last two inputs and outputs, which are signal values whatever the
/// coefficients: when the sample period changes, the new coefficients take over from them and the
/// output keeps its level and its motion. The transposed form's state holds the coefficients
/// inside it, so it had to be re-primed at the output on every change, which dropped the filter's
/// motion; real timestamps change the period on almost every sample (an LSM6DS's 25 µs counter
/// makes a 104 Hz period 384 or 385 ticks, 0.26 % apart), and each re-priming lagged the
/// filtered acceleration further: 7.5° RMS instead of 0.38° on BROAD trial 01 with ±12.5 µs of
/// timestamp jitter.
struct ButterworthLowPass: Sendable {
    private var b0 = 0.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
    /// The last two inputs and outputs (x1, y1 the most recent).
    private var x1: Vector3 = .zero, x2: Vector3 = .zero, y2: Vector3 = .zero
    private var configuredDt = 0.0, configuredTau = 0.0
    /// The last output (y1 of the difference equation).
    private(set) var output: Vector3 = .zero

    /// Sets the coefficients for `timeConstant` (s) at sample period `dt` (s); does nothing when
    /// they are within 0.1 % of the current ones. A new sample period continues from the filter's
    /// history; a large change of the time constant (rest starting or ending) re-primes it at the
    /// current output, so the new time constant starts from a steady state without a jump.
    mutating func configure(timeConstant tau: Double, dt: Double) {
        if tau == configuredTau, abs(dt - configuredDt) <= 1e-3 * configuredDt { return }
        let reprime = abs(tau - configuredTau) > 0.2 * configuredTau
        configuredDt = dt; configuredTau = tau
        let fc = 2.0.squareRoot() / (2 * .pi * tau)
        let x = .pi * fc * dt
        let k = x < 0.01 ? x * (1 + x * x / 3) : tan(x)
        let k2 = k * k
        let norm = 1 / (1 + 2.0.squareRoot() * k + k2)
        b0 = k2 * norm; b1 = 2 * b0; b2 = b0
        a1 = 2 * (k2 - 1) * norm
        a2 = (1 - 2.0.squareRoot() * k + k2) * norm
        if reprime { prime(with: output) }
    }

    /// Sets the history to the steady state for a constant input `x`.
    mutating func prime(with x: Vector3) {
        output = x
        x1 = x; x2 = x; y2 = x
    }

    @inline(__always)
    mutating func step(_ x: Vector3) -> Vector3 {
        let y = b0 * x + b1 * x1 + b2 * x2 - a1 * output - a2 * y2
        x2 = x1; x1 = x
        y2 = output; output = y
        return y
    }
}
