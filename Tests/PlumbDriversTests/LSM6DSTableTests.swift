import Testing
import PlumbHAL
@testable import PlumbDrivers

/// The LSM6DS variant table and the pure planning of a configuration. Expected constants are
/// written out by hand from the datasheets (reference/drivers.md §B2), never taken from the table.
@Suite struct LSM6DSTableTests {
    @Test(arguments: [
        ("lsm6ds3", 0x69, LSM6DS.Generation.ds3, 16.0), ("lsm6ds3h", 0x69, .ds3, 16), ("lsm6ds33", 0x69, .ds3, 16),
        ("lsm6ds3trc", 0x6A, .dsl, 256), ("lsm6dsl", 0x6A, .dsl, 256), ("lsm6dsm", 0x6A, .dsl, 256), ("ism330dlc", 0x6A, .dsl, 256),
        ("lsm6dso", 0x6C, .dso, 256), ("lsm6dsox", 0x6C, .dso, 256), ("lsm6dso32", 0x6C, .dso, 256),
        ("lsm6dsr", 0x6B, .dso, 256), ("ism330dhcx", 0x6B, .dso, 256),
    ])
    func everyRow(key: String, whoAmI: Int, generation: LSM6DS.Generation, temperatureLSB: Double) throws {
        let v = try #require(LSM6DS.Variant.named(key))
        #expect(v.whoAmI == UInt8(whoAmI))
        #expect(v.generation == generation)
        #expect(v.temperatureLSBPerDegree == temperatureLSB)
        #expect(LSM6DS.Variant.matching(whoAmI: UInt8(whoAmI)).contains(v))
    }

    /// Self-test pass limits per part, written out from the sources cited in `LSM6DS+Variants.swift`:
    /// accelerometer in mg, gyroscope in dps at ±2000 dps.
    @Test(arguments: [
        ("lsm6ds3", 90.0), ("lsm6ds3h", 90), ("lsm6ds33", 90),  // ST-C lsm6ds3_self_test.c
        ("lsm6ds3trc", 90),                                      // ST-C lsm6ds3tr_c_self_test.c
        ("lsm6dsl", 90), ("lsm6dsm", 90), ("ism330dlc", 90),     // DocID028475 Rev 7 Table 3; LSM6DSM Table 3; ST-C ism330dlc
        ("lsm6dso", 50), ("lsm6dsox", 50), ("lsm6dso32", 50),    // DS12140 Rev 2 Table 2; DocID032891 Rev 1 Table 2; ST-C DSOX
        ("lsm6dsr", 40),                                         // LSM6DSR datasheet Table 2
        ("ism330dhcx", 90),                                      // ST-C ism330dhcx_self_test.c; st_ism330dhcx 737 LSB
    ])
    func selfTestLimits(key: String, accelerometerMinimum: Double) throws {
        let v = try #require(LSM6DS.Variant.named(key))
        #expect(v.selfTestLimits.accelerometerMilliG == accelerometerMinimum...1700)
        #expect(v.selfTestLimits.gyroscopeDPS == 150...700)
    }

    /// Self-test settle times per generation, from ST's examples (ms): LSM6DS3 200/800/60,
    /// LSM6DS3TR-C 100/150/50, LSM6DSO 100/100/100.
    @Test func selfTestSettleTimes() {
        let ds3 = LSM6DS.selfTestSettleMilliseconds(for: .ds3)
        let dsl = LSM6DS.selfTestSettleMilliseconds(for: .dsl)
        let dso = LSM6DS.selfTestSettleMilliseconds(for: .dso)
        #expect([ds3.accelerometer, ds3.gyroscope, ds3.gyroscopeSelfTest] == [200, 800, 60])
        #expect([dsl.accelerometer, dsl.gyroscope, dsl.gyroscopeSelfTest] == [100, 150, 50])
        #expect([dso.accelerometer, dso.gyroscope, dso.gyroscopeSelfTest] == [100, 100, 100])
    }

