import PlumbDrivers

/// Something that turns IMU samples into the direction of gravity.
///
/// Implementations: ``AccelerometerGravity`` (accelerometer only, for the low-energy mode) and
/// ``FusedGravity`` (gyroscope and accelerometer through PlumbFusion).
public protocol GravityEstimator {
    /// Feeds one sample (sensor frame, SI units).
    ///
    /// - Returns: the unit vector towards the earth in the sensor frame.
    mutating func update(_ sample: IMUSample) -> SIMD3<Double>
    /// Forgets the state (after a gap or a restart): the next sample starts afresh.
    mutating func reset()
}

/// Gravity from the accelerometer alone: a first-order low-pass filter on specific force.
///
/// The time constant trades noise and hand shake against lag. Android's `WindowOrientationListener`
/// uses 200 ms at its UI rate ("100ms seems to be too small and 500ms is too large",
/// reference/fusion.md §1.5); here, behind the classifier's own settle time and rate gate at the
/// low-energy 12.5 Hz, 100 ms measured better on every count (BROAD, `--low-energy`: agreement
/// 98.92 % against 98.43 %, 3.7 against 4.8 spurious changes a minute, median latency 0.66 s
/// against 0.82 s), so that is the default. It restarts from the raw reading after a gap longer
/// than ``resetGap`` or a zero reading. Used in low-energy mode, where the gyroscope is off.
public struct AccelerometerGravity: GravityEstimator, Sendable {
    /// The low-pass time constant, in seconds. Default 0.1.
    public var timeConstant: Double
    /// A gap between samples after which the filter restarts, in seconds. Default 1.
    public var resetGap: Double
    private var filtered: SIMD3<Double> = .zero
    private var lastTime: UInt64?

    public init(timeConstant: Double = 0.1, resetGap: Double = 1) {
        precondition(timeConstant >= 0, "time constant must not be negative")
        self.timeConstant = timeConstant
        self.resetGap = resetGap
    }

    public mutating func update(_ sample: IMUSample) -> SIMD3<Double> {
        // A reading clipped by the full-scale range (``IMUSample/saturation``) is not gravity:
        // the estimate stays as it was.
        guard sample.saturation.isDisjoint(with: .accelerometer) else { return direction }
        let f = sample.acceleration
        let magnitude = (f * f).sum().squareRoot()
        if let last = lastTime, sample.timestampNanoseconds > last, magnitude > 0, filtered != .zero {
            let dt = Double(sample.timestampNanoseconds - last) / 1e9
            if dt > resetGap {
                filtered = f
            } else {
                let alpha = dt / (timeConstant + dt)
                filtered += alpha * (f - filtered)
            }
        } else if magnitude > 0, lastTime == nil || filtered == .zero {
            filtered = f
        }
        lastTime = sample.timestampNanoseconds
        return direction
    }

    /// The unit vector towards the earth from the filtered force, zero before the first reading.
    private var direction: SIMD3<Double> {
        let n = (filtered * filtered).sum().squareRoot()
        return n > 0 ? -filtered / n : .zero
    }

    public mutating func reset() {
        filtered = .zero
        lastTime = nil
    }
}

import PlumbFusion

/// Gravity from a PlumbFusion attitude filter (gyroscope and accelerometer).
///
/// Until the filter has seen its first usable accelerometer sample it returns zero, which the
/// classifier ignores.
public struct FusedGravity<Filter: AttitudeFilter>: GravityEstimator {
    public private(set) var filter: Filter
    /// The estimate before the filter was restarted for a clipped gyroscope, returned until it
    /// converges again; zero when there is none.
    private var beforeRestart: SIMD3<Double> = .zero

    public init(_ filter: Filter) { self.filter = filter }

    /// Samples the driver flags as clipped (``IMUSample/saturation``): a gyroscope at its limit
    /// under-reports the turn, so the integrated attitude is dropped and the filter converges
    /// afresh from the accelerometer (x-io Fusion's overrange recovery); an accelerometer at its
    /// limit is passed as zero, which every filter's input gate refuses for correction
    /// (`InputSettings.minimumAccelerometerNorm`). When both are clipped (a knock) the filter
    /// has nothing to converge from, and the last estimate stands until it has, rather than zero
    /// (which outputs would publish as a gravity of 0, 0, 0).
    @inline(__always)
    public mutating func update(_ sample: IMUSample) -> SIMD3<Double> {
        if !sample.saturation.isDisjoint(with: .gyroscope) {
            if filter.state.isInitialized { beforeRestart = filter.state.gravity }
            filter.reset()
        }
        let accelerometer = sample.saturation.isDisjoint(with: .accelerometer) ? sample.acceleration : .zero
        let state = filter.update(gyroscope: sample.angularRate, accelerometer: accelerometer,
                                  timestamp: Double(sample.timestampNanoseconds) / 1e9)
        return state.isInitialized ? state.gravity : beforeRestart
    }

    public mutating func reset() {
        filter.reset()
        beforeRestart = .zero
    }
}

extension FusionAlgorithm {
    /// A fresh estimator running this algorithm with its default settings.
    public func makeGravityEstimator() -> any GravityEstimator {
        switch self {
        case .plumb: FusedGravity(PlumbFilter())
        case .madgwick: FusedGravity(MadgwickFilter())
        case .complementary: FusedGravity(ComplementaryFilter())
        }
    }
}
