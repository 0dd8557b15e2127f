import Foundation
import Testing
@testable import PlumbFusion

@Suite("OfflinePlumbEstimator (acausal, whole recording)")
struct OfflineEstimatorTests {
    static func compact(_ r: Recording) -> CompactIMURecording {
        var c = CompactIMURecording()
        c.reserveCapacity(r.t.count)
        for i in r.t.indices { c.append(gyroscope: r.gyroscope[i], accelerometer: r.accelerometer[i], timestamp: r.t[i]) }
        return c
    }

    /// RMS inclination error (degrees) for t ≥ 5 s, the measure of ../shared/data/broad/README.md.
    static func rmsError(_ estimate: OfflineEstimate, _ r: Recording) -> Double {
        var sum = 0.0, count = 0
        for i in r.t.indices where r.t[i] >= 5 && r.trueUp[i].isFinite {
            guard let g = estimate.gravity(i) else { return .infinity }
            let angle = degreesBetween(r.trueUp[i].normalized(), -g)
            sum += angle * angle
            count += 1
        }
        return count > 0 ? (sum / Double(count)).squareRoot() : .infinity
    }

    // Bound: the error measured with the zero-phase low-pass (1.113°; 1.136° without it,
    // against 1.152° for the real-time PlumbFilter on the same excerpt, which ends in motion:
    // the last 10 s rest on the forward pass alone) plus about 8 %.
    @Test("BROAD excerpt: RMS inclination error ≤ 1.20°, below the real-time PlumbFilter's")
    func broadExcerpt() {
        let r = Recording.broad08
        let estimate = OfflinePlumbEstimator().estimate(Self.compact(r))
        #expect(estimate.count == r.t.count)
        #expect(estimate.skippedSampleCount == 0)
        let error = Self.rmsError(estimate, r)
        var realTime = PlumbFilter()
        let realTimeError = r.rmsInclinationError(&realTime)
        #expect(error <= 1.20, "measured \(error)°")
        #expect(error < realTimeError, "offline \(error)° vs real-time \(realTimeError)°")
    }

    @Test("the recording keeps readings to Float precision")
    func compactRecording() {
        var c = CompactIMURecording()
        c.append(gyroscope: Vector3(0.1234567, -2, 3e-4), accelerometer: Vector3(9.80665, -0.5, 1), timestamp: 1234.5678901)
        #expect(c.count == 1)
        #expect(c.timestamps[0] == 1234.5678901)
        #expect((c.gyroscope(0) - Vector3(0.1234567, -2, 3e-4)).norm < 1e-7)
        #expect((c.accelerometer(0) - Vector3(9.80665, -0.5, 1)).norm < 1e-6)
    }

    @Test("NaN samples are skipped and counted; a gap and a leading unusable stretch leave every row known and unit")
    func robustness() {
        // 20 s still, tilted 30° about x, at 100 Hz; a NaN sample, a 2 s gap, and a zero
        // accelerometer reading at the start, so that only the backward pass knows sample 0.
        let up = Vector3(0, 0.5, 0.75.squareRoot())
        var c = CompactIMURecording()
        for i in 0..<2000 {
            let t = Double(i) / 100 + (i >= 1000 ? 2 : 0)
            let a = i == 0 ? Vector3.zero : up * standardGravity
            let g = i == 500 ? Vector3(.nan, 0, 0) : Vector3(0.001, -0.002, 0.003)
            c.append(gyroscope: g, accelerometer: a, timestamp: t)
        }
        let estimate = OfflinePlumbEstimator().estimate(c)
        #expect(estimate.skippedSampleCount == 1)
        for i in 0..<2000 {
            guard let q = estimate.attitude(i), let g = estimate.gravity(i) else {
                Issue.record("sample \(i) unknown"); return
            }
            #expect(abs(q.norm - 1) < 1e-6)
            #expect(degreesBetween(-g, up) < 0.1, "sample \(i): \(-g)")
        }
    }

    @Test("an empty recording gives an empty estimate")
    func empty() {
        #expect(OfflinePlumbEstimator().estimate(CompactIMURecording()).count == 0)
    }
}
