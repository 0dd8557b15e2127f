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
/// A time cap (``Settings/maximumWait``, off unless set) also accepts a face once up has lain in
/// its plain 45° cone for that long, if up then lies within 45° − ``Settings/dwellMarginDegrees``
/// of its axis and gravity turns no faster than ``Settings/dwellMaximumRotationRate``: a slow turn
/// that stops short of a wide hysteresis is still reported within a bounded time
/// (``Settings/steadyAccelerometerOnly``, where the low-energy mode promises 1 s).
///
/// The rate gate carries most of the weight, and it cannot carry all of it. In BROAD's three
/// slow-rotation trials, 0.1 s after gravity enters a new face's cone, the faces the hand then
/// holds for a second turn at a median 64 °/s and the faces it only passes through at 93 °/s,
/// but one pass in five turns slower than that median: a rule that accepts half the held faces
/// that early also accepts about 30 passes in those 9 minutes. So the rate is smoothed over
/// ``Settings/rateTimeConstant`` and the gate admits a face once the hand has slowed down; a
/// settle time adds little on top (measured, a longer one buys fewer spurious changes per
/// second of latency than the same latency spent on the gate).
///
/// Compare Android's `WindowOrientationListener` (a ±22.5° gap around the 45° boundaries, a
/// 40 ms settle time, and lock-outs after swings and accelerations) and iio-sensor-proxy (a 35°
/// threshold, no debounce); reference/fusion.md §1.5–1.6. The defaults (``Settings/default``,
/// responsive) and ``Settings/steady`` were chosen on the BROAD trials with
/// `scripts/eval-orientation` and `scripts/sweep-orientation`; see the README, "Orientation
/// notifier".
///
/// Not thread-safe: one reader thread owns it. Nothing in ``update(gravity:timeNanoseconds:)``
/// allocates.
public struct OrientationClassifier: Sendable {
    /// Tuning. Every field has a documented unit and default, and is held to its range
    /// whether given to the initialiser or set afterwards: a value out of range is taken as the
    /// nearest in range, and one that is not a number as the default (they used to stop the
    /// process).
    public struct Settings: Sendable, Equatable {
        /// How far past the 45° boundary up must go before another face is proposed, in degrees:
        /// up must lie within 45° − this of the face's axis. Default 4. Held to 0 up to just
        /// below 45.
        public var hysteresisDegrees: Double { didSet { hysteresisDegrees = Self.held(hysteresisDegrees: hysteresisDegrees) } }
        /// How long a new face must stay proposed before it is accepted, in seconds; one longer
        /// than ``OrientationClassifier/longestWait`` (`.infinity` too) never ends. Default 0.05.
        /// Held to 0 and more.
        public var settleTime: Double { didSet { settleTime = Self.held(settleTime: settleTime) } }
        /// Gravity turning faster than this proposes nothing, in degrees per second (measured on
        /// the gravity estimate, smoothed over ``rateTimeConstant``). Default 60; `.infinity`
        /// turns the gate off. Held to 0 and more (0: only gravity that does not turn at all).
        public var maximumRotationRate: Double { didSet { maximumRotationRate = Self.held(maximumRotationRate: maximumRotationRate) } }
        /// The time constant of the first-order smoothing of the rotation rate the gate compares,
        /// in seconds. Default 0.25. Held to 0 and more, finite.
        public var rateTimeConstant: Double { didSet { rateTimeConstant = Self.held(rateTimeConstant: rateTimeConstant) } }
        /// The time cap (the *dwell* path), in seconds: a face is also accepted, however far
        /// short of the hysteresis up stopped, once up has lain within the face's plain 45° cone
        /// without interruption for this long, if up then lies within 45° −
        /// ``dwellMarginDegrees`` of its axis and gravity turns no faster than
        /// ``dwellMaximumRotationRate``. The estimate at or after the cap decides; if it does not
        /// pass, each later one in the cone may. One longer than
        /// ``OrientationClassifier/longestWait`` never ends. Default `nil`: no time cap. Held to
        /// 0 and more; `.infinity` (or not a number) is `nil`.
        public var maximumWait: Double? { didSet { maximumWait = Self.held(maximumWait: maximumWait) } }
        /// How far inside the 45° boundary up must lie when the dwell path accepts, in degrees.
        /// Default 0. Held to 0 up to just below 45.
        public var dwellMarginDegrees: Double { didSet { dwellMarginDegrees = Self.held(dwellMarginDegrees: dwellMarginDegrees) } }
        /// The dwell path accepts nothing while gravity turns faster than this, in degrees per
        /// second (the rate ``maximumRotationRate`` compares, smoothed over ``rateTimeConstant``).
        /// Default `.infinity`: no gate. Held to 0 and more.
        public var dwellMaximumRotationRate: Double {
            didSet { dwellMaximumRotationRate = Self.held(dwellMaximumRotationRate: dwellMaximumRotationRate) }
        }

