import Testing
import PlumbHAL
import PlumbDrivers
import PlumbSimulation

/// A Raspberry Pi's I2C adapter reports an address nobody acknowledges as EREMOTEIO, not ENXIO
/// (`i2c-bcm2835`, and `i2c-designware` on the Pi 5: ``I2CError/mayMeanNothingAnswers``). The
/// probe read every empty IMU address as a bus error and threw, so `plumb probe`, and `read`,
/// `calibrate` and `run` whenever they probe, failed on a Pi with an MPU-6050 at 0x68 because
/// nothing answered at 0x69.
@Suite struct PiAdapterProbeTests {
    /// A bus that reports empty addresses as a Pi does, with `chips` on it.
    static func piBus(_ chips: [(UInt8, any I2CTarget)]) -> EmulatedI2CBus {
        let bus = EmulatedI2CBus(path: "/dev/i2c-1", clock: VirtualClock())
        bus.nothingAnswersErrno = Errno.EREMOTEIO
        for (address, chip) in chips { bus.attach(chip, at: I2CAddress(address)) }
        return bus
    }

    @Test func anMPU6050At0x68IsFoundWhileNothingAnswersAt0x69() throws {
        let bus = Self.piBus([(0x68, MPU6050Emulator(variant: MPU6050.variant(named: "mpu6050")!))])
        let found = try IMUFamilies.probe(bus)
        #expect(found.map(\.address) == [I2CAddress(0x68)])
        #expect(found.first?.partKey == "mpu6050")
    }

    @Test func anLSM6DSOAt0x6BIsFound() throws {
        let bus = EmulatedI2CBus(path: "/dev/i2c-1", clock: VirtualClock())
        bus.nothingAnswersErrno = Errno.EREMOTEIO
        bus.attach(LSM6DSEmulator(variant: .lsm6dso, clock: bus.clock), at: I2CAddress(0x6B))
        let found = try IMUFamilies.probe(bus)
        #expect(found.map(\.address) == [I2CAddress(0x6B)])
        #expect(found.first?.family == LSM6DS.family.name)
    }

    @Test func anEmptyBusIsEmptyNotABusError() throws {
        #expect(try IMUFamilies.probe(Self.piBus([])).isEmpty)
    }

    /// The probe tries an EREMOTEIO read again: a chip whose first reads fail is still found.
    @Test(arguments: [1, IMUFamilies.probeAttempts - 1])
    func aChipWhoseFirstReadsFailIsFound(failures: Int) throws {
        let bus = Self.piBus([(0x68, MPU6050Emulator(variant: MPU6050.variant(named: "mpu6050")!))])
        bus.faults = [FaultRule(.address(I2CAddress(0x68)), effect: .errno(Errno.EREMOTEIO), count: failures)]
        #expect(try IMUFamilies.probe(bus).map(\.address) == [I2CAddress(0x68)])
    }

    /// A chip whose every read fails cannot be told from no chip on a Pi: it is left out, and
    /// the caller's "no IMU answers" names the wiring.
    @Test func aChipWhoseEveryReadFailsIsLeftOut() throws {
        let bus = Self.piBus([(0x68, MPU6050Emulator(variant: MPU6050.variant(named: "mpu6050")!))])
        bus.faults = [FaultRule(.address(I2CAddress(0x68)), effect: .errno(Errno.EREMOTEIO))]
        #expect(try IMUFamilies.probe(bus).isEmpty)
    }

    /// Other bus errors still fail the probe, with the errno: they do not mean an empty address.
    @Test func aTimeoutStillFailsTheProbe() throws {
        let bus = Self.piBus([(0x68, MPU6050Emulator(variant: MPU6050.variant(named: "mpu6050")!))])
        bus.faults = [FaultRule(.address(I2CAddress(0x69)), effect: .errno(Errno.ETIMEDOUT))]
        #expect(throws: IMUError.bus(I2CError(errno: Errno.ETIMEDOUT, bus: "/dev/i2c-1", address: I2CAddress(0x69)))) {
            _ = try IMUFamilies.probe(bus)
        }
    }

    @Test func onlyENXIOENODEVAndEREMOTEIOMayMeanNothingAnswers() {
        let at = I2CAddress(0x68)
        #expect([Errno.ENXIO, Errno.ENODEV, Errno.EREMOTEIO].allSatisfy { I2CError(errno: $0, bus: "b", address: at).mayMeanNothingAnswers })
        #expect(![Errno.EIO, Errno.ETIMEDOUT, Errno.EAGAIN, Errno.EPROTO, Errno.EBUSY].contains { I2CError(errno: $0, bus: "b", address: at).mayMeanNothingAnswers })
    }
}
