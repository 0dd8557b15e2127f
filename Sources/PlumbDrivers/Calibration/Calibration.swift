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
    /// The part the calibration was made on ("mpu6050"), if known.
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

    /// Reads a calibration from JSON.
    ///
    /// - Parameter source: names the data in the error ("calibration.json").
    public static func load(json: Data, source: String) throws(IMUError) -> Calibration {
        do { return try JSONDecoder().decode(Calibration.self, from: json) } catch {
            throw .invalidConfiguration("\(source) is not a Plumb calibration: \(error)")
        }
    }
}
