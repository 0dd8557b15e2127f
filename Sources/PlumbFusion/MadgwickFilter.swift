/// Madgwick's gradient-descent orientation filter, 6-axis (IMU) form.
///
/// One step: the quaternion rate from the gyroscope, `½ q ⊗ (0, ω)`, minus β times the
/// normalised gradient of the objective `f = R(q)ᵀ e_z − â` (the predicted up direction in the
/// sensor frame minus the normalised accelerometer), integrated over the sample period and
/// renormalised. Source: S. O. H. Madgwick, "An efficient orientation filter for inertial and
/// inertial/magnetic sensor arrays", 2010, eqs. 12/13/25/26/33/34.
///
/// Differences from the reference implementations, all at the edges: the sample period comes
/// from each sample's timestamp; the first usable accelerometer sample sets the inclination
/// directly (so the filter needs no seconds of convergence); a zero gyroscope reading still gets
/// the accelerometer correction (the `ahrs` package skips it); unusable accelerometer readings
/// (zero, saturated) fall back to gyroscope integration. The 6-axis filter has no gyroscope-bias
/// term and no rest detector: `gyroscopeBias` is zero and `isAtRest` false.
public struct MadgwickFilter: AttitudeFilter {
    public struct Settings: Equatable, Sendable {
        /// rad/s. The gain β = √(3/4)·ω̄, ω̄ the mean zero-gyroscope measurement error of each
        /// axis. Default 0.033 (the `ahrs` package's `gain_imu`, "following the original
        /// article"). Higher trusts the accelerometer more.
        public var beta: Double = 0.033
        /// Gaps, saturation and implausible readings.
        public var input: InputSettings = .default

        public init(beta: Double = 0.033, input: InputSettings = .default) {
            self.beta = beta; self.input = input
        }

        public static let `default` = Settings()
    }

    public let settings: Settings
    public private(set) var state: FusionState = .initial
    private var gate: SampleGate
    private var q: Quaternion = .identity
    private var needsAlignment = true

    public init(settings: Settings = .default) {
        precondition(settings.beta >= 0 && settings.beta.isFinite, "MadgwickFilter.Settings: beta must be finite and ≥ 0")
        self.settings = settings
        self.gate = SampleGate(settings: settings.input)
    }

    public var skippedSampleCount: Int { gate.skipped }

    public mutating func reset() {
        state = .initial
        gate.reset()
        q = .identity
        needsAlignment = true
    }

    @discardableResult
    public mutating func update(gyroscope g: Vector3, accelerometer a: Vector3, timestamp: Double) -> FusionState {
        let sample = gate.admit(gyroscope: g, accelerometer: a, timestamp: timestamp)
        if sample.skip { return state }
        if sample.restart { needsAlignment = true }
        if needsAlignment {
            guard sample.accelerometerUsable else { return state }
            q = alignInclination(q, accelerometer: a)
            needsAlignment = false
            state.isInitialized = true
            state.set(attitude: q, accelerometer: a)
            return state
        }
        let dt = sample.dt
        // q̇_ω = ½ q ⊗ (0, ω)
        var dw = 0.5 * (-q.x * g.x - q.y * g.y - q.z * g.z)
        var dx = 0.5 * (q.w * g.x + q.y * g.z - q.z * g.y)
        var dy = 0.5 * (q.w * g.y - q.x * g.z + q.z * g.x)
        var dz = 0.5 * (q.w * g.z + q.x * g.y - q.y * g.x)
        if sample.accelerometerUsable {
            let an = a / a.norm
            // f = R(q)ᵀ e_z − â, and ∇ = Jᵀ f with J the Jacobian of R(q)ᵀ e_z.
            let f0 = 2 * (q.x * q.z - q.w * q.y) - an.x
            let f1 = 2 * (q.w * q.x + q.y * q.z) - an.y
            let f2 = 2 * (0.5 - q.x * q.x - q.y * q.y) - an.z
            let gw = -2 * q.y * f0 + 2 * q.x * f1
            let gx = 2 * q.z * f0 + 2 * q.w * f1 - 4 * q.x * f2
            let gy = -2 * q.w * f0 + 2 * q.z * f1 - 4 * q.y * f2
            let gz = 2 * q.x * f0 + 2 * q.y * f1
            let n2 = gw * gw + gx * gx + gy * gy + gz * gz
            if n2 > 0 {
                let s = settings.beta / n2.squareRoot()
                dw -= s * gw; dx -= s * gx; dy -= s * gy; dz -= s * gz
            }
        }
        q = Quaternion(w: q.w + dw * dt, x: q.x + dx * dt, y: q.y + dy * dt, z: q.z + dz * dt).normalized()
        state.set(attitude: q, accelerometer: a)
        return state
    }
}

/// The attitude `q` turned by the smallest earth-frame rotation that makes its up direction agree
/// with the accelerometer `a`: inclination from `a`, heading kept.
func alignInclination(_ q: Quaternion, accelerometer a: Vector3) -> Quaternion {
    let upInEarth = q.rotate(a)
    return (Quaternion(from: upInEarth, to: Vector3(0, 0, 1)) * q).normalized()
}
