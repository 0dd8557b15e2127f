import Foundation
import Testing
import PlumbDrivers
import PlumbFusion
import PlumbSimulation
@testable import PlumbOrientation

/// The classifier's dwell path (``OrientationClassifier/Settings/maximumWait``), as timelines in
/// virtual time, and the pipeline's wake-up for the end of a dwell.
@Suite("Classifier dwell path (virtual clock)")
struct DwellTimelineTests {
    /// 15° hysteresis (a face is proposed within 30° of its axis), a 0.6 s time cap that accepts
    /// within 33° of the axis (12° margin) while gravity turns slower than 80 °/s.
    static let dwelling = OrientationClassifier.Settings(hysteresisDegrees: 15, settleTime: 0.1, maximumRotationRate: 60,
                                                         rateTimeConstant: 0.1, maximumWait: 0.6, dwellMarginDegrees: 12,
                                                         dwellMaximumRotationRate: 80)
    /// The same without the time cap.
    static let capless = OrientationClassifier.Settings(hysteresisDegrees: 15, settleTime: 0.1, maximumRotationRate: 60,
                                                        rateTimeConstant: 0.1)

    /// Up at 58° from +y is 32° from landscapeLeft's axis: inside the dwell's 33°, short of the
    /// hysteresis's 30°. Accepted 0.6 s after it entered the cone.
    @Test func acceptedAtTheMaximumWaitShortOfTheHysteresis() throws {
        var c = OrientationClassifier(settings: Self.dwelling, initial: .portrait)
        let changes = run(&c, [(0.5, gravityInPlane(0)), (2, gravityInPlane(58))])
        #expect(changes.map(\.1) == [.landscapeLeft])
        let at = try #require(changes.first?.0)
        #expect(abs(at - 1.1) < 1e-6, "accepted at \(at) s, expected 0.5 + 0.6 s")
    }

    @Test func offWhenNil() {
        #expect(OrientationClassifier.Settings.default.maximumWait == nil)
        #expect(OrientationClassifier.Settings.steady.maximumWait == nil)
        #expect(OrientationClassifier.Settings.accelerometerOnly.maximumWait == nil)
        var c = OrientationClassifier(settings: Self.capless, initial: .portrait)
        #expect(run(&c, [(0.5, gravityInPlane(0)), (10, gravityInPlane(58))]).isEmpty)
        #expect(c.orientation == .portrait)
        #expect(c.dwellFace == .unknown)
        #expect(c.dwellDueNanoseconds == nil)
    }

    /// Up goes back into portrait's cone for 50 ms: the wait starts again when it comes back.
    @Test func leavingTheConeBeforeTheWaitRestartsIt() throws {
        var c = OrientationClassifier(settings: Self.dwelling, initial: .portrait)
        var changes = run(&c, [(0.5, gravityInPlane(0)), (0.5, gravityInPlane(58)), (0.05, gravityInPlane(40)),
                               (0.55, gravityInPlane(58))])
        #expect(changes.isEmpty, "accepted although up left the cone at 1.0 s: \(changes)")
        #expect(c.orientation == .portrait)
        changes = run(&c, [(1, gravityInPlane(58))], start: 1.6)
        #expect(changes.map(\.1) == [.landscapeLeft])
        let at = try #require(changes.first?.0)
        #expect(abs(at - 1.65) < 1e-6, "accepted at \(at) s, expected 1.05 + 0.6 s")
    }

    /// Up at 50° from +y (40° from landscapeLeft's axis) lies in the cone but not within the
    /// margin: it waits as long as it stays; moved within 33°, the wait being over, it is accepted.
    @Test func outsideTheMarginNothingIsAccepted() throws {
        var c = OrientationClassifier(settings: Self.dwelling, initial: .portrait)
        #expect(run(&c, [(0.5, gravityInPlane(0)), (3, gravityInPlane(50))]).isEmpty)
        #expect(c.orientation == .portrait)
        #expect(c.dwellFace == .landscapeLeft)
        let changes = run(&c, [(1, gravityInPlane(58))], start: 3.5)
        #expect(changes.map(\.1) == [.landscapeLeft])
        let at = try #require(changes.first?.0)
        #expect(at >= 3.5 - 1e-9 && at < 3.6, "accepted at \(at) s")
    }

