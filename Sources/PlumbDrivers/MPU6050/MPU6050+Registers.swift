/// The MPU-6050 family's registers: addresses, fields, reset values and meanings, as data.
///
/// Sources: MPU-6000/MPU-6050 Register Map and Descriptions rev 4.2 (RM-MPU-6000A-00) §3–§4;
/// MPU-9250 Register Map and Descriptions rev 1.4 (RM-MPU-9250A-00) §3 Table 1 and §4, which is
/// the MPU-6500 map plus the magnetometer; the Linux driver `inv_mpu_iio.h` for the bit names.
/// The same rows drive the driver (`MPU6050.Register`), the emulator's register file and
/// `plumb regs`.
extension MPU6050 {
    /// Register addresses (datasheet names in the doc comments).
    public enum Register {
        /// SELF_TEST_X_GYRO (0x00), MPU-6500 generation: factory self-test code.
        public static let selfTestXGyro: UInt8 = 0x00
        /// XA_OFFS_H (0x06), MPU-6050 generation: accelerometer offsets, 2-byte stride.
        public static let accelOffset6050: UInt8 = 0x06
        /// SELF_TEST_X (0x0D) on the MPU-6050; SELF_TEST_X_ACCEL on the MPU-6500.
        public static let selfTestX: UInt8 = 0x0D
        /// SELF_TEST_A (0x10), MPU-6050 only.
        public static let selfTestA: UInt8 = 0x10
        /// XG_OFFS_USRH (0x13): gyroscope offsets, 2-byte stride, both generations.
        public static let gyroOffset: UInt8 = 0x13
        /// SMPLRT_DIV (0x19).
        public static let sampleRateDivider: UInt8 = 0x19
        /// CONFIG (0x1A).
        public static let config: UInt8 = 0x1A
        /// GYRO_CONFIG (0x1B).
        public static let gyroConfig: UInt8 = 0x1B
        /// ACCEL_CONFIG (0x1C).
        public static let accelConfig: UInt8 = 0x1C
        /// ACCEL_CONFIG_2 (0x1D), MPU-6500 generation.
        public static let accelConfig2: UInt8 = 0x1D
        /// FIFO_EN (0x23).
        public static let fifoEnable: UInt8 = 0x23
        /// INT_PIN_CFG (0x37).
        public static let intPinConfig: UInt8 = 0x37
        /// INT_ENABLE (0x38).
        public static let intEnable: UInt8 = 0x38
        /// INT_STATUS (0x3A), cleared by reading.
        public static let intStatus: UInt8 = 0x3A
        /// ACCEL_XOUT_H (0x3B): the 14-byte block accel, temp, gyro.
        public static let accelXOutH: UInt8 = 0x3B
        /// TEMP_OUT_H (0x41).
        public static let tempOutH: UInt8 = 0x41
        /// GYRO_XOUT_H (0x43).
        public static let gyroXOutH: UInt8 = 0x43
        /// SIGNAL_PATH_RESET (0x68).
        public static let signalPathReset: UInt8 = 0x68
        /// USER_CTRL (0x6A).
        public static let userControl: UInt8 = 0x6A
        /// PWR_MGMT_1 (0x6B).
        public static let powerManagement1: UInt8 = 0x6B
        /// PWR_MGMT_2 (0x6C).
        public static let powerManagement2: UInt8 = 0x6C
        /// FIFO_COUNTH (0x72), big-endian byte count with FIFO_COUNTL.
        public static let fifoCountH: UInt8 = 0x72
        /// FIFO_R_W (0x74): reading pops the FIFO; the pointer does not advance.
        public static let fifoData: UInt8 = 0x74
        /// WHO_AM_I (0x75).
        public static let whoAmI: UInt8 = 0x75
        /// XA_OFFSET_H (0x77), MPU-6500 generation: accelerometer offsets, 3-byte stride.
        public static let accelOffset6500: UInt8 = 0x77
    }

