import Testing
import PlumbHAL
@testable import PlumbDrivers

/// Decoding known register values with the drivers' own maps, written out by hand from the
/// datasheets (so a wrong table row shows up as a wrong line).
@Suite struct RegisterDecodeTests {
    private func line(_ part: String, _ register: String, _ value: UInt8) throws -> String {
        let map = try #require(IMUFamilies.registerMap(forPart: part))
        let editor = RegisterEditor(map: map, bus: NoBus(), address: I2CAddress(0x68))
        return editor.decode(map.address(register), value: value).text
    }

    @Test func knownValuesForEachPart() throws {
        // MPU-6000/6050 Register Map rev 4.2 §4.5: AFS_SEL 2 = ±8 g.
        #expect(try line("mpu6050", "ACCEL_CONFIG", 0x10) == "ACCEL_CONFIG 0x1C = 0x10  AFS_SEL=±8 g")
        // §4.3: EXT_SYNC_SET 1 = TEMP_OUT_L[0], DLPF_CFG 3 = 44 / 42 Hz.
        #expect(try line("mpu6050", "CONFIG", 0x0B) == "CONFIG 0x1A = 0x0B  EXT_SYNC_SET=FSYNC in TEMP_OUT_L bit 0, DLPF_CFG=44 / 42 Hz")
        // §4.28: 0x40 = SLEEP, internal 8 MHz oscillator.
        #expect(try line("mpu6050", "PWR_MGMT_1", 0x40) == "PWR_MGMT_1 0x6B = 0x40  SLEEP=1, CLKSEL=internal 8 MHz")
        #expect(try line("mpu6050", "PWR_MGMT_2", 0x87) == "PWR_MGMT_2 0x6C = 0x87  LP_WAKE_CTRL=20 Hz, STBY_XG=1, STBY_YG=1, STBY_ZG=1")
        // MPU-9250 Register Map rev 1.4 §4.6: FS_SEL 3 = ±2000 °/s; FCHOICE_B 0.
        #expect(try line("mpu9250", "GYRO_CONFIG", 0x18) == "GYRO_CONFIG 0x1B = 0x18  FS_SEL=±2000 °/s")
        #expect(try line("mpu9250", "WHO_AM_I", 0x71) == "WHO_AM_I 0x75 = 0x71  WHO_AM_I=MPU-9250")
        #expect(try line("mpu6500", "PWR_MGMT_1", 0x01) == "PWR_MGMT_1 0x6B = 0x01  CLKSEL=auto (PLL when ready)")
        // ICM-20602: power-on PWR_MGMT_1 0x41 (asleep, auto clock).
        #expect(try line("icm20602", "PWR_MGMT_1", 0x41) == "PWR_MGMT_1 0x6B = 0x41  SLEEP=1, CLKSEL=auto (PLL when ready)")
        // LSM6DS3 DS10193 §9.12: ODR_XL 0100 = 104 Hz, FS_XL 11 = ±8 g, BW_XL 00 = 400 Hz.
        #expect(try line("lsm6ds3", "CTRL1_XL", 0x4C) == "CTRL1_XL 0x10 = 0x4C  ODR_XL=104 Hz, FS_XL=±8 g, BW_XL=400 Hz")
        // LSM6DS3TR-C: CTRL3_C 0x44 = BDU + IF_INC.
        #expect(try line("lsm6ds3trc", "CTRL3_C", 0x44)
                == "CTRL3_C 0x12 = 0x44  BDU=1, H_LACTIVE=interrupts active high, PP_OD=push-pull, IF_INC=1")
        // LSM6DSO DS12140 §9.15: ODR_G 0101 = 208 Hz, FS_G 11 = ±2000 dps; FIFO_MODE 110 = continuous.
        #expect(try line("lsm6dso", "CTRL2_G", 0x5C) == "CTRL2_G 0x11 = 0x5C  ODR_G=208 Hz, FS_G=±2000 dps")
        #expect(try line("lsm6dso", "FIFO_CTRL4", 0x46)
                == "FIFO_CTRL4 0x0A = 0x46  DEC_TS_BATCH=every batch, ODR_T_BATCH=no temperature, FIFO_MODE=continuous (overwrite oldest)")
        // LSM6DSR: FS_4000 in bit 0.
        #expect(try line("lsm6dsr", "CTRL2_G", 0x01) == "CTRL2_G 0x11 = 0x01  ODR_G=power-down, FS_G=±250 dps, FS_4000=1")
        #expect(try line("lsm6dsr", "WHO_AM_I", 0x6B).hasPrefix("WHO_AM_I 0x0F = 0x6B  ID=LSM6DSR"))
    }

    /// INT_ENABLE / INT_STATUS bit 3 is the I2C master interrupt on the MPU-6050 only; the
    /// MPU-9250 register map (RM-MPU-9250A-00 rev 1.4, as Snowda/MPU9250 `MPU9250.h` gives it)
    /// has FSYNC there, and the ICM-206xx parts have wake-on-motion in bits 7:5 (Linux
    /// `inv_mpu_iio.h` `INV_ICM20608_BIT_WOM_INT_EN` GENMASK(7, 5)).
    @Test func interruptBitsFollowTheGeneration() throws {
        #expect(try line("mpu6050", "INT_ENABLE", 0x09) == "INT_ENABLE 0x38 = 0x09  I2C_MST_INT_EN=1, DATA_RDY_EN=1")
        #expect(try line("mpu9250", "INT_ENABLE", 0x49) == "INT_ENABLE 0x38 = 0x49  WOM_EN=1, FSYNC_INT_EN=1, DATA_RDY_EN=1")
        #expect(try line("mpu6500", "INT_STATUS", 0x18) == "INT_STATUS 0x3A = 0x18  FIFO_OFLOW_INT=1, FSYNC_INT=1")
        #expect(try line("icm20602", "INT_STATUS", 0xE1) == "INT_STATUS 0x3A = 0xE1  WOM_INT=7, DATA_RDY_INT=1")
        #expect(try line("icm20689", "INT_ENABLE", 0x80) == "INT_ENABLE 0x38 = 0x80  WOM_INT_EN=4")
    }

    @Test func unknownAddressesAndUnreadRegistersSaySo() throws {
        let map = try #require(IMUFamilies.registerMap(forPart: "mpu6050"))
        let editor = RegisterEditor(map: map, bus: NoBus(), address: I2CAddress(0x68))
        #expect(editor.decode(0x01, value: 0x12).text == "(unknown) 0x01 = 0x12")
        #expect(editor.decode(0x01, value: 0x12).json == #"{"address":"0x01","name":null,"access":null,"value":"0x12","fields":{}}"#)
        #expect(editor.decode(0x1C, value: 0x10).json
                == #"{"address":"0x1C","name":"ACCEL_CONFIG","access":"RW","value":"0x10","fields":{"XA_ST":{"value":0},"YA_ST":{"value":0},"ZA_ST":{"value":0},"AFS_SEL":{"value":2,"meaning":"±8 g"}}}"#)
        let skipped = RegisterEditor.Reading(address: 0x74, name: "FIFO_R_W", value: nil, fields: [], skipped: "reading pops the FIFO")
        #expect(skipped.text == "FIFO_R_W 0x74  (not read: reading pops the FIFO)")
    }

    @Test(arguments: IMUFamilies.partKeys) func everyPartsMapIsConsistent(_ key: String) throws {
        let map = try #require(IMUFamilies.registerMap(forPart: key))
        for r in map.registers {
            var seen: UInt8 = 0
            for f in r.fields {
                #expect(seen & f.mask == 0, "\(key) \(r.name).\(f.name) overlaps another field")
                seen |= f.mask
                for v in f.meanings.keys { #expect(v <= f.maximum, "\(key) \(r.name).\(f.name) meaning for \(v) does not fit") }
            }
        }
        // WHO_AM_I names the part it identifies.
        let who = map["WHO_AM_I"]!
        #expect(map.decode(who.address, value: who.resetValue).first?.meaning != nil)
        // Every reset bit is a self-clearing field and so needs --force.
        for name in ["DEVICE_RESET", "SW_RESET"] {
            for r in map.registers { if let f = r.fields.first(where: { $0.name == name }) { #expect(f.hazard == .reset) } }
        }
    }

    // MARK: Write planning and refusals

    private func plan(_ part: String, _ register: String, _ values: [String], current: UInt8 = 0, force: Bool = false) throws -> RegisterEditor.WritePlan {
        let map = IMUFamilies.registerMap(forPart: part)!
        let editor = RegisterEditor(map: map, bus: NoBus(), address: I2CAddress(0x68))
        return try editor.plan(try editor.resolve(register), values, force: force) { () throws(I2CError) -> UInt8 in current }
    }

    @Test func fieldAssignmentsAreReadModifyWrite() throws {
        #expect(try plan("mpu6050", "ACCEL_CONFIG", ["AFS_SEL=2"], current: 0xE0).value == 0xF0)
        #expect(try plan("mpu6050", "accel_config", ["afs_sel=±16 g"], current: 0x00).value == 0x18)
        #expect(try plan("mpu6050", "0x1c", ["0b00001000"]).value == 0x08)
        #expect(try plan("lsm6dso", "CTRL1_XL", ["ODR_XL=104Hz", "FS_XL=4g"], current: 0x02).value == 0x4A)
        #expect(try plan("mpu6050", "PWR_MGMT_1", ["SLEEP=1"], current: 0x40).value == 0x40) // unchanged power bit: no force
    }

    /// CTRL5_C codes the two self-test signs differently: ST_XL negative is 2, ST_G negative is 3
    /// (2 is "not allowed"). ST-C `lsm6ds3_st_g_t`, `lsm6ds3tr_c_st_g_t`, `lsm6dso_st_g_t`
    /// (`*_GY_ST_NEGATIVE = 3`) and `*_st_xl_t` (`*_XL_ST_NEGATIVE = 2`). The map once gave both
    /// fields ST_XL's meanings, so `ST_G=negative` wrote the forbidden 2.
    @Test(arguments: ["lsm6ds3", "lsm6ds3trc", "lsm6dso", "lsm6dsr"])
    func gyroscopeSelfTestSignIsCodedApartFromTheAccelerometers(_ part: String) throws {
        #expect(try plan(part, "CTRL5_C", ["ST_G=negative"], current: 0x00).value == 0x0C)
        #expect(try plan(part, "CTRL5_C", ["ST_XL=negative"], current: 0x00).value == 0x02)
        #expect(try plan(part, "CTRL5_C", ["ST_G=positive", "ST_XL=positive"], current: 0x00).value == 0x05)
        #expect(try line(part, "CTRL5_C", 0x0E).hasSuffix("ST_G=negative, ST_XL=negative"))
        #expect(try line(part, "CTRL5_C", 0x08).hasSuffix("ST_G=2, ST_XL=normal"))
    }

    @Test func refusals() throws {
        #expect(throws: RegisterEditError.readOnly("WHO_AM_I", address: 0x75, part: "MPU-6050", access: .readOnly)) {
            try plan("mpu6050", "WHO_AM_I", ["0x12"])
        }
        #expect(throws: RegisterEditError.readOnly("INT_STATUS", address: 0x3A, part: "MPU-6050", access: .readToClear)) {
            try plan("mpu6050", "INT_STATUS", ["0"])
        }
        #expect(throws: RegisterEditError.valueOutOfRange(field: "AFS_SEL", register: "ACCEL_CONFIG", value: "4", maximum: 3,
                                                          meanings: [0: "±2 g", 1: "±4 g", 2: "±8 g", 3: "±16 g"])) {
            try plan("mpu6050", "ACCEL_CONFIG", ["AFS_SEL=4"])
        }
        #expect(throws: RegisterEditError.valueOutOfRange(field: nil, register: "ACCEL_CONFIG", value: "256", maximum: 255, meanings: [:])) {
            try plan("mpu6050", "ACCEL_CONFIG", ["256"])
        }
        #expect(throws: RegisterEditError.needsForce(register: "PWR_MGMT_1", fields: ["DEVICE_RESET (reset)"])) {
            try plan("mpu6050", "PWR_MGMT_1", ["DEVICE_RESET=1"], current: 0x40)
        }
        #expect(throws: RegisterEditError.needsForce(register: "PWR_MGMT_1", fields: ["SLEEP (power)"])) {
            try plan("mpu6050", "PWR_MGMT_1", ["0x00"], current: 0x40)
        }
        #expect(throws: RegisterEditError.needsForce(register: "CTRL3_C", fields: ["SW_RESET (reset)"])) {
            try plan("lsm6dso", "CTRL3_C", ["0x05"], current: 0x04)
        }
        #expect(throws: RegisterEditError.needsForce(register: "CTRL4_C", fields: ["I2C_DISABLE (interface)"])) {
            try plan("lsm6ds3trc", "CTRL4_C", ["I2C_DISABLE=1"])
        }
        #expect(throws: RegisterEditError.undescribedAddress(0x01, part: "MPU-6050")) { try plan("mpu6050", "0x01", ["5"]) }
        #expect(throws: RegisterEditError.unknownRegister("FOO", part: "MPU-6050")) { try plan("mpu6050", "FOO", ["5"]) }
        #expect(throws: RegisterEditError.unknownField("FOO", register: "ACCEL_CONFIG", fields: ["XA_ST", "YA_ST", "ZA_ST", "AFS_SEL"])) {
            try plan("mpu6050", "ACCEL_CONFIG", ["FOO=1"])
        }
        // With force: the reset goes through, and the plan says so.
        #expect(try plan("mpu6050", "PWR_MGMT_1", ["DEVICE_RESET=1"], current: 0x40, force: true).triggersReset)
        #expect(try plan("mpu6050", "0x01", ["5"], force: true).value == 5)
    }

    /// A negative address is no register; `UInt8(-1)` used to trap (`plumb regs get -1`).
    @Test func negativeAddressesAreUnknownRegisters() {
        for text in ["-1", "0x-1", "-0b1", "256"] {
            #expect(throws: RegisterEditError.unknownRegister(text, part: "MPU-6050")) { try plan("mpu6050", text, ["5"]) }
        }
    }
}

/// A bus that must not be used: decoding and planning never touch it.
private final class NoBus: I2CBus {
    var path: String { "no bus" }
    func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
        Issue.record("unexpected bus transfer")
    }
}
