import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// A slow interrupt storm (stray edges, e.g. mains hum on a floating pin) on an LSM6DSO at
/// watermark 16 with FIFO compression: the stray edges come before the FIFO reaches its
/// threshold, so the watermark read runs past the end of the FIFO and raises a doubt (were the
/// zeros words lost on the bus?) that the next timestamp word settles. With compression a
/// timestamp word read before such a read waits in the decompressor for its slot's later words
/// and is dropped (it must not settle the doubt), so a second stray edge while samples were
/// still held pushed them past the 48 the assembler holds: all were dropped as a gap of about
/// 56 samples, every second or so (833 Hz in a 60 Hz storm: 30 gaps in 20 s; 416 Hz in a
/// 30 Hz storm: 39). Nothing was lost on the chip: the stream must carry every sample.
@Suite struct CompressedStormTests {
    @Test(arguments: [(833.0, 60.0), (833.0, 100.0), (416.0, 30.0), (416.0, 50.0)])
    func strayEdgesInASlowStormCostNoData(rate: Double, storm: Double) throws {
        let rig = LSM6DSRig(.lsm6dso, profile: LSM6DSFaultTests.ramp)
        rig.imu.fifoCompression = true
        let start = rig.clock.nowNanoseconds + 1_000_000_000, end = start + 5_000_000_000
        rig.line.storms = [SimulatedInterruptLine.Storm(window: start...end, periodNanoseconds: UInt64((1e9 / storm).rounded()))]
        let stream = IMUStream(imu: rig.imu, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: rate, accelerometerRange: 2, gyroscopeRange: 500, fifoWatermark: 16))
        var samples: [IMUSample] = []
        var gaps: [StreamGap] = []
        let stop = end + 1_000_000_000
        while rig.clock.nowNanoseconds < stop { gaps += stream.step(into: &samples) }
        let label = "lsm6dso \(rate) Hz, \(storm) Hz storm"
        #expect(rig.chip.isCompressing, "\(label): the chip did not compress")
        #expect(rig.chip.counters.threeSampleWords > 1000, "\(label): \(rig.chip.counters)")
        #expect(stream.statistics.wakeups > Int(storm * 4), "\(label): the storm did not wake the reader")
        #expect(gaps.isEmpty, "\(label): \(gaps.count) gaps, the first \(gaps.prefix(2))")
        LSM6DSFaultTests.check(samples, origin: rig.chip.profileStart, label: label)
        // Every instant from the first sample to the last is there, one period apart.
        let periods = samples.count > 1 ? Double(samples.last!.timestampNanoseconds - samples[0].timestampNanoseconds) * rate / 1e9 : 0
        #expect(samples.count > Int(rate * 6.5), "\(label): \(samples.count) samples")
        #expect(abs(periods + 1 - Double(samples.count)) < 0.02 * Double(samples.count), "\(label): \(samples.count) samples over \(periods) periods")
    }
}
