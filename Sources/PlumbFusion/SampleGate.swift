/// How a filter treats imperfect input: gaps, saturation and implausible accelerometer readings.
public struct InputSettings: Equatable, Sendable {
    /// s. A sample period longer than this is a gap: the gyroscope is not integrated across it and
    /// the filter converges afresh from the next accelerometer sample. Default 0.5 s.
    public var maximumSamplePeriod: Double = 0.5
    /// m/s². Accelerometer readings shorter than this (free fall, a dead or disconnected sensor)
    /// are not used to correct inclination. Default 1 m/s² (Android's `NEAR_ZERO_MAGNITUDE`,
    /// AOSP WindowOrientationListener).
    public var minimumAccelerometerNorm: Double = 1
    /// m/s², the accelerometer's full scale. A sample with an axis at 98 % of it or more is
    /// saturated and not used for correction. Default `.infinity` (unknown: no check).
    public var accelerometerFullScale: Double = .infinity
    /// rad/s, the gyroscope's full scale. A sample with an axis at 98 % of it or more is
    /// saturated: the integrated attitude is no longer trusted and the filter converges afresh
    /// from the accelerometer (x-io Fusion's overrange recovery uses the same 98 %).
    /// Default `.infinity` (unknown: no check).
    public var gyroscopeFullScale: Double = .infinity
    /// m/s². Readings longer than this are not physical for any supported part (the largest full
    /// scale, ±16 g, is 157 m/s²) and are not used. Default 1000 m/s².
    public var maximumAccelerometerNorm: Double = 1000
    /// rad/s. A rate longer than this is not physical for any supported part (the largest full
    /// scale, ±4000 °/s, is 70 rad/s): the sample is treated like a saturated one. Default 100 rad/s.
    public var maximumGyroscopeNorm: Double = 100

    public init() {}

    public static let `default` = InputSettings()
}

/// What the gate decided about one sample.
struct GatedSample: Sendable {
    /// Skip the sample entirely (a non-finite value).
    var skip: Bool
    /// Integrate the gyroscope over this many seconds (0 for the first sample, after a gap, or when
    /// the timestamp did not advance).
    var dt: Double
    /// The accelerometer reading may correct the inclination.
    var accelerometerUsable: Bool
    /// Converge afresh: the first sample, a gap, or gyroscope saturation.
    var restart: Bool
}

/// Input checks shared by every filter: finite values, sample period, gaps, saturation.
struct SampleGate: Sendable {
    var settings: InputSettings
    var lastTimestamp: Double = .nan
    var skipped = 0

        init(settings: InputSettings) { self.settings = settings }

    mutating func reset() { lastTimestamp = .nan }

    @inline(__always)
    mutating func admit(gyroscope g: Vector3, accelerometer a: Vector3, timestamp t: Double) -> GatedSample {
        guard g.isFinite, a.isFinite, t.isFinite else {
            skipped &+= 1
            return GatedSample(skip: true, dt: 0, accelerometerUsable: false, restart: false)
        }
        let dt = t - lastTimestamp   // NaN for the first sample
        lastTimestamp = t
        var sample = GatedSample(skip: false, dt: 0, accelerometerUsable: true, restart: false)
        if dt > settings.maximumSamplePeriod || dt.isNaN {
            sample.restart = true
        } else if dt > 0 {
            sample.dt = dt
        }
        // A timestamp that did not advance (dt ≤ 0) integrates nothing; the time base follows it.
        let limit = 0.98 * settings.gyroscopeFullScale
        if abs(g.x) >= limit || abs(g.y) >= limit || abs(g.z) >= limit
            || !(g.squaredNorm <= settings.maximumGyroscopeNorm * settings.maximumGyroscopeNorm) {
            sample.restart = true
            sample.dt = 0
        }
        let aLimit = 0.98 * settings.accelerometerFullScale
        let aSquared = a.squaredNorm
        if aSquared < settings.minimumAccelerometerNorm * settings.minimumAccelerometerNorm
            || !(aSquared <= settings.maximumAccelerometerNorm * settings.maximumAccelerometerNorm)
            || abs(a.x) >= aLimit || abs(a.y) >= aLimit || abs(a.z) >= aLimit {
            sample.accelerometerUsable = false
        }
        return sample
    }
}
