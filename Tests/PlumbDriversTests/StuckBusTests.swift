import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// A bus stuck low or high for four seconds: every read answers 0x00 or 0xFF and writes are lost,
/// yet every transfer is acknowledged, so no error comes from the bus. The stream must emit no
/// sample decoded from those bytes, not spin, tell the user what the bytes mean and where, and
/// recover when the bus does.
@Suite struct StuckBusTests {
    static let window: ClosedRange<UInt64> = 2_000_000_000...6_000_000_000
    static let hints: [UInt8: String] = [0x00: "every bit read as 0, as when SDA is held low", 0xFF: "every bit read as 1, as when nothing drives SDA"]

    @Test(arguments: [0x00, 0xFF] as [UInt8])
    func mpuStreamSurvivesAStuckBus(value: UInt8) throws {
        let config = IMUConfiguration(outputDataRate: 1000, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 16)
        let profile = MotionProfile.slowRotation()
        let rig = MPURig("mpu6050", profile: profile, errorModel: nil)
        rig.bus.faults = [.init(.always, effect: .reads(value), window: Self.window)]
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        let stream = try runStream(rig, profile: profile, config: config, seconds: 7, check: &check, gaps: &gaps)
        let before = check.checked
        try runStream(rig, profile: profile, config: config, seconds: 1, check: &check, gaps: &gaps, stream: stream)
        #expect(check.failures.isEmpty)
        #expect(check.checked - before > 950, "recovered after the bus did")
        #expect(stream.statistics.wakeups < 8 * 1000 / 16 * 2)
        // Re-initialised once the bus answers again: after the configuration check failed
        // (.chipReset), or after five drains refused the impossible FIFO count (.busError).
        #expect(stream.statistics.reinitialisations >= 1)
        #expect(gaps.contains { $0.reason == .chipReset || $0.reason == .busError })
        // INT_STATUS reading 0xFF says FIFO_OFLOW, but a count of 8191 bytes is no overflow: no
        // invented overflow gaps (and FIFO resets) before the re-initialisation.
        #expect(!gaps.contains { $0.reason == .fifoOverflow }, "\(gaps.map(\.reason))")
        let notices = stream.takeNotices().map(\.message)
        #expect(notices.contains { $0.contains("at 0x68 on simulated bus") && $0.contains(Self.hints[value]!) }, "\(notices)")
    }

    @Test(arguments: [LSM6DS.Variant.lsm6dso, .lsm6ds3, .lsm6ds3trc], [0x00, 0xFF] as [UInt8])
    func lsm6dsStreamSurvivesAStuckBus(variant: LSM6DS.Variant, value: UInt8) throws {
        let rig = LSM6DSRig(variant, profile: LSM6DSFaultTests.ramp)
        rig.bus.faults = [.init(.always, effect: .reads(value), window: Self.window)]
        let config = IMUConfiguration(outputDataRate: 208, accelerometerRange: 2, fifoWatermark: 16)
        var gaps: [StreamGap] = []
        var emitted = 0
        let label = "\(variant.name) stuck at 0x\(hex(value))"
        let stream = try runLSM6DSStream(rig, seconds: 7, config: config, gaps: &gaps, samples: &emitted, label: label)
        emitted = 0
        try runLSM6DSStream(rig, seconds: 1, config: config, gaps: &gaps, samples: &emitted, stream: stream, label: label)
        #expect(emitted > 190, "\(label): recovered after the bus did")
        #expect(stream.statistics.wakeups < 8 * 13 * 3, "\(label)")
        // Re-initialised once the bus answers again: after the configuration check failed
        // (.chipReset), or after five drains refused the impossible FIFO status (.busError).
        #expect(stream.statistics.reinitialisations >= 1, "\(label)")
        #expect(gaps.contains { $0.reason == .chipReset || $0.reason == .busError }, "\(label)")
        let notices = stream.takeNotices().map(\.message)
        #expect(notices.contains { $0.contains("at 0x6a on simulated bus") && $0.contains(Self.hints[value]!) }, "\(label): \(notices)")
    }

    /// What the user reads when WHO_AM_I itself comes back as a stuck bus gives it.
    @Test func identityErrorSaysWhatAllOnesOrZerosMean() {
        let ones = IMUError.unexpectedIdentity(whoAmI: 0xFF, address: I2CAddress(0x68), bus: "/dev/i2c-1", expected: [0x68]).description
        #expect(ones == "0xff at 0x68 on /dev/i2c-1 is not a known IMU (expected one of 0x68); either another chip answers at 0x68 (a DS1307/DS3231 real-time clock on many Pi add-on boards uses 0x68), or every bit read as 1, as when nothing drives SDA (the sensor unpowered, resetting, or its SDA disconnected): check the sensor's power and SDA")
        let elsewhere = IMUError.unexpectedIdentity(whoAmI: 0x00, address: I2CAddress(0x6a), bus: "/dev/i2c-1", expected: [0x6c]).description
        #expect(elsewhere.contains("either another chip answers at 0x6a, or every bit read as 0"))
        let zeros = IMUError.unexpectedIdentity(whoAmI: 0x00, address: I2CAddress(0x68), bus: "/dev/i2c-1", expected: [0x68]).description
        #expect(zeros.hasSuffix("every bit read as 0, as when SDA is held low (a device stuck mid-transfer, or a short to ground): power-cycle the sensor and check SDA"))
    }
}