    /// Swung through landscapeLeft's cone and back at 100 °/s (1.7 s inside it): the dwell's
    /// gate holds it back, and so does the normal path's.
    @Test func turningFasterThanTheDwellGateIsNotAccepted() {
        var c = OrientationClassifier(settings: Self.dwelling, initial: .portrait)
        var steps: [(seconds: Double, gravity: SIMD3<Double>)] = [(0.5, gravityInPlane(0))]
        for degrees in stride(from: 1.0, through: 130, by: 1) { steps.append((0.01, gravityInPlane(degrees))) }
        for degrees in stride(from: 129.0, through: 0, by: -1) { steps.append((0.01, gravityInPlane(degrees))) }
        steps.append((1, gravityInPlane(0)))
        let changes = run(&c, steps)
        #expect(changes.isEmpty, "\(changes)")
        // The same swing at 25 °/s is held: accepted by the dwell path.
        var slow = OrientationClassifier(settings: Self.dwelling, initial: .portrait)
        var slowSteps: [(seconds: Double, gravity: SIMD3<Double>)] = [(0.5, gravityInPlane(0))]
        for degrees in stride(from: 0.25, through: 58, by: 0.25) { slowSteps.append((0.01, gravityInPlane(degrees))) }
        slowSteps.append((1, gravityInPlane(58)))
        #expect(run(&slow, slowSteps).map(\.1) == [.landscapeLeft])
    }

    /// `dwellApproaching` follows the direction up moves in relative to the dwelling face's
    /// axis (landscapeLeft's, 90° from +y): true as the dwell begins, while up comes nearer the
    /// axis and while it holds still, false while it moves away and once no face dwells.
    @Test func dwellApproachingFollowsTheDirectionUpMoves() {
        var c = OrientationClassifier(settings: Self.dwelling, initial: .portrait)
        _ = run(&c, [(0.5, gravityInPlane(0))])
        #expect(c.dwellFace == .unknown)
        #expect(!c.dwellApproaching)
        _ = run(&c, [(0.01, gravityInPlane(50))], start: 0.5)
        #expect(c.dwellFace == .landscapeLeft)
        #expect(c.dwellApproaching, "the dwell began")
        _ = run(&c, [(0.01, gravityInPlane(52))], start: 0.51)
        #expect(c.dwellApproaching, "towards the axis")
        _ = run(&c, [(0.01, gravityInPlane(49))], start: 0.52)
        #expect(!c.dwellApproaching, "away from the axis")
        _ = run(&c, [(0.01, gravityInPlane(49))], start: 0.53)
        #expect(c.dwellApproaching, "holding still")
        // Past the axis, on towards portraitUpsideDown: away again.
        _ = run(&c, [(0.01, gravityInPlane(100)), (0.01, gravityInPlane(110))], start: 0.54)
        #expect(c.dwellFace == .landscapeLeft)
        #expect(!c.dwellApproaching)
        _ = run(&c, [(0.01, gravityInPlane(10))], start: 0.56)
        #expect(c.dwellFace == .unknown)
        #expect(!c.dwellApproaching)
    }

    // MARK: The pipeline's wake-up

    static let period = 0.08 // 12.5 Hz

    /// A pipeline in low-energy mode with the dwelling settings; a turn wake interval of 2 s, so
    /// that only the dwell's end can make the hint sooner.
    static func lowEnergy(_ settings: OrientationClassifier.Settings) -> OrientationPipeline {
        OrientationPipeline(fused: FusionAlgorithm.default.makeGravityEstimator(), accelerometerOnlyClassifier: settings,
                            usesGyroscope: false, turnWakeInterval: 2)
    }

    static func sample(_ degrees: Double, at seconds: Double) -> IMUSample {
        let r = degrees * .pi / 180
        return IMUSample(timestampNanoseconds: UInt64((seconds * 1e9).rounded()), acceleration: 9.81 * SIMD3(sin(r), cos(r), 0),
                         angularRate: .zero)
    }