        public init(hysteresisDegrees: Double = 4, settleTime: Double = 0.05, maximumRotationRate: Double = 60,
                    rateTimeConstant: Double = 0.25, maximumWait: Double? = nil, dwellMarginDegrees: Double = 0,
                    dwellMaximumRotationRate: Double = .infinity) {
            self.hysteresisDegrees = Self.held(hysteresisDegrees: hysteresisDegrees)
            self.settleTime = Self.held(settleTime: settleTime)
            self.maximumRotationRate = Self.held(maximumRotationRate: maximumRotationRate)
            self.rateTimeConstant = Self.held(rateTimeConstant: rateTimeConstant)
            self.maximumWait = Self.held(maximumWait: maximumWait)
            self.dwellMarginDegrees = Self.held(dwellMarginDegrees: dwellMarginDegrees)
            self.dwellMaximumRotationRate = Self.held(dwellMaximumRotationRate: dwellMaximumRotationRate)
        }

        // The range of each field, applied by the initialiser and again whenever a field is set,
        // so the classifier never sees a value it cannot use: a value outside is taken as the
        // nearest end, one that is not a number as the field's default. A settle time or maximum
        // wait too long to count in nanoseconds is kept and means "never"
        // (``OrientationClassifier/longestWait``).

        /// The largest angle below 45°, for the hysteresis and the dwell margin (45° itself would
        /// leave no cone to propose a face in).
        static let belowBoundary = 45.0.nextDown

        static func held(_ value: Double, _ range: ClosedRange<Double>, default fallback: Double) -> Double {
            value.isNaN ? fallback : min(max(value, range.lowerBound), range.upperBound)
        }
        static func held(hysteresisDegrees v: Double) -> Double { held(v, 0...belowBoundary, default: 4) }
        static func held(settleTime v: Double) -> Double { held(v, 0...Double.infinity, default: 0.05) }
        static func held(maximumRotationRate v: Double) -> Double { held(v, 0...Double.infinity, default: 60) }
        static func held(rateTimeConstant v: Double) -> Double { held(v, 0...Double.greatestFiniteMagnitude, default: 0.25) }
        static func held(maximumWait v: Double?) -> Double? {
            guard let v, !v.isNaN, v != .infinity else { return nil }
            return max(v, 0)
        }
        static func held(dwellMarginDegrees v: Double) -> Double { held(v, 0...belowBoundary, default: 0) }
        static func held(dwellMaximumRotationRate v: Double) -> Double { held(v, 0...Double.infinity, default: .infinity) }

        /// Hysteresis and settle time only, no rate gate.
        public static func simple(hysteresisDegrees: Double, settleTime: Double) -> Settings {
            Settings(hysteresisDegrees: hysteresisDegrees, settleTime: settleTime, maximumRotationRate: .infinity)
        }

        /// Responsive: 4° hysteresis, 0.05 s settle time, 60 °/s gate smoothed over 0.25 s. On
        /// BROAD: agreement 99.57 %, 1.55 spurious changes a minute, median latency 0.22 s
        /// (`scripts/eval-orientation`).
        public static let `default` = Settings()

        /// Steady, for kiosks and displays that must not flap: 18° hysteresis (up within 27° of
        /// the new face's axis), 0.03 s settle time, 50 °/s gate smoothed over 0.15 s. On BROAD:
        /// agreement 99.52 %, 0.37 spurious changes a minute, median latency 0.55 s.
        public static let steady = Settings(hysteresisDegrees: 18, settleTime: 0.03, maximumRotationRate: 50,
                                            rateTimeConstant: 0.15)

        /// For gravity from the accelerometer alone (the low-energy mode: 12.5 Hz, gyroscope
        /// off): 8° hysteresis, 0.1 s settle time, 90 °/s gate smoothed over 0.05 s. That
        /// gravity estimate lags and its rate carries the hand's linear accelerations, so a gate
        /// as slow as the default's would hold a change back past the 1 s the low-energy mode
        /// promises (`plumb bench energy`). No time cap: it keeps every BROAD change within 1 s
        /// without one, and ``steadyAccelerometerOnly``'s cap added spurious changes here and one
        /// change at 2.15 s through the emulated MPU-6050.
        public static let accelerometerOnly = Settings(hysteresisDegrees: 8, settleTime: 0.1, maximumRotationRate: 90,
                                                       rateTimeConstant: 0.05)

