#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a stream of gravity estimates into device orientation changes, with hysteresis, a
/// settle time and a rotation-rate gate.
///
/// Each of the six faces owns a cone around its axis (+y portrait, −y upside down, +x
/// landscapeLeft, −x landscapeRight, +z faceUp, −z faceDown). A face other than the current one
/// is *proposed* while up lies within 45° − ``Settings/hysteresisDegrees`` of its axis — turning
/// the device in one plane, that is `hysteresisDegrees` past the 45° boundary — and gravity turns
/// slower than ``Settings/maximumRotationRate`` (a device swung through a face is not held
/// there). Between the cones nothing is proposed and the current face stays. A face proposed
/// without interruption for ``Settings/settleTime`` is accepted.
///
/// Compare Android's `WindowOrientationListener` (a ±22.5° gap around the 45° boundaries, a
/// 40 ms settle time, and lock-outs after swings and accelerations) and iio-sensor-proxy (a 35°
/// threshold, no debounce); reference/fusion.md §1.5–1.6. The defaults (``Settings/default``,
/// responsive) and ``Settings/steady`` were chosen on the BROAD trials with
/// `scripts/eval-orientation`; see the README, "Orientation notifier".
///
/// Not thread-safe: one reader thread owns it. Nothing in ``update(gravity:timeNanoseconds:)``
/// allocates.
public struct OrientationClassifier: Sendable {
    /// Tuning. Every field has a documented unit and default.
    public struct Settings: Sendable, Equatable {
        /// How far past the 45° boundary up must go before another face is proposed, in degrees:
        /// up must lie within 45° − this of the face's axis. Default 8.
        public var hysteresisDegrees: Double
        /// How long a new face must stay proposed before it is accepted, in seconds. Default 0.1.
        public var settleTime: Double
        /// Gravity turning faster than this proposes nothing, in degrees per second (measured on
        /// the gravity estimate, smoothed over 50 ms). Default 90; `.infinity` turns the gate off.
        public var maximumRotationRate: Double

        public init(hysteresisDegrees: Double = 8, settleTime: Double = 0.1, maximumRotationRate: Double = 90) {
            precondition(hysteresisDegrees >= 0 && hysteresisDegrees < 45, "hysteresis must lie in [0, 45) degrees")
            precondition(settleTime >= 0, "the settle time must not be negative")
            precondition(maximumRotationRate > 0, "the rotation-rate gate must be positive")
            self.hysteresisDegrees = hysteresisDegrees
            self.settleTime = settleTime
            self.maximumRotationRate = maximumRotationRate
        }

        /// Hysteresis and settle time only, no rate gate.
        public static func simple(hysteresisDegrees: Double, settleTime: Double) -> Settings {
            Settings(hysteresisDegrees: hysteresisDegrees, settleTime: settleTime, maximumRotationRate: .infinity)
        }

        /// Responsive: 8° hysteresis, 0.1 s settle time, 90 °/s gate. On BROAD: agreement
        /// 99.89 %, 4.9 spurious changes a minute, median latency 0.27 s.
        public static let `default` = Settings()

        /// Steady, for kiosks and displays that must not flap: 7° hysteresis, 0.3 s settle time,
        /// 60 °/s gate. On BROAD: agreement 99.34 %, 0.49 spurious changes a minute, median
        /// latency 0.65 s.
        public static let steady = Settings(hysteresisDegrees: 7, settleTime: 0.3, maximumRotationRate: 60)
    }

    public var settings: Settings
    /// The accepted orientation; ``DeviceOrientation/unknown`` until the first face settles.
    public private(set) var orientation: DeviceOrientation = .unknown
    /// The face waiting out its settle time, if any.
    public private(set) var candidate: DeviceOrientation = .unknown
    /// How fast gravity turns, smoothed, in radians per second.
    public private(set) var rotationRate: Double = 0
    private var candidateSince: UInt64 = 0
    private var lastUp: SIMD3<Double> = .zero
    private var lastTime: UInt64 = 0
    private let settleNanoseconds: UInt64
    private let enterCosine: Double
    private let rateLimit: Double

