/// Standard gravity, m/s² (CGPM 1901; the value every IMU datasheet's "g" means).
public let standardGravity = 9.80665

/// What a filter knows after a sample.
public struct FusionState: Equatable, Sendable {
    /// The sensor frame relative to a z-up earth frame: rotates sensor-frame vectors into the
    /// earth frame. Heading (yaw) is unobservable without a magnetometer and drifts; inclination
    /// is what these filters estimate well.
    public var attitude: Quaternion
    /// Unit vector toward the earth, in the sensor frame (the convention of CoreMotion's
    /// `CMDeviceMotion.gravity`: (0, 0, −1) when the sensor lies flat, z up).
    public var gravity: Vector3
    /// The sensor's own acceleration in the sensor frame, m/s²: the accelerometer reading with
    /// gravity's share removed (`accelerometer + standardGravity · gravity`); zero at rest.
    public var userAcceleration: Vector3
    /// The gyroscope bias estimate, rad/s, already subtracted from the rates the filter uses.
    @inlinable
    public var gyroscopeBias: Vector3 {
        get { Vector3(biasAndFlags.x, biasAndFlags.y, biasAndFlags.z) }
        set { biasAndFlags = SIMD4(newValue.x, newValue.y, newValue.z, biasAndFlags.w) }
    }
    /// True while the filter's rest detector sees the sensor still.
    @inlinable
    public var isAtRest: Bool {
        get { flag(1) }
        set { setFlag(1, newValue) }
    }
    /// False until the filter has seen its first usable accelerometer sample; until then the
    /// attitude is the identity and carries no information.
    @inlinable
    public var isInitialized: Bool {
        get { flag(2) }
        set { setFlag(2, newValue) }
    }

    /// The bias, with the two flags as bits of the fourth lane. Packing them there keeps the
    /// whole state at 128 bytes, which the compiler copies with eight vector moves instead of a
    /// call to memcpy (a measurable share of an update that takes tens of nanoseconds).
    @usableFromInline
    var biasAndFlags: SIMD4<Double>

    @inlinable
    func flag(_ bit: Int) -> Bool { Int(biasAndFlags.w) & bit != 0 }

    @inlinable
    mutating func setFlag(_ bit: Int, _ value: Bool) {
        let bits = Int(biasAndFlags.w)
        biasAndFlags.w = Double(value ? bits | bit : bits & ~bit)
    }

    public init(attitude: Quaternion, gravity: Vector3, userAcceleration: Vector3,
                gyroscopeBias: Vector3, isAtRest: Bool, isInitialized: Bool) {
        self.attitude = attitude; self.gravity = gravity; self.userAcceleration = userAcceleration
        self.biasAndFlags = SIMD4(gyroscopeBias.x, gyroscopeBias.y, gyroscopeBias.z,
                                  Double((isAtRest ? 1 : 0) | (isInitialized ? 2 : 0)))
    }

    /// The state before any sample: identity attitude, gravity along −z.
    public static let initial = FusionState(attitude: .identity, gravity: Vector3(0, 0, -1), userAcceleration: .zero,
                                            gyroscopeBias: .zero, isAtRest: false, isInitialized: false)

    /// Fills in gravity and user acceleration from `attitude` and the accelerometer reading.
    @inline(__always)
    mutating func set(attitude q: Quaternion, accelerometer: Vector3) {
        attitude = q
        gravity = -q.upInSensorFrame
        userAcceleration = accelerometer + standardGravity * gravity
    }
}

/// A gyroscope + accelerometer fusion filter.
///
/// Filters are value types: copying one copies its whole state, and an update never allocates.
/// Every sample carries its own timestamp; the filter takes the sample period from consecutive
/// timestamps, so jittery or changing rates need no configuration.
public protocol AttitudeFilter: Sendable {
    /// Feeds one sample and returns the new state.
    ///
    /// - Parameters:
    ///   - gyroscope: angular rate, rad/s, sensor frame.
    ///   - accelerometer: specific force, m/s², sensor frame (+9.81 on the axis pointing up at rest).
    ///   - timestamp: seconds on any monotonic time base.
    /// Samples with a non-finite value are skipped (counted in `skippedSampleCount`) and the
    /// previous state is returned.
    @discardableResult
    mutating func update(gyroscope: Vector3, accelerometer: Vector3, timestamp: Double) -> FusionState

    /// Forgets everything learned except the settings: the next usable accelerometer sample
    /// initialises the attitude again. A gyroscope bias estimate is kept (it is a property of
    /// the sensor, not of the motion); set it to zero through the filter's API if needed.
    mutating func reset()

    /// The state after the last accepted sample.
    var state: FusionState { get }

    /// How many samples were skipped because a value was NaN or infinite.
    var skippedSampleCount: Int { get }
}

/// The filters `plumb fuse` and the benchmarks can choose from, by command-line name.
public enum FusionAlgorithm: String, CaseIterable, Sendable {
    /// `PlumbFilter`: the most accurate, and the default.
    case plumb
    /// `MadgwickFilter`, 6-axis.
    case madgwick
    /// `ComplementaryFilter`.
    case complementary

    public static let `default` = FusionAlgorithm.plumb
}
