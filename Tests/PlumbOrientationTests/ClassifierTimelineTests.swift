import Foundation
import Testing
@testable import PlumbOrientation

/// Gravity (towards the earth) for "up" turned `degrees` from +y towards +x, in the screen plane.
func gravityInPlane(_ degrees: Double) -> SIMD3<Double> {
    let r = degrees * .pi / 180
    return -SIMD3(sin(r), cos(r), 0)
}

/// Gravity for up tilted `degrees` from +y towards +z (the screen leaning back).
func gravityTiltedBack(_ degrees: Double) -> SIMD3<Double> {
    let r = degrees * .pi / 180
    return -SIMD3(0, cos(r), sin(r))
}

/// A timeline: each step holds a gravity for a duration, sampled every 10 ms; returns the changes
/// with the time (in seconds) they were reported.
func run(_ classifier: inout OrientationClassifier, _ steps: [(seconds: Double, gravity: SIMD3<Double>)],
         start: Double = 0) -> [(Double, DeviceOrientation)] {
    var changes: [(Double, DeviceOrientation)] = []
    var t = start
    for step in steps {
        let end = t + step.seconds
        while t < end - 1e-9 {
            let ns = UInt64((t * 1e9).rounded())
            if let c = classifier.update(gravity: step.gravity, timeNanoseconds: ns) { changes.append((t, c)) }
            t += 0.01
        }
    }
    return changes
}

@Suite("Classifier timelines (virtual clock)")
struct ClassifierTimelineTests {
    // Position and time only; the rate gate has its own timelines below.
    let settings = OrientationClassifier.Settings.simple(hysteresisDegrees: 7, settleTime: 0.08)

    @Test func firstFaceSettlesAfterTheSettleTime() {
        var c = OrientationClassifier(settings: settings)
        let changes = run(&c, [(1, gravityInPlane(0))])
        #expect(changes.count == 1)
        #expect(changes.first?.1 == .portrait)
        #expect(abs((changes.first?.0 ?? -1) - 0.08) < 1e-6)
    }

    @Test func insideTheDeadBandNothingChanges() {
        var c = OrientationClassifier(settings: settings, initial: .portrait)
        // 51° is 6° past the boundary: inside the 7° hysteresis.
        let changes = run(&c, [(0.5, gravityInPlane(0)), (10, gravityInPlane(51)), (1, gravityInPlane(-51))])
        #expect(changes.isEmpty)
        #expect(c.orientation == .portrait)
    }

    @Test func pastTheDeadBandTheNewFaceSettles() {
        var c = OrientationClassifier(settings: settings, initial: .portrait)
        let changes = run(&c, [(0.5, gravityInPlane(0)), (1, gravityInPlane(53))])
        #expect(changes.map(\.1) == [.landscapeLeft])
        // Proposed at 0.5 s, accepted one settle time later.
        #expect(abs((changes.first?.0 ?? -1) - 0.58) < 1e-6)
    }

    @Test func comingBackStopsShortOfTheBoundary() {
        var c = OrientationClassifier(settings: settings, initial: .landscapeLeft)
        // Up 39° from +y: 6° on the portrait side of the boundary, still in the band.
        var changes = run(&c, [(2, gravityInPlane(39))])
        #expect(changes.isEmpty)
        changes = run(&c, [(1, gravityInPlane(37))], start: 2)
        #expect(changes.map(\.1) == [.portrait])
    }

    @Test func aCandidateThatFlickersNeverSettles() {
        var c = OrientationClassifier(settings: settings, initial: .portrait)
        var steps: [(seconds: Double, gravity: SIMD3<Double>)] = []
        for _ in 0..<50 { steps += [(0.05, gravityInPlane(60)), (0.03, gravityInPlane(10))] }
        #expect(run(&c, steps).isEmpty)
        #expect(c.orientation == .portrait)
    }

