import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// A burst on a bus slower than the stream: the FIFO grows while it is read, and a full MPU-6050
/// FIFO overwrites its oldest bytes, so the burst's later records would be read out of alignment.
@Suite struct SlowBusBurstTests {
    /// Six axes at 1 kHz on a 100 kHz bus (a Raspberry Pi's default) cannot keep up: the FIFO
    /// overflows and is reset with gaps, but no sample is ever decoded from misaligned words. At
    /// rest on a ramp in x, y stays 0 and z 9.8 m/s² in every sample; before the burst was cut
    /// short, five samples in four seconds had gravity on x or y (words of two records).
    @Test(arguments: ["mpu6050", "mpu9150"], [1, 16])
    func noMisalignedSampleWhenTheBusCannotKeepUp(chip: String, watermark: Int) throws {
        let rig = MPURig(chip, profile: RampTiming.profile)
        rig.bus.bitsPerSecond = 100_000
        let stream = IMUStream(imu: rig.driver, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: 1000, accelerometerRange: 2, fifoWatermark: watermark, interrupt: .init(mode: .latched)))
        var samples: [IMUSample] = []
        let gaps = stream.run(seconds: 4, clock: rig.clock, into: &samples)
        #expect(gaps.contains { $0.reason == .fifoOverflow }, "the bus is too slow: the FIFO overflows")
        #expect(samples.count > 2000)
        let misaligned = samples.filter { abs($0.acceleration.y) > 0.05 || abs($0.acceleration.z - 9.8) > 0.05 }
        #expect(misaligned.count == 0, "misaligned samples, the first \(misaligned.first.map { "\($0.acceleration)" } ?? "")")
        #expect(RampTiming.worstError(samples, on: rig.sensor) < 0.002)
    }

    /// The cut itself: a nearly full FIFO on a bus slower than the chip reads fewer records; a
    /// fast bus, an instant one (no pace known) or a FIFO with room reads them all.
    @Test func theBurstIsCutOnlyWhenTheChipWouldOutrunIt() {
        // 1 kHz, 12-byte records, 1024-byte FIFO; 90 µs a byte is a 100 kHz bus.
        let slow = MPU6050.recordsReadableWithoutOverflow(82, count: 984, recordSize: 12, fifoSize: 1024, byteNanoseconds: 90_000,
                                                          sinceCountNanoseconds: 500_000, periodNanoseconds: 1_000_000)
        #expect(slow >= 1 && slow < 82)
        // Check the bound by hand: the FIFO's level after the cut burst stays within its size.
        let burst = Double(slow * 12 + 3) * 90_000, arriving = Int((500_000 + burst) / 900_000) + 1
        #expect(984 + (arriving - slow) * 12 <= 1024)
        #expect(MPU6050.recordsReadableWithoutOverflow(82, count: 984, recordSize: 12, fifoSize: 1024, byteNanoseconds: 22_500,
                                                       sinceCountNanoseconds: 200_000, periodNanoseconds: 1_000_000) == 82)
        #expect(MPU6050.recordsReadableWithoutOverflow(82, count: 984, recordSize: 12, fifoSize: 1024, byteNanoseconds: 0,
                                                       sinceCountNanoseconds: 0, periodNanoseconds: 1_000_000) == 82)
        #expect(MPU6050.recordsReadableWithoutOverflow(20, count: 240, recordSize: 12, fifoSize: 1024, byteNanoseconds: 90_000,
                                                       sinceCountNanoseconds: 500_000, periodNanoseconds: 1_000_000) == 20)
    }
}