        /// ``steady``'s counterpart for gravity from the accelerometer alone, so that a kiosk
        /// that must not flap does not start flapping on battery: 15° hysteresis, 0.1 s settle
        /// time, 60 °/s gate smoothed over 0.1 s, and a 0.6 s time cap (``maximumWait``) that
        /// accepts within 33° of the axis (12° margin) below 80 °/s. On BROAD in low-energy mode
        /// (`scripts/eval-orientation [--chip PART] -- --low-energy --steady`): agreement
        /// 99.34 %, 2.26 spurious changes a minute, median latency 0.753 s, every change within
        /// 0.85 s; through the emulated MPU-6050 99.35 %, 2.36, 0.766 s, max 0.85 s; LSM6DSO
        /// 98.58 %, 2.17, 0.756 s, max 0.89 s (``accelerometerOnly``: 99.35 %, 3.74, 0.508 s).
        /// In low-energy mode the cap, not the turn wake interval, sets when the reader wakes
        /// while a face dwells (``OrientationPipeline/wakeHint``).
        /// Without the cap the hysteresis held 12 changes past the mode's 1 s on slow turns
        /// (98.68 %, 0.64, 0.707 s, max 1.68 s); hysteresis, settle time and gate alone kept
        /// every change within 1 s only at 3.55 spurious changes a minute. A 0.64 s cap, a 75 °/s
        /// dwell gate or a 15° margin each left a change past 1 s on one of the three paths.
        public static let steadyAccelerometerOnly = Settings(hysteresisDegrees: 15, settleTime: 0.1, maximumRotationRate: 60,
                                                             rateTimeConstant: 0.1, maximumWait: 0.6, dwellMarginDegrees: 12,
                                                             dwellMaximumRotationRate: 80)
    }

    /// The tuning; ``retune(_:)`` changes it.
    public private(set) var settings: Settings
    /// The accepted orientation; ``DeviceOrientation/unknown`` until the first face settles.
    public private(set) var orientation: DeviceOrientation = .unknown
    /// The face waiting out its settle time, if any.
    public private(set) var candidate: DeviceOrientation = .unknown
    /// How fast gravity turns, smoothed, in radians per second.
    public private(set) var rotationRate: Double = 0
    private var candidateSince: UInt64 = 0
    /// Since when up has lain in another face's region (nearer another face's axis than the
    /// accepted one's), as of the last update; `nil` while it lies in the accepted face's.
    public private(set) var awaySince: UInt64?
    /// The time of the last estimate.
    public var lastUpdateNanoseconds: UInt64 { lastTime }
    /// When the face waiting out its settle time (``candidate``) will be accepted if up stays:
    /// the sample at or after this time decides; `nil` when no face is waiting.
    public var decisionDueNanoseconds: UInt64? {
        candidate == .unknown ? nil : Self.adding(settleNanoseconds, to: candidateSince)
    }
    /// The face other than the accepted one whose 45° cone up has lain in without interruption
    /// since the dwell began, while ``Settings/maximumWait`` is set; ``DeviceOrientation/unknown``
    /// otherwise.
    public private(set) var dwellFace: DeviceOrientation = .unknown
    /// True while ``dwellFace`` is set and up came no farther from its axis at the last
    /// estimate than at the one before (true at the estimate a dwell begins): a dwell whose
    /// maximum wait passed with its rate gate or margin unmet can still be accepted soon only
    /// while up approaches the axis or holds still (``OrientationPipeline/wakeHint``).
    public private(set) var dwellApproaching = false
    private var dwellSince: UInt64 = 0
    /// When the dwell path may accept ``dwellFace`` if up stays in its cone (its maximum wait
    /// ends): the estimate at or after this time decides; `nil` when no face is dwelling.
    public var dwellDueNanoseconds: UInt64? {
        dwellFace == .unknown ? nil : Self.adding(maximumWaitNanoseconds, to: dwellSince)
    }
    private var lastUp: SIMD3<Double> = .zero
    private var lastTime: UInt64 = 0
    private let settleNanoseconds: UInt64
    private let enterCosine: Double
    private let rateLimit: Double
    private let rateTimeConstant: Double
    private let maximumWaitNanoseconds: UInt64
    private let dwellCosine: Double
    private let dwellAcceptCosine: Double
    private let dwellRateLimit: Double

