import Testing
import PlumbHAL
@testable import PlumbDrivers
import PlumbSimulation

/// FIFO facts of the MPU family taken from the Linux driver `inv_mpu6050`, each pinned here:
/// overflow judged by FIFO_COUNT, never by INT_STATUS.FIFO_OFLOW_INT, which "some chips" keep set
/// (`inv_mpu_ring.c` `inv_mpu6050_read_fifo`, since commit 6e82ae6b8d11 "iio: imu: inv_mpu6050:
/// fix no data on MPU6050"); the FIFO reset once only three records of room are left, because
/// records keep arriving between the count read and the data read; and the ICM-20689's 4 KB FIFO
/// selected in ACCEL_CONFIG_2 (`inv_mpu6050_set_lpf_regs`).
@Suite struct MPU6050FIFOReferenceTests {
    let config = IMUConfiguration(outputDataRate: 1000, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 16)

    /// A part whose FIFO_OFLOW_INT always reads 1 still streams every sample, with no gap.
    /// (Before the fix every drain reset the FIFO: no samples at all, one overflow gap per drain.)
    @Test(arguments: ["mpu6050", "mpu6500", "icm20602"])
    func aStuckOverflowFlagDropsNothing(key: String) throws {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig(key, profile: profile, errorModel: nil) { $0.overflowFlagStuck = true }
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        try runStream(rig, profile: profile, config: config, seconds: 2, check: &check, gaps: &gaps)
        #expect(gaps.isEmpty, "\(gaps.count) gaps, the first \(gaps.first.map { "\($0.reason)" } ?? "")")
        #expect(check.failures.isEmpty)
        #expect(check.checked > 1900)
        #expect(rig.chip.counters.fifoOverflows == 0)
    }

    /// A real overflow is still found on such a part: by the count.
    @Test func aStuckOverflowFlagStillSeesARealOverflow() throws {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig("mpu6050", profile: profile, errorModel: nil) { $0.overflowFlagStuck = true }
        rig.bus.faults = [.init(.always, effect: .stuck, window: 2_000_000_000...2_400_000_000)]
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        try runStream(rig, profile: profile, config: config, seconds: 3, check: &check, gaps: &gaps)
        #expect(gaps.contains { $0.reason == .fifoOverflow })
        #expect(check.failures.isEmpty)
        #expect(rig.chip.counters.fifoOverflows > 0)
    }

    /// FIFO_COUNT within three records of the FIFO's size is treated as an overflow and the FIFO
    /// reset ("Reset if there is only 3 data set free remaining to mitigate possible delay
    /// between reading fifo count and fifo data", `inv_mpu6050_read_fifo`). On the MPU-6050 a
    /// record that arrives between the count and the burst into a full FIFO overwrites the oldest
    /// bytes, so the burst would come out misaligned.
    @Test(arguments: ["mpu6050", "mpu6500"])
    func aFIFOThreeRecordsFromFullIsReset(key: String) throws {
        let rig = MPURig(key, errorModel: nil, instantBus: true)
        _ = try rig.start(config)
        let size = rig.driver.variant!.fifoSize
        let record = 12
        // Let the FIFO fill, undrained, to the first level within three records of full.
        while rig.chip.fifoLevel < size - 3 * record {
            rig.clock.advance(by: 500_000)
            rig.chip.advance(to: rig.clock.nowNanoseconds)
        }
        let level = rig.chip.fifoLevel
        #expect(level + record <= size, "the FIFO was not to overflow yet (level \(level) of \(size))")
        #expect(rig.chip.counters.fifoOverflows == 0)
        var samples: [IMUSample] = []
        let result = try rig.driver.drain(into: &samples, edges: [])
        #expect(result.sampleCount == 0 && samples.isEmpty)
        #expect(result.gaps.map(\.reason) == [.fifoOverflow])
        #expect(rig.chip.fifoLevel < record, "the FIFO was reset")
    }

    /// The ICM-20689's FIFO is 4 KB only once ACCEL_CONFIG_2.FIFO_SIZE (bits 7:6) = 3; after
    /// reset it is 512 bytes. The Linux driver ORs 0xC0 (`INV_ICM20689_BITS_FIFO_SIZE_MAX`) into
    /// ACCEL_CONFIG_2 ("set FIFO size to maximum value"). A reader stalled 200 ms at 1 kHz
    /// (2.4 KB of records) loses nothing. (Before the fix the chip overflowed at 512 bytes, and
    /// the driver, counting on 4 KB, never noticed: samples silently lost.)
    @Test func icm20689SelectsItsFourKilobyteFIFO() throws {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig("icm20689", profile: profile, errorModel: nil)
        rig.bus.faults = [.init(.always, effect: .stuck, window: 2_000_000_000...2_200_000_000)]
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        try runStream(rig, profile: profile, config: config, seconds: 3, check: &check, gaps: &gaps)
        #expect(rig.chip.registers[MPU6050.Register.accelConfig2] & 0xC0 == 0xC0)
        #expect(rig.chip.fifoCapacity == 4096)
        #expect(rig.chip.counters.fifoOverflows == 0)
        #expect(!gaps.contains { $0.reason == .fifoOverflow })
        #expect(check.failures.isEmpty)
        #expect(try rig.driver.verifyConfiguration())
    }
}
