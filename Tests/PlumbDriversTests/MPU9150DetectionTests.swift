import Testing
import PlumbHAL
@testable import PlumbDrivers
import PlumbSimulation

/// Auto-detection tells an MPU-9150 (WHO_AM_I 0x68, like the MPU-6050) by its AK8975, which
/// answers WIA = 0x48 at 0x0C through the I2C bypass only, and then sets INT_RD_CLEAR as Linux
/// does for that part.
@Suite struct MPU9150DetectionTests {
    let mpu: I2CAddress = I2CAddress(0x68)
    let magnetometerAddress: I2CAddress = I2CAddress(0x0C)
    /// INT_PIN_CFG as the driver programs it for a latched, active-high, push-pull pin.
    let latched = IMUConfiguration(outputDataRate: 100, interrupt: InterruptPinConfiguration(mode: .latched))

    @Test func autoDetectedMPU9150GetsINTRDCLEAR() throws {
        let rig = MPURig("mpu9150")
        let id = try rig.driver.identify()
        #expect(id.part == "MPU-9150")
        #expect(id.partKey == "mpu9150")
        #expect(id.whoAmI == 0x68)
        #expect(id.warnings.isEmpty)
        _ = try rig.start(latched)
        // Read back over the bus: LATCH_INT_EN | INT_RD_CLEAR, the bypass off again.
        #expect(try rig.bus.readRegister(0x37, address: mpu) == 0x30)
        #expect(rig.driver.variant?.acknowledgesOnAnyRead == true)
    }

    @Test func theProbePutsINTPINCFGBackAsFoundEachTime() throws {
        let rig = MPURig("mpu9150")
        try rig.bus.writeRegister(0x37, 0xA0, address: mpu) // active low, latched: what a previous run left
        let magnetometer = try #require(rig.chip.magnetometer)
        #expect(try rig.driver.identify().partKey == "mpu9150")
        #expect(try rig.bus.readRegister(0x37, address: mpu) == 0xA0)
        #expect(magnetometer.identityReads == 1)
        // Identify again (as a re-initialisation after a brown-out or a board swap does): looked for again.
        rig.chip.powerOnReset()
        #expect(try rig.driver.identify().partKey == "mpu9150")
        #expect(try rig.bus.readRegister(0x37, address: mpu) == 0x00)
        #expect(magnetometer.identityReads == 2)
        // Nothing at 0x0C once the bypass is off again.
        #expect(throws: I2CError.self) { try rig.bus.readRegister(0x00, address: magnetometerAddress) }
    }

    @Test func anExplicitPartIsNotProbed() throws {
        let rig = MPURig("mpu9150", part: "mpu6050")
        rig.bus.trace = []
        #expect(try rig.driver.identify().partKey == "mpu6050")
        #expect(rig.bus.trace?.map(\.description) == ["w 75 r 1"])
    }

    @Test func anMPU6050WithAnUnrelatedDeviceAnswering0x48At0x0CStaysAnMPU6050() throws {
        let rig = MPURig("mpu6050")
        // A stand-alone AK8975 board on the host's own bus: it answers with the bypass off too.
        let other = AK8975Emulator()
        rig.bus.attach(other, at: magnetometerAddress)
        let id = try rig.driver.identify()
        #expect(id.partKey == "mpu6050")
        #expect(id.warnings.isEmpty)
        #expect(other.identityReads == 1) // looked at once with the bypass off, then left alone
        _ = try rig.start(latched)
        #expect(try rig.bus.readRegister(0x37, address: mpu) == 0x20)
    }

    @Test func anMPU9150IsNotClaimedWhenSomethingElseHolds0x0C() throws {
        let rig = MPURig("mpu9150")
        rig.bus.attach(AK8975Emulator(), at: magnetometerAddress)
        let id = try rig.driver.identify()
        #expect(id.partKey == "mpu6050")
        #expect(id.warnings.isEmpty)
        #expect(rig.chip.magnetometer?.identityReads == 0)
    }