    @Test func aThirdFaceRestartsTheTimer() {
        var c = OrientationClassifier(settings: settings, initial: .portrait)
        let changes = run(&c, [(0.05, gravityInPlane(90)), (0.05, gravityInPlane(-90)), (0.2, gravityInPlane(-90))])
        #expect(changes.map(\.1) == [.landscapeRight])
        #expect(abs((changes.first?.0 ?? -1) - 0.13) < 1e-6)
    }

    @Test func lyingBackPastTheBoundaryIsFaceUp() {
        var c = OrientationClassifier(settings: settings, initial: .portrait)
        #expect(run(&c, [(1, gravityTiltedBack(50))]).isEmpty)
        #expect(run(&c, [(1, gravityTiltedBack(60))], start: 1).map(\.1) == [.faceUp])
        #expect(run(&c, [(1, -SIMD3(0, 0, -1))], start: 2).map(\.1) == [.faceDown])
    }

    @Test func zeroAndNonFiniteGravityAreIgnored() {
        var c = OrientationClassifier(settings: settings, initial: .portrait)
        #expect(run(&c, [(1, .zero), (1, SIMD3(.nan, 0, 0))]).isEmpty)
        #expect(c.orientation == .portrait)
    }

    @Test func zeroSettleTimeChangesOnTheFirstSample() {
        var c = OrientationClassifier(settings: .simple(hysteresisDegrees: 0, settleTime: 0), initial: .portrait)
        let changes = run(&c, [(0.01, gravityInPlane(46))])
        #expect(changes.map(\.1) == [.landscapeLeft])
    }
}

@Suite("Rotation-rate gate (virtual clock)")
struct RateGateTimelineTests {
    /// Up turning in the screen plane from `from` degrees at `rate` °/s for `seconds`, then held.
    func sweep(from: Double, rate: Double, seconds: Double, hold: Double) -> [(seconds: Double, gravity: SIMD3<Double>)] {
        var steps: [(seconds: Double, gravity: SIMD3<Double>)] = []
        var angle = from
        for _ in 0..<Int((seconds / 0.01).rounded()) {
            steps.append((0.01, gravityInPlane(angle)))
            angle += rate * 0.01
        }
        steps.append((hold, gravityInPlane(angle)))
        return steps
    }

    @Test func aFastSweepThroughAFaceProposesNothing() {
        var c = OrientationClassifier(settings: .init(hysteresisDegrees: 8, settleTime: 0.1, maximumRotationRate: 90, rateTimeConstant: 0.05), initial: .portrait)
        // 200 °/s from portrait through landscapeLeft (90°) to upside down (180°): landscapeLeft is
        // inside its cone for 0.37 s, but never slowly.
        let changes = run(&c, sweep(from: 0, rate: 200, seconds: 0.9, hold: 1))
        #expect(changes.map(\.1) == [.portraitUpsideDown])
        #expect(c.rotationRate < 0.01)
    }

    @Test func theSameSweepWithoutTheGateReportsTheFaceItPassed() {
        var c = OrientationClassifier(settings: .simple(hysteresisDegrees: 8, settleTime: 0.1), initial: .portrait)
        let changes = run(&c, sweep(from: 0, rate: 200, seconds: 0.9, hold: 1))
        #expect(changes.map(\.1) == [.landscapeLeft, .portraitUpsideDown])
    }

    @Test func aSlowTurnIsReportedOnceInsideTheCone() {
        var c = OrientationClassifier(settings: .init(hysteresisDegrees: 8, settleTime: 0.1, maximumRotationRate: 90, rateTimeConstant: 0.05), initial: .portrait)
        // 60 °/s: up enters landscapeLeft's cone (within 37° of +x) at 53°, 0.883 s in.
        let changes = run(&c, sweep(from: 0, rate: 60, seconds: 1.5, hold: 1))
        #expect(changes.map(\.1) == [.landscapeLeft])
        let t = changes.first?.0 ?? -1
        #expect(t > 0.98 && t < 1.0)
    }

