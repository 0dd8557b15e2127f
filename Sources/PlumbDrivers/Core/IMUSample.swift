import PlumbHAL

/// One reading of a 6-axis IMU, in SI units, in the sensor's own axes.
public struct IMUSample: Sendable, Equatable {
    /// When the chip sampled, CLOCK_MONOTONIC in nanoseconds (the clock of GPIO edge timestamps).
    public var timestampNanoseconds: UInt64
    /// Specific force in metres per second squared (+9.81 on the axis pointing up at rest).
    public var acceleration: SIMD3<Double>
    /// Angular rate in radians per second, right-handed about each axis.
    public var angularRate: SIMD3<Double>
    /// Die temperature in degrees Celsius, when the record carries one.
    public var temperature: Double?
    /// Axes whose raw value sat at the end of the full-scale range.
    public var saturation: Saturation

    public init(timestampNanoseconds: UInt64, acceleration: SIMD3<Double>, angularRate: SIMD3<Double>,
                temperature: Double? = nil, saturation: Saturation = []) {
        self.timestampNanoseconds = timestampNanoseconds
        self.acceleration = acceleration
        self.angularRate = angularRate
        self.temperature = temperature
        self.saturation = saturation
    }

    /// The timestamp in seconds.
    public var timeSeconds: Double { Double(timestampNanoseconds) / 1e9 }
}

/// Which axes of a sample were clipped by the full-scale range.
public struct Saturation: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let accelerometerX = Saturation(rawValue: 1 << 0)
    public static let accelerometerY = Saturation(rawValue: 1 << 1)
    public static let accelerometerZ = Saturation(rawValue: 1 << 2)
    public static let gyroscopeX = Saturation(rawValue: 1 << 3)
    public static let gyroscopeY = Saturation(rawValue: 1 << 4)
    public static let gyroscopeZ = Saturation(rawValue: 1 << 5)

    public static let accelerometer: Saturation = [.accelerometerX, .accelerometerY, .accelerometerZ]
    public static let gyroscope: Saturation = [.gyroscopeX, .gyroscopeY, .gyroscopeZ]

    /// The flags for raw 16-bit values at either end of the range (±32767, −32768).
    public static func of(accelerometer a: SIMD3<Int16>, gyroscope g: SIMD3<Int16>) -> Saturation {
        var s: Saturation = []
        func clipped(_ v: Int16) -> Bool { v == .max || v == .min || v == -Int16.max }
        if clipped(a.x) { s.insert(.accelerometerX) }
        if clipped(a.y) { s.insert(.accelerometerY) }
        if clipped(a.z) { s.insert(.accelerometerZ) }
        if clipped(g.x) { s.insert(.gyroscopeX) }
        if clipped(g.y) { s.insert(.gyroscopeY) }
        if clipped(g.z) { s.insert(.gyroscopeZ) }
        return s
    }
}

/// Samples that should have arrived and did not, reported instead of being papered over.
public struct StreamGap: Sendable, Equatable {
    public enum Reason: String, Sendable, Equatable {
        /// The FIFO filled before it was read; the chip dropped data.
        case fifoOverflow
        /// A bus error lost a FIFO read.
        case busError
        /// The chip lost its configuration (brown-out or reset) and was re-initialised.
        case chipReset
        /// No data for longer than expected (interrupts and polling both found nothing).
        case stall
    }

    public var reason: Reason
    /// The timestamp of the last good sample before the gap, in nanoseconds, if any.
    public var afterNanoseconds: UInt64?
    /// When the gap was noticed, in nanoseconds.
    public var detectedNanoseconds: UInt64
    /// How many samples were lost, when the chip or the timing says.
    public var lostSamples: Int?

    public init(reason: Reason, afterNanoseconds: UInt64?, detectedNanoseconds: UInt64, lostSamples: Int? = nil) {
        self.reason = reason
        self.afterNanoseconds = afterNanoseconds
        self.detectedNanoseconds = detectedNanoseconds
        self.lostSamples = lostSamples
    }
}