    @Test(arguments: ["mpu6050", "mpu9150"])
    func aBusThatNACKs0x0CGivesMPU6050(key: String) throws {
        let rig = MPURig(key)
        rig.bus.faults = [FaultRule(.address(magnetometerAddress), effect: .noAcknowledge)]
        let id = try rig.driver.identify()
        #expect(id.partKey == "mpu6050")
        #expect(id.warnings.isEmpty)
        _ = try rig.start(latched)
        #expect(try rig.bus.readRegister(0x37, address: mpu) == 0x20)
    }

    @Test func anotherIdentityAt0x0CThroughTheBypassIsNotTheAK8975() throws {
        let rig = MPURig("mpu9150")
        // Nothing answers with the bypass off; through the bypass 0x0C reads 0x00, not WIA 0x48.
        rig.bus.faults = [FaultRule(.address(magnetometerAddress), effect: .noAcknowledge, count: 1),
                          FaultRule(.address(magnetometerAddress), effect: .reads(0x00))]
        let id = try rig.driver.identify()
        #expect(id.partKey == "mpu6050")
        #expect(id.warnings.isEmpty)
        #expect(rig.bus.faults.map(\.count) == [0, nil])
        #expect(try rig.bus.readRegister(0x37, address: mpu) == 0x00)
    }

    @Test func aStuckBusDuringTheProbeFallsBackWithAWarningAndStillStarts() throws {
        let rig = MPURig("mpu9150")
        rig.bus.faults = [FaultRule(.address(magnetometerAddress), effect: .stuck)]
        let id = try rig.driver.identify()
        #expect(id.partKey == "mpu6050")
        #expect(id.warnings == ["WHO_AM_I 0x68 is an MPU-6050 or an MPU-9150, and the MPU-9150's AK8975 could not be looked for: reading a byte at 0x0c, where the AK8975 answers, failed: bus timeout at 0x0c on simulated bus (errno 110); driving it as MPU-6050 (pass --part mpu9150 if it is an MPU-9150)"])
        _ = try rig.start(latched)
        #expect(try rig.bus.readRegister(0x37, address: mpu) == 0x20)
        #expect(try rig.driver.verifyConfiguration())
    }

    @Test func aFailedINTPINCFGWriteFallsBackAndTheStartGoesOn() throws {
        let rig = MPURig("mpu9150")
        // The bypass write fails three times (the drivers' retries), the write-back succeeds.
        rig.bus.faults = [FaultRule(.writeOf(0x37), effect: .errno(Errno.EREMOTEIO), count: 3)]
        let id = try rig.driver.identify()
        #expect(id.partKey == "mpu6050")
        #expect(id.warnings.count == 1)
        #expect(id.warnings.first?.contains("setting INT_PIN_CFG.I2C_BYPASS_EN failed") == true)
        _ = try rig.start(latched)
        // The look is made again after DEVICE_RESET (the write works now): an MPU-9150 after all.
        #expect(rig.driver.identity?.partKey == "mpu9150")
        #expect(try rig.bus.readRegister(0x37, address: mpu) == 0x30)
    }

    @Test func theAuxiliaryMasterOnMakesTheProbeUndetermined() throws {
        let rig = MPURig("mpu9150")
        try rig.bus.writeRegister(0x6A, 0x20, address: mpu) // USER_CTRL.I2C_MST_EN, left by another program
        let id = try rig.driver.identify()
        #expect(id.partKey == "mpu6050")
        #expect(id.warnings.first?.contains("USER_CTRL.I2C_MST_EN") == true)
        #expect(rig.chip.magnetometer?.identityReads == 0)
    }

    @Test func probeRefinesOnlyWithAClock() throws {
        let rig = MPURig("mpu9150")
        #expect(try IMUFamilies.probe(rig.bus).first?.partKey == "mpu6050")
        let refined = try IMUFamilies.probe(rig.bus, refiningWith: rig.clock)
        #expect(refined.first?.partKey == "mpu9150")
        #expect(refined.first?.part == "MPU-9150")
        #expect(try rig.bus.readRegister(0x37, address: mpu) == 0x00)
    }

