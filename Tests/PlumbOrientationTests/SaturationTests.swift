import Testing
#if canImport(Glibc)
import Glibc
#endif
import PlumbDrivers
import PlumbFusion
@testable import PlumbOrientation

/// Samples the driver flags as clipped by the full-scale range must not be trusted by the gravity
/// estimators: a gyroscope at its limit under-reports a fast turn, an accelerometer at its limit
/// mis-states gravity.
@Suite struct SaturationTests {
    static let g = 9.80665
    static let rate = 200.0

    /// At rest with z up, a quarter turn about x at 1000 °/s that a ±500 °/s gyroscope reports as
    /// 500 °/s (flagged saturated), then at rest: returns the angle (degrees) between the estimate
    /// and the true gravity `after` seconds after the turn.
    static func errorAfterFastTurn(_ estimator: inout any GravityEstimator, after: Double) -> Double {
        var t = 1.0
        let dt = 1 / rate
        var theta = 0.0
        func sample(_ rate: Double, saturated: Bool) -> IMUSample {
            let f = SIMD3(0, g * sin(theta), g * cos(theta))
            let clipped = min(rate, 500 * .pi / 180)
            return IMUSample(timestampNanoseconds: UInt64(t * 1e9), acceleration: f, angularRate: SIMD3(clipped, 0, 0),
                             saturation: saturated ? [.gyroscopeX] : [])
        }
        for _ in 0..<Int(2 * rate) { _ = estimator.update(sample(0, saturated: false)); t += dt }
        let fast = 1000 * Double.pi / 180
        while theta < .pi / 2 {
            theta = min(.pi / 2, theta + fast * dt)
            _ = estimator.update(sample(fast, saturated: true)); t += dt
        }
        var estimate = SIMD3<Double>.zero
        for _ in 0..<Int(after * rate) { estimate = estimator.update(sample(0, saturated: false)); t += dt }
        let truth = -SIMD3(0, sin(theta), cos(theta))
        let cosine = (estimate * truth).sum() / max(1e-12, (estimate * estimate).sum().squareRoot())
        return acos(max(-1, min(1, cosine))) * 180 / .pi
    }

    @Test(arguments: FusionAlgorithm.allCases)
    func aClippedGyroscopeDoesNotLeaveTheEstimateBehind(algorithm: FusionAlgorithm) {
        var estimator = algorithm.makeGravityEstimator()
        let error = Self.errorAfterFastTurn(&estimator, after: 0.1)
        #expect(error < 5, "\(algorithm): \(error)° off 0.1 s after the turn")
    }

    /// A knock that clips both sensors: the filter is restarted for the gyroscope and has no
    /// accelerometer to converge from, so the last estimate stands (it returned zero, published by
    /// the outputs as a gravity of 0, 0, 0), and the first unclipped sample converges again.
    @Test(arguments: FusionAlgorithm.allCases)
    func aKnockClippingBothSensorsKeepsTheLastEstimate(algorithm: FusionAlgorithm) {
        var estimator = algorithm.makeGravityEstimator()
        var t: UInt64 = 1_000_000_000
        for _ in 0..<400 {
            _ = estimator.update(IMUSample(timestampNanoseconds: t, acceleration: SIMD3(0, 0, Self.g), angularRate: .zero))
            t += 5_000_000
        }
        for _ in 0..<3 {
            let estimate = estimator.update(IMUSample(timestampNanoseconds: t, acceleration: SIMD3(0, 2 * Self.g, Self.g),
                                                      angularRate: SIMD3(9, 0, 0), saturation: [.gyroscopeX, .accelerometerY]))
            t += 5_000_000
            #expect(abs(estimate.z + 1) < 0.01 && abs(estimate.x) < 0.01 && abs(estimate.y) < 0.01, "\(algorithm): \(estimate)")
        }
        let after = estimator.update(IMUSample(timestampNanoseconds: t, acceleration: SIMD3(0, Self.g, 0), angularRate: .zero))
        #expect(abs(after.y + 1) < 0.01, "\(algorithm) converges from the first unclipped sample: \(after)")
        estimator.reset()
        #expect(estimator.update(IMUSample(timestampNanoseconds: t + 5_000_000, acceleration: SIMD3(0, 2 * Self.g, Self.g),
                                           angularRate: SIMD3(9, 0, 0), saturation: [.gyroscopeX, .accelerometerY])) == .zero,
                "\(algorithm): after reset() there is no estimate to keep")
    }

    /// An accelerometer pinned at its limit (a knock, vibration beyond ±2 g) is not gravity: the
    /// estimate keeps what it had.
    @Test(arguments: FusionAlgorithm.allCases)
    func aClippedAccelerometerIsNotTakenForGravity(algorithm: FusionAlgorithm) {
        var estimators: [any GravityEstimator] = [algorithm.makeGravityEstimator(), AccelerometerGravity()]
        for i in estimators.indices {
            var t: UInt64 = 1_000_000_000
            for _ in 0..<400 {
                _ = estimators[i].update(IMUSample(timestampNanoseconds: t, acceleration: SIMD3(0, 0, Self.g), angularRate: .zero))
                t += 5_000_000
            }
            var estimate = SIMD3<Double>.zero
            // Half a second of a reading stuck at +2 g on y, flagged.
            for _ in 0..<100 {
                estimate = estimators[i].update(IMUSample(timestampNanoseconds: t, acceleration: SIMD3(0, 2 * Self.g, Self.g), angularRate: .zero,
                                                          saturation: [.accelerometerY]))
                t += 5_000_000
            }
            let angle = acos(max(-1, min(1, -estimate.z / max(1e-12, (estimate * estimate).sum().squareRoot())))) * 180 / .pi
            #expect(angle < 2, "\(algorithm) estimator \(i): \(angle)°")
        }
    }
}
