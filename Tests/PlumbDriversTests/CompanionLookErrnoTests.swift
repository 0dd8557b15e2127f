import Testing
import PlumbHAL
@testable import PlumbDrivers
import PlumbSimulation

/// The MPU-9150 look counted every `.bus` failure at 0x0C (EIO, EREMOTEIO, EPROTO) that lasted
/// its three reads as "nothing there". Only EREMOTEIO can mean that (a Raspberry Pi's address
/// NACK). EPROTO is the kernel's "the target did not conform to the protocol"
/// (`Documentation/i2c/fault-codes.rst`): something answered. EIO is "something went wrong" (on a
/// Pi's `i2c-bcm2835`, a clock-stretch timeout: something held SCL). Either way the look cannot
/// tell, and must say so (a warning naming `--part`, and a look again after the reset) instead
/// of naming the part an MPU-6050 as if the address were empty.
@Suite struct CompanionLookErrnoTests {
    let magnetometer: I2CAddress = I2CAddress(0x0C)
    let config = IMUConfiguration(outputDataRate: 100)

    /// An MPU-9150 whose AK8975 fails every WIA read through the bypass.
    @Test(arguments: [Errno.EPROTO, Errno.EIO])
    func aDieThatFailsThroughTheBypassIsNotNothingThere(errno: Int32) throws {
        let rig = MPURig("mpu9150")
        rig.bus.faults = [FaultRule(.readOf(0x00), effect: .errno(errno))]
        let id = try rig.driver.identify()
        #expect(id.partKey == "mpu6050")
        #expect(id.warnings.count == 1)
        #expect(id.warnings.first?.contains("could not be looked for: reading AK8975 register 0x00 at 0x0c failed") == true)
        #expect(id.warnings.first?.contains("(errno \(errno))") == true)
        #expect(id.warnings.first?.contains("pass --part mpu9150") == true)
        // The look is made again after the reset, and finds the die once the bus behaves.
        rig.bus.faults = []
        try rig.driver.reset()
        #expect(rig.driver.identity?.partKey == "mpu9150")
    }

    /// Something at 0x0C on the host's own bus that fails the bypass-off read.
    @Test(arguments: [Errno.EPROTO, Errno.EIO])
    func aChipThatFailsWithTheBypassOffIsNotNothingThere(errno: Int32) throws {
        let rig = MPURig("mpu6050")
        rig.bus.faults = [FaultRule(.address(magnetometer), effect: .errno(errno))]
        rig.bus.trace = []
        let id = try rig.driver.identify()
        #expect(id.partKey == "mpu6050")
        #expect(id.warnings.count == 1)
        #expect(id.warnings.first?.contains("reading a byte at 0x0c, where the AK8975 answers, failed") == true)
        // The bypass was never turned on for a read that could not tell.
        let atDie = (rig.bus.trace ?? []).filter { $0.address == magnetometer }
        #expect(atDie.count == IMUFamilies.probeAttempts)
        #expect(atDie.allSatisfy { $0.operations.count == 1 && $0.operations[0].direction == .read })
    }
}
