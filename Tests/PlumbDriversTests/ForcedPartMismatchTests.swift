import Testing
import PlumbHAL
@testable import PlumbDrivers
import PlumbSimulation

/// A part forced (`--part`, `imu.part`) of the other family than the chip that answers. The LSM6DS
/// driver read WHO_AM_I at 0x0F of an MPU-6050, which is SELF_TEST_Z (0x6D on the emulated chip,
/// the LSM6DST's WHO_AM_I), and named the chip "an LSM6DST/LSM6DSTX, which Plumb does not support
/// yet"; the MPU-6050 driver read 0x75 of an LSM6DSO (0x00) and drove it as an MPU-6050 with a
/// warning, to time out in its reset. Both now name what answers.
@Suite struct ForcedPartMismatchTests {
    static func bus() -> EmulatedI2CBus { EmulatedI2CBus(path: "/dev/i2c-1", clock: VirtualClock()) }

    @Test func anLSM6DSPartForcedOnAnMPU6050NamesTheMPU6050() throws {
        let bus = Self.bus()
        bus.attach(MPU6050Emulator(variant: MPU6050.variant(named: "mpu6050")!), at: I2CAddress(0x68))
        let imu = LSM6DS(bus: bus, address: I2CAddress(0x68), clock: bus.clock, part: .lsm6dso)
        let found = IMUIdentity(part: "MPU-6050", partKey: "mpu6050", whoAmI: 0x68, address: I2CAddress(0x68), bus: "/dev/i2c-1")
        let selfTestZ = try bus.readRegister(0x0F, address: I2CAddress(0x68))
        #expect(throws: IMUError.partMismatch(given: "LSM6DSO", register: 0x0F, read: selfTestZ, found: found)) {
            _ = try imu.identify()
        }
        #expect(IMUError.partMismatch(given: "LSM6DSO", register: 0x0F, read: 0x6D, found: found).description
            == "0x68 on /dev/i2c-1 is an MPU-6050 (WHO_AM_I 0x68), not the LSM6DSO given: read as an LSM6DSO, its WHO_AM_I (0x0f) is 0x6d, which is no part of that family")
    }

    @Test(arguments: [("lsm6dso", 0x6C as UInt8, "lsm6dso"), ("lsm6dsl", 0x6A, "lsm6ds3trc"), ("lsm6ds3", 0x69, "lsm6ds3")])
    func anMPU6050PartForcedOnAnLSM6DSNamesTheLSM6DS(chip: String, whoAmI: UInt8, key: String) throws {
        let bus = Self.bus()
        let variant = try #require(LSM6DS.Variant.named(chip))
        bus.attach(LSM6DSEmulator(variant: variant, clock: bus.clock), at: I2CAddress(0x6A))
        let imu = try MPU6050(bus: bus, address: I2CAddress(0x6A), clock: bus.clock, part: "mpu6050")
        do {
            _ = try imu.identify()
            Issue.record("an \(chip) was driven as an MPU-6050")
        } catch {
            guard case .partMismatch(let given, let register, _, let found) = error else {
                Issue.record("\(error)"); return
            }
            #expect(given == "MPU-6050" && register == 0x75)
            #expect(found.partKey == key && found.whoAmI == whoAmI && found.address == I2CAddress(0x6A))
        }
    }

    /// A clone whose WHO_AM_I is no known part is still driven as the part given, with a warning;
    /// at its own family's address the other family's register is not read, so a SELF_TEST_Z that
    /// happens to read as an LSM6DSO's WHO_AM_I (0x6C) does not make it one.
    @Test func aCloneWithAnUnknownWhoAmIIsStillDrivenAsGiven() throws {
        let rig = MPURig("mpu6050", part: "mpu6050") {
            $0.identityOverride = 0x42
            $0.factoryCodes6050[2] = 0x6C
        }
        #expect(try rig.bus.readRegister(0x0F, address: I2CAddress(0x68)) == 0x6C)
        let id = try rig.driver.identify()
        #expect(id.partKey == "mpu6050" && id.whoAmI == 0x42)
        #expect(id.warnings == ["WHO_AM_I 0x42 (no known part) but driving it as MPU-6050 as requested"])
    }

    /// A part of the same family is driven as given (the override's purpose), with its warning.
    @Test func aPartOfTheSameFamilyIsDrivenAsGiven() throws {
        let bus = Self.bus()
        bus.attach(LSM6DSEmulator(variant: .lsm6dsl, clock: bus.clock), at: I2CAddress(0x6A))
        let id = try LSM6DS(bus: bus, address: I2CAddress(0x6A), clock: bus.clock, part: .lsm6dso).identify()
        #expect(id.partKey == "lsm6dso" && id.whoAmI == 0x6A)
    }
}
