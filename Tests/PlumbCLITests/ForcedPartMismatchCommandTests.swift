import Testing
@testable import PlumbCLI
import PlumbConfiguration
import PlumbDrivers
import PlumbHAL
import PlumbOrientation
import PlumbSimulation

/// `--part` (and `imu.part`) naming a part of the other family than the chip that answers.
/// `plumb read --simulate --part lsm6dso` (the emulated chip an MPU-6050) said "0x6d at 0x68 on
/// simulated bus is an LSM6DST/LSM6DSTX, which Plumb does not support yet": the LSM6DS WHO_AM_I
/// register of an MPU-6050 is its SELF_TEST_Z.
@Suite struct ForcedPartMismatchCommandTests {
    @Test func readNamesTheChipThatAnswersAndTheFix() {
        let r = runPlumb(["read", "--simulate", "--part", "lsm6dso", "--count", "1"])
        #expect(r.status == 1)
        #expect(r.out == "")
        #expect(r.err == """
            Error: 0x68 on simulated bus is an MPU-6050 (WHO_AM_I 0x68), not the LSM6DSO given: read as an LSM6DSO, its WHO_AM_I (0x0f) is 0x6d, which is no part of that family
            Fix: Leave out --part (with --config, set imu.part to "auto"): the part is then found by its WHO_AM_I. Or give --part mpu6050.

            """)
    }

    @Test func readNamesAnLSM6DSOForcedAsAnMPU6050() {
        let r = runPlumb(["read", "--simulate", "--chip", "lsm6dso", "--part", "mpu6050", "--count", "1"])
        #expect(r.status == 1)
        #expect(r.err == """
            Error: 0x6a on simulated bus is an LSM6DSO/LSM6DSOX/LSM6DSO32 (WHO_AM_I 0x6c), not the MPU-6050 given: read as an MPU-6050, its WHO_AM_I (0x75) is 0x00, which is no part of that family
            Fix: Leave out --part (with --config, set imu.part to "auto"): the part is then found by its WHO_AM_I. Or give --part lsm6dso.

            """)
    }

    /// The hardware path identifies through the same function, with the address given or probed.
    @Test(arguments: [nil, I2CAddress(0x68)])
    func identifyOnARealBusPathGivesTheSameError(address: I2CAddress?) {
        let bus = EmulatedI2CBus(path: "/dev/i2c-1", clock: VirtualClock())
        bus.attach(MPU6050Emulator(variant: MPU6050.variant(named: "mpu6050")!), at: I2CAddress(0x68))
        #expect(throws: CLIError.failure(
            "0x68 on /dev/i2c-1 is an MPU-6050 (WHO_AM_I 0x68), not the LSM6DSO given: read as an LSM6DSO, its WHO_AM_I (0x0f) is 0x6d, which is no part of that family",
            fix: "Leave out --part (with --config, set imu.part to \"auto\"): the part is then found by its WHO_AM_I. Or give --part mpu6050.")) {
            _ = try SensorOptions.identify(bus: bus, address: address, part: "lsm6dso", clock: bus.clock)
        }
    }

    /// With an MPU-6050 at 0x68 and an LSM6DSO at 0x6A, `--part lsm6dso` without `--address`
    /// drives the LSM6DSO; it took the first chip the probe found, the MPU-6050.
    @Test func aProbedChipOfThePartsFamilyComesFirst() throws {
        let bus = EmulatedI2CBus(path: "/dev/i2c-1", clock: VirtualClock())
        bus.attach(MPU6050Emulator(variant: MPU6050.variant(named: "mpu6050")!), at: I2CAddress(0x68))
        bus.attach(LSM6DSEmulator(variant: .lsm6dso, clock: bus.clock), at: I2CAddress(0x6A))
        let (_, identity) = try SensorOptions.identify(bus: bus, address: nil, part: "lsm6dso", clock: bus.clock)
        #expect(identity.partKey == "lsm6dso" && identity.address == I2CAddress(0x6A))
        let (_, mpu) = try SensorOptions.identify(bus: bus, address: nil, part: "mpu6050", clock: bus.clock)
        #expect(mpu.partKey == "mpu6050" && mpu.address == I2CAddress(0x68))
    }

    /// `plumb run` with `imu.part` of the other family: the start fails with the same message and
    /// a fix that names the configuration key.
    @Test func runWithImuPartOfTheOtherFamilyNamesTheKey() throws {
        let sensor = PlumbSimulation.SimulatedSensor(model: SimulatedChips.model("mpu6050")!, profile: .rest(), seed: 1)
        let imu = try DaemonFactory.makeIMU(bus: sensor.bus, address: I2CAddress(0x68), clock: sensor.clock, part: "lsm6dso")
        let source = StreamSampleSource(name: "IMU at 0x68 on simulated bus, polling", imu: imu, line: sensor.line, clock: sensor.clock)
        var configuration = Configuration()
        configuration.imu.part = "lsm6dso"
        #expect(throws: CLIError.failure(
            "cannot start IMU at 0x68 on simulated bus, polling: 0x68 on simulated bus is an MPU-6050 (WHO_AM_I 0x68), not the LSM6DSO given: read as an LSM6DSO, its WHO_AM_I (0x0f) is 0x6d, which is no part of that family",
            fix: "Set imu.part in /etc/plumb/plumb.json to \"auto\": the part is then found by its WHO_AM_I. Or set it to \"mpu6050\".")) {
            _ = try DaemonFactory.session(configuration, source: source, normal: DaemonFactory.imuConfiguration(configuration),
                                          outputs: [], correct: nil, pacing: nil, powerMonitor: FixedPowerMonitor(PowerState()),
                                          configurationPath: "/etc/plumb/plumb.json", describe: { _ in "" })
        }
    }
}

/// `--part` without `--address`, the chip answering a WHO_AM_I no supported part has (a clone):
/// the probe takes only chips it knows, so the error was "… which is no known IMU" with the fix
/// "pass --part NAME", which the user had just done. The fix now says what `--part` alone does
/// and that `--address` with it drives the chip as given, and, when the address is not one of
/// the given part's family, that the part name may be wrong.
@Suite struct UnknownChipGivenPartTests {
    /// /dev/i2c-1 with an MPU-6050 at 0x68 whose registers all read 0x00 (WHO_AM_I 0x75 among them).
    static func cloneBus() -> EmulatedI2CBus {
        let bus = EmulatedI2CBus(path: "/dev/i2c-1", clock: VirtualClock())
        bus.attach(MPU6050Emulator(variant: MPU6050.variant(named: "mpu6050")!), at: I2CAddress(0x68))
        bus.faults = [FaultRule(.address(I2CAddress(0x68)), effect: .reads(0x00))]
        return bus
    }

    @Test func thePartGivenIsNotAskedForAgainAndAddressDrivesItAsGiven() throws {
        let bus = Self.cloneBus()
        #expect(throws: CLIError.failure(
            "0x68 on /dev/i2c-1 answers WHO_AM_I 0x00, which is no known IMU",
            fix: "--part mpu6050 without --address only picks a chip whose WHO_AM_I is known; give --address 0x68 too, and the chip there is driven as mpu6050 whatever its WHO_AM_I.")) {
            _ = try SensorOptions.identify(bus: bus, address: nil, part: "mpu6050", clock: bus.clock)
        }
        // The fix holds: with --address the chip is driven as the part given, with a warning.
        let (_, identity) = try SensorOptions.identify(bus: bus, address: I2CAddress(0x68), part: "mpu6050", clock: bus.clock)
        #expect(identity.partKey == "mpu6050" && identity.address == I2CAddress(0x68) && identity.whoAmI == 0x00)
        #expect(!identity.warnings.isEmpty)
    }

    @Test func aPartOfTheOtherFamilyIsNamedAsWhatToCheck() {
        let bus = Self.cloneBus()
        #expect(throws: CLIError.failure(
            "0x68 on /dev/i2c-1 answers WHO_AM_I 0x00, which is no known IMU",
            fix: "--part lsm6dso without --address only picks a chip whose WHO_AM_I is known; give --address 0x68 too, and the chip there is driven as lsm6dso whatever its WHO_AM_I. Or check the part name: lsm6dso (LSM6DS family) answers at 0x6a or 0x6b, not 0x68.")) {
            _ = try SensorOptions.identify(bus: bus, address: nil, part: "lsm6dso", clock: bus.clock)
        }
    }

    /// Without --part the fix is still to name one.
    @Test func withoutAPartTheFixNamesTheParts() {
        let bus = Self.cloneBus()
        #expect(throws: CLIError.failure("0x68 on /dev/i2c-1 answers WHO_AM_I 0x00, which is no known IMU",
                                         fix: "if it is a clone of a supported part, pass --part NAME (\(IMUFamilies.partKeys.joined(separator: ", ")))")) {
            _ = try SensorOptions.identify(bus: bus, address: nil, part: nil, clock: bus.clock)
        }
    }
}

/// Two chips with unknown WHO_AM_I values, one at each family's address (an MPU-6050 clone at
/// 0x68, an LSM6DS clone at 0x6A), and `--part lsm6dso` without `--address`: the error named
/// the lowest address, 0x68, told the user to give `--address 0x68` and that lsm6dso answers at
/// 0x6a or 0x6b "not 0x68", though the unknown chip at 0x6A is the one the part can be.
@Suite struct UnknownChipsOfBothFamiliesTests {
    static func bus() -> EmulatedI2CBus {
        let bus = UnknownChipGivenPartTests.cloneBus()
        bus.attach(LSM6DSEmulator(variant: .lsm6dso, clock: bus.clock), at: I2CAddress(0x6A))
        bus.faults.append(FaultRule(.address(I2CAddress(0x6A)), effect: .reads(0x00)))
        return bus
    }

    @Test func theErrorNamesTheUnknownChipAtThePartsAddress() {
        let bus = Self.bus()
        #expect(throws: CLIError.failure(
            "0x6a on /dev/i2c-1 answers WHO_AM_I 0x00, which is no known IMU",
            fix: "--part lsm6dso without --address only picks a chip whose WHO_AM_I is known; give --address 0x6a too, and the chip there is driven as lsm6dso whatever its WHO_AM_I.")) {
            _ = try SensorOptions.identify(bus: bus, address: nil, part: "lsm6dso", clock: bus.clock)
        }
        #expect(throws: CLIError.failure(
            "0x68 on /dev/i2c-1 answers WHO_AM_I 0x00, which is no known IMU",
            fix: "--part mpu6050 without --address only picks a chip whose WHO_AM_I is known; give --address 0x68 too, and the chip there is driven as mpu6050 whatever its WHO_AM_I.")) {
            _ = try SensorOptions.identify(bus: bus, address: nil, part: "mpu6050", clock: bus.clock)
        }
    }
}
