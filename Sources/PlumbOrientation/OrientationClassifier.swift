#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a stream of gravity estimates into device orientation changes, with hysteresis and a
/// settle time.
///
/// Each of the six faces owns the directions of "up" nearest its axis (+y portrait, −y upside
/// down, +x landscapeLeft, −x landscapeRight, +z faceUp, −z faceDown). The classifier leaves the
/// current face only when up is closer to another face's axis by more than twice
/// ``Settings/hysteresisDegrees`` — turning the device in one plane, that is
/// `hysteresisDegrees` past the 45° boundary — and that new face has been the proposal for
/// ``Settings/settleTime`` without interruption. A proposal that falls back to the current face,
/// or changes to a third face, restarts the settle timer.
///
/// Compare Android's `WindowOrientationListener`, which keeps a ±22.5° gap around the 45°
/// boundaries next to the current rotation and a 40 ms settle time, and iio-sensor-proxy, which
/// has neither (reference/fusion.md §1.5–1.6). The defaults were chosen on the BROAD trials with
/// `scripts/eval-orientation` (README, "Orientation notifier").
///
/// Not thread-safe: one reader thread owns it. Nothing in ``update(gravity:timeNanoseconds:)``
/// allocates.
public struct OrientationClassifier: Sendable {
    /// Tuning. Every field has a documented unit and default.
    public struct Settings: Sendable, Equatable {
        /// How far past the 45° boundary between two faces up must go before the other face is
        /// proposed, in degrees. Default 7.
        public var hysteresisDegrees: Double
        /// How long a new face must stay the proposal before it is accepted, in seconds. Default 0.08.
        public var settleTime: Double

        public init(hysteresisDegrees: Double = 7, settleTime: Double = 0.08) {
            precondition(hysteresisDegrees >= 0 && hysteresisDegrees < 45, "hysteresis must lie in [0, 45) degrees")
            precondition(settleTime >= 0, "settle time must not be negative")
            self.hysteresisDegrees = hysteresisDegrees
            self.settleTime = settleTime
        }

        public static let `default` = Settings()
    }

    public var settings: Settings
    /// The accepted orientation; ``DeviceOrientation/unknown`` until the first face settles.
    public private(set) var orientation: DeviceOrientation = .unknown
    /// The face waiting out its settle time, if any.
    public private(set) var candidate: DeviceOrientation = .unknown
    private var candidateSince: UInt64 = 0
    private let settleNanoseconds: UInt64
    private let margin: Double

    public init(settings: Settings = .default, initial: DeviceOrientation = .unknown) {
        self.settings = settings
        self.orientation = initial
        self.settleNanoseconds = UInt64((settings.settleTime * 1e9).rounded())
        self.margin = 2 * settings.hysteresisDegrees * .pi / 180
    }

    /// Forgets the accepted orientation and any candidate (after the sensor restarts).
    public mutating func reset(to orientation: DeviceOrientation = .unknown) {
        self.orientation = orientation
        candidate = .unknown
    }

    /// The face whose axis is nearest `up`, and the cosine of the angle to it.
    @inline(__always)
    static func nearestFace(up u: SIMD3<Double>) -> (DeviceOrientation, Double) {
        let a = SIMD3(Swift.abs(u.x), Swift.abs(u.y), Swift.abs(u.z))
        if a.x >= a.y && a.x >= a.z { return (u.x >= 0 ? .landscapeLeft : .landscapeRight, a.x) }
        if a.y >= a.z { return (u.y >= 0 ? .portrait : .portraitUpsideDown, a.y) }
        return (u.z >= 0 ? .faceUp : .faceDown, a.z)
    }

    /// The cosine of the angle between `up` and `face`'s axis.
    @inline(__always)
    static func cosine(up u: SIMD3<Double>, face: DeviceOrientation) -> Double {
        switch face {
        case .portrait: u.y
        case .portraitUpsideDown: -u.y
        case .landscapeLeft: u.x
        case .landscapeRight: -u.x
        case .faceUp: u.z
        case .faceDown: -u.z
        case .unknown: -1
        }
    }

    /// The face `gravity` argues for, with hysteresis against the current orientation but no
    /// settle time; the current orientation when up lies in the dead band.
    public func proposal(gravity: SIMD3<Double>) -> DeviceOrientation {
        let n = (gravity * gravity).sum().squareRoot()
        guard n > 0, n.isFinite else { return orientation }
        let up = -gravity / n
        let (best, bestCosine) = Self.nearestFace(up: up)
        if orientation == .unknown || best == orientation { return best }
        let current = Self.cosine(up: up, face: orientation)
        // acos is monotonic: compare the angles with the margin added.
        return acos(min(1, bestCosine)) + margin < acos(max(-1, min(1, current))) ? best : orientation
    }

    /// Feeds one gravity estimate.
    ///
    /// - Parameters:
    ///   - gravity: the direction towards the earth in the device frame, any length (a zero or
    ///     non-finite vector is ignored).
    ///   - timeNanoseconds: when it was measured, on the sensor's monotonic clock.
    /// - Returns: the new orientation when it changes, else `nil`.
    public mutating func update(gravity: SIMD3<Double>, timeNanoseconds: UInt64) -> DeviceOrientation? {
        let proposed = proposal(gravity: gravity)
        if proposed == orientation {
            candidate = .unknown
            return nil
        }
        if proposed != candidate {
            candidate = proposed
            candidateSince = timeNanoseconds
        }
        guard timeNanoseconds &- candidateSince >= settleNanoseconds, timeNanoseconds >= candidateSince else { return nil }
        orientation = proposed
        candidate = .unknown
        return proposed
    }
}
