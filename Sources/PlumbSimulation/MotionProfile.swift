import Foundation

/// The true motion of the sensor at one instant: what an ideal IMU would measure, plus the truth
/// a test compares against.
public struct MotionState: Sendable, Equatable {
    /// True angular rate in the sensor frame, radians per second.
    public var angularRate: SIMD3<Double>
    /// True specific force in the sensor frame, metres per second squared (+9.81 on the axis
    /// pointing up at rest).
    public var specificForce: SIMD3<Double>
    /// The sensor frame relative to the east-north-up earth frame, when known.
    public var attitude: Rotation?

    public init(angularRate: SIMD3<Double>, specificForce: SIMD3<Double>, attitude: Rotation?) {
        self.angularRate = angularRate; self.specificForce = specificForce; self.attitude = attitude
    }

    /// The earth's up direction in the sensor frame (unit), when the attitude is known.
    public var up: SIMD3<Double>? { attitude?.up }
}

/// A motion over time with ground truth: the physical input to an emulated chip.
///
/// Built in (``named(_:)`` knows them by these names):
/// - `rest`: still, z up.
/// - `tour`: through the six faces (+z, +y, −z, −y, −x, +x up), holding each, turning smoothly
///   between them; the six positions of an accelerometer calibration.
/// - `rotation`: a slow constant-rate turn about a tilted axis.
/// - `shaking`: horizontal shaking with a rocking tilt.
/// - `tapping`: still, with a sharp knock every half second.
/// - ``replay(csv:name:)``: a recording in the BROAD column format
///   (`t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z[,true_qw,true_qx,true_qy,true_qz]`).
///
/// Profiles hold their last state after ``duration``.
public struct MotionProfile: Sendable {
    /// Standard gravity, m/s² (CGPM 1901).
    public static let standardGravity = 9.80665

    public var name: String
    /// How long the motion lasts in seconds, or `nil` when it never ends.
    public var duration: Double?
    /// The source's own time at the profile's start, in seconds: a recording's first `t_s`
    /// (0 for the built-in profiles). Add it to profile time to name a moment as the source does.
    public var timeOrigin: Double = 0
    private let evaluate: @Sendable (Double) -> MotionState

    /// A profile from a function of time in seconds.
    public init(name: String, duration: Double? = nil, _ evaluate: @escaping @Sendable (Double) -> MotionState) {
        self.name = name; self.duration = duration; self.evaluate = evaluate
    }

    /// The state at `seconds` since the start.
    public func state(at seconds: Double) -> MotionState {
        evaluate(max(0, duration.map { min(seconds, $0) } ?? seconds))
    }

    /// The names ``named(_:)`` accepts.
    public static let builtInNames = ["rest", "tour", "rotation", "shaking", "tapping"]

    /// A built-in profile by name, or `nil`.
    public static func named(_ name: String) -> MotionProfile? {
        switch name {
        case "rest": return .rest()
        case "tour": return .tour()
        case "rotation", "slow-rotation": return .slowRotation()
        case "shaking": return .shaking()
        case "tapping": return .tapping()
        default: return nil
        }
    }

    static func still(_ attitude: Rotation) -> MotionState {
        MotionState(angularRate: .zero, specificForce: attitude.inverseRotate(SIMD3(0, 0, standardGravity)), attitude: attitude)
    }

    /// Still, in `attitude` (default: z up).
    public static func rest(_ attitude: Rotation = .identity) -> MotionProfile {
        let state = still(attitude)
        return MotionProfile(name: "rest") { _ in state }
    }