    @Test func theWakeHintAsksForTheDwellsEnd() throws {
        var p = Self.lowEnergy(Self.dwelling)
        var t = 0.0
        while t < 1 { _ = p.process(Self.sample(0, at: t)); t += Self.period }
        #expect(p.orientation == .portrait)
        #expect(p.wakeHint == nil)
        // Up jumps to 58°; the filtered estimate enters landscapeLeft's cone a sample or two later.
        while p.classifier.dwellFace == .unknown, t < 2 { _ = p.process(Self.sample(58, at: t)); t += Self.period }
        let due = try #require(p.classifier.dwellDueNanoseconds)
        let last = p.classifier.lastUpdateNanoseconds
        #expect(due == last + 600_000_000, "the dwell began at the last sample")
        #expect(p.wakeHint == due, "asks for the dwell's end, sooner than the 2 s turn wake")
        // The sample at or after the hint decides.
        var changed: DeviceOrientation?
        var decidedAt: UInt64 = 0
        while changed == nil, t < 3 {
            let s = Self.sample(58, at: t)
            changed = p.process(s)
            decidedAt = s.timestampNanoseconds
            t += Self.period
        }
        #expect(changed == .landscapeLeft)
        #expect(decidedAt >= due && decidedAt < due + UInt64(Self.period * 1e9))
        #expect(p.wakeHint == nil)

        // Without the time cap the same turn asks only for the turn wake.
        var off = Self.lowEnergy(Self.capless)
        t = 0
        while t < 1 { _ = off.process(Self.sample(0, at: t)); t += Self.period }
        for _ in 0..<4 { _ = off.process(Self.sample(58, at: t)); t += Self.period }
        let offLast = off.classifier.lastUpdateNanoseconds
        #expect(off.wakeHint == offLast + 2_000_000_000)
    }

    /// Past the dwell's end with its margin not met (up at 50°), the next sample is asked for
    /// while the turn counts as in progress; resting there, nothing.
    @Test func pastTheDwellsEndTheNextSampleIsAskedForDuringTheTurn() throws {
        var p = Self.lowEnergy(Self.dwelling)
        var t = 0.0
        while t < 1 { _ = p.process(Self.sample(0, at: t)); t += Self.period }
        while t < 2.1 { _ = p.process(Self.sample(50, at: t)); t += Self.period }
        #expect(p.orientation == .portrait)
        let due = try #require(p.classifier.dwellDueNanoseconds)
        let last = p.classifier.lastUpdateNanoseconds
        #expect(due <= last)
        let hint = try #require(p.wakeHint)
        #expect(hint <= last, "the next sample")
        while t < 3 { _ = p.process(Self.sample(50, at: t)); t += Self.period }
        #expect(p.orientation == .portrait)
        #expect(p.wakeHint == nil, "resting at the boundary past \(Double(OrientationPipeline.turnWakeLimit) / 1e9) s")
    }

    /// While a face dwells its time cap bounds the wait: the hint is the dwell's end, not the
    /// turn wake interval (0.32 s), which the same turn without a cap asks for.
    @Test func aDwellingFaceAsksForItsEndNotForTheTurnWakes() throws {
        func pipeline(_ settings: OrientationClassifier.Settings) -> OrientationPipeline {
            OrientationPipeline(fused: FusionAlgorithm.default.makeGravityEstimator(), accelerometerOnlyClassifier: settings,
                                usesGyroscope: false, turnWakeInterval: 0.32)
        }
        var p = pipeline(Self.dwelling)
        var off = pipeline(Self.capless)
        var t = 0.0
        while t < 1 {
            _ = p.process(Self.sample(0, at: t))
            _ = off.process(Self.sample(0, at: t))
            t += Self.period
        }
        // Up at 50°: in landscapeLeft's cone, short of the hysteresis and of the margin.
        while p.classifier.dwellFace == .unknown, t < 2 {
            _ = p.process(Self.sample(50, at: t))
            _ = off.process(Self.sample(50, at: t))
            t += Self.period
        }
        for _ in 0..<3 {
            let due = try #require(p.classifier.dwellDueNanoseconds)
            let last = p.classifier.lastUpdateNanoseconds
            #expect(due > last + 320_000_000, "the dwell's end lies beyond the turn wake")
            #expect(p.wakeHint == due)
            #expect(off.wakeHint == off.classifier.lastUpdateNanoseconds + 320_000_000)
            _ = p.process(Self.sample(50, at: t))
            _ = off.process(Self.sample(50, at: t))
            t += Self.period
        }
    }

