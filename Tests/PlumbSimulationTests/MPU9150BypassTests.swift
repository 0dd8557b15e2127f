import Testing
import PlumbHAL
import PlumbDrivers
@testable import PlumbSimulation

/// The MPU-9150 emulator's AK8975 answers on the host bus at 0x0C only while INT_PIN_CFG.
/// I2C_BYPASS_EN is set and USER_CTRL.I2C_MST_EN clear (Register Map rev 4.2, register 55).
@Suite struct MPU9150BypassTests {
    let mpu: I2CAddress = I2CAddress(0x68)
    let ak: I2CAddress = I2CAddress(0x0C)

    func rig(_ key: String) -> (EmulatedI2CBus, MPU6050Emulator) {
        let clock = VirtualClock(startNanoseconds: 1_000_000_000)
        let bus = EmulatedI2CBus(clock: clock, bitsPerSecond: nil)
        let chip = MPU6050Emulator(part: key)!
        bus.attach(chip, at: mpu)
        return (bus, chip)
    }

    @Test func theAK8975AnswersOnlyThroughTheBypass() throws {
        let (bus, chip) = rig("mpu9150")
        #expect(throws: I2CError.self) { try bus.readRegister(0x00, address: ak) }   // power-on: bypass off
        try bus.writeRegister(0x37, 0x02, address: mpu)                               // I2C_BYPASS_EN
        #expect(try bus.readRegister(0x00, address: ak) == 0x48)                       // WIA
        try bus.writeRegister(0x6A, 0x20, address: mpu)                               // I2C_MST_EN takes the aux bus
        #expect(throws: I2CError.self) { try bus.readRegister(0x00, address: ak) }
        try bus.writeRegister(0x6A, 0x00, address: mpu)
        #expect(try bus.readRegister(0x00, address: ak) == 0x48)
        // CNTL takes a mode; the fuse ROM reads only in fuse ROM access mode (0x0F).
        #expect(try bus.readRegisters(0x10, count: 3, address: ak) == [0, 0, 0])
        try bus.writeRegister(0x0A, 0x0F, address: ak)
        #expect(try bus.readRegisters(0x10, count: 3, address: ak) == [0x80, 0x80, 0x80])
        #expect(try bus.readRegister(0x00, address: ak) == 0x48)                       // WIA is read-only
        try bus.writeRegister(0x00, 0x12, address: ak)
        #expect(try bus.readRegister(0x00, address: ak) == 0x48)
        // DEVICE_RESET clears INT_PIN_CFG, and with it the bypass.
        try bus.writeRegister(0x6B, 0x80, address: mpu)
        #expect(throws: I2CError.self) { try bus.readRegister(0x00, address: ak) }
        #expect(chip.magnetometer?.identityReads == 4)
        #expect(bus.target(at: ak) == nil)                                             // not attached: bridged
    }

    @Test(arguments: MPU6050.variants.map(\.key).filter { $0 != "mpu9150" })
    func noOtherPartHasOne(key: String) throws {
        let (bus, chip) = rig(key)
        try bus.writeRegister(0x37, 0x02, address: mpu)
        #expect(chip.magnetometer == nil)
        #expect(throws: I2CError.self) { try bus.readRegister(0x00, address: ak) }
    }

    /// An address neither attached nor bridged still fails as before the bridge: ENXIO, one failure,
    /// one address byte and the same bus time, with the MPU-9150's bypass on (0x0D: the AK8975 is
    /// at 0x0C only), and a fault rule on a bridged address still applies.
    @Test func anAddressNobodyHoldsIsUnchangedByTheBridge() throws {
        func nack(_ key: String, bypass: Bool) throws -> (errno: Int32?, counters: EmulatedI2CBus.Counters, nanoseconds: UInt64) {
            let clock = VirtualClock(startNanoseconds: 1_000_000_000)
            let bus = EmulatedI2CBus(clock: clock)
            bus.attach(MPU6050Emulator(part: key)!, at: mpu)
            if bypass { try bus.writeRegister(0x37, 0x02, address: mpu) }
            bus.resetCounters()
            let t = clock.nowNanoseconds
            var errno: Int32?
            do { _ = try bus.readRegister(0x00, address: I2CAddress(0x0D)) } catch { errno = error.errno }
            return (errno, bus.counters, clock.nowNanoseconds - t)
        }
        let plain = try nack("mpu6050", bypass: false)
        #expect(plain.errno == Errno.ENXIO)
        #expect(plain.counters.failures == 1)
        #expect(try nack("mpu9150", bypass: true) == plain)
        #expect(try nack("mpu9150", bypass: false) == plain)

        let (bus, _) = rig("mpu9150")
        try bus.writeRegister(0x37, 0x02, address: mpu)
        bus.faults = [FaultRule(.address(ak), effect: .errno(Errno.EIO), count: 1)]
        #expect(throws: I2CError.self) { try bus.readRegister(0x00, address: ak) }
        #expect(try bus.readRegister(0x00, address: ak) == 0x48)
    }
}