    public init(settings: Settings = .default, initial: DeviceOrientation = .unknown) {
        self.settings = settings
        self.orientation = initial
        self.settleNanoseconds = UInt64((settings.settleTime * 1e9).rounded())
        self.enterCosine = cos((45 - settings.hysteresisDegrees) * .pi / 180)
        self.rateLimit = settings.maximumRotationRate * .pi / 180
    }

    /// Keeps `orientation` and forgets any candidate and motion history (after the sensor restarts).
    public mutating func reset(to orientation: DeviceOrientation = .unknown) {
        self.orientation = orientation
        candidate = .unknown
        lastUp = .zero
        rotationRate = 0
    }

    /// The face whose axis is nearest `up`, and the cosine of the angle to it.
    @inline(__always)
    static func nearestFace(up u: SIMD3<Double>) -> (DeviceOrientation, Double) {
        let a = SIMD3(Swift.abs(u.x), Swift.abs(u.y), Swift.abs(u.z))
        if a.x >= a.y && a.x >= a.z { return (u.x >= 0 ? .landscapeLeft : .landscapeRight, a.x) }
        if a.y >= a.z { return (u.y >= 0 ? .portrait : .portraitUpsideDown, a.y) }
        return (u.z >= 0 ? .faceUp : .faceDown, a.z)
    }

    /// The face `gravity` proposes by position alone (hysteresis, no rate gate, no settle time):
    /// the face whose cone holds up, or the current orientation between the cones.
    public func proposal(gravity: SIMD3<Double>) -> DeviceOrientation {
        let n = (gravity * gravity).sum().squareRoot()
        guard n > 0, n.isFinite else { return orientation }
        let (best, cosine) = Self.nearestFace(up: -gravity / n)
        if orientation == .unknown || cosine >= enterCosine { return best }
        return orientation
    }

    /// Feeds one gravity estimate.
    ///
    /// - Parameters:
    ///   - gravity: the direction towards the earth in the device frame, any length (a zero or
    ///     non-finite vector is ignored).
    ///   - timeNanoseconds: when it was measured, on the sensor's monotonic clock.
    /// - Returns: the new orientation when it changes, else `nil`.
    public mutating func update(gravity: SIMD3<Double>, timeNanoseconds: UInt64) -> DeviceOrientation? {
        let n = (gravity * gravity).sum().squareRoot()
        guard n > 0, n.isFinite else { return nil }
        let up = -gravity / n
        // How fast up turns: the angle between consecutive estimates over their interval,
        // smoothed with a 50 ms time constant.
        if lastUp != .zero, timeNanoseconds > lastTime {
            let dt = Double(timeNanoseconds - lastTime) / 1e9
            let c = lastUp
            let crossed = SIMD3(c.y * up.z - c.z * up.y, c.z * up.x - c.x * up.z, c.x * up.y - c.y * up.x)
            let angle = atan2((crossed * crossed).sum().squareRoot(), (c * up).sum())
            let alpha = dt / (0.05 + dt)
            rotationRate += alpha * (angle / dt - rotationRate)
        }
        lastUp = up
        lastTime = timeNanoseconds

        let (best, cosine) = Self.nearestFace(up: up)
        let proposed: DeviceOrientation
        if best == orientation || (orientation != .unknown && cosine < enterCosine) || rotationRate > rateLimit {
            proposed = orientation
        } else {
            proposed = best
        }
        if proposed == orientation {
            candidate = .unknown
            return nil
        }
        if proposed != candidate {
            candidate = proposed
            candidateSince = timeNanoseconds
        }
        guard timeNanoseconds >= candidateSince, timeNanoseconds - candidateSince >= settleNanoseconds else { return nil }
        orientation = proposed
        candidate = .unknown
        return proposed
    }
}