    /// Past the dwell's end with its margin unmet (up 39–43° from landscapeLeft's axis), the next
    /// sample is asked for while up holds or comes nearer the axis, and not while it moves away.
    @Test func pastTheDwellsEndOnlyAnApproachingTurnAsksForTheNextSample() throws {
        var p = Self.lowEnergy(Self.dwelling)
        var t = 0.0
        while t < 1 { _ = p.process(Self.sample(0, at: t)); t += Self.period }
        // The estimate enters the cone at 1.28 s: the wait ends at 1.88 s.
        while t < 2 { _ = p.process(Self.sample(50, at: t)); t += Self.period }
        let due = try #require(p.classifier.dwellDueNanoseconds)
        #expect(due <= p.classifier.lastUpdateNanoseconds, "the wait is over")
        #expect(try #require(p.wakeHint) <= p.classifier.lastUpdateNanoseconds, "held: the next sample")
        for degrees in [49.0, 48, 47] {
            _ = p.process(Self.sample(degrees, at: t))
            t += Self.period
            #expect(p.classifier.dwellFace == .landscapeLeft)
            #expect(p.wakeHint == nil, "moving away at \(degrees)°")
        }
        // Back towards the axis; the low-pass estimate turns a sample after the accelerometer.
        _ = p.process(Self.sample(48, at: t))
        t += Self.period
        for degrees in [49.0, 50, 51] {
            _ = p.process(Self.sample(degrees, at: t))
            t += Self.period
            #expect(p.orientation == .portrait)
            let hint = try #require(p.wakeHint, "approaching at \(degrees)°")
            #expect(hint <= p.classifier.lastUpdateNanoseconds, "the next sample")
        }
    }

    // MARK: Restarts mid-dwell

    /// Feeds up at `degrees` from `start` until `end` (12.5 Hz); returns the first change and its time.
    static func feed(_ p: inout OrientationPipeline, _ degrees: Double, from start: Double, to end: Double) -> (Double, DeviceOrientation)? {
        var t = start
        while t < end - 1e-9 {
            if let changed = p.process(sample(degrees, at: t)) { return (t, changed) }
            t += period
        }
        return nil
    }

    /// A dwell 0.4 s old when the sensor pauses (restartEstimation), the source is replaced
    /// (resume), or the mode switches to the gyroscope and back: its wait starts again with the
    /// first estimate after, never at the old dwell's end, and no face is accepted twice.
    @Test(arguments: ["restartEstimation", "resume", "useGyroscope"])
    func aRestartMidDwellStartsTheWaitAgain(restart: String) throws {
        var p = Self.lowEnergy(Self.dwelling)
        for k in 0..<13 { _ = p.process(Self.sample(0, at: Double(k) * Self.period)) }
        #expect(p.orientation == .portrait)
        // Up at 50°: in landscapeLeft's cone, short of the margin: it dwells, nothing is accepted.
        #expect(Self.feed(&p, 50, from: 1, to: 2) == nil)
        let oldDue = try #require(p.classifier.dwellDueNanoseconds)
        switch restart {
        case "restartEstimation": p.restartEstimation()
        case "resume": p.resume(from: p.orientation)
        default: p.useGyroscope(true); p.useGyroscope(false)
        }
        #expect(p.classifier.dwellFace == .unknown)
        #expect(p.classifier.dwellDueNanoseconds == nil)
        #expect(p.orientation == .portrait)
        #expect(p.wakeHint == nil, "no turn known since the restart")
        // Up now at 58°, within the margin: accepted 0.6 s after the estimate enters the cone again.
        let (at, face) = try #require(Self.feed(&p, 58, from: 2, to: 4))
        #expect(face == .landscapeLeft)
        #expect(UInt64(at * 1e9) > oldDue)
        #expect(at >= 2.6 - 1e-9, "accepted at \(at) s, before a whole wait after the restart at 2 s")
        #expect(Self.feed(&p, 58, from: at + Self.period, to: 6) == nil, "accepted twice")
    }

