import Testing
import PlumbHAL
@testable import PlumbDrivers
import PlumbSimulation

/// The look for the MPU-9150's AK8975 is made at every identify, so at every re-initialisation,
/// and re-initialisations come with a failing bus. A read at 0x0C that fails with EREMOTEIO
/// counts as "nothing there" (the Raspberry Pi reports an address NACK as EREMOTEIO),
/// so one failure renamed an MPU-9150 an MPU-6050, and an MPU-6050 beside a stand-alone AK8975
/// an MPU-9150: a changed answer is believed only when a second look agrees. A look that cannot
/// tell keeps the earlier answer, and is made again after the reset, which could tell a board
/// swapped for the other part.
@Suite struct MPU9150LookAtReinitialisationTests {
    let mpu: I2CAddress = I2CAddress(0x68)
    let magnetometer: I2CAddress = I2CAddress(0x0C)
    let config = IMUConfiguration(outputDataRate: 1000, fifoWatermark: 16)

    @Test func aBusErrorAtTheAK8975DoesNotRenameAnMPU9150() throws {
        let rig = MPURig("mpu9150")
        #expect(try rig.driver.identify().partKey == "mpu9150")
        rig.chip.powerOnReset()
        // The bus fails at 0x0C for this look (after its own retries, on hardware).
        rig.bus.faults = [FaultRule(.address(magnetometer), effect: .errno(Errno.EREMOTEIO), count: 2)]
        let again = try rig.driver.identify()
        #expect(again.partKey == "mpu9150")
        #expect(again.warnings == [])
        #expect(rig.driver.variant?.acknowledgesOnAnyRead == true)
        #expect(try rig.bus.readRegister(0x37, address: mpu) == 0x00)
    }

    @Test func aBusErrorWithTheBypassOffDoesNotMakeAStandAloneAK8975AnMPU9150() throws {
        let rig = MPURig("mpu6050")
        rig.bus.attach(AK8975Emulator(), at: magnetometer) // on the host's own bus, beside the MPU-6050
        #expect(try rig.driver.identify().partKey == "mpu6050")
        // The one-byte read with the bypass off fails: nothing seems to answer there, and the
        // WIA read through the bypass then reaches the stand-alone AK8975.
        rig.bus.faults = [FaultRule(.address(magnetometer), effect: .errno(Errno.EREMOTEIO), count: 1)]
        let again = try rig.driver.identify()
        #expect(again.partKey == "mpu6050")
        #expect(rig.driver.variant?.acknowledgesOnAnyRead == false)
    }

    /// The first look has no earlier answer to keep: a passing EREMOTEIO at 0x0C (on a Pi, an
    /// empty address says so too) is read again before it counts as "nothing there", so an
    /// MPU-9150 is named at once, not driven as an MPU-6050 until a re-initialisation.
    @Test(arguments: [Errno.EREMOTEIO, Errno.EIO, Errno.EPROTO])
    func aPassingBusErrorAtTheFirstLookStillFindsTheMPU9150(errno: Int32) throws {
        let rig = MPURig("mpu9150")
        // One failure with the bypass on (the WIA read), after the bypass-off read got its answer.
        rig.bus.faults = [FaultRule(.readOf(0x00), effect: .errno(errno), count: 1)]
        let id = try rig.driver.identify()
        #expect(rig.bus.faults.map(\.count) == [0])
        #expect(id.partKey == "mpu9150")
        #expect(id.warnings == [])
        #expect(rig.driver.variant?.acknowledgesOnAnyRead == true)
    }

    /// Two failures at 0x0C, one each way: the bypass-off read fails once (it is read again and
    /// the address is empty then), and the WIA read through the bypass fails once.
    @Test func passingErrorsBothWaysAtTheFirstLookStillFindTheMPU9150() throws {
        let rig = MPURig("mpu9150")
        rig.bus.faults = [FaultRule(.address(magnetometer), effect: .errno(Errno.EREMOTEIO), count: 2)]
        #expect(try rig.driver.identify().partKey == "mpu9150")
        #expect(rig.bus.faults.map(\.count) == [0])
    }

