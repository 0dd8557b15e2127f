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
        /// PWR_MGMT_1.CLKSEL = 1: PLL with the X-gyro reference.
        public static let clockPLL: UInt8 = 0x01
        /// SIGNAL_PATH_RESET: GYRO_RESET | ACCEL_RESET | TEMP_RESET.
        public static let signalPathResetAll: UInt8 = 0x07
        /// USER_CTRL.FIFO_EN (bit 6).
        public static let userFIFOEnable: UInt8 = 0x40
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
        /// CONFIG.FIFO_MODE (bit 6), MPU-6500 generation: 1 = drop new data when full.
        public static let fifoModeStopWhenFull: UInt8 = 0x40
        /// GYRO_CONFIG / ACCEL_CONFIG self-test bits 7:5 (X, Y, Z).
        public static let selfTestXYZ: UInt8 = 0xE0
    }

    static let dlpfMeanings: [UInt8: String] = [
        0: "260 Hz accel / 256 Hz gyro, gyro at 8 kHz", 1: "184 / 188 Hz", 2: "94 / 98 Hz", 3: "44 / 42 Hz",
        4: "21 / 20 Hz", 5: "10 / 10 Hz", 6: "5 / 5 Hz", 7: "reserved (gyro at 8 kHz)",
    ]

    /// The register map of one generation (`.mpu6050` or `.mpu6500`; the ICM-206xx parts share
    /// the MPU-6500 layout for every register this driver touches).
    public static func registerMap(_ generation: Generation) -> RegisterMap {
        let is6500 = generation != .mpu6050
        var rows: [RegisterDescription] = []
        if is6500 {
            for (i, axis) in ["X", "Y", "Z"].enumerated() {
                rows.append(.init("SELF_TEST_\(axis)_GYRO", UInt8(i), .readWrite, summary: "factory self-test code, \(axis) gyroscope"))
                rows.append(.init("SELF_TEST_\(axis)_ACCEL", 0x0D + UInt8(i), .readWrite, summary: "factory self-test code, \(axis) accelerometer"))
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
                rows.append(.init("SELF_TEST_\(axis)", 0x0D + UInt8(i), .readWrite, summary: "factory self-test codes, \(axis)",
                                  fields: [FieldDescription("\(axis)A_TEST_HI", mask: 0xE0), FieldDescription("\(axis)G_TEST", mask: 0x1F)]))
                rows.append(.init("\(axis)A_OFFS_H", 0x06 + UInt8(2 * i), .readWrite, summary: "\(axis) accel offset high byte"))
                rows.append(.init("\(axis)A_OFFS_L", 0x07 + UInt8(2 * i), .readWrite, summary: "\(axis) accel offset low byte; bit 0 reserved"))
            }
            rows.append(.init("SELF_TEST_A", 0x10, .readWrite, summary: "factory self-test codes, accelerometer low bits",
                              fields: [FieldDescription("XA_TEST_LO", mask: 0x30), FieldDescription("YA_TEST_LO", mask: 0x0C), FieldDescription("ZA_TEST_LO", mask: 0x03)]))
        }
        for (i, axis) in ["X", "Y", "Z"].enumerated() {
            rows.append(.init("\(axis)G_OFFS_USRH", 0x13 + UInt8(2 * i), .readWrite, summary: "\(axis) gyro offset high byte, ±1000 °/s scale"))
            rows.append(.init("\(axis)G_OFFS_USRL", 0x14 + UInt8(2 * i), .readWrite, summary: "\(axis) gyro offset low byte"))
        }
        rows += [
            .init("SMPLRT_DIV", 0x19, .readWrite, summary: "sample rate = internal rate / (1 + SMPLRT_DIV)",
                  fields: [FieldDescription("SMPLRT_DIV", mask: 0xFF)]),
            .init("CONFIG", 0x1A, .readWrite, reset: is6500 ? 0x80 : 0x00, summary: "frame sync and digital low-pass filter",
                  fields: (is6500 ? [FieldDescription.bit("FIFO_MODE", 6, summary: "1: drop new samples when the FIFO is full")] : [])
                    + [FieldDescription("EXT_SYNC_SET", mask: 0x38), FieldDescription("DLPF_CFG", mask: 0x07, meanings: dlpfMeanings)]),
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
                  fields: [.bit(is6500 ? "WOM_EN" : "MOT_EN", 6), .bit("FIFO_OFLOW_EN", 4), .bit("I2C_MST_INT_EN", 3), .bit("DATA_RDY_EN", 0)]),
            .init("INT_STATUS", 0x3A, .readToClear, summary: "interrupt status, cleared by reading",
                  fields: [.bit(is6500 ? "WOM_INT" : "MOT_INT", 6), .bit("FIFO_OFLOW_INT", 4), .bit("I2C_MST_INT", 3), .bit("DATA_RDY_INT", 0)]),
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
                  fields: [.bit("DMP_EN", 7), .bit("FIFO_EN", 6), .bit("I2C_MST_EN", 5), .bit("I2C_IF_DIS", 4),
                           .bit("DMP_RESET", 3, selfClearing: true), .bit("FIFO_RESET", 2, selfClearing: true),
                           .bit("I2C_MST_RESET", 1, selfClearing: true), .bit("SIG_COND_RESET", 0, selfClearing: true)]),
            // RM-MPU-6000A-00 rev 4.2 §3: PWR_MGMT_1 resets to 0x40 (asleep); RM-MPU-9250A-00 §3: 0x01.
            .init("PWR_MGMT_1", 0x6B, .readWrite, reset: is6500 ? 0x01 : 0x40, summary: "reset, sleep and clock source",
                  fields: [.bit("DEVICE_RESET", 7, selfClearing: true), .bit("SLEEP", 6), .bit("CYCLE", 5),
                           .bit(is6500 ? "GYRO_STANDBY" : "RESERVED4", 4), .bit("TEMP_DIS", 3),
                           FieldDescription("CLKSEL", mask: 0x07, meanings: [0: "internal 8 MHz (20 MHz on MPU-6500)", 1: "PLL, X gyro reference", 7: "stopped"])]),
            .init("PWR_MGMT_2", 0x6C, .readWrite, summary: "per-axis standby",
                  fields: [FieldDescription("LP_WAKE_CTRL", mask: 0xC0), .bit("STBY_XA", 5), .bit("STBY_YA", 4), .bit("STBY_ZA", 3),
                           .bit("STBY_XG", 2), .bit("STBY_YG", 1), .bit("STBY_ZG", 0)]),
            .init("FIFO_COUNTH", 0x72, .readOnly, summary: "FIFO byte count, high bits"),
            .init("FIFO_COUNTL", 0x73, .readOnly, summary: "FIFO byte count, low byte"),
            .init("FIFO_R_W", 0x74, .readWrite, summary: "FIFO data; reading pops one byte"),
            .init("WHO_AM_I", 0x75, .readOnly, reset: 0x68, summary: "identity"),
        ]
        return RegisterMap(name: is6500 ? "MPU-6500" : "MPU-6050", registers: rows)
    }
}
