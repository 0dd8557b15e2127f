import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// A latched pin's timeline on a chip whose oscillator runs a few percent slow: the low-energy
/// mode (accelerometer only, 12.5 Hz, watermark 7) runs on the MPU's internal oscillator, ±5 % at
/// 25 °C (MPU-6000/6050 Product Specification rev 3.4 §6.6, internal clock source, CLK_SEL = 0).
@Suite struct SlowChipClockTimelineTests {
    /// A timeline a little early (the period not yet learnt) put the status read past the first
    /// record its count missed whenever a record came soon after the count; taken as a record
    /// early, it started again at nearly every drain, forgot the edges its period is estimated
    /// from, and stayed early: 8.6 ms RMS (16.8 ms worst) at 2 % slow, 13.4 ms (23.5 ms) at 3 %,
    /// against 1.1 ms (4.8 ms) and 1.5 ms (7.3 ms) without starting again.
    ///
    /// At 5 % (slow or fast) the edge, one every 7 records, moved 0.35 periods a drain from a
    /// timeline on the nominal period, matched no record (the match was taken by rounding, so a
    /// record off, or refused), and the period was never learnt: 28-40 ms RMS at ±5 % and 3.9 ms
    /// (24 ms worst) at +3 % in the first 20 s. The latched pin's record now comes from the FIFO
    /// count and may sit further off while the period is nominal.
    @Test(arguments: ["mpu6050", "mpu6500"], [-0.05, -0.03, -0.02, 0.03, 0.05])
    func aSlowChipClockDoesNotRestartTheTimelineAtEveryDrain(chip: String, clockError: Double) throws {
        let rig = MPURig(chip, profile: RampTiming.profile, configure: { $0.clockError = clockError })
        let stream = IMUStream(imu: rig.driver, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: 12.5, accelerometerRange: 2, fifoWatermark: 7, gyroscopeEnabled: false,
                                          interrupt: .init(mode: .latched)))
        var samples: [IMUSample] = []
        _ = stream.run(seconds: 20, clock: rig.clock, into: &samples)
        let timed = samples.filter { $0.timestampNanoseconds > rig.sensor.clock.nowNanoseconds - 18 * Nanoseconds.perSecond }
        var sum = 0.0, n = 0
        for s in timed {
            let phase = rig.sensor.profileTime(s.timestampNanoseconds).truncatingRemainder(dividingBy: 2)
            guard phase > 0.01, phase < 1.99 else { continue }
            let d = (s.acceleration.x + 10) / 10 - phase
            sum += d * d; n += 1
        }
        #expect(n > 200)
        let rms = (sum / Double(max(n, 1))).squareRoot()
        #expect(rms < 0.002, "\(rms * 1e3) ms RMS")
        #expect(RampTiming.worstError(timed, on: rig.sensor) < 0.010)
    }
}

/// A latched pin's edge stamped while FIFO_COUNT was being read: the chip takes the count as the
/// transfer's bytes go by, so the sample may be counted although its edge came after the read
/// began.
@Suite struct CountTransferEdgeTests {
    /// Taken for the record after the newest counted, at 1 kHz (watermark 7, a latched pin, the
    /// chip 5 % slow or 8 % fast) it matched a timeline still on the nominal period a whole
    /// record off, and the timeline stayed there: 1.05 ms RMS (1.08 ms worst) at −5 %, 0.93 ms at
    /// +8 %, on the MPU-6050, -6500 and -9150 alike; 0.017 ms now.
    @Test(arguments: [-0.05, 0.08])
    func anEdgeDuringTheCountReadDoesNotPutTheTimelineARecordOff(clockError: Double) throws {
        let rig = MPURig("mpu6050", profile: RampTiming.profile, configure: { $0.clockError = clockError })
        let stream = IMUStream(imu: rig.driver, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: 1000, accelerometerRange: 2, fifoWatermark: 7,
                                          interrupt: .init(mode: .latched)))
        var samples: [IMUSample] = []
        _ = stream.run(seconds: 10, clock: rig.clock, into: &samples)
        let timed = samples.filter { $0.timestampNanoseconds > rig.sensor.clock.nowNanoseconds - 8 * Nanoseconds.perSecond }
        #expect(timed.count > 7000)
        // A tenth of the 1 ms period.
        #expect(RampTiming.worstError(timed, on: rig.sensor) < 0.0001, "\(RampTiming.worstError(timed, on: rig.sensor) * 1e3) ms")
    }
}
