import Testing
import PlumbHAL
@testable import PlumbDrivers
import PlumbSimulation

#if DEBUG
private let optimized = false
#else
private let optimized = true
#endif

/// Long runs in virtual time: 1 kHz from an MPU-6050 with a 1 % fast oscillator, 1 % of all bus
/// transfers failing (after the chip saw them, so FIFO bytes can be lost mid-read) and chip
/// resets mid-stream. Every emitted sample must match the truth at its timestamp within the
/// noise, timestamps must increase, and every lost sample must be accounted for by a gap.
///
/// The one-hour run needs an optimised build (3.6 million samples through emulator, bus, driver
/// and checker); `scripts/test.d/40-soak` runs it with `swift test -c release`. The debug build
/// runs the same scenario for two minutes.
@Suite struct SoakTests {
    struct Outcome {
        var check: TruthCheck
        var gaps: [StreamGap]
        var statistics: IMUStream.Statistics
        var produced: Int
        var steps: Int
    }

    func soak(seconds: Double, resets: [Double]) throws -> Outcome {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig("mpu6050", profile: profile, errorModel: nil, seed: 42) { $0.clockError = 0.01 }
        let start = rig.clock.nowNanoseconds
        rig.chip.scheduledResets = resets.map { start + UInt64($0 * 1e9) }
        rig.bus.faults = [FaultRule(.rate(0.01), effect: .errno(Errno.EREMOTEIO))]
        let config = IMUConfiguration(outputDataRate: 1000, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 16)
        var check = TruthCheck(rig: rig, profile: profile, config: IMUConfiguration(outputDataRate: 1000, accelerometerRange: 4,
                                                                                 gyroscopeRange: 500, lowPassBandwidth: 188))
        let stream = IMUStream(imu: rig.driver, line: rig.line, clock: rig.clock)
        var attempts = 0
        while true {
            do { try stream.start(config); break } catch {
                attempts += 1
                if attempts > 10 { throw error }
            }
        }
        let producedBefore = rig.chip.counters.samples
        let end = start + UInt64(seconds * 1e9)
        var samples: [IMUSample] = []
        samples.reserveCapacity(8192)
        var gaps: [StreamGap] = []
        var steps = 0
        let maxSteps = Int(seconds * 200) + 10_000
        while rig.clock.nowNanoseconds < end, steps < maxSteps {
            samples.removeAll(keepingCapacity: true)
            gaps += stream.step(into: &samples)
            check.check(samples[...])
            steps += 1
        }
        #expect(steps < maxSteps, "the reader stopped advancing time")
        return Outcome(check: check, gaps: gaps, statistics: stream.statistics,
                       produced: rig.chip.counters.samples - producedBefore, steps: steps)
    }

    func verify(_ o: Outcome, resets: Int) {
        #expect(o.check.failures.isEmpty, "wrong or misaligned samples: \(o.check.failures)")
        #expect(o.gaps.filter { $0.reason == .chipReset }.count == resets)
        #expect(o.gaps.allSatisfy { $0.lostSamples != nil })
        // Everything the chip produced was either emitted or reported lost (the start-up
        // samples before the first drain and the estimate in reset gaps allow a little slack).
        let accounted = o.check.checked + o.statistics.lostSamples
        #expect(abs(Double(accounted) / Double(o.produced) - 1) < 0.005, "emitted \(o.check.checked) + lost \(o.statistics.lostSamples) vs produced \(o.produced)")
        #expect(Double(o.check.checked) / Double(o.produced) > 0.95)
    }

    @Test func twoMinutesWithBusErrorsAndResets() throws {
        let o = try soak(seconds: 120, resets: [30, 60, 90])
        verify(o, resets: 3)
    }

    @Test(.enabled(if: optimized, "one hour of 1 kHz data needs an optimised build: scripts/test.d/40-soak (swift test -c release --filter PlumbDriversTests.SoakTests)"))
    func oneHourAt1kHzWithOnePercentBusErrorsAndThreeResets() throws {
        let o = try soak(seconds: 3600, resets: [900, 1800, 2700])
        verify(o, resets: 3)
        #expect(o.check.checked > 3_400_000)
    }
}