    @Test func theSmoothedRateHoldsTheGateShutUntilTheTurnHasSlowed() {
        // A 90° turn at a constant 120 °/s, then held. Smoothed over 0.05 s the rate falls below
        // 90 °/s 15 ms after the turn ends; over 0.25 s (the default) below 60 °/s after 0.17 s.
        // The smoothing, not the settle time, sets when the new face is accepted.
        let steps = sweep(from: 0, rate: 120, seconds: 0.75, hold: 1)
        var quick = OrientationClassifier(settings: .init(hysteresisDegrees: 8, settleTime: 0, maximumRotationRate: 90,
                                                          rateTimeConstant: 0.05), initial: .portrait)
        var smooth = OrientationClassifier(settings: .init(hysteresisDegrees: 8, settleTime: 0, maximumRotationRate: 60,
                                                           rateTimeConstant: 0.25), initial: .portrait)
        let a = run(&quick, steps), b = run(&smooth, steps)
        #expect(a.map(\.1) == [.landscapeLeft])
        #expect(b.map(\.1) == [.landscapeLeft])
        let ta = a.first?.0 ?? -1, tb = b.first?.0 ?? -1
        #expect(ta > 0.75 && ta < 0.80, "\(ta)")
        #expect(tb > 0.90 && tb < 0.96, "\(tb)")
    }

    @Test func aFaceSweptAt90DegreesPerSecondIsNotReportedByDefault() {
        // The tour's 180° turn passes the face between at up to 94 °/s.
        var c = OrientationClassifier(settings: .default, initial: .landscapeRight)
        let changes = run(&c, sweep(from: 270, rate: 90, seconds: 2, hold: 1))
        #expect(changes.map(\.1) == [.landscapeLeft])
    }

    @Test func retuningKeepsTheFaceAndForgetsTheMotion() {
        var c = OrientationClassifier(settings: .default, initial: .portrait)
        // Turning fast: a candidate is pending nowhere, the rate is high.
        _ = run(&c, sweep(from: 0, rate: 200, seconds: 0.3, hold: 0))
        #expect(c.rotationRate > 1)
        c.retune(.accelerometerOnly)
        #expect(c.settings == .accelerometerOnly)
        #expect(c.orientation == .portrait)
        #expect(c.rotationRate == 0)
        #expect(c.candidate == .unknown)
    }
}

@Suite("Classifier presets")
struct ClassifierPresetTests {
    @Test func thePresetsAreTheMeasuredOnes() {
        let d = OrientationClassifier.Settings.default
        #expect(d.hysteresisDegrees == 4 && d.settleTime == 0.05 && d.maximumRotationRate == 60 && d.rateTimeConstant == 0.25)
        let s = OrientationClassifier.Settings.steady
        #expect(s.hysteresisDegrees == 18 && s.settleTime == 0.03 && s.maximumRotationRate == 50 && s.rateTimeConstant == 0.15)
        let a = OrientationClassifier.Settings.accelerometerOnly
        #expect(a.hysteresisDegrees == 8 && a.settleTime == 0.1 && a.maximumRotationRate == 90 && a.rateTimeConstant == 0.05)
        let l = OrientationClassifier.Settings.steadyAccelerometerOnly
        #expect(l.hysteresisDegrees == 15 && l.settleTime == 0.1 && l.maximumRotationRate == 60 && l.rateTimeConstant == 0.1)
        #expect(l.maximumWait == 0.6 && l.dwellMarginDegrees == 12 && l.dwellMaximumRotationRate == 80)
        // Only the steady low-energy preset has the time cap.
        #expect(d.maximumWait == nil && s.maximumWait == nil && a.maximumWait == nil)
    }