    /// Bits used by the driver (Register Map rev 4.2 §4; `inv_mpu_iio.h`).
    public enum Bits {
        /// PWR_MGMT_1.H_RESET (bit 7): resets every register; self-clearing.
        public static let deviceReset: UInt8 = 0x80
        /// PWR_MGMT_1.SLEEP (bit 6).
        public static let sleep: UInt8 = 0x40
        /// PWR_MGMT_1.CLKSEL = 1: PLL with the X-gyro reference (MPU-6050 generation); on the
        /// MPU-6500 generation "auto selects the best available clock source".
        public static let clockPLL: UInt8 = 0x01
        /// PWR_MGMT_1.CLKSEL = 0: the internal 8 MHz (MPU-6050) / 20 MHz (MPU-6500) oscillator.
        public static let clockInternal: UInt8 = 0x00
        /// PWR_MGMT_1.CLKSEL mask (bits 2:0).
        public static let clockSelectMask: UInt8 = 0x07
        /// PWR_MGMT_2 STBY_XG | STBY_YG | STBY_ZG (bits 2:0): the gyroscope in standby.
        public static let standbyGyro: UInt8 = 0x07
        /// SIGNAL_PATH_RESET: GYRO_RESET | ACCEL_RESET | TEMP_RESET.
        public static let signalPathResetAll: UInt8 = 0x07
        /// USER_CTRL.FIFO_EN (bit 6).
        public static let userFIFOEnable: UInt8 = 0x40
        /// USER_CTRL.I2C_MST_EN (bit 5): the chip masters its auxiliary I2C bus; while set, the
        /// host cannot reach that bus through I2C_BYPASS_EN (Register Map rev 4.2, register 55).
        public static let userI2CMaster: UInt8 = 0x20
        /// USER_CTRL.FIFO_RESET (bit 2), self-clearing.
        public static let userFIFOReset: UInt8 = 0x04
        /// USER_CTRL.SIG_COND_RESET (bit 0), self-clearing.
        public static let userSignalConditionReset: UInt8 = 0x01
        /// FIFO_EN.TEMP_FIFO_EN (bit 7).
        public static let fifoTemperature: UInt8 = 0x80
        /// FIFO_EN.XG/YG/ZG_FIFO_EN (bits 6:4).
        public static let fifoGyro: UInt8 = 0x70
        /// FIFO_EN.ACCEL_FIFO_EN (bit 3).
        public static let fifoAccel: UInt8 = 0x08
        /// INT_ENABLE / INT_STATUS DATA_RDY (bit 0).
        public static let dataReady: UInt8 = 0x01
        /// INT_ENABLE / INT_STATUS FIFO_OFLOW (bit 4).
        public static let fifoOverflow: UInt8 = 0x10
        /// INT_PIN_CFG.INT_LEVEL (bit 7): 1 = active low.
        public static let intActiveLow: UInt8 = 0x80
        /// INT_PIN_CFG.INT_OPEN (bit 6): 1 = open drain.
        public static let intOpenDrain: UInt8 = 0x40
        /// INT_PIN_CFG.LATCH_INT_EN (bit 5): 1 = held until cleared, 0 = 50 µs pulse.
        public static let intLatch: UInt8 = 0x20
        /// INT_PIN_CFG.INT_RD_CLEAR (bit 4): 1 = any read clears, 0 = only reading INT_STATUS.
        public static let intReadClear: UInt8 = 0x10
        /// INT_PIN_CFG.I2C_BYPASS_EN (bit 1): with USER_CTRL.I2C_MST_EN clear, the auxiliary I2C
        /// bus is joined to the host's bus, so the chips on it answer there ("the host application
        /// processor will be able to directly access the auxiliary I2C bus", Register Map rev 4.2,
        /// register 55; Linux `INV_MPU6050_BIT_BYPASS_EN`).
        public static let i2cBypass: UInt8 = 0x02
        /// CONFIG.FIFO_MODE (bit 6), MPU-6500 generation: 1 = drop new data when full.
        public static let fifoModeStopWhenFull: UInt8 = 0x40
        /// GYRO_CONFIG / ACCEL_CONFIG self-test bits 7:5 (X, Y, Z).
        public static let selfTestXYZ: UInt8 = 0xE0
    }

    static let dlpfMeanings: [UInt8: String] = [
        0: "260 Hz accel / 256 Hz gyro, gyro at 8 kHz", 1: "184 / 188 Hz", 2: "94 / 98 Hz", 3: "44 / 42 Hz",
        4: "21 / 20 Hz", 5: "10 / 10 Hz", 6: "5 / 5 Hz", 7: "reserved (gyro at 8 kHz)",
    ]

