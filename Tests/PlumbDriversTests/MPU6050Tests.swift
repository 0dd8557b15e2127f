import Testing
import PlumbHAL
@testable import PlumbDrivers
import PlumbSimulation

private let allKeys = MPU6050.variants.map(\.key)

@Suite struct MPU6050IdentityTests {
    @Test(arguments: allKeys)
    func identifiesEveryVariantByItsWhoAmI(key: String) throws {
        let rig = MPURig(key)
        let id = try rig.driver.identify()
        let v = MPU6050.variant(named: key)!
        // 0x68 is shared by MPU-6050/6000/9150: the table's first row names it, unless the
        // MPU-9150's AK8975 answers through the bypass (MPU9150DetectionTests).
        let expectedKey = v.whoAmI == 0x68 && v.companion == nil ? "mpu6050" : key
        #expect(id.partKey == expectedKey)
        #expect(id.whoAmI == v.whoAmI)
        #expect(id.address == I2CAddress(0x68))
        #expect(id.bus == "simulated bus")
        #expect(id.warnings == (v.whoAmI == 0x98 ? ["WHO_AM_I 0x98 is an ICM-20689-compatible chip (often sold as MPU-6050); driving it as ICM-20689"]
                                : v.whoAmI == 0x70 ? ["WHO_AM_I 0x70 is an MPU-6500 (boards sold as MPU-6050 or MPU-9250 often carry one; it has no magnetometer)"] : []))
    }

    @Test func whoAmIIsReadOnly() throws {
        let rig = MPURig("mpu6050")
        try rig.bus.writeRegister(0x75, 0x12, address: I2CAddress(0x68))
        #expect(try rig.bus.readRegister(0x75, address: I2CAddress(0x68)) == 0x68)
    }

    @Test func cloneIdIsAcceptedWithAWarningSayingWhatItIs() throws {
        let rig = MPURig("mpu6050") { $0.identityOverride = 0x72 }
        let id = try rig.driver.identify()
        #expect(id.part == "MPU-6050")
        #expect(id.warnings == ["WHO_AM_I 0x72 is no InvenSense part (a clone sold as MPU-6050); driving it with the MPU-6050 register map"])
    }

    @Test func unknownIdentityNamesWhatWasFound() {
        let rig = MPURig("mpu6050") { $0.identityOverride = 0x42 }
        #expect(throws: IMUError.unexpectedIdentity(whoAmI: 0x42, address: I2CAddress(0x68), bus: "simulated bus",
                                                     expected: [0x68, 0x70, 0x71, 0x73, 0x74, 0x12, 0xAF, 0x98, 0x72])) {
            try rig.driver.identify()
        }
        let message = IMUError.unexpectedIdentity(whoAmI: 0x42, address: I2CAddress(0x68), bus: "simulated bus", expected: [0x68]).description
        #expect(message == "0x42 at 0x68 on simulated bus is not a known IMU (expected one of 0x68)")
    }

    @Test func explicitPartOverridesAndWarns() throws {
        let rig = MPURig("icm20602", part: "mpu6500")
        let id = try rig.driver.identify()
        #expect(id.partKey == "mpu6500")
        #expect(id.warnings == ["WHO_AM_I 0x12 (ICM-20602) but driving it as MPU-6500 as requested"])
        #expect(throws: IMUError.invalidConfiguration("unknown MPU part 'mpu1234': expected one of mpu6050, mpu6000, mpu9150, mpu6500, mpu9250, mpu9255, mpu6515, icm20602, icm20608, icm20689")) {
            try MPU6050(bus: rig.bus, clock: rig.clock, part: "mpu1234")
        }
    }

    @Test func nothingAtTheAddressIsABusErrorNotAWiringGuess() {
        let rig = MPURig("mpu6050")
        rig.bus.nothingAnswersErrno = Errno.ENXIO // a PC adapter or i2c-stub (PiAdapterTests: a Raspberry Pi's EREMOTEIO)
        rig.bus.detach(at: I2CAddress(0x68))
        #expect(throws: IMUError.bus(I2CError(errno: Errno.ENXIO, bus: "simulated bus", address: I2CAddress(0x68)))) {
            try rig.driver.identify()
        }
        #expect(IMUError.bus(I2CError(errno: Errno.ENXIO, bus: "simulated bus", address: I2CAddress(0x68))).description == "nothing answers at 0x68 on simulated bus")
    }
}

