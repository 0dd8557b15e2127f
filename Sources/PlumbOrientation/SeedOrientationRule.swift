/// The decision rule of the seed library, tastyone/MotionOrientation (HEAD 2025), reproduced as a
/// baseline for measurement.
///
/// It samples the raw accelerometer every ``interval`` seconds (0.15 s, or 0.5 s in its
/// low-energy mode), classifies each reading with fixed thresholds (``estimate(acceleration:)``)
/// and accepts a new orientation once the same estimate has repeated for longer than 0.19 s:
/// three agreeing readings at 0.15 s, two at 0.5 s. An unknown estimate changes nothing. The
/// initial orientation is portrait. Facts from reference/fusion.md §1.7 and platform.md §7.
///
/// Input is specific force in the device frame in m/s² (+9.81 on the axis pointing up at rest);
/// the seed's `CMAccelerometerData` is in g with the opposite sign (face up reads z = −1), which
/// ``estimate(acceleration:)`` converts to.
public struct SeedOrientationRule: Sendable {
    /// The seed's sampling interval in normal mode, in seconds (`MO_ACCELEROMETER_UPDATE_INTERVAL_NORMAL_MODE`).
    public static let normalInterval = 0.15
    /// The seed's sampling interval in low-energy mode, in seconds.
    public static let lowEnergyInterval = 0.5
    /// How long an estimate must persist, in seconds (`MO_CANDIDATE_UPDATE_DELAY_IN_SECONDS`).
    public static let candidateDelay = 0.19
    /// Standard gravity, m/s², to convert specific force to the seed's g units.
    public static let standardGravity = 9.80665

    /// The sampling interval in seconds: ``minimumInterval``…``OrientationClassifier/longestWait``.
    public let interval: Double
    public private(set) var orientation: DeviceOrientation
    private var candidate: DeviceOrientation = .unknown
    private var nominations = 0
    private var nextReading: UInt64?
    private let intervalNanoseconds: UInt64

    /// - Parameters:
    ///   - interval: the sampling interval in seconds. Default ``normalInterval``. Held, as
    ///     ``EnergySettings`` holds its intervals, to ``minimumInterval``…``OrientationClassifier/longestWait``:
    ///     0 or less is the shortest, one longer (`.infinity` too) the longest; not a number is
    ///     the default.
    ///   - initial: the orientation before the first change. Default portrait, as the seed's.
    public init(interval: Double = SeedOrientationRule.normalInterval, initial: DeviceOrientation = .portrait) {
        let interval = interval.isNaN ? Self.normalInterval : min(max(interval, Self.minimumInterval), OrientationClassifier.longestWait)
        self.interval = interval
        self.intervalNanoseconds = OrientationClassifier.nanoseconds(interval)
        self.orientation = initial
    }

    /// The shortest sampling interval, in seconds (1 ms): a shorter one (0 or less too) is read
    /// as this. 0, a negative, an infinite or a not-a-number interval stopped the process (the
    /// precondition, or the conversion to nanoseconds).
    public static let minimumInterval = 0.001

    /// The seed's `estimateOrientationFrom:` on one reading of specific force (m/s², device frame).
    public static func estimate(acceleration f: SIMD3<Double>) -> DeviceOrientation {
        // CMAcceleration: g units, gravity direction (face up reads z = −1).
        let x = -f.x / standardGravity, y = -f.y / standardGravity, z = -f.z / standardGravity
        let thresholdZ = 0.86 + 0.015 * (abs(x) - abs(y))
        if abs(z) > thresholdZ { return z < 0 ? .faceUp : .faceDown }
        if (x * x + y * y).squareRoot() < 0.45 { return .unknown }
        let zFactor = 1 - min(abs(z), 1)
        if abs(y) > 0.5 + 0.42 * zFactor && abs(y) > abs(x) { return y < 0 ? .portrait : .portraitUpsideDown }
        if abs(x) > 0.55 + 0.4 * zFactor && abs(x) > abs(y) { return x < 0 ? .landscapeLeft : .landscapeRight }
        return .unknown
    }

    /// Offers one accelerometer sample; the rule reads only the first sample at or after each
    /// sampling tick, as `CMMotionManager` delivers one reading per interval.
    ///
    /// - Returns: the new orientation when it changes, else `nil`.
    public mutating func update(acceleration: SIMD3<Double>, timeNanoseconds: UInt64) -> DeviceOrientation? {
        // Saturated at UInt64's end: ticks of the longest interval pass it within a recording.
        if let next = nextReading {
            guard timeNanoseconds >= next else { return nil }
            let (step, over) = ((timeNanoseconds - next) / intervalNanoseconds + 1).multipliedReportingOverflow(by: intervalNanoseconds)
            nextReading = over ? .max : OrientationClassifier.adding(step, to: next)
        } else {
            nextReading = OrientationClassifier.adding(intervalNanoseconds, to: timeNanoseconds)
        }
        return read(Self.estimate(acceleration: acceleration))
    }

    /// One reading's estimate through the seed's candidate count.
    mutating func read(_ estimated: DeviceOrientation) -> DeviceOrientation? {
        guard estimated != .unknown else { return nil }
        if estimated == orientation {
            candidate = .unknown
            nominations = 0
        } else if estimated != candidate {
            candidate = estimated
            nominations = 0
        } else {
            nominations += 1
            // The seed computes this product in single precision.
            if Float(interval) * Float(nominations) > Float(Self.candidateDelay) {
                orientation = estimated
                return estimated
            }
        }
        return nil
    }
}