    /// Through the six faces: +z, +y, −z, −y, −x, +x up.
    ///
    /// - Parameters:
    ///   - hold: seconds held still on each face. Default 4.
    ///   - turn: seconds for each 90° turn (the last turn is 180° and takes twice as long).
    ///     Default 1.5.
    public static func tour(hold: Double = 4, turn: Double = 1.5) -> MotionProfile {
        // Body-frame turns: x +90 three times (+z → +y → −z → −y), z +90 (−y → −x), z +180 (→ +x).
        let turns: [(axis: SIMD3<Double>, angle: Double)] = [
            (SIMD3(1, 0, 0), .pi / 2), (SIMD3(1, 0, 0), .pi / 2), (SIMD3(1, 0, 0), .pi / 2),
            (SIMD3(0, 0, 1), .pi / 2), (SIMD3(0, 0, 1), .pi),
        ]
        var starts: [Rotation] = [.identity]
        for t in turns { starts.append((starts.last! * Rotation(axis: t.axis, angle: t.angle)).normalized) }
        let segments = turns.enumerated().map { (i, t) in
            (start: starts[i], axis: t.axis, angle: t.angle, duration: turn * t.angle / (.pi / 2))
        }
        let final = starts.last!
        let total = hold * 6 + segments.reduce(0) { $0 + $1.duration }
        return MotionProfile(name: "tour", duration: total) { t in
            var time = t
            for s in segments {
                if time < hold { return still(s.start) }
                time -= hold
                if time < s.duration {
                    let u = time / s.duration
                    let theta = s.angle * (1 - cos(.pi * u)) / 2
                    let rate = s.angle * .pi / (2 * s.duration) * sin(.pi * u)
                    let attitude = s.start * Rotation(axis: s.axis, angle: theta)
                    return MotionState(angularRate: s.axis * rate,
                                       specificForce: attitude.inverseRotate(SIMD3(0, 0, standardGravity)),
                                       attitude: attitude)
                }
                time -= s.duration
            }
            return still(final)
        }
    }

    /// A constant-rate turn about `axis` (sensor frame), `rate` radians per second.
    /// Default: 0.3 rad/s about (1, 1, 0.2), so gravity sweeps through every axis.
    public static func slowRotation(axis: SIMD3<Double> = SIMD3(1, 1, 0.2), rate: Double = 0.3) -> MotionProfile {
        let a = axis / length(axis)
        return MotionProfile(name: "rotation") { t in
            let attitude = Rotation(axis: a, angle: rate * t)
            return MotionState(angularRate: a * rate,
                               specificForce: attitude.inverseRotate(SIMD3(0, 0, standardGravity)), attitude: attitude)
        }
    }

    /// Shaking along the earth's east axis, `amplitude` m/s² at `frequency` Hz, with a rocking
    /// roll of `tilt` radians at a third of that frequency.
    public static func shaking(amplitude: Double = 4, frequency: Double = 5, tilt: Double = 0.15) -> MotionProfile {
        MotionProfile(name: "shaking") { t in
            let w = 2 * .pi * frequency / 3
            let roll = tilt * sin(w * t)
            let attitude = Rotation(axis: SIMD3(1, 0, 0), angle: roll)
            let linear = SIMD3(amplitude * sin(2 * .pi * frequency * t), 0, 0)
            return MotionState(angularRate: SIMD3(tilt * w * cos(w * t), 0, 0),
                               specificForce: attitude.inverseRotate(linear + SIMD3(0, 0, standardGravity)),
                               attitude: attitude)
        }
    }

    /// Still, z up, with a knock every `interval` seconds: a `width`-second half-sine of `peak`
    /// m/s² along z and a rocking twitch about x that returns to level.
    public static func tapping(interval: Double = 0.5, peak: Double = 30, width: Double = 0.01, twitch: Double = 1.0) -> MotionProfile {
        MotionProfile(name: "tapping") { t in
            let phase = t.truncatingRemainder(dividingBy: interval)
            guard phase < width else { return still(.identity) }
            let s = phase / width
            // Roll θ = twitch·width/(2π)·(1 − cos 2πs), so the rate is twitch·sin 2πs and θ ends at 0.
            let roll = twitch * width / (2 * .pi) * (1 - cos(2 * .pi * s))
            let attitude = Rotation(axis: SIMD3(1, 0, 0), angle: roll)
            let bump = SIMD3(0, 0, peak * sin(.pi * s))
            return MotionState(angularRate: SIMD3(twitch * sin(2 * .pi * s), 0, 0),
                               specificForce: attitude.inverseRotate(SIMD3(0, 0, standardGravity) + bump),
                               attitude: attitude)
        }
    }
}
