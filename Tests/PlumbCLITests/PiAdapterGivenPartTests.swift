import Testing
@testable import PlumbCLI
import PlumbDrivers
import PlumbHAL
import PlumbSimulation

/// `--address` with `--part` skips the probe. On a Raspberry Pi's adapter (EREMOTEIO for an
/// address nobody acknowledges) an empty address then failed with the driver's first read:
/// "remote I/O error (NACK or bus fault during the transfer) at 0x68 on /dev/i2c-1 (errno 121)",
/// no fix, and `plumb read`/`calibrate` over several buses named only the last one.
@Suite struct PiAdapterGivenPartTests {
    static func piBus() -> EmulatedI2CBus {
        let bus = EmulatedI2CBus(path: "/dev/i2c-1", clock: VirtualClock())
        bus.nothingAnswersErrno = Errno.EREMOTEIO
        return bus
    }

    @Test(arguments: [(0x68, "mpu6050"), (0x6a, "lsm6dso")])
    func anEmptyGivenAddressIsSilenceWithTheWiringFix(address: UInt8, part: String) {
        let bus = Self.piBus()
        #expect(throws: SensorOptions.silence("/dev/i2c-1", at: I2CAddress(address))) {
            _ = try SensorOptions.identify(bus: bus, address: I2CAddress(address), part: part, clock: bus.clock)
        }
    }

    @Test func anEmptyGivenAddressIsSilenceOnAPCAdapterToo() {
        let bus = EmulatedI2CBus(path: "/dev/i2c-1", clock: VirtualClock())
        #expect(throws: SensorOptions.silence("/dev/i2c-1", at: I2CAddress(0x68))) {
            _ = try SensorOptions.identify(bus: bus, address: I2CAddress(0x68), part: "mpu6050", clock: bus.clock)
        }
    }

    /// A chip that is there is opened as asked, also when its first read fails with EREMOTEIO
    /// (tried again, as the probe tries it).
    @Test(arguments: [0, IMUFamilies.probeAttempts - 1])
    func aChipAtTheGivenAddressIsDriven(failures: Int) throws {
        let bus = Self.piBus()
        bus.attach(MPU6050Emulator(variant: MPU6050.variant(named: "mpu6050")!), at: I2CAddress(0x68))
        if failures > 0 { bus.faults = [FaultRule(.address(I2CAddress(0x68)), effect: .errno(Errno.EREMOTEIO), count: failures)] }
        let (_, identity) = try SensorOptions.identify(bus: bus, address: I2CAddress(0x68), part: "mpu6050", clock: bus.clock)
        #expect(identity.partKey == "mpu6050")
        #expect(identity.address == I2CAddress(0x68))
    }
}
