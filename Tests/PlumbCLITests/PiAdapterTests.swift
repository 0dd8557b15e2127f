import Testing
@testable import PlumbCLI
import PlumbDrivers
import PlumbHAL
import PlumbOrientation
import PlumbSimulation

/// The commands on a Raspberry Pi's adapter, which reports an address nobody acknowledges as
/// EREMOTEIO (``I2CError/mayMeanNothingAnswers``): the IMU is found by probing past the empty
/// addresses, and a configured address where nothing answers gets the wiring fix, as with ENXIO.
@Suite struct PiAdapterTests {
    @Test func probingFindsTheMPU6050PastTheEmptyAddresses() throws {
        let clock = VirtualClock()
        let bus = EmulatedI2CBus(path: "/dev/i2c-1", clock: clock)
        bus.nothingAnswersErrno = Errno.EREMOTEIO
        bus.attach(MPU6050Emulator(variant: MPU6050.variant(named: "mpu6050")!), at: I2CAddress(0x68))
        let (_, identity) = try SensorOptions.identify(bus: bus, address: nil, part: nil, clock: clock)
        #expect(identity.partKey == "mpu6050")
        #expect(identity.address == I2CAddress(0x68))
        // A given address where nothing answers is "no IMU answers", naming where one does.
        #expect(throws: CLIError.failure("no IMU answers at 0x69 on /dev/i2c-1, but MPU-6050 answers at 0x68",
                                         fix: "Give --address 0x68, or leave --address out: the address is found by probing.")) {
            _ = try SensorOptions.identify(bus: bus, address: I2CAddress(0x69), part: nil, clock: clock)
        }
    }

    @Test func aBusWithNothingOnItIsSilenceWithTheWiringFix() throws {
        let clock = VirtualClock()
        let bus = EmulatedI2CBus(path: "/dev/i2c-1", clock: clock)
        bus.nothingAnswersErrno = Errno.EREMOTEIO
        #expect(throws: SensorOptions.silence("/dev/i2c-1", at: nil)) {
            _ = try SensorOptions.identify(bus: bus, address: nil, part: nil, clock: clock)
        }
    }

    @Test func aConfiguredAddressWhereNothingAnswersGetsTheWiringFix() throws {
        // The emulated MPU-6050 answers at 0x68; the configuration says 0x69.
        let e = try Emulated(profile: "rest", address: 0x69)
        e.sensor.bus.nothingAnswersErrno = Errno.EREMOTEIO
        let error = MotionSourceError.imu(.bus(I2CError(errno: Errno.EREMOTEIO, bus: "/dev/i2c-1", address: I2CAddress(0x69))))
        let bus = e.sensor.bus
        let said = "0x69 on /dev/i2c-1 does not answer: remote I/O error (Errno 121), which on a Raspberry Pi means nothing acknowledged the address, or a transfer broke off"
        #expect(LiveSensor.failure(error, found: e.found, probe: { (try? IMUFamilies.probe(bus)) ?? [] })
                == CLIError.failure(said + ", but MPU-6050 answers at 0x68", fix: "Give --address 0x68, or set imu.address to \"0x68\" in test.json."))
        #expect(LiveSensor.failure(error, found: e.found, probe: { [] })
                == CLIError.failure(said, fix: I2CHelp.wiringFix(bus: "/dev/i2c-1", address: I2CAddress(0x69)) + " 'plumb probe' lists what answers; an MPU-6050 with AD0 high is 0x69, an LSM6DS with SA0 low 0x6a."))
        // Started for real, the driver's own read at 0x69 fails so.
        let live = LiveGravity(source: e.source, found: e.found, clock: e.sensor.clock, duration: 1,
                               powerMonitor: FixedPowerMonitor(PowerState()), shouldStop: { false })
        #expect(throws: CLIError.failure(said, fix: I2CHelp.wiringFix(bus: "/dev/i2c-1", address: I2CAddress(0x69)) + " 'plumb probe' lists what answers; an MPU-6050 with AD0 high is 0x69, an LSM6DS with SA0 low 0x6a.")) {
            _ = try live.nextGravity()
        }
        #expect(SensorPipeline.stopFix(error).hasPrefix(I2CHelp.wiringFix(bus: "/dev/i2c-1", address: I2CAddress(0x69))))
    }
}