    public init(settings: Settings = .default, initial: DeviceOrientation = .unknown) {
        self.settings = settings
        self.orientation = initial
        self.settleNanoseconds = Self.nanoseconds(settings.settleTime)
        self.enterCosine = cos((45 - settings.hysteresisDegrees) * .pi / 180)
        self.rateLimit = settings.maximumRotationRate * .pi / 180
        self.rateTimeConstant = settings.rateTimeConstant
        self.maximumWaitNanoseconds = settings.maximumWait.map(Self.nanoseconds) ?? .max
        // With no time cap no face ever dwells: a cosine above 1 is never reached.
        self.dwellCosine = settings.maximumWait == nil ? 2 : cos(45 * Double.pi / 180)
        self.dwellAcceptCosine = cos((45 - settings.dwellMarginDegrees) * .pi / 180)
        self.dwellRateLimit = settings.dwellMaximumRotationRate * .pi / 180
    }

    /// The longest settle time or maximum wait counted, in seconds (about 146 years); a longer one
    /// (`.infinity` included) waits this long, which is never in practice.
    public static let longestWait = Double(UInt64(1) << 62) / 1e9

    /// `seconds` (not negative) in nanoseconds, at most ``longestWait``'s.
    static func nanoseconds(_ seconds: Double) -> UInt64 {
        seconds >= longestWait ? UInt64(1) << 62 : UInt64((seconds * 1e9).rounded())
    }

    /// `start` plus `wait` nanoseconds, or `UInt64.max` (never) past the clock's range.
    static func adding(_ wait: UInt64, to start: UInt64) -> UInt64 {
        let (sum, overflow) = start.addingReportingOverflow(wait)
        return overflow ? .max : sum
    }

    /// Switches to other settings (the gravity estimator changed), keeping the accepted
    /// orientation and forgetting any candidate and motion history, as ``reset(to:)`` does.
    public mutating func retune(_ settings: Settings) {
        self = OrientationClassifier(settings: settings, initial: orientation)
    }

    /// Keeps `orientation` and forgets any candidate and motion history (after the sensor restarts).
    public mutating func reset(to orientation: DeviceOrientation = .unknown) {
        self.orientation = orientation
        candidate = .unknown
        dwellFace = .unknown
        dwellApproaching = false
        awaySince = nil
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
        // smoothed with the settings' time constant.
        if lastUp != .zero, timeNanoseconds > lastTime {
            let dt = Double(timeNanoseconds - lastTime) / 1e9
            let c = lastUp
            let crossed = SIMD3(c.y * up.z - c.z * up.y, c.z * up.x - c.x * up.z, c.x * up.y - c.y * up.x)
            let angle = atan2((crossed * crossed).sum().squareRoot(), (c * up).sum())
            let alpha = dt / (rateTimeConstant + dt)
            rotationRate += alpha * (angle / dt - rotationRate)
        }
        let previousUp = lastUp
        lastUp = up
        lastTime = timeNanoseconds

        let (best, cosine) = Self.nearestFace(up: up)
        if best == orientation || orientation == .unknown {
            awaySince = nil
        } else if awaySince == nil {
            awaySince = timeNanoseconds
        }
        // The dwell path (the time cap): up in another face's plain 45° cone since `dwellSince`.
        if orientation != .unknown, best != orientation, cosine >= dwellCosine {
            if best != dwellFace {
                dwellFace = best
                dwellSince = timeNanoseconds
                dwellApproaching = true
            } else if let axis = best.upAxis {
                dwellApproaching = cosine >= (previousUp * axis).sum()
            }
            if timeNanoseconds >= dwellSince, timeNanoseconds - dwellSince >= maximumWaitNanoseconds,
               cosine >= dwellAcceptCosine, rotationRate <= dwellRateLimit {
                return accept(best)
            }
        } else {
            dwellFace = .unknown
            dwellApproaching = false
        }
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
        return accept(proposed)
    }

    /// Makes `face` the accepted orientation and forgets the candidate and the dwell.
    @inline(__always)
    private mutating func accept(_ face: DeviceOrientation) -> DeviceOrientation {
        orientation = face
        candidate = .unknown
        dwellFace = .unknown
        dwellApproaching = false
        awaySince = nil
        return face
    }
}