@Suite struct MPU6050ResetTests {
    /// The reset order is the contract: the expected transfers and their times are written out.
    @Test func resetTranscriptMatchesTheKernelOrder_MPU6050() throws {
        let rig = MPURig("mpu6050", instantBus: true)
        _ = try rig.driver.identify()
        let t0 = rig.clock.nowNanoseconds
        rig.bus.trace = []
        try rig.driver.reset()
        let got = rig.bus.trace!.map { "\(($0.timeNanoseconds - t0) / 1_000_000) ms: \($0)" }
        #expect(got == [
            "0 ms: w 6b 80",          // PWR_MGMT_1 = DEVICE_RESET
            "100 ms: w 6b r 1",       // poll DEVICE_RESET (re-read every pass)
            "100 ms: w 6b 01",        // wake, CLKSEL = PLL (the MPU-6050 resets asleep)
        ])
        #expect(rig.clock.nowNanoseconds - t0 == 110_000_000)
        #expect(rig.chip.registers[0x6B] == 0x01)
    }

    @Test func resetTranscriptIncludesSignalPathReset_MPU6500() throws {
        let rig = MPURig("mpu6500", instantBus: true) { $0.resetDuration = 150_000_000 }
        _ = try rig.driver.identify()
        let t0 = rig.clock.nowNanoseconds
        rig.bus.trace = []
        try rig.driver.reset()
        let got = rig.bus.trace!.map { "\(($0.timeNanoseconds - t0) / 1_000_000) ms: \($0)" }
        #expect(got == [
            "0 ms: w 6b 80",
            "100 ms: w 6b r 1",       // still resetting: read again after 10 ms
            "110 ms: w 6b r 1",
            "120 ms: w 6b r 1",
            "130 ms: w 6b r 1",
            "140 ms: w 6b r 1",
            "150 ms: w 6b r 1",
            "150 ms: w 68 07",        // SIGNAL_PATH_RESET = GYRO | ACCEL | TEMP
            "250 ms: w 6b 01",
        ])
    }

    @Test func resetGivesUpAfterBoundedPolling() throws {
        let rig = MPURig("mpu6050", instantBus: true) { $0.resetDuration = 10 * Nanoseconds.perSecond }
        _ = try rig.driver.identify()
        #expect(throws: IMUError.timeout(waitingFor: "PWR_MGMT_1.DEVICE_RESET to clear on MPU-6050 at 0x68 on simulated bus")) {
            try rig.driver.reset()
        }
    }

    @Test func powerOnResetValuesComeFromTheDatasheet() {
        let r6050 = MPURig("mpu6050").chip.registers
        #expect(r6050[0x6B] == 0x40) // asleep
        #expect(r6050[0x75] == 0x68)
        let r6500 = MPURig("mpu6500").chip.registers
        #expect(r6500[0x6B] == 0x01)
        #expect(r6500[0x75] == 0x70)
        #expect(r6500[0x1A] == 0x00) // RM-MPU-9250A-00 rev 1.4 §3: only 107 and 117 differ from 0x00
        let icm = MPURig("icm20602").chip.registers
        #expect(icm[0x1A] == 0x80)
        #expect(icm[0x6B] == 0x41)
        #expect(icm[0x75] == 0x12)
    }
}

@Suite struct MPU6050ConfigurationTests {
    @Test func registerStateAfterApply_MPU6050() throws {
        let rig = MPURig("mpu6050")
        var c = IMUConfiguration(outputDataRate: 100, accelerometerRange: 4, gyroscopeRange: 500)
        c.interrupt = InterruptPinConfiguration(level: .activeLow, drive: .openDrain, mode: .latched)
        let effective = try rig.start(c)
        let r = rig.chip.registers
        #expect(r[0x19] == 9)     // SMPLRT_DIV: 1 kHz / (1 + 9) = 100 Hz
        #expect(r[0x1A] == 0x03)  // DLPF_CFG 3: 42 Hz, the widest not above 50 Hz
        #expect(r[0x1B] == 0x08)  // FS_SEL 1: ±500 °/s
        #expect(r[0x1C] == 0x08)  // AFS_SEL 1: ±4 g
        #expect(r[0x37] == 0xE0)  // active low, open drain, latched, cleared by reading INT_STATUS
        #expect(r[0x38] == 0x01)  // DATA_RDY_EN only, as Linux: FIFO_OFLOW_INT is stuck at 1 on some parts
        #expect(r[0x23] == 0x78)  // FIFO: accel + gyro x/y/z
        #expect(r[0x6A] == 0x40)  // USER_CTRL.FIFO_EN
        #expect(r[0x6B] == 0x01)  // awake, PLL
        #expect(r[0x6C] == 0x00)
        #expect(effective.outputDataRate == 100 && effective.lowPassBandwidth == 42)
        #expect(try rig.driver.verifyConfiguration())
    }

