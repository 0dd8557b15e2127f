import Testing
@testable import PlumbCLI
import PlumbDrivers
import PlumbConfiguration
import PlumbHAL
import PlumbOrientation
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

/// `plumb run` on a miswired Raspberry Pi: its session has no command's explanation, so the
/// start failure was "cannot start …: remote I/O error … (errno 121)" with no fix in the journal.
@Suite struct PiAdapterDaemonStartTests {
    @Test(arguments: [Errno.EREMOTEIO, Errno.ENXIO])
    func aStartWhereNothingAnswersGetsTheWiringFix(errno: Int32) throws {
        // The emulated MPU-6050 answers at 0x68; the configuration says 0x69.
        let e = try Emulated(profile: "rest", address: 0x69)
        e.sensor.bus.nothingAnswersErrno = errno
        var fix: String?
        do {
            _ = try DaemonFactory.session(Configuration(), source: e.source, normal: e.found.imu, outputs: [], correct: nil, pacing: nil,
                                          powerMonitor: FixedPowerMonitor(PowerState()), describe: { _ in "" })
            Issue.record("the session started with nothing at 0x69")
        } catch let CLIError.failure(message, f) {
            #expect(message.hasPrefix("cannot start emulated MPU-6050: "))
            fix = f
        }
        #expect(fix == I2CHelp.wiringFix + " 'plumb probe' lists what answers; then restart plumb (systemctl restart plumb).")
    }
}