    static let extSyncMeanings: [UInt8: String] = [
        0: "FSYNC input disabled", 1: "FSYNC in TEMP_OUT_L bit 0", 2: "FSYNC in GYRO_XOUT_L bit 0", 3: "FSYNC in GYRO_YOUT_L bit 0",
        4: "FSYNC in GYRO_ZOUT_L bit 0", 5: "FSYNC in ACCEL_XOUT_L bit 0", 6: "FSYNC in ACCEL_YOUT_L bit 0", 7: "FSYNC in ACCEL_ZOUT_L bit 0",
    ]

    /// INT_ENABLE (`enable`) or INT_STATUS fields per generation. Bit 3 is the auxiliary I2C
    /// master's interrupt only on the MPU-6050 generation (Register Map rev 4.2, registers 56 and 58): on
    /// the MPU-6500 generation it is the FSYNC interrupt (RM-MPU-9250A-00 rev 1.4 INT_ENABLE /
    /// INT_STATUS, as Snowda/MPU9250 `MPU9250.h` writes it from that map: `FSYNC_INT_EN_MASK`
    /// and `FSYNC_INT_MASK` 0x08, `WOM_EN_MASK` 0x40). The ICM-206xx parts put wake-on-motion in
    /// bits 7:5 (Linux `inv_mpu_iio.h`: `INV_ICM20608_BIT_WOM_INT_EN` / `_WOM_INT` =
    /// GENMASK(7, 5), against `INV_MPU6500_BIT_WOM_INT_EN` BIT(6)); their bit 3 is left unnamed,
    /// no source read here gives it.
    static func interruptFields(_ generation: Generation, enable: Bool) -> [FieldDescription] {
        let suffix = enable ? "_EN" : "_INT"
        var fields: [FieldDescription]
        switch generation {
        case .mpu6050:
            fields = [.bit(enable ? "MOT_EN" : "MOT_INT", 6), .bit("FIFO_OFLOW" + suffix, 4), .bit(enable ? "I2C_MST_INT_EN" : "I2C_MST_INT", 3)]
        case .mpu6500:
            fields = [.bit(enable ? "WOM_EN" : "WOM_INT", 6), .bit("FIFO_OFLOW" + suffix, 4), .bit(enable ? "FSYNC_INT_EN" : "FSYNC_INT", 3)]
        case .icm:
            fields = [FieldDescription(enable ? "WOM_INT_EN" : "WOM_INT", mask: 0xE0, summary: "wake-on-motion, per axis"), .bit("FIFO_OFLOW" + suffix, 4)]
        }
        fields.append(.bit(enable ? "DATA_RDY_EN" : "DATA_RDY_INT", 0))
        return fields
    }