    @Test func registerStateAfterApply_MPU6500() throws {
        let rig = MPURig("mpu9250")
        let effective = try rig.start(IMUConfiguration(outputDataRate: 1000, accelerometerRange: 16, gyroscopeRange: 2000, fifoWatermark: 16))
        let r = rig.chip.registers
        #expect(r[0x19] == 0)
        #expect(r[0x1A] == 0x41)  // FIFO_MODE (keep whole records when full) | DLPF 1 (188 Hz)
        #expect(r[0x1B] == 0x18)
        #expect(r[0x1C] == 0x18)
        #expect(r[0x1D] == 0x01)  // ACCEL_CONFIG_2: the same filter code
        #expect(r[0x37] == 0x20)  // latched, cleared by reading INT_STATUS (INT_RD_CLEAR only on the MPU-9150)
        #expect(effective.outputDataRate == 1000)
        #expect(effective.fifoWatermark == 16)
    }

    @Test(arguments: [(1000.0, 0, 1000.0), (500, 1, 500), (200, 4, 200), (50, 19, 50), (333, 2, 1000.0 / 3), (3.9, 255, 1000.0 / 256)] as [(Double, Int, Double)])
    func rateChoosesTheDivider(requested: Double, divider: Int, actual: Double) throws {
        let s = try MPU6050.settings(for: IMUConfiguration(outputDataRate: requested), variant: MPU6050.variants[0])
        #expect(s.sampleRateDivider == UInt8(divider))
        #expect(abs(s.effective.outputDataRate - actual) < 1e-9)
    }

    /// INT_RD_CLEAR (any read acknowledges) only on the MPU-9150, as Linux `inv_mpu_core_probe`:
    /// elsewhere each byte of a FIFO burst would clear a latched pin and each sample during the
    /// burst raise it again (IMUStreamPinModeTests, latched: 464 edges for 155 drains).
    @Test(arguments: MPU6050.variants.map(\.key))
    func anyReadAcknowledgesOnlyOnTheMPU9150(key: String) throws {
        let v = try #require(MPU6050.variant(named: key))
        let s = try MPU6050.settings(for: IMUConfiguration(), variant: v)
        #expect(s.interruptPinConfig & MPU6050.Bits.intReadClear == (key == "mpu9150" ? MPU6050.Bits.intReadClear : 0), "\(key)")
    }

    @Test func refusesImpossibleSettings() {
        let v = MPU6050.variants[0]
        #expect(throws: IMUError.invalidConfiguration("output data rate 2000.0 Hz: the MPU-6050 FIFO runs at 3.9...1000 Hz")) {
            try MPU6050.settings(for: IMUConfiguration(outputDataRate: 2000), variant: v)
        }
        #expect(throws: IMUError.invalidConfiguration("the MPU-6050 has one interrupt pin (INT); choose int1")) {
            try MPU6050.settings(for: IMUConfiguration(interrupt: InterruptPinConfiguration(pin: .int2)), variant: v)
        }
    }

    @Test func configurationLossIsDetectedByReadback() throws {
        let rig = MPURig("mpu6050")
        _ = try rig.start()
        #expect(try rig.driver.verifyConfiguration())
        rig.chip.powerOnReset()
        #expect(try !rig.driver.verifyConfiguration())
    }
}

@Suite struct MPU6050RoundTripTests {
    static let cases: [(String, Double, Double)] = allKeys.flatMap { key in
        [(2.0, 250.0), (4, 500), (8, 1000), (16, 2000)].map { (key, $0.0, $0.1) }
    }

    /// Set a physical value in the emulator, read it back through the FIFO within 1 LSB.
    @Test(arguments: cases)
    func roundTripWithinOneLSB(key: String, g: Double, dps: Double) throws {
        let rate = SIMD3(0.8, -0.45, 0.95) * dps * .pi / 180
        let force = SIMD3(0.7, -0.35, -0.9) * g * MotionConstants.standardGravity
        let rig = MPURig(key, profile: constantMotion(rate: rate, force: force)) { $0.temperature = 31.5 }
        _ = try rig.start(IMUConfiguration(outputDataRate: 200, accelerometerRange: g, gyroscopeRange: dps))
        rig.clock.advance(by: 50_000_000)
        var samples: [IMUSample] = []
        let result = try rig.driver.drain(into: &samples, edges: [])
        #expect(result.sampleCount >= 9)
        #expect(result.gaps.isEmpty)
        let accelLSB = MotionConstants.standardGravity / (32768 / g)
        let gyroLSB = (dps / 32768) * .pi / 180
        for s in samples {
            #expect(maxAbs(s.acceleration - force) <= accelLSB * 1.01)
            #expect(maxAbs(s.angularRate - rate) <= gyroLSB * 1.1)
            let v = MPU6050.variant(named: key)!
            #expect(abs(try #require(s.temperature) - 31.5) <= 1 / v.temperatureSensitivity)
            #expect(s.saturation.isEmpty)
        }
    }

