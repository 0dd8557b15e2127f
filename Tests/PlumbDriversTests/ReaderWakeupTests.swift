import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

@Suite struct InterruptStormTests {
    /// 50 kHz of edges for one second from a line that has nothing to do with the chip.
    static let storm = SimulatedInterruptLine.Storm(window: 2_000_000_000...3_000_000_000, periodNanoseconds: 20_000)

    /// A watermark chip whose line fires constantly: the reader must not spin on it (one wake-up
    /// and one FIFO read per edge), it polls until the storm passes and then returns to edges.
    @Test(arguments: [LSM6DS.Variant.lsm6dso, .lsm6ds3])
    func lsm6dsReaderDoesNotSpinInAStorm(variant: LSM6DS.Variant) throws {
        let rig = LSM6DSRig(variant, profile: LSM6DSFaultTests.ramp)
        rig.line.storms = [Self.storm]
        let config = IMUConfiguration(outputDataRate: 208, accelerometerRange: 2, fifoWatermark: 16)
        var gaps: [StreamGap] = []
        var emitted = 0
        let label = "\(variant.name) storm"
        let stream = try runLSM6DSStream(rig, seconds: 5, config: config, gaps: &gaps, samples: &emitted, label: label)
        // 5 s at 13 watermarks a second, and a few more for the switches.
        #expect(stream.statistics.wakeups < 5 * 13 * 2, "\(label): \(stream.statistics.wakeups) wake-ups")
        #expect(gaps.isEmpty, "\(label): \(gaps)")
        #expect(emitted > 5 * 208 - 40, "\(label)")
        #expect(stream.mode == .interrupts, "\(label)")
        let notices = stream.takeNotices().map(\.message)
        #expect(notices.first?.hasPrefix("interrupt storm on simulated data-ready line:") == true, "\(label): \(notices)")
        #expect(notices.last == "interrupts from simulated data-ready line are back", "\(label): \(notices)")
    }

    /// An MPU with a one-sample watermark waits on every edge: a storm must not make it spin.
    @Test func mpuWithAOneSampleWatermarkDoesNotSpinInAStorm() throws {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig("mpu6050", profile: profile, errorModel: nil)
        rig.line.storms = [Self.storm]
        let config = IMUConfiguration(outputDataRate: 200, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 1)
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        let stream = try runStream(rig, profile: profile, config: config, seconds: 5, check: &check, gaps: &gaps)
        #expect(stream.statistics.wakeups < 5 * 200 * 2, "\(stream.statistics.wakeups) wake-ups")
        #expect(check.failures.isEmpty)
        #expect(check.checked > 5 * 200 - 20)
        #expect(stream.mode == .interrupts)
        #expect(stream.takeNotices().map(\.message).first?.hasPrefix("interrupt storm on simulated INT line:") == true)
    }

    /// An MPU collects the edges queued while it slept and times its samples by them: storm edges
    /// must not be taken for sample instants. The ramp makes each sample say when it was taken.
    @Test func mpuSampleTimesIgnoreStormEdges() throws {
        let rig = MPURig("mpu6050", profile: RampTiming.profile)
        rig.line.storms = [SimulatedInterruptLine.Storm(window: 1_500_000_000...3_500_000_000, periodNanoseconds: 290_000)]
        let stream = IMUStream(imu: rig.driver, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: 500, accelerometerRange: 2, fifoWatermark: 16))
        var samples: [IMUSample] = []
        while rig.clock.nowNanoseconds < 4_500_000_000 { _ = stream.step(into: &samples) }
        let worst = RampTiming.worstError(samples.dropFirst(200), on: rig.sensor)
        #expect(worst < 400e-6, "worst timing error \(worst * 1e6) µs") // a fifth of the 2 ms period
        #expect(stream.mode == .interrupts)
    }
}