    @Test func thePipelineRetunesWithTheEstimator() {
        var p = OrientationPipeline(fused: AccelerometerGravity(), classifier: .steady)
        #expect(p.classifier.settings == .steady)
        p.useGyroscope(false)
        #expect(p.classifier.settings == .accelerometerOnly)
        p.useGyroscope(true)
        #expect(p.classifier.settings == .steady)
        let low = OrientationPipeline(fused: AccelerometerGravity(), classifier: .steady, usesGyroscope: false)
        #expect(low.classifier.settings == .accelerometerOnly)
    }

    @Test func steadyNeedsUpWithin27DegreesOfTheNewFace() {
        var c = OrientationClassifier(settings: .steady, initial: .portrait)
        #expect(run(&c, [(1, gravityInPlane(62))]).isEmpty, "28° from landscapeLeft's axis")
        #expect(run(&c, [(1, gravityInPlane(64))], start: 1).map(\.1) == [.landscapeLeft])
    }
}

@Suite("The seed's rule (baseline)")
struct SeedRuleTests {
    func force(up degrees: Double) -> SIMD3<Double> { -gravityInPlane(degrees) * 9.80665 }

    @Test func thresholdsMatchTheSeed() {
        #expect(SeedOrientationRule.estimate(acceleration: force(up: 0)) == .portrait)
        #expect(SeedOrientationRule.estimate(acceleration: force(up: 20)) == .portrait)
        // 25° from portrait: |y| = 0.906 < 0.92 and |x| = 0.42 < 0.95: the seed's dead band.
        #expect(SeedOrientationRule.estimate(acceleration: force(up: 25)) == .unknown)
        #expect(SeedOrientationRule.estimate(acceleration: force(up: 90)) == .landscapeLeft)
        #expect(SeedOrientationRule.estimate(acceleration: force(up: -90)) == .landscapeRight)
        #expect(SeedOrientationRule.estimate(acceleration: force(up: 180)) == .portraitUpsideDown)
        #expect(SeedOrientationRule.estimate(acceleration: SIMD3(0, 0, 9.80665)) == .faceUp)
        #expect(SeedOrientationRule.estimate(acceleration: SIMD3(0, 0, -9.80665)) == .faceDown)
        // 32° from flat: |z| = 0.848 below its threshold 0.852, xy = 0.53 below portrait's 0.564.
        let r = 58.0 * .pi / 180
        #expect(SeedOrientationRule.estimate(acceleration: SIMD3(0, cos(r), sin(r)) * 9.80665) == .unknown)
    }

    @Test func threeReadingsAt150msThenAChange() {
        var rule = SeedOrientationRule()
        var changes: [(Double, DeviceOrientation)] = []
        var t = 0.0
        while t < 1 {
            if let c = rule.update(acceleration: force(up: 90), timeNanoseconds: UInt64((t * 1e9).rounded())) { changes.append((t, c)) }
            t += 0.005
        }
        // Readings at 0, 0.15 and 0.30 s: accepted on the third.
        #expect(changes.map(\.1) == [.landscapeLeft])
        #expect(abs((changes.first?.0 ?? -1) - 0.30) < 1e-6)
    }

    @Test func twoReadingsInLowEnergyMode() {
        var rule = SeedOrientationRule(interval: SeedOrientationRule.lowEnergyInterval)
        var changes: [Double] = []
        var t = 0.0
        while t < 2 {
            if rule.update(acceleration: force(up: 180), timeNanoseconds: UInt64((t * 1e9).rounded())) != nil { changes.append(t) }
            t += 0.01
        }
        #expect(changes.count == 1)
        #expect(abs((changes.first ?? -1) - 0.5) < 1e-6)
    }

    @Test func unknownReadingsChangeNothing() {
        var rule = SeedOrientationRule()
        var t = 0.0
        var changed = false
        while t < 3 {
            changed = changed || rule.update(acceleration: force(up: 25), timeNanoseconds: UInt64((t * 1e9).rounded())) != nil
            t += 0.01
        }
        #expect(!changed)
        #expect(rule.orientation == .portrait)
    }
}