    @Test func onlyTheMPU9150RowCarriesACompanionDie() {
        #expect(MPU6050.variants.filter { $0.companion != nil }.map(\.key) == ["mpu9150"])
        #expect(MPU6050.CompanionDie.ak8975 == MPU6050.CompanionDie(part: "AK8975", address: 0x0C, identityRegister: 0x00, identity: 0x48))
    }
}

/// The MPU-6050 and the MPU-9150 both answer WHO_AM_I 0x68. A board swapped for the other part
/// while a stream runs (as ``ChipSwapTests`` swaps parts with different WHO_AM_I) is re-initialised
/// with a fresh identify, which looks for the AK8975 again: a look cached by WHO_AM_I alone kept
/// the old name, and with it INT_RD_CLEAR for a part that does not want it (or none for the
/// MPU-9150, which Linux acknowledges by any read because acknowledging by INT_STATUS "does not
/// work reliably").
@Suite struct MPU9150SwapTests {
    let mpu: I2CAddress = I2CAddress(0x68)
    let config = IMUConfiguration(outputDataRate: 1000, fifoWatermark: 16)

    /// Puts a powered-up `key` at 0x68 in place of the rig's chip, on the same INT line.
    func swap(_ rig: MPURig, to key: String) -> MPU6050Emulator {
        let other = MPU6050Emulator(variant: MPU6050.variant(named: key)!, errorModel: .ideal)
        other.profileStart = rig.chip.profileStart
        other.interruptLine = rig.line
        other.advance(to: rig.clock.nowNanoseconds)
        rig.bus.attach(other, at: mpu)
        rig.line.source = other
        return other
    }

    @Test(arguments: [("mpu6050", "mpu9150"), ("mpu9150", "mpu6050")])
    func aBoardSwappedForTheOtherPartAt0x68IsNamedAgain(from: String, to: String) throws {
        let rig = MPURig(from)
        let stream = IMUStream(imu: rig.driver, line: rig.line, clock: rig.clock)
        try stream.start(config)
        var samples: [IMUSample] = []
        for _ in 0..<100 { _ = stream.step(into: &samples) }
        #expect(rig.driver.identity?.partKey == from)
        _ = stream.takeNotices()
        let other = swap(rig, to: to)
        samples.removeAll()
        for _ in 0..<400 { _ = stream.step(into: &samples) }
        #expect(stream.statistics.reinitialisations == 1)
        #expect(rig.driver.identity?.partKey == to)
        #expect(rig.driver.identity?.warnings == [])
        // INT_RD_CLEAR (bit 4) on the MPU-9150 only; the bypass (bit 1) off again.
        #expect(try rig.bus.readRegister(0x37, address: mpu) & 0x12 == (to == "mpu9150" ? 0x10 : 0x00))
        let (was, now) = to == "mpu9150" ? ("MPU-6050", "MPU-9150") : ("MPU-9150", "MPU-6050")
        #expect(stream.takeNotices().map(\.message).contains(
            "the chip at 0x68 on simulated bus was named \(was) and is named \(now) now (both answer WHO_AM_I 0x68): another chip answers; driving it as \(now)"))
        #expect(samples.count > 1000)
        // A changed answer is looked at twice (MPU9150LookAtReinitialisationTests).
        if to == "mpu9150" { #expect(other.magnetometer?.identityReads == 2) }
    }

    /// A look that cannot tell at a re-initialisation (the bus fails at 0x0C once) keeps the
    /// answer of the look that could: the chip is not renamed, nor warned about.
    @Test func aLookThatFailsAtAReinitialisationKeepsTheEarlierAnswer() throws {
        let rig = MPURig("mpu9150")
        #expect(try rig.driver.identify().partKey == "mpu9150")
        rig.chip.powerOnReset()
        rig.bus.faults = [FaultRule(.address(I2CAddress(0x0C)), effect: .stuck, count: 1)]
        let again = try rig.driver.identify()
        #expect(again.partKey == "mpu9150")
        #expect(again.warnings == [])
        #expect(try rig.bus.readRegister(0x37, address: mpu) == 0x00)
    }
}