/// A driver whose samples of one drain carry a time far in the future (what any corrupted sample
/// clock could hand on): it wraps a real driver and forwards everything else.
final class FutureStampingIMU: IMU {
    let inner: any IMU
    var drains = 0
    let skewedDrain: Int
    let skew: UInt64
    init(_ inner: any IMU, skewedDrain: Int, skew: UInt64) { self.inner = inner; self.skewedDrain = skewedDrain; self.skew = skew }
    var identity: IMUIdentity? { inner.identity }
    var configuration: IMUConfiguration { inner.configuration }
    var interruptSignal: InterruptSignal { inner.interruptSignal }
    var maximumSamplesPerWatermark: Int { inner.maximumSamplesPerWatermark }
    func identify() throws(IMUError) -> IMUIdentity { try inner.identify() }
    func reset() throws(IMUError) { try inner.reset() }
    func apply(_ configuration: IMUConfiguration) throws(IMUError) -> IMUConfiguration { try inner.apply(configuration) }
    func startStreaming() throws(IMUError) { try inner.startStreaming() }
    func stopStreaming() throws(IMUError) { try inner.stopStreaming() }
    func selfTest() throws(IMUError) -> SelfTestResult { try inner.selfTest() }
    func verifyConfiguration() throws(IMUError) -> Bool { try inner.verifyConfiguration() }
    func drain(into samples: inout [IMUSample], edges: [EdgeEvent]) throws(IMUError) -> DrainResult {
        let before = samples.count
        let r = try inner.drain(into: &samples, edges: edges)
        drains += 1
        if drains == skewedDrain { for i in samples.indices.dropFirst(before) { samples[i].timestampNanoseconds += skew } }
        return r
    }
}

@Suite struct BogusSampleTimeTests {
    /// A polling reader sleeps until the next watermark is due from the last sample's time: one
    /// sample stamped an hour ahead must not put it to sleep for an hour.
    @Test(arguments: [true, false])
    func aFutureSampleTimeDoesNotPutThePollingReaderToSleep(mpu: Bool) throws {
        let imu: any IMU
        let clock: VirtualClock
        if mpu {
            let rig = MPURig("mpu6050")
            imu = rig.driver; clock = rig.clock
        } else {
            let rig = LSM6DSRig(.lsm6dso)
            imu = rig.imu; clock = rig.clock
        }
        let skewed = FutureStampingIMU(imu, skewedDrain: 20, skew: 3_600_000_000_000)
        let stream = IMUStream(imu: skewed, line: nil, clock: clock)
        try stream.start(IMUConfiguration(outputDataRate: 208, fifoWatermark: 16))
        var samples: [IMUSample] = []
        var longest: UInt64 = 0
        for _ in 0..<100 {
            let before = clock.nowNanoseconds
            _ = stream.step(into: &samples)
            longest = max(longest, clock.nowNanoseconds - before)
        }
        #expect(longest < 1_000_000_000, "a step slept \(Double(longest) / 1e9) s")
        #expect(samples.count > 90 * 16)
    }
}

@Suite struct DeadLineTests {
    /// A data-ready line that never fires (wrong line, pin not wired): the reader polls from the
    /// start, says which line is silent, and loses nothing.
    @Test func mpuPollsWhenTheLineNeverFires() throws {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig("mpu6050", profile: profile, errorModel: nil)
        rig.line.silentWindows = [0...UInt64.max]
        let config = IMUConfiguration(outputDataRate: 1000, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 16)
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        let stream = try runStream(rig, profile: profile, config: config, seconds: 3, check: &check, gaps: &gaps)
        #expect(stream.mode == .polling)
        #expect(gaps.isEmpty)
        #expect(check.failures.isEmpty)
        #expect(check.checked > 2950)
        #expect(stream.takeNotices().map(\.message) == ["samples arrive but simulated INT line shows no edges; timing from the estimated period"])
    }

    @Test func lsm6dsPollsWhenTheLineNeverFires() throws {
        let rig = LSM6DSRig(.lsm6dso, profile: LSM6DSFaultTests.ramp)
        rig.line.silentWindows = [0...UInt64.max]
        var gaps: [StreamGap] = []
        var emitted = 0
        let stream = try runLSM6DSStream(rig, seconds: 3, config: IMUConfiguration(outputDataRate: 208, accelerometerRange: 2, fifoWatermark: 16),
                                         gaps: &gaps, samples: &emitted, label: "dead line")
        #expect(stream.mode == .polling)
        #expect(gaps.isEmpty)
        #expect(emitted > 3 * 208 - 40)
        #expect(stream.takeNotices().first?.message.hasPrefix("no interrupt from simulated data-ready line for ") == true)
    }
}