    /// The register map of one generation (`.mpu6050` or `.mpu6500`; the ICM-206xx parts share
    /// the MPU-6500 layout for every register this driver touches).
    ///
    /// Reset values: RM-MPU-6000A-00 rev 4.2 §3 ("0x00 for all registers other than" PWR_MGMT_1
    /// 0x40 and WHO_AM_I 0x68); RM-MPU-9250A-00 rev 1.4 §3 (PWR_MGMT_1 0x01 and WHO_AM_I only,
    /// so CONFIG resets to 0x00 on the MPU-6500 generation); ICM-20602 / ICM-20608 / ICM-20689
    /// datasheets §8–§9 register maps (CONFIG 0x80, PWR_MGMT_1 0x41: asleep, auto clock; for the
    /// ICM-20602 the same two values are quoted from DS-000176 p. 31 in PX4's ICM-20602 driver,
    /// which polls for them after DEVICE_RESET). The MPU-9250 statement was checked against the
    /// stored rev 1.4 page; the ICM datasheets' own pages were not opened here.
    ///
    /// - Parameters:
    ///   - whoAmI: the part's WHO_AM_I, the reset value of register 0x75. Default 0x68.
    ///   - part: the part's name, the meaning of that value. Default the generation's name.
    public static func registerMap(_ generation: Generation, whoAmI: UInt8 = 0x68, part: String? = nil) -> RegisterMap {
        let is6500 = generation != .mpu6050
        let isICM = generation == .icm
        var rows: [RegisterDescription] = []
        if is6500 {
            for (i, axis) in ["X", "Y", "Z"].enumerated() {
                rows.append(RegisterDescription("SELF_TEST_\(axis)_GYRO", UInt8(i), .readWrite, summary: "factory self-test code, \(axis) gyroscope").factoryProgrammed())
                rows.append(RegisterDescription("SELF_TEST_\(axis)_ACCEL", 0x0D + UInt8(i), .readWrite, summary: "factory self-test code, \(axis) accelerometer").factoryProgrammed())
            }
            for (i, axis) in ["X", "Y", "Z"].enumerated() {
                // RM-MPU-9250A-00 rev 1.4 §4.39: XA_OFFSET_H/L at 119/120, YA at 122/123, ZA at 125/126.
                rows.append(.init("\(axis)A_OFFSET_H", 0x77 + UInt8(3 * i), .readWrite, summary: "\(axis) accel offset [14:7], ±16 g, 0.98 mg steps"))
                rows.append(.init("\(axis)A_OFFSET_L", 0x78 + UInt8(3 * i), .readWrite, summary: "\(axis) accel offset [6:0] in bits 7:1; bit 0 reserved",
                                  fields: [FieldDescription("OFFSET", mask: 0xFE)]))
            }
            rows.append(.init("ACCEL_CONFIG_2", 0x1D, .readWrite, summary: "accelerometer low-pass filter",
                              fields: [.bit("ACCEL_FCHOICE_B", 3), FieldDescription("A_DLPF_CFG", mask: 0x07)]))
        } else {
            for (i, axis) in ["X", "Y", "Z"].enumerated() {
                rows.append(RegisterDescription("SELF_TEST_\(axis)", 0x0D + UInt8(i), .readWrite, summary: "factory self-test codes, \(axis)",
                                                fields: [FieldDescription("\(axis)A_TEST_HI", mask: 0xE0), FieldDescription("\(axis)G_TEST", mask: 0x1F)]).factoryProgrammed())
                rows.append(.init("\(axis)A_OFFS_H", 0x06 + UInt8(2 * i), .readWrite, summary: "\(axis) accel offset high byte"))
                rows.append(.init("\(axis)A_OFFS_L", 0x07 + UInt8(2 * i), .readWrite, summary: "\(axis) accel offset low byte; bit 0 reserved"))
            }
            rows.append(RegisterDescription("SELF_TEST_A", 0x10, .readWrite, summary: "factory self-test codes, accelerometer low bits",
                                            fields: [FieldDescription("XA_TEST_LO", mask: 0x30), FieldDescription("YA_TEST_LO", mask: 0x0C),
                                                     FieldDescription("ZA_TEST_LO", mask: 0x03)]).factoryProgrammed())
        }
        for (i, axis) in ["X", "Y", "Z"].enumerated() {
            rows.append(.init("\(axis)G_OFFS_USRH", 0x13 + UInt8(2 * i), .readWrite, summary: "\(axis) gyro offset high byte, ±1000 °/s scale"))
            rows.append(.init("\(axis)G_OFFS_USRL", 0x14 + UInt8(2 * i), .readWrite, summary: "\(axis) gyro offset low byte"))
        }
        rows += [
            .init("SMPLRT_DIV", 0x19, .readWrite, summary: "sample rate = internal rate / (1 + SMPLRT_DIV)",
                  fields: [FieldDescription("SMPLRT_DIV", mask: 0xFF)]),
            .init("CONFIG", 0x1A, .readWrite, reset: isICM ? 0x80 : 0x00, summary: "frame sync and digital low-pass filter",
                  fields: (is6500 ? [FieldDescription("FIFO_MODE", mask: 0x40, summary: "1: drop new samples when the FIFO is full",
                                                      meanings: [0: "overwrite oldest when full", 1: "drop new samples when full"])] : [])
                    + [FieldDescription("EXT_SYNC_SET", mask: 0x38, meanings: extSyncMeanings),
                       FieldDescription("DLPF_CFG", mask: 0x07, meanings: dlpfMeanings)]),
            .init("GYRO_CONFIG", 0x1B, .readWrite, summary: "gyroscope range and self-test",
                  fields: [.bit("XG_ST", 7), .bit("YG_ST", 6), .bit("ZG_ST", 5),
                           FieldDescription("FS_SEL", mask: 0x18, meanings: [0: "±250 °/s", 1: "±500 °/s", 2: "±1000 °/s", 3: "±2000 °/s"])]
                    + (is6500 ? [FieldDescription("FCHOICE_B", mask: 0x03)] : [])),
            .init("ACCEL_CONFIG", 0x1C, .readWrite, summary: "accelerometer range and self-test",
                  fields: [.bit("XA_ST", 7), .bit("YA_ST", 6), .bit("ZA_ST", 5),
                           FieldDescription("AFS_SEL", mask: 0x18, meanings: [0: "±2 g", 1: "±4 g", 2: "±8 g", 3: "±16 g"])]),
            .init("FIFO_EN", 0x23, .readWrite, summary: "what the sampler writes to the FIFO",
                  fields: [.bit("TEMP_FIFO_EN", 7), .bit("XG_FIFO_EN", 6), .bit("YG_FIFO_EN", 5), .bit("ZG_FIFO_EN", 4),
                           .bit("ACCEL_FIFO_EN", 3), .bit("SLV2_FIFO_EN", 2), .bit("SLV1_FIFO_EN", 1), .bit("SLV0_FIFO_EN", 0)]),
            .init("INT_PIN_CFG", 0x37, .readWrite, summary: "interrupt pin electrical behaviour",
                  fields: [FieldDescription("INT_LEVEL", mask: 0x80, meanings: [0: "active high", 1: "active low"]),
                           FieldDescription("INT_OPEN", mask: 0x40, meanings: [0: "push-pull", 1: "open drain"]),
                           FieldDescription("LATCH_INT_EN", mask: 0x20, meanings: [0: "50 µs pulse", 1: "held until cleared"]),
                           FieldDescription("INT_RD_CLEAR", mask: 0x10, meanings: [0: "cleared by reading INT_STATUS", 1: "cleared by any read"]),
                           .bit("FSYNC_INT_LEVEL", 3), .bit("FSYNC_INT_EN", 2), .bit("I2C_BYPASS_EN", 1), .bit("CLKOUT_EN", 0)]),
            .init("INT_ENABLE", 0x38, .readWrite, summary: "interrupt sources",
                  fields: interruptFields(generation, enable: true)),
            .init("INT_STATUS", 0x3A, .readToClear, summary: "interrupt status, cleared by reading",
                  fields: interruptFields(generation, enable: false)),
        ]
        let outputs = ["ACCEL_XOUT", "ACCEL_YOUT", "ACCEL_ZOUT", "TEMP_OUT", "GYRO_XOUT", "GYRO_YOUT", "GYRO_ZOUT"]
        for (i, name) in outputs.enumerated() {
            rows.append(.init(name + "_H", 0x3B + UInt8(2 * i), .readOnly, summary: "\(name) high byte (big-endian int16)"))
            rows.append(.init(name + "_L", 0x3C + UInt8(2 * i), .readOnly, summary: "\(name) low byte"))
        }
        rows += [
            .init("SIGNAL_PATH_RESET", 0x68, .readWrite, summary: "resets the sensors' digital signal paths",
                  fields: [.bit("GYRO_RESET", 2, selfClearing: true), .bit("ACCEL_RESET", 1, selfClearing: true), .bit("TEMP_RESET", 0, selfClearing: true)]),
            .init("USER_CTRL", 0x6A, .readWrite, summary: "FIFO, I2C master and signal-path control",
                  fields: [.bit("DMP_EN", 7), .bit("FIFO_EN", 6), .bit("I2C_MST_EN", 5),
                           .bit("I2C_IF_DIS", 4, summary: "SPI only: the I2C interface stops answering").guarded(.interface),
                           .bit("DMP_RESET", 3, selfClearing: true), .bit("FIFO_RESET", 2, selfClearing: true),
                           .bit("I2C_MST_RESET", 1, selfClearing: true), .bit("SIG_COND_RESET", 0, selfClearing: true)]),
            // RM-MPU-6000A-00 rev 4.2 §3: PWR_MGMT_1 resets to 0x40 (asleep); RM-MPU-9250A-00 §3: 0x01;
            // ICM-206xx: 0x41.
            .init("PWR_MGMT_1", 0x6B, .readWrite, reset: isICM ? 0x41 : is6500 ? 0x01 : 0x40, summary: "reset, sleep and clock source",
                  fields: [.bit("DEVICE_RESET", 7, selfClearing: true), .bit("SLEEP", 6).guarded(.power), .bit("CYCLE", 5).guarded(.power)]
                    + (is6500 ? [.bit("GYRO_STANDBY", 4).guarded(.power)] : [])
                    + [.bit("TEMP_DIS", 3).guarded(.power),
                       FieldDescription("CLKSEL", mask: 0x07, meanings: is6500
                                        ? [0: "internal 20 MHz", 1: "auto (PLL when ready)", 2: "auto (PLL when ready)", 3: "auto (PLL when ready)",
                                           4: "auto (PLL when ready)", 5: "auto (PLL when ready)", 6: "internal 20 MHz", 7: "stopped"]
                                        : [0: "internal 8 MHz", 1: "PLL, X gyro reference", 2: "PLL, Y gyro reference", 3: "PLL, Z gyro reference",
                                           4: "PLL, external 32.768 kHz", 5: "PLL, external 19.2 MHz", 6: "reserved", 7: "stopped"]).guarded(.power)]),
            .init("PWR_MGMT_2", 0x6C, .readWrite, summary: "per-axis standby",
                  fields: (is6500 ? [] : [FieldDescription("LP_WAKE_CTRL", mask: 0xC0, meanings: [0: "1.25 Hz", 1: "5 Hz", 2: "20 Hz", 3: "40 Hz"]).guarded(.power)])
                    + [.bit("STBY_XA", 5).guarded(.power), .bit("STBY_YA", 4).guarded(.power), .bit("STBY_ZA", 3).guarded(.power),
                       .bit("STBY_XG", 2).guarded(.power), .bit("STBY_YG", 1).guarded(.power), .bit("STBY_ZG", 0).guarded(.power)]),
            .init("FIFO_COUNTH", 0x72, .readOnly, summary: "FIFO byte count, high bits"),
            .init("FIFO_COUNTL", 0x73, .readOnly, summary: "FIFO byte count, low byte"),
            .init("FIFO_R_W", 0x74, .readWrite, summary: "FIFO data; reading pops one byte").reading("reading pops the FIFO"),
            .init("WHO_AM_I", 0x75, .readOnly, reset: whoAmI, summary: "identity",
                  fields: [FieldDescription("WHO_AM_I", mask: 0xFF, meanings: [whoAmI: part ?? (is6500 ? "MPU-6500" : "MPU-6050")])]),
        ]
        if !isICM {
            // The auxiliary I2C master: RM-MPU-6000A-00 rev 4.2 §3 and RM-MPU-9250A-00 rev 1.4 §3
            // (registers 36–54, 73–96, 99–103). The ICM-206xx parts have no I2C master.
            rows.append(.init("I2C_MST_CTRL", 0x24, .readWrite, summary: "auxiliary I2C master clock and options",
                              fields: [.bit("MULT_MST_EN", 7), .bit("WAIT_FOR_ES", 6), .bit("SLV_3_FIFO_EN", 5), .bit("I2C_MST_P_NSR", 4),
                                       FieldDescription("I2C_MST_CLK", mask: 0x0F)]))
            for slave in 0..<4 {
                let base = 0x25 + UInt8(3 * slave)
                rows.append(.init("I2C_SLV\(slave)_ADDR", base, .readWrite, summary: "auxiliary slave \(slave) address",
                                  fields: [FieldDescription("I2C_SLV\(slave)_RNW", mask: 0x80, meanings: [0: "write", 1: "read"]),
                                           FieldDescription("I2C_ID_\(slave)", mask: 0x7F)]))
                rows.append(.init("I2C_SLV\(slave)_REG", base + 1, .readWrite, summary: "auxiliary slave \(slave) register"))
                rows.append(.init("I2C_SLV\(slave)_CTRL", base + 2, .readWrite, summary: "auxiliary slave \(slave) transfer",
                                  fields: [.bit("I2C_SLV\(slave)_EN", 7), .bit("I2C_SLV\(slave)_BYTE_SW", 6), .bit("I2C_SLV\(slave)_REG_DIS", 5),
                                           .bit("I2C_SLV\(slave)_GRP", 4), FieldDescription("I2C_SLV\(slave)_LEN", mask: 0x0F)]))
                rows.append(.init("I2C_SLV\(slave)_DO", 0x63 + UInt8(slave), .readWrite, summary: "data written to auxiliary slave \(slave)"))
            }
            rows += [
                .init("I2C_SLV4_ADDR", 0x31, .readWrite, summary: "auxiliary slave 4 address",
                      fields: [FieldDescription("I2C_SLV4_RNW", mask: 0x80, meanings: [0: "write", 1: "read"]), FieldDescription("I2C_ID_4", mask: 0x7F)]),
                .init("I2C_SLV4_REG", 0x32, .readWrite, summary: "auxiliary slave 4 register"),
                .init("I2C_SLV4_DO", 0x33, .readWrite, summary: "data written to auxiliary slave 4"),
                .init("I2C_SLV4_CTRL", 0x34, .readWrite, summary: "auxiliary slave 4 transfer",
                      fields: [.bit("I2C_SLV4_EN", 7), .bit("I2C_SLV4_INT_EN", 6), .bit("I2C_SLV4_REG_DIS", 5), FieldDescription("I2C_MST_DLY", mask: 0x1F)]),
                .init("I2C_SLV4_DI", 0x35, .readOnly, summary: "data read from auxiliary slave 4"),
                .init("I2C_MST_STATUS", 0x36, .readToClear, summary: "auxiliary I2C master status, cleared by reading",
                      fields: [.bit("PASS_THROUGH", 7), .bit("I2C_SLV4_DONE", 6), .bit("I2C_LOST_ARB", 5), .bit("I2C_SLV4_NACK", 4),
                               .bit("I2C_SLV3_NACK", 3), .bit("I2C_SLV2_NACK", 2), .bit("I2C_SLV1_NACK", 1), .bit("I2C_SLV0_NACK", 0)]),
                .init("I2C_MST_DELAY_CTRL", 0x67, .readWrite, summary: "auxiliary sensor data shadowing and slave delays",
                      fields: [.bit("DELAY_ES_SHADOW", 7), .bit("I2C_SLV4_DLY_EN", 4), .bit("I2C_SLV3_DLY_EN", 3), .bit("I2C_SLV2_DLY_EN", 2),
                               .bit("I2C_SLV1_DLY_EN", 1), .bit("I2C_SLV0_DLY_EN", 0)]),
            ]
            for i in 0..<24 {
                let n = i < 10 ? "0\(i)" : "\(i)"
                rows.append(.init("EXT_SENS_DATA_\(n)", 0x49 + UInt8(i), .readOnly, summary: "data read from the auxiliary sensors, byte \(i)"))
            }
        }
        if is6500 {
            // RM-MPU-9250A-00 rev 1.4 §4.9, §4.10, §4.33: wake-on-motion.
            rows += [
                .init("LP_ACCEL_ODR", 0x1E, .readWrite, summary: "low-power accelerometer wake-up rate",
                      fields: [FieldDescription("LPOSC_CLKSEL", mask: 0x0F, meanings: [0: "0.24 Hz", 1: "0.49 Hz", 2: "0.98 Hz", 3: "1.95 Hz", 4: "3.91 Hz",
                                                                                      5: "7.81 Hz", 6: "15.63 Hz", 7: "31.25 Hz", 8: "62.5 Hz", 9: "125 Hz",
                                                                                      10: "250 Hz", 11: "500 Hz"])]),
                .init("WOM_THR", 0x1F, .readWrite, summary: "wake-on-motion threshold, 4 mg per LSB"),
                .init("MOT_DETECT_CTRL", 0x69, .readWrite, summary: "wake-on-motion logic",
                      fields: [.bit("ACCEL_INTEL_EN", 7), FieldDescription("ACCEL_INTEL_MODE", mask: 0x40, meanings: [0: "compare to the first sample", 1: "compare to the previous sample"])]),
            ]
        }
        return RegisterMap(name: part ?? (is6500 ? "MPU-6500" : "MPU-6050"), registers: rows)
    }
}
