import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// The drivers' one retry policy, on the emulated bus.
@Suite struct RegisterAccessTests {
    final class Register: RegisterTarget {
        var registerPointer: UInt8 = 0
        var value: UInt8 = 0x5A
        func readRegister(_ address: UInt8) -> UInt8 { value }
        func writeRegister(_ address: UInt8, _ value: UInt8) { self.value = value }
        func advance(to nanoseconds: UInt64) {}
    }

    static func rig(_ faults: [FaultRule]) -> (EmulatedI2CBus, RegisterAccess, VirtualClock) {
        let clock = VirtualClock()
        let bus = EmulatedI2CBus(clock: clock)
        bus.attach(Register(), at: I2CAddress(UInt8(0x6A)))
        bus.faults = faults
        return (bus, RegisterAccess(bus: bus, address: I2CAddress(UInt8(0x6A)), clock: clock), clock)
    }

    @Test(arguments: [Errno.EIO, Errno.EREMOTEIO, Errno.EPROTO, Errno.ENXIO, Errno.ETIMEDOUT, Errno.EAGAIN])
    func transientErrorsAreRetried(errno: Int32) throws {
        let (bus, access, clock) = Self.rig([FaultRule(.always, effect: .errno(errno), count: 2)])
        let before = clock.nowNanoseconds
        #expect(try access.readRegister(0x0F) == 0x5A)
        #expect(bus.counters.transactions == 3)
        #expect(clock.nowNanoseconds - before >= 2 * 1_000_000) // two 1 ms pauses
    }

    @Test(arguments: [Errno.EIO, Errno.ENXIO])
    func retriesAreBounded(errno: Int32) throws {
        let (bus, access, _) = Self.rig([FaultRule(.always, effect: .errno(errno))])
        #expect(throws: IMUError.self) { try access.writeRegister(0x10, 1) }
        #expect(bus.counters.transactions == 3)
    }

    @Test(arguments: [Errno.ENODEV, Errno.ENOENT, Errno.EACCES, Errno.EBUSY, Errno.EOPNOTSUPP, Errno.EINVAL])
    func permanentErrorsAreNotRetried(errno: Int32) throws {
        let (bus, access, clock) = Self.rig([FaultRule(.always, effect: .errno(errno))])
        let before = clock.nowNanoseconds
        do {
            _ = try access.readRegisters(0x22, count: 12)
            Issue.record("errno \(errno) went unnoticed")
        } catch {
            guard case .bus(let e) = error else { Issue.record("\(error)"); return }
            #expect(e.errno == errno)
        }
        #expect(bus.counters.transactions == 1)
        #expect(clock.nowNanoseconds - before < 1_000_000)
    }

    @Test func policyIsTheDocumentedOne() {
        #expect(RegisterAccess.RetryPolicy.standard == .init(attempts: 3, delayNanoseconds: 1_000_000))
        #expect(Set(RegisterAccess.RetryPolicy.retriedErrnos) == [Errno.EIO, Errno.EREMOTEIO, Errno.EPROTO, Errno.ENXIO, Errno.ETIMEDOUT, Errno.EAGAIN])
    }

    /// Both drivers use it: the same fault gives the same number of attempts.
    @Test func bothDriversShareThePolicy() throws {
        for key in ["mpu6050", "lsm6dso"] {
            let model = SimulatedChips.model(key)!
            let sensor = SimulatedSensor(model: model)
            sensor.bus.faults = [FaultRule(.always, effect: .errno(Errno.ENODEV))]
            let imu: any IMU = key == "mpu6050"
                ? try MPU6050(bus: sensor.bus, clock: sensor.clock)
                : LSM6DS(bus: sensor.bus, address: model.address, clock: sensor.clock)
            #expect(throws: IMUError.self) { try imu.identify() }
            #expect(sensor.bus.counters.transactions == 1, "\(key): ENODEV must not be retried")
            sensor.bus.resetCounters()
            sensor.bus.faults = [FaultRule(.always, effect: .errno(Errno.EREMOTEIO), count: 2)]
            _ = try imu.identify()
            // WHO_AM_I 0x68 then looks for an MPU-9150's AK8975 (MPU9150DetectionTests): INT_PIN_CFG
            // and USER_CTRL read, 0x0C read with the bypass off, bypass on, 0x0C again, write-back.
            // The simulated bus says EREMOTEIO for the empty 0x0C, as a Raspberry Pi does, so each
            // 0x0C read is made three times (IMUFamilies.probeAttempts).
            let companionProbe = key == "mpu6050" ? 4 + 2 * IMUFamilies.probeAttempts : 0
            #expect(sensor.bus.counters.transactions == 3 + companionProbe, "\(key): two EREMOTEIO, then the answer")
        }
    }
}