    @Test func saturationIsFlagged() throws {
        let rig = MPURig("mpu6050", profile: constantMotion(rate: SIMD3(10, 0, 0), force: SIMD3(0, 0, 30)))
        _ = try rig.start(IMUConfiguration(outputDataRate: 100, accelerometerRange: 2, gyroscopeRange: 250))
        rig.clock.advance(by: 50_000_000)
        var samples: [IMUSample] = []
        _ = try rig.driver.drain(into: &samples, edges: [])
        #expect(samples.allSatisfy { $0.saturation == [.accelerometerZ, .gyroscopeX] })
    }

    @Test(arguments: [("mpu6050", 36.53, 340.0), ("mpu6500", 21, 333.87), ("icm20689", 25, 326.8)])
    func temperaturePerVariant(key: String, offset: Double, sensitivity: Double) throws {
        let rig = MPURig(key) { $0.temperature = 47.25 }
        _ = try rig.start()
        rig.clock.advance(by: 20_000_000)
        let s = try rig.driver.readSample()
        let raw = ((47.25 - offset) * sensitivity).rounded()
        #expect(abs(try #require(s.temperature) - (raw / sensitivity + offset)) < 1e-9)
    }
}

@Suite struct MPU6050RegisterMapTests {
    /// The driver's address constants and the shared register table must agree.
    @Test(arguments: [MPU6050.Generation.mpu6050, .mpu6500])
    func constantsMatchTheTable(generation: MPU6050.Generation) {
        let map = MPU6050.registerMap(generation)
        let pairs: [(UInt8, String)] = [
            (MPU6050.Register.sampleRateDivider, "SMPLRT_DIV"), (MPU6050.Register.config, "CONFIG"),
            (MPU6050.Register.gyroConfig, "GYRO_CONFIG"), (MPU6050.Register.accelConfig, "ACCEL_CONFIG"),
            (MPU6050.Register.fifoEnable, "FIFO_EN"), (MPU6050.Register.intPinConfig, "INT_PIN_CFG"),
            (MPU6050.Register.intEnable, "INT_ENABLE"), (MPU6050.Register.intStatus, "INT_STATUS"),
            (MPU6050.Register.accelXOutH, "ACCEL_XOUT_H"), (MPU6050.Register.tempOutH, "TEMP_OUT_H"),
            (MPU6050.Register.gyroXOutH, "GYRO_XOUT_H"), (MPU6050.Register.signalPathReset, "SIGNAL_PATH_RESET"),
            (MPU6050.Register.userControl, "USER_CTRL"), (MPU6050.Register.powerManagement1, "PWR_MGMT_1"),
            (MPU6050.Register.powerManagement2, "PWR_MGMT_2"), (MPU6050.Register.fifoCountH, "FIFO_COUNTH"),
            (MPU6050.Register.fifoData, "FIFO_R_W"), (MPU6050.Register.whoAmI, "WHO_AM_I"),
            (MPU6050.Register.gyroOffset, "XG_OFFS_USRH"),
        ]
        for (address, name) in pairs { #expect(map[name]?.address == address, "\(name)") }
        let v = MPU6050.variants.first { $0.generation == generation }!
        #expect(map[generation == .mpu6050 ? "XA_OFFS_H" : "XA_OFFSET_H"]?.address == v.accelerometerOffsetRegister)
        #expect(map[generation == .mpu6050 ? "YA_OFFS_H" : "YA_OFFSET_H"]?.address == v.accelerometerOffsetRegister + v.accelerometerOffsetStride)
        // Field values decode with their meanings.
        let fields = map.decode(0x1B, value: 0x18)
        #expect(fields.first { $0.name == "FS_SEL" }?.meaning == "±2000 °/s")
        #expect(map["INT_STATUS"]?.access == .readToClear)
        #expect(map["PWR_MGMT_1"]?.selfClearingMask == 0x80)
    }
}
