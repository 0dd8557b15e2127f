import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// An LSM6DSO32 answers WHO_AM_I 0x6C like the LSM6DSO (ST-C `LSM6DSO32_ID`, `LSM6DSO_ID`) and
/// its FS_XL codes mean twice the LSM6DSO's ranges (`lsm6dso32_fs_xl_t`): found as an LSM6DSO it
/// reads half. The stream says so once it sees the chip still.
@Suite struct GravityCheckTests {
    func stream(chip variant: LSM6DS.Variant, part: LSM6DS.Variant?) throws -> (IMUStream, [IMUSample]) {
        let clock = VirtualClock(startNanoseconds: 1_000_000_000)
        let bus = EmulatedI2CBus(clock: clock)
        let chip = LSM6DSEmulator(variant: variant, clock: clock, errorModel: .noiseOnly(.lsm6ds(variant)))
        bus.attach(chip, at: I2CAddress(UInt8(0x6A)))
        let line = SimulatedInterruptLine(clock: clock)
        line.source = chip
        chip.interruptLine = line
        let imu = LSM6DS(bus: bus, address: I2CAddress(UInt8(0x6A)), clock: clock, part: part)
        let stream = IMUStream(imu: imu, line: line, clock: clock)
        try stream.start(IMUConfiguration(outputDataRate: 104, fifoWatermark: 8))
        var samples: [IMUSample] = []
        _ = stream.run(seconds: 2, clock: clock, into: &samples)
        return (stream, samples)
    }

    @Test func anLSM6DSO32TakenForAnLSM6DSOIsNamed() throws {
        let (stream, samples) = try stream(chip: .lsm6dso32, part: nil)
        let z = samples.last!.acceleration.z / MotionConstants.standardGravity
        #expect(abs(z - 0.5) < 0.02, "the scale really is half: \(z) g")
        let messages = stream.takeNotices().map(\.message)
        #expect(messages.filter { $0.contains("reads 0.5 g at rest, not 1 g") && $0.contains("--part lsm6dso32") }.count == 1, "\(messages)")
    }

    @Test(arguments: [(LSM6DS.Variant.lsm6dso, nil as LSM6DS.Variant?), (.lsm6dso32, .lsm6dso32), (.lsm6dsl, nil)])
    func aRightScaleSaysNothing(chip: LSM6DS.Variant, part: LSM6DS.Variant?) throws {
        let (stream, samples) = try stream(chip: chip, part: part)
        #expect(samples.count > 150)
        #expect(!stream.takeNotices().contains { $0.message.contains("at rest") })
    }

    /// A push without rotation is not rest: at 833 Hz, 64 samples of the ramp (x from -1 g up at
    /// 1 g/s, z 1 g) held the magnitude within 0.02 g at 1.36 g, and a right-scaled LSM6DSO was
    /// named as an LSM6DSO32. The window now lasts 0.5 s as well.
    @Test func aPushWithoutRotationIsNotRest() throws {
        let sensor = SimulatedSensor(model: SimulatedChips.model("lsm6dso")!, profile: RampTiming.profile, seed: 5)
        let imu = LSM6DS(bus: sensor.bus, address: sensor.model.address, clock: sensor.clock)
        let stream = IMUStream(imu: imu, line: sensor.line, clock: sensor.clock)
        try stream.start(IMUConfiguration(outputDataRate: 833, fifoWatermark: 16))
        var samples: [IMUSample] = []
        _ = stream.run(seconds: 6, clock: sensor.clock, into: &samples)
        #expect(samples.count > 4000)
        let notices = stream.takeNotices().map(\.message)
        #expect(!notices.contains { $0.contains("at rest") }, "\(notices)")
    }
}
