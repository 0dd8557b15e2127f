import Foundation
import Testing
import PlumbDrivers
import PlumbFusion
@testable import PlumbOrientation

/// `OrientationPipeline.wakeHint`: in low-energy mode the reader asks for samples sooner while a
/// turn is in progress, and only then.
@Suite struct TurnWakeTests {
    static let period = 0.08 // 12.5 Hz

    /// A pipeline in low-energy mode (accelerometer only, `.accelerometerOnly`: 8° hysteresis,
    /// 0.1 s settle time, 90 °/s gate).
    static func lowEnergy(interval: Double? = 0.32) -> OrientationPipeline {
        OrientationPipeline(fused: FusionAlgorithm.default.makeGravityEstimator(), usesGyroscope: false, turnWakeInterval: interval)
    }

    /// The accelerometer at rest with up `degrees` from +y towards +x.
    static func sample(_ degrees: Double, at seconds: Double) -> IMUSample {
        let r = degrees * .pi / 180
        return IMUSample(timestampNanoseconds: UInt64((seconds * 1e9).rounded()), acceleration: 9.81 * SIMD3(sin(r), cos(r), 0),
                         angularRate: .zero)
    }

    /// Feeds up at `degrees` from `start` for `seconds` at 12.5 Hz; returns the time after.
    @discardableResult
    static func hold(_ p: inout OrientationPipeline, _ degrees: Double, from start: Double, for seconds: Double) -> Double {
        var t = start
        while t < start + seconds - 1e-9 {
            _ = p.process(sample(degrees, at: t))
            t += period
        }
        return t
    }

    static func seconds(_ ns: UInt64?) -> Double? { ns.map { Double($0) / 1e9 } }

    @Test func restingOnAFaceAsksNothing() {
        var p = Self.lowEnergy()
        var t = Self.hold(&p, 0, from: 0, for: 1)
        #expect(p.orientation == .portrait)
        #expect(p.wakeHint == nil)
        // Within the face's own region, even far from its axis: nothing.
        t = Self.hold(&p, 40, from: t, for: 2)
        #expect(p.orientation == .portrait)
        #expect(p.wakeHint == nil)
    }

    /// Past the 45° boundary but short of the hysteresis (up 50° from portrait, 40° from
    /// landscapeLeft; the cone is 37°): the turn is in progress, samples every 0.32 s; held
    /// there past 1.5 s it is resting at the boundary and the batches come back.
    @Test func pastTheBoundaryAsksForTheNextSamplesUntilItRests() throws {
        var p = Self.lowEnergy()
        var t = Self.hold(&p, 0, from: 0, for: 1)
        t = Self.hold(&p, 50, from: t, for: 0.4)
        #expect(p.orientation == .portrait)
        let last = t - Self.period
        let hint = try #require(Self.seconds(p.wakeHint))
        #expect(abs(hint - (last + 0.32)) < 1e-6)
        t = Self.hold(&p, 50, from: t, for: 1.4)
        #expect(p.orientation == .portrait)
        #expect(p.wakeHint == nil, "held at the boundary past \(Double(OrientationPipeline.turnWakeLimit) / 1e9) s")
        // Back in its own region and out again: a new turn.
        t = Self.hold(&p, 10, from: t, for: 0.4)
        #expect(p.wakeHint == nil)
        _ = Self.hold(&p, 50, from: t, for: 0.3)
        #expect(p.wakeHint != nil)
    }

    /// A face waiting out its settle time asks for the sample that decides it, and is accepted
    /// there.
    @Test func aWaitingFaceAsksForTheEndOfItsSettleTime() throws {
        var p = Self.lowEnergy()
        var t = Self.hold(&p, 0, from: 0, for: 1)
        // Turn slowly (well under the 90 °/s gate) to 70°, deep in landscapeLeft's cone.
        var degrees = 0.0
        var proposedAt: Double?
        while degrees < 70 {
            degrees += 4
            _ = p.process(Self.sample(degrees, at: t))
            if proposedAt == nil, p.classifier.candidate == .landscapeLeft { proposedAt = t }
            t += Self.period
            if proposedAt != nil { break }
        }
        let since = try #require(proposedAt)
        let hint = try #require(Self.seconds(p.wakeHint))
        #expect(abs(hint - (since + OrientationClassifier.Settings.accelerometerOnly.settleTime)) < 1e-6)
        // The sample at or after the hint decides.
        var changed: DeviceOrientation?
        while changed == nil, t < hint + 2 * Self.period {
            changed = p.process(Self.sample(degrees, at: t))
            t += Self.period
        }
        #expect(changed == .landscapeLeft)
        #expect(t - Self.period >= hint - 1e-9)
        #expect(p.wakeHint == nil)
    }

    @Test func normalModeAndTurnedOffAskNothing() {
        var withGyro = OrientationPipeline(fused: FusionAlgorithm.default.makeGravityEstimator(), usesGyroscope: true)
        var off = Self.lowEnergy(interval: nil)
        var t = 0.0
        for degrees in stride(from: 0.0, through: 60, by: 3) {
            _ = withGyro.process(Self.sample(degrees, at: t))
            _ = off.process(Self.sample(degrees, at: t))
            #expect(withGyro.wakeHint == nil)
            #expect(off.wakeHint == nil)
            t += Self.period
        }
    }

    /// A recording source honours the request: the read stops at the sample asked for, and the
    /// next read is a whole batch again.
    @Test func recordingSourceStopsAtTheSampleAskedFor() throws {
        let samples = (0..<40).map { Self.sample(0, at: Double($0) * 0.01) }
        let source = RecordingSource(recording: IMURecording(samples: samples), name: "test")
        _ = try source.start(IMUConfiguration(outputDataRate: 100, fifoWatermark: 10, gyroscopeEnabled: false))
        var got: [IMUSample] = []
        _ = try source.read(into: &got, timeoutNanoseconds: 0)
        #expect(got.count == 10)
        source.wake(bySampleAt: 125_000_000)
        _ = try source.read(into: &got, timeoutNanoseconds: 0)
        #expect(got.count == 14)
        #expect(got.last?.timestampNanoseconds == 130_000_000)
        _ = try source.read(into: &got, timeoutNanoseconds: 0)
        #expect(got.count == 24)
    }
}
