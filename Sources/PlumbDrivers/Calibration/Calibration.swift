import Foundation

/// Corrections applied after the driver: biases, scales and the mounting, saved as JSON.
///
/// `corrected = mounting · ((raw − offset) ⊙ scale)` for the accelerometer and
/// `mounting · (raw − bias)` for the gyroscope.
public struct Calibration: Sendable, Equatable, Codable {
    /// Gyroscope zero-rate bias, rad/s.
    public var gyroscopeBias: SIMD3<Double>
    /// Accelerometer zero-g offset, m/s².
    public var accelerometerOffset: SIMD3<Double>
    /// Accelerometer scale factors (1 = none).
    public var accelerometerScale: SIMD3<Double>
    public var mounting: Mounting
    /// The part key the calibration was made on ("mpu6050"), if known: the key alone, its name
    /// and WHO_AM_I come from the drivers' tables (``IMUFamilies/row(forPart:)``). A chip it does
    /// not fit is refused (``fits(_:)``).
    public var part: String?
    /// Mean die temperature during calibration, °C, if known.
    public var temperature: Double?

    public init(gyroscopeBias: SIMD3<Double> = .zero, accelerometerOffset: SIMD3<Double> = .zero,
                accelerometerScale: SIMD3<Double> = SIMD3(1, 1, 1), mounting: Mounting = .identity,
                part: String? = nil, temperature: Double? = nil) {
        self.gyroscopeBias = gyroscopeBias
        self.accelerometerOffset = accelerometerOffset
        self.accelerometerScale = accelerometerScale
        self.mounting = mounting
        self.part = part
        self.temperature = temperature
    }

    public static let none = Calibration()

    /// The sample corrected and in device axes.
    public func apply(_ sample: IMUSample) -> IMUSample {
        var s = sample
        s.acceleration = mounting.apply((sample.acceleration - accelerometerOffset) * accelerometerScale)
        s.angularRate = mounting.apply(sample.angularRate - gyroscopeBias)
        return s
    }

    /// Applies the calibration to every sample in place.
    public func apply(to samples: inout [IMUSample]) {
        for i in samples.indices { samples[i] = apply(samples[i]) }
    }

    /// Pretty-printed JSON with sorted keys.
    public func jsonData() throws(IMUError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do { return try encoder.encode(self) } catch {
            throw .invalidConfiguration("cannot encode the calibration: \(error)")
        }
    }

    /// The first value no sensor can need, naming its key, or `nil` when every value is
    /// plausible: an accelerometer scale outside ``plausibleScales`` (0 would erase an axis), an
    /// offset past ``plausibleOffset`` or a bias past ``plausibleBias``. Such a file is damaged or
    /// written by hand; applied, it would silently turn every sample into nonsense, so whoever
    /// reads a calibration file refuses it (PlumbCLI, at the key's line in the file).
    public var implausibleValue: (key: String, message: String)? {
        func check(_ key: String, _ v: SIMD3<Double>, _ fits: (Double) -> Bool, _ allowed: String) -> (key: String, message: String)? {
            [v.x, v.y, v.z].allSatisfy(fits) ? nil : (key, "[\(v.x), \(v.y), \(v.z)] is out of range; allowed \(allowed)")
        }
        return check("accelerometerScale", accelerometerScale, { Self.plausibleScales.contains($0) },
                     "\(Self.plausibleScales.lowerBound)...\(Self.plausibleScales.upperBound)")
            ?? check("accelerometerOffset", accelerometerOffset, { abs($0) <= Self.plausibleOffset }, "±\(Self.plausibleOffset) m/s²")
            ?? check("gyroscopeBias", gyroscopeBias, { abs($0) <= Self.plausibleBias }, "±\(Self.plausibleBias) rad/s")
    }

    /// Accelerometer scale factors a sensor can need: the MPU-6050's sensitivity tolerance is
    /// ±3 % (Datasheet: MPU-6000/6050 Product Specification rev 3.4, §6.2), so a factor outside
    /// 0.5...2 is no calibration.
    public static let plausibleScales = 0.5...2.0
    /// The largest accelerometer offset a calibration may hold (m/s²): 2 g, far past the ±80 mg
    /// zero-g tolerance of the MPU-6050 (Datasheet: Product Specification rev 3.4, §6.2).
    public static let plausibleOffset = 19.6
    /// The largest gyroscope bias a calibration may hold (rad/s): 10 rad/s (573 °/s), far past the
    /// ±20 °/s zero-rate tolerance of the MPU-6050 (Datasheet: Product Specification rev 3.4, §6.1).
    public static let plausibleBias = 10.0
}