    @Test func accelerometerCodesAreNotMonotonic() {
        let codes = LSM6DS.Variant.lsm6dso.accelerometerRanges.map { "\(Int($0.g))g=\($0.code)" }
        #expect(codes == ["2g=0", "4g=2", "8g=3", "16g=1"])
        let dso32 = LSM6DS.Variant.lsm6dso32.accelerometerRanges.map { "\(Int($0.g))g=\($0.code)" }
        #expect(dso32 == ["4g=0", "8g=2", "16g=3", "32g=1"])
        #expect(LSM6DS.Variant.lsm6dso32.accelerometerRanges.map(\.milliGPerLSB) == [0.122, 0.244, 0.488, 0.976])
    }

    @Test func gyroscopeCodesPerField() {
        // CTRL2_G bits 3:1 (FS_G + FS_125): 250=000, 125=001, 500=010, 1000=100, 2000=110.
        let standard = LSM6DS.Variant.lsm6ds3.gyroscopeRanges.map { "\(Int($0.dps))=\($0.code)" }
        #expect(standard == ["125=1", "250=0", "500=2", "1000=4", "2000=6"])
        #expect(LSM6DS.Variant.lsm6ds3.gyroscopeRangeField.mask == 0x0E)
        // LSM6DSR bits 3:0 with FS_4000 in bit 0.
        let wide = LSM6DS.Variant.lsm6dsr.gyroscopeRanges.map { "\(Int($0.dps))=\($0.code)" }
        #expect(wide == ["125=2", "250=0", "500=4", "1000=8", "2000=12", "4000=1"])
        #expect(LSM6DS.Variant.ism330dhcx.gyroscopeRangeField.mask == 0x0F)
    }

    @Test func detectionPicksTheFirstRowAndWarnsOnlyWhenItMatters() throws {
        let bus = "/dev/i2c-1"
        let a: I2CAddress = I2CAddress(0x6A)
        let dsl = try LSM6DS.identity(whoAmI: 0x6A, address: a, bus: bus)
        #expect(dsl.partKey == "lsm6ds3trc")
        #expect(dsl.part == "LSM6DS3TR-C/LSM6DSL/LSM6DSM/ISM330DLC")
        #expect(dsl.warnings.isEmpty)
        let dso = try LSM6DS.identity(whoAmI: 0x6C, address: a, bus: bus)
        #expect(dso.partKey == "lsm6dso")
        #expect(dso.warnings == ["WHO_AM_I 0x6c is also LSM6DSO32 (--part lsm6dso32); driving it as LSM6DSO"])
        let forced = try LSM6DS.identity(whoAmI: 0x6C, address: a, bus: bus, override: .lsm6dso32)
        #expect(forced.partKey == "lsm6dso32" && forced.warnings.isEmpty)
        let wrong = try LSM6DS.identity(whoAmI: 0x69, address: a, bus: bus, override: .lsm6dso)
        #expect(wrong.warnings.count == 1)
    }