    /// Timestamps that go back 10 s while a face dwells (a source that re-times its samples):
    /// no trap, no hint in the past, and the face is still accepted by the settle path when up
    /// reaches the hysteresis.
    @Test func timeGoingBackMidDwellNeitherTrapsNorSpins() throws {
        var p = Self.lowEnergy(Self.dwelling)
        for k in 0..<13 { _ = p.process(Self.sample(0, at: 10 + Double(k) * Self.period)) }
        #expect(p.orientation == .portrait)
        #expect(Self.feed(&p, 50, from: 11, to: 11.5) == nil)
        #expect(p.classifier.dwellFace == .landscapeLeft)
        #expect(Self.feed(&p, 50, from: 1, to: 1.5) == nil)
        let last = p.classifier.lastUpdateNanoseconds
        if let hint = p.wakeHint { #expect(hint > last, "a hint in the past after time went back") }
        let (_, face) = try #require(Self.feed(&p, 75, from: 1.5, to: 3))
        #expect(face == .landscapeLeft)
    }

    // MARK: Resting at a boundary

    static func gaussian(_ r: inout SeededRandom) -> Double {
        let u1 = max(Double.random(in: 0..<1, using: &r), 1e-12), u2 = Double.random(in: 0..<1, using: &r)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }

    /// A kiosk left for an hour with up `degrees` from portrait's axis towards landscapeLeft's,
    /// in or near landscapeLeft's cone but short of its margin, the accelerometer shaking by
    /// `noise` m/s² per axis, read as the low-energy reader reads it (12.5 Hz, batches of 7, a
    /// wake-up early only when the hint asks): a hint in the past on every read would wake it
    /// at every sample (12.5 a second) for the hour. The turn wake limit bounds the early
    /// wake-ups of each excursion; the time cap costs no more than the same tuning without it.
    @Test(arguments: [45.0, 46, 50, 55], [0.3, 1.0])
    func restingNearABoundaryForAnHourWakesNearTheBatchPace(degrees: Double, noise: Double) {
        var p = OrientationPipeline(fused: FusionAlgorithm.default.makeGravityEstimator(),
                                    accelerometerOnlyClassifier: .steadyAccelerometerOnly, usesGyroscope: false)
        var random = SeededRandom(seed: 7)
        let count = 45_000 // an hour at 12.5 Hz
        func time(_ k: Int) -> UInt64 { UInt64((Double(k) * Self.period * 1e9).rounded()) }
        var last = -1
        var wakeups = 0
        while last < count - 1 {
            var wake = last + 7
            if let hint = p.wakeHint {
                var k = last + 1
                while k < wake, time(k) < hint { k += 1 }
                wake = k
            }
            for k in (last + 1)...min(wake, count - 1) {
                let r = (k < 100 ? 0 : degrees) * .pi / 180
                let shake = noise * SIMD3(Self.gaussian(&random), Self.gaussian(&random), Self.gaussian(&random))
                _ = p.process(IMUSample(timestampNanoseconds: time(k), acceleration: 9.81 * SIMD3(sin(r), cos(r), 0) + shake,
                                        angularRate: .zero))
            }
            last = wake
            wakeups += 1
        }
        let perSecond = Double(wakeups) / (Double(count) * Self.period)
        // Well inside the cone up never leaves it: past the turn wake limit only the batches
        // wake the reader (1.79 a second). At the boundary up keeps crossing back into
        // portrait's region, and each excursion is a new turn (2.0–2.5 a second, 2.3–2.6
        // without the cap). Waking for every approaching sample past the limit: 2.9 at 50°.
        let bound = degrees >= 50 ? 1.85 : 3
        #expect(perSecond < bound, "\(perSecond) wake-ups a second resting at \(degrees)° (batches alone: 1.79)")
    }
}