    /// A first look beside a stand-alone AK8975 whose bypass-off read fails once: the read again
    /// finds it on the host's bus, so the MPU-6050 is not named an MPU-9150.
    @Test func aPassingBusErrorWithTheBypassOffAtTheFirstLookKeepsTheMPU6050() throws {
        let rig = MPURig("mpu6050")
        rig.bus.attach(AK8975Emulator(), at: magnetometer)
        rig.bus.faults = [FaultRule(.address(magnetometer), effect: .errno(Errno.EREMOTEIO), count: 1)]
        #expect(try rig.driver.identify().partKey == "mpu6050")
        #expect(rig.bus.faults.map(\.count) == [0])
    }

    /// An MPU-6050 on a Raspberry Pi: 0x0C never answers and says EREMOTEIO each time. It is named
    /// an MPU-6050 after ``IMUFamilies/probeAttempts`` reads each way, with no warning.
    @Test func anEmptyAddressOnAPiIsReadThreeTimesEachWay() throws {
        let rig = MPURig("mpu6050")
        rig.bus.nothingAnswersErrno = Errno.EREMOTEIO
        rig.bus.trace = []
        let id = try rig.driver.identify()
        #expect(id.partKey == "mpu6050")
        #expect(id.warnings == [])
        let atDie = (rig.bus.trace ?? []).filter { $0.address == magnetometer }
        #expect(atDie.count == 2 * IMUFamilies.probeAttempts)
    }

    /// A bus-error recovery of a streaming MPU-9150 whose look fails at 0x0C: still an MPU-9150,
    /// with INT_RD_CLEAR, and no notice of another chip.
    @Test func aRecoveryFromBusErrorsKeepsTheMPU9150() throws {
        let rig = MPURig("mpu9150")
        let stream = IMUStream(imu: rig.driver, line: rig.line, clock: rig.clock)
        try stream.start(config)
        var samples: [IMUSample] = []
        for _ in 0..<50 { _ = stream.step(into: &samples) }
        _ = stream.takeNotices()
        // Five drains fail (three attempts each at INT_STATUS), then the look's reads at 0x0C.
        rig.bus.faults = [FaultRule(.readOf(0x3A), effect: .errno(Errno.EREMOTEIO), count: 15),
                          FaultRule(.address(magnetometer), effect: .errno(Errno.EREMOTEIO), count: 2)]
        for _ in 0..<100 { _ = stream.step(into: &samples) }
        #expect(stream.statistics.reinitialisations == 1)
        #expect(rig.bus.faults.map(\.count) == [0, 0])
        #expect(rig.driver.identity?.partKey == "mpu9150")
        #expect(try rig.bus.readRegister(0x37, address: mpu) & 0x12 == 0x10)
        #expect(!stream.takeNotices().contains { $0.message.contains("another chip answers") })
    }

    /// An MPU-9150 swapped for an MPU-6050 whose look at the re-initialisation's identify cannot
    /// tell (a bus timeout at 0x0C): the earlier answer is kept for the identify, and the look
    /// after the reset names the MPU-6050; INT_RD_CLEAR is off.
    @Test func aSwapWhoseLookFailsIsNamedAfterTheReset() throws {
        let rig = MPURig("mpu9150")
        let stream = IMUStream(imu: rig.driver, line: rig.line, clock: rig.clock)
        try stream.start(config)
        var samples: [IMUSample] = []
        for _ in 0..<100 { _ = stream.step(into: &samples) }
        #expect(rig.driver.identity?.partKey == "mpu9150")
        _ = stream.takeNotices()
        _ = MPU9150SwapTests().swap(rig, to: "mpu6050")
        rig.bus.faults = [FaultRule(.address(magnetometer), effect: .stuck, count: 1)]
        for _ in 0..<400 { _ = stream.step(into: &samples) }
        #expect(stream.statistics.reinitialisations == 1)
        #expect(rig.bus.faults.map(\.count) == [0])
        #expect(rig.driver.identity?.partKey == "mpu6050")
        #expect(rig.driver.identity?.warnings == [])
        #expect(try rig.bus.readRegister(0x37, address: mpu) & 0x12 == 0x00)
        #expect(stream.takeNotices().contains { $0.message.contains("named MPU-9150 before its reset, MPU-6050 after it") })
    }
}