    @Test func lsm6dsvIsRefusedByName() {
        #expect(throws: IMUError.self) { try LSM6DS.identity(whoAmI: 0x70, address: I2CAddress(UInt8(0x6B)), bus: "/dev/i2c-1") }
        // Even a forced part does not drive it with the wrong map.
        #expect(throws: IMUError.self) {
            try LSM6DS.identity(whoAmI: 0x70, address: I2CAddress(UInt8(0x6B)), bus: "/dev/i2c-1", override: .lsm6dso)
        }
        do {
            _ = try LSM6DS.identity(whoAmI: 0x70, address: I2CAddress(UInt8(0x6B)), bus: "/dev/i2c-1")
        } catch {
            guard case .unsupported(let message) = error else { Issue.record("expected .unsupported, got \(error)"); return }
            #expect(message.hasPrefix("0x70 at 0x6b on /dev/i2c-1 is an LSM6DSV/LSM6DSV16X, which Plumb does not support yet"))
            #expect(!message.contains("wiring"))
        }
    }

    @Test func unknownIdentityListsWhatWasExpected() {
        do {
            _ = try LSM6DS.identity(whoAmI: 0x12, address: I2CAddress(UInt8(0x6A)), bus: "/dev/i2c-1")
            Issue.record("0x12 was accepted")
        } catch {
            #expect(error.description == "0x12 at 0x6a on /dev/i2c-1 is not a known IMU (expected one of 0x69, 0x6a, 0x6c, 0x6b)")
        }
    }

    @Test func temperatureScalePerPart() {
        #expect(LSM6DS.Variant.lsm6ds3.celsius(fromTemperature: 160) == 35)
        #expect(LSM6DS.Variant.lsm6dso.celsius(fromTemperature: 160) == 25.625)
        #expect(LSM6DS.Variant.lsm6dsl.celsius(fromTemperature: -512) == 23)
    }

    @Test func rateAndRangeSelection() {
        let v = LSM6DS.Variant.lsm6dso
        #expect(v.dataRate(for: 100)?.hertz == 104)
        #expect(v.dataRate(for: 833)?.code == 7)
        // Above the fastest there is none (the driver refuses it; it used to run at 1667 Hz).
        #expect(v.dataRate(for: 1667)?.hertz == 1667)
        #expect(v.dataRate(for: 5000) == nil)
        #expect(v.accelerometerRange(for: 3).g == 4)
        #expect(v.gyroscopeRange(for: 4000).dps == 2000)
        #expect(LSM6DS.Variant.lsm6dsr.gyroscopeRange(for: 3000).dps == 4000)
    }

    @Test func planForLSM6DSOAt833Hz() throws {
        var c = IMUConfiguration(outputDataRate: 833, accelerometerRange: 8, gyroscopeRange: 1000, fifoWatermark: 32)
        c.interrupt = InterruptPinConfiguration(pin: .int2, level: .activeLow, drive: .openDrain, mode: .pulsed)
        let p = try LSM6DS.plan(c, for: .lsm6dso)
        #expect(p.control1XL == 0x7C)      // ODR 7 << 4 | FS_XL 3 (±8 g) << 2
        #expect(p.control2G == 0x78)       // ODR 7 << 4 | FS_G 10 (±1000) << 2
        #expect(p.control3C == 0x74)       // BDU | H_LACTIVE | PP_OD | IF_INC
        #expect(p.fifoControl1 == 65)      // 32 × 2 words + 1 timestamp word
        #expect(p.fifoControl2 == 0x46)    // FIFO_COMPR_RT_EN | UNCOPTR_RATE 3
        #expect(p.compression)
        #expect(p.maximumSamplesPerWatermark == 94) // 65 words / (2/3 + 1/32) words per sample
        let plain = try LSM6DS.plan(c, for: .lsm6dso, compression: false)
        #expect(plain.fifoControl2 == 0x00 && !plain.compression && plain.maximumSamplesPerWatermark == 32)
        #expect(p.fifoControl3 == 0x77)    // BDR_GY 833 | BDR_XL 833
        #expect(p.fifoModeControl == 0xD0) // DEC_TS_BATCH 32 | ODR_T_BATCH 1.6 Hz | bypass
        #expect(p.effective.outputDataRate == 833)
        #expect(p.effective.interrupt.mode == .pulsed)
    }

    /// Compression only where a compressed watermark still fills within 125 ms.
    @Test(arguments: [(833.0, 16, true), (833, 32, true), (833, 64, false), (104, 5, false), (12.5, 7, false), (1666, 64, true)])
    func compressionOnlyWhereTheWakeupIntervalStaysShort(rate: Double, watermark: Int, compressed: Bool) throws {
        let p = try LSM6DS.plan(IMUConfiguration(outputDataRate: rate, fifoWatermark: watermark), for: .lsm6dso)
        #expect(p.compression == compressed)
        #expect(p.fifoControl2 & 0x40 == (compressed ? 0x40 : 0))
        #expect(try !LSM6DS.plan(IMUConfiguration(outputDataRate: rate, fifoWatermark: watermark), for: .lsm6ds3).compression)
    }

    /// The 125 ms rule at 833 Hz: watermark 35 (104 samples at best compression, 124.85 ms)
    /// compresses, 36 (107 samples, 128.45 ms) does not.
    @Test func compressionBoundaryAt833HzIsWatermark35() throws {
        let at35 = try LSM6DS.plan(IMUConfiguration(outputDataRate: 833, fifoWatermark: 35), for: .lsm6dso)
        #expect(at35.compression)
        #expect(at35.maximumSamplesPerWatermark == 104)
        let ms35 = Double(at35.maximumSamplesPerWatermark) / at35.dataRate.hertz * 1e3
        #expect(ms35 > 124.8 && ms35 <= 125)
        let at36 = try LSM6DS.plan(IMUConfiguration(outputDataRate: 833, fifoWatermark: 36), for: .lsm6dso)
        #expect(!at36.compression)
        #expect(at36.maximumSamplesPerWatermark == 36)
        let compressed36 = try LSM6DS.plan(IMUConfiguration(outputDataRate: 833, fifoWatermark: 36), for: .lsm6dso,
                                           maximumCompressedBatchNanoseconds: 128_500_000)
        #expect(compressed36.compression && compressed36.maximumSamplesPerWatermark == 107)
    }

    @Test func planForLSM6DS3LowEnergy() throws {
        let c = IMUConfiguration(outputDataRate: 26, accelerometerRange: 2, gyroscopeRange: 250, fifoWatermark: 16,
                                 gyroscopeEnabled: false, interrupt: .init(mode: .pulsed))
        let p = try LSM6DS.plan(c, for: .lsm6ds3)
        #expect(p.control1XL == 0x20)
        #expect(p.control2G == 0x00)       // gyroscope powered down
        #expect(p.control6C == 0x10)       // XL_HM_MODE: low-power
        #expect(p.fifoControl1 == 54)      // (16 + 2 timestamp sets) × 3 words
        #expect(p.fifoControl2 == 0x80)    // TIMER_PEDO_FIFO_EN
        #expect(p.fifoControl3 == 0x01)    // gyroscope not in FIFO, accelerometer every sample
        #expect(p.fifoControl4 == 0x28)    // DEC_DS4_FIFO = 5 (every 8th)
        #expect(p.fifoModeControl == 0x10) // ODR_FIFO 26 Hz, bypass
        #expect(p.effective.interrupt.mode == .latched) // LSM6DS3 has no pulsed data-ready
    }

    @Test func watermarkLimits() {
        #expect(LSM6DS.Variant.lsm6dso.maximumWatermarkSamples == 251)
        #expect(LSM6DS.Variant.lsm6ds3.maximumWatermarkSamples == 642)
        #expect(LSM6DS.Variant.lsm6ds3h.maximumWatermarkSamples == 320)
        #expect(throws: IMUError.self) { try LSM6DS.plan(IMUConfiguration(fifoWatermark: 0), for: .lsm6dso) }
        #expect(throws: IMUError.self) { try LSM6DS.plan(IMUConfiguration(fifoWatermark: 252), for: .lsm6dso) }
        #expect(throws: IMUError.self) { try LSM6DS.plan(IMUConfiguration(outputDataRate: 0), for: .lsm6dso) }
    }

    @Test func registerMapsDescribeTheDriversRegisters() {
        let dso = LSM6DS.registerMap(for: .lsm6dso)
        #expect(dso[0x0F]?.resetValue == 0x6C)
        #expect(dso[0x12]?.resetValue == 0x04)
        #expect(dso[0x18]?.resetValue == 0xE0)
        #expect(dso.field("CTRL9_XL", "I3C_DISABLE") == RegisterField(address: 0x18, mask: 0x02))
        #expect(dso.decode(0x10, value: 0x7C).map { "\($0.name)=\($0.meaning ?? "?")" }.prefix(2) == ["ODR_XL=833 Hz", "FS_XL=±8 g"])
        let ds3 = LSM6DS.registerMap(for: .lsm6ds3)
        #expect(ds3[0x0F]?.resetValue == 0x69)
        #expect(ds3[0x19]?.resetValue == 0x38)
        #expect(ds3.field("TAP_CFG", "TIMER_EN") == LSM6DS.Variant.lsm6ds3.timerEnable)
        #expect(LSM6DS.registerMap(for: .lsm6dsl).field("CTRL10_C", "TIMER_EN") == LSM6DS.Variant.lsm6dsl.timerEnable)
        #expect(ds3[0x12]?.selfClearingMask == 0x81)
    }
}

