import Testing
@testable import PlumbCLI
import PlumbDrivers
import PlumbConfiguration
import PlumbHAL
import PlumbOrientation
import PlumbSimulation

/// `--address` with `--part` skips the probe. On a Raspberry Pi's adapter (EREMOTEIO for an
/// address nobody acknowledges) an empty address then failed with the driver's first read:
/// "remote I/O error (NACK or bus fault during the transfer) at 0x68 on /dev/i2c-1 (errno 121)" (as it read then),
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
        #expect(fix == I2CHelp.wiringFix(bus: "/dev/i2c-1", address: I2CAddress(0x69)) + " 'plumb probe' lists what answers; then restart plumb (systemctl restart plumb).")
    }
}

/// `plumb regs` over every bus, on a Raspberry Pi with /dev/i2c-1 and the HDMI DDC buses
/// /dev/i2c-20 and -21 (nothing answers there): it kept the last bus's error, so a chip with an
/// unknown WHO_AM_I on /dev/i2c-1 was reported as "no IMU answers on /dev/i2c-21", and a
/// miswired board named /dev/i2c-21 alone. `plumb read` already searched so.
@Suite struct PiAdapterRegsSearchTests {
    static let paths = ["/dev/i2c-1", "/dev/i2c-20", "/dev/i2c-21"]

    static func buses(chipOnBus1: Bool) -> [String: EmulatedI2CBus] {
        var buses: [String: EmulatedI2CBus] = [:]
        for path in paths {
            let bus = EmulatedI2CBus(path: path, clock: VirtualClock())
            bus.nothingAnswersErrno = Errno.EREMOTEIO
            buses[path] = bus
        }
        if chipOnBus1, let bus = buses["/dev/i2c-1"] {
            bus.attach(MPU6050Emulator(variant: MPU6050.variant(named: "mpu6050")!), at: I2CAddress(0x68))
            // A clone whose WHO_AM_I is no known part.
            bus.faults = [FaultRule(.address(I2CAddress(0x68)), effect: .reads(0x00))]
        }
        return buses
    }

    static func search(_ buses: [String: EmulatedI2CBus]) throws(CLIError) -> Regs.Target {
        try Regs.search(paths, address: nil, part: nil, clock: VirtualClock(), context: CommandContext.capturing()) { path throws(I2CError) in
            guard let bus = buses[path] else { throw I2CError(errno: Errno.ENOENT, bus: path, address: nil) }
            return bus
        }
    }

    @Test func anUnknownChipOnTheFirstBusIsToldNotALaterSilentBus() {
        let buses = Self.buses(chipOnBus1: true)
        #expect(throws: CLIError.failure("0x68 on /dev/i2c-1 answers WHO_AM_I 0x00, which is no known IMU",
                                         fix: "if it is a clone of a supported part, pass --part NAME (\(IMUFamilies.partKeys.joined(separator: ", ")))")) {
            _ = try Self.search(buses)
        }
    }

    @Test func everySilentBusIsNamed() {
        let buses = Self.buses(chipOnBus1: false)
        #expect(throws: SensorOptions.silence("/dev/i2c-1, /dev/i2c-20, /dev/i2c-21", at: nil)) {
            _ = try Self.search(buses)
        }
    }

    @Test func theChipIsFoundOnTheBusThatHasIt() throws {
        let buses = Self.buses(chipOnBus1: false)
        buses["/dev/i2c-1"]?.attach(MPU6050Emulator(variant: MPU6050.variant(named: "mpu6050")!), at: I2CAddress(0x68))
        #expect(try Self.search(buses).identity.bus == "/dev/i2c-1")
    }
}