/// The fields the driver uses, checked against the register maps shared with the emulator and `plumb regs`.
@Suite struct LSM6DSRegisterMapAgreementTests {
    @Test(arguments: LSM6DS.Variant.all)
    func driverFieldsAgreeWithTheMap(variant v: LSM6DS.Variant) {
        let map = LSM6DS.registerMap(for: v)
        #expect(map[0x0F]?.resetValue == v.whoAmI)
        #expect(map.field("CTRL3_C", "SW_RESET") == RegisterField(address: LSM6DS.Register.control3C, mask: LSM6DS.Control3.softwareReset))
        #expect(map.field("CTRL3_C", "BOOT").mask == LSM6DS.Control3.boot)
        #expect(map.field("CTRL3_C", "BDU").mask == LSM6DS.Control3.blockDataUpdate)
        #expect(map.field("CTRL3_C", "H_LACTIVE").mask == LSM6DS.Control3.activeLow)
        #expect(map.field("CTRL3_C", "PP_OD").mask == LSM6DS.Control3.openDrain)
        #expect(map.field("CTRL1_XL", "FS_XL").mask == 0x0C)
        #expect(map.field("CTRL2_G", "FS_G").mask | map.field("CTRL2_G", "FS_125").mask == 0x0E)
        #expect(map.field(v.generation == .dso ? "FIFO_CTRL4" : "FIFO_CTRL5", "FIFO_MODE") == v.fifoMode)
        #expect(map[v.fifoThresholdHigh.address]?.fields.contains { $0.mask == v.fifoThresholdHigh.mask } == true)
        let timer = v.generation == .dso ? map.field("CTRL10_C", "TIMESTAMP_EN")
            : v.generation == .ds3 ? map.field("TAP_CFG", "TIMER_EN") : map.field("CTRL10_C", "TIMER_EN")
        #expect(timer == v.timerEnable)
        #expect(map.field(v.generation == .dso ? "TAP_CFG0" : "TAP_CFG", "LIR") == v.latchInterrupts)
        if let i3c = v.i3cDisable { #expect(map.field("CTRL9_XL", "I3C_DISABLE") == i3c) } else { #expect(v.generation != .dso) }
        if let pulse = v.dataReadyPulsed {
            let name = v.generation == .dso ? ("COUNTER_BDR_REG1", "DATAREADY_PULSED") : ("DRDY_PULSE_CFG_G", "DRDY_PULSED")
            #expect(map.field(name.0, name.1) == pulse)
        } else {
            #expect(v.generation == .ds3)
        }
        let interrupt = map.field("INT1_CTRL", v.generation == .dso ? "INT1_FIFO_TH" : "INT1_FTH")
        #expect(interrupt.mask == LSM6DS.fifoThresholdInterrupt)
        #expect(map["FIFO_STATUS1"]?.address == LSM6DS.Register.fifoStatus1)
        #expect(map[v.generation == .dso ? "FIFO_DATA_OUT_TAG" : "FIFO_DATA_OUT_L"]?.address
                == (v.generation == .dso ? LSM6DS.TaggedFIFO.dataRegister : LSM6DS.PatternFIFO.dataRegister))
        if let fine = v.frequencyFineAddress { #expect(map["INTERNAL_FREQ_FINE"]?.address == fine) }
    }
}
