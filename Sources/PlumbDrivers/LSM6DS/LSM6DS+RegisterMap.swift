/// The LSM6DS register maps as data, one per generation: what the emulator builds its register
/// file from and what `plumb regs` decodes with.
///
/// Sources: ST-C `lsm6ds3_reg.h`, `lsm6ds3tr-c_reg.h`, `lsm6dso_reg.h` (bit-field structs and
/// enums) and reference/drivers.md §B2. Reset values: CTRL3_C 0x04 (IF_INC on); CTRL9_XL 0x38 and
/// CTRL10_C 0x38 on LSM6DS3 (axis enables), CTRL9_XL 0xE0 on the DSL and DSO generations (DEN
/// axes); everything else 0 (datasheet register tables).
extension LSM6DS {
    /// The register map of `variant` (its generation's rows with its WHO_AM_I).
    public static func registerMap(for variant: Variant) -> RegisterMap {
        var rows = variant.generation == .dso ? dsoRows() : patternRows(variant.generation)
        rows.append(RegisterDescription("WHO_AM_I", 0x0F, .readOnly, reset: variant.whoAmI, summary: "Identity",
                                        fields: [FieldDescription("ID", mask: 0xFF, meanings: [variant.whoAmI: variant.name])]))
        return RegisterMap(name: variant.name, registers: rows)
    }

    // MARK: Value meanings shared by both generations

    static let odrMeanings: [UInt8: String] = [
        0: "power-down", 1: "12.5 Hz", 2: "26 Hz", 3: "52 Hz", 4: "104 Hz", 5: "208 Hz", 6: "416 Hz",
        7: "833 Hz", 8: "1.66 kHz", 9: "3.33 kHz", 10: "6.66 kHz", 11: "1.6 Hz (accelerometer low-power)",
    ]
    static let fsXLMeanings: [UInt8: String] = [0: "±2 g", 1: "±16 g", 2: "±4 g", 3: "±8 g"]
    static let fsGMeanings: [UInt8: String] = [0: "±250 dps", 1: "±500 dps", 2: "±1000 dps", 3: "±2000 dps"]
    static let fifoModeMeanings: [UInt8: String] = [
        0: "bypass", 1: "FIFO (stop when full)", 3: "continuous-to-FIFO", 4: "bypass-to-continuous",
        6: "continuous (overwrite oldest)", 7: "bypass-to-FIFO",
    ]
    /// CTRL5_C ST_XL: 0 normal, 1 positive, 2 negative (3 not allowed).
    static let accelerometerSelfTestMeanings: [UInt8: String] = [0: "normal", 1: "positive", 2: "negative"]
    /// CTRL5_C ST_G: 0 normal, 1 positive, 3 negative; 2 is "not allowed", so it has no meaning
    /// here and `plumb regs` never writes it for "negative". The two self-test fields do not share
    /// a code for the negative sign: ST-C `lsm6ds3_st_g_t`, `lsm6ds3tr_c_st_g_t`, `lsm6dso_st_g_t`
    /// (`*_GY_ST_NEGATIVE = 3`) against `*_st_xl_t` (`*_XL_ST_NEGATIVE = 2`).
    static let gyroscopeSelfTestMeanings: [UInt8: String] = [0: "normal", 1: "positive", 3: "negative"]
    static let decimationMeanings: [UInt8: String] = [
        0: "not in FIFO", 1: "every sample", 2: "every 2nd", 3: "every 3rd", 4: "every 4th",
        5: "every 8th", 6: "every 16th", 7: "every 32nd",
    ]

    static func bits(_ names: [(String, Int)]) -> [FieldDescription] {
        names.map { FieldDescription.bit($0.0, $0.1) }
    }

    /// CTRL4_C's cautions: the gyroscope sleep bit is a power bit; I2C_DISABLE cuts the host off.
    static func control4Cautions(_ fields: [FieldDescription]) -> [FieldDescription] {
        fields.map { f in
            switch f.name {
            case "SLEEP", "SLEEP_G": f.guarded(.power)
            case "I2C_DISABLE": f.guarded(.interface)
            default: f
            }
        }
    }

    static func outputs(gyroscope: String, accelerometer: String) -> [RegisterDescription] {
        var rows: [RegisterDescription] = [
            .init("OUT_TEMP_L", 0x20, .readOnly, summary: "Temperature, low byte (0 = 25 °C)"),
            .init("OUT_TEMP_H", 0x21, .readOnly, summary: "Temperature, high byte"),
        ]
        for (i, axis) in ["X", "Y", "Z"].enumerated() {
            rows.append(.init("OUT\(axis)_L_\(gyroscope)", 0x22 + UInt8(2 * i), .readOnly, summary: "Angular rate \(axis), low byte"))
            rows.append(.init("OUT\(axis)_H_\(gyroscope)", 0x23 + UInt8(2 * i), .readOnly, summary: "Angular rate \(axis), high byte"))
            rows.append(.init("OUT\(axis)_L_\(accelerometer)", 0x28 + UInt8(2 * i), .readOnly, summary: "Acceleration \(axis), low byte"))
            rows.append(.init("OUT\(axis)_H_\(accelerometer)", 0x29 + UInt8(2 * i), .readOnly, summary: "Acceleration \(axis), high byte"))
        }
        return rows
    }

    static func control3() -> RegisterDescription {
        .init("CTRL3_C", 0x12, .readWrite, reset: 0x04, summary: "Reset, boot, interface and pin control", fields: [
            .bit("BOOT", 7, selfClearing: true, summary: "Reboot memory content"),
            .bit("BDU", 6, summary: "Block data update: outputs not updated until both bytes read"),
            FieldDescription("H_LACTIVE", mask: 0x20, meanings: [0: "interrupts active high", 1: "active low"]),
            FieldDescription("PP_OD", mask: 0x10, meanings: [0: "push-pull", 1: "open-drain"]),
            .bit("SIM", 3, summary: "SPI 3-wire"),
            .bit("IF_INC", 2, summary: "Register address auto-increment on multi-byte access"),
            .bit("BLE", 1, summary: "Big/little endian (DS3 generation)"),
            .bit("SW_RESET", 0, selfClearing: true, summary: "Software reset"),
        ])
    }

    static func control1(lowBits: [FieldDescription]) -> RegisterDescription {
        .init("CTRL1_XL", 0x10, .readWrite, summary: "Accelerometer rate and range", fields: [
            FieldDescription("ODR_XL", mask: 0xF0, meanings: odrMeanings),
            FieldDescription("FS_XL", mask: 0x0C, summary: "Not monotonic; LSM6DSO32 doubles each", meanings: fsXLMeanings),
        ] + lowBits)
    }

    static func control2(wide: Bool) -> RegisterDescription {
        var fields = [
            FieldDescription("ODR_G", mask: 0xF0, meanings: odrMeanings),
            FieldDescription("FS_G", mask: 0x0C, meanings: fsGMeanings),
            .bit("FS_125", 1, summary: "±125 dps, overrides FS_G"),
        ]
        if wide { fields.append(.bit("FS_4000", 0, summary: "±4000 dps (LSM6DSR, ISM330DHCX)")) }
        return .init("CTRL2_G", 0x11, .readWrite, summary: "Gyroscope rate and range", fields: fields)
    }

    static func timestamps(count: Int) -> [RegisterDescription] {
        (0..<count).map { i in
            RegisterDescription("TIMESTAMP\(i)_REG", 0x40 + UInt8(i), i == 2 ? .readWrite : .readOnly,
                                summary: i == 2 ? "Timer bits 23:16; writing 0xAA resets the timer" : "Timer bits \(8 * i + 7):\(8 * i), 25 µs per LSB")
        }
    }

    // MARK: DS3 generation (LSM6DS3) and DSL group (LSM6DS3TR-C, LSM6DSL, LSM6DSM, ISM330DLC)

    static func patternRows(_ g: Generation) -> [RegisterDescription] {
        let ds3 = g == .ds3
        var rows: [RegisterDescription] = [
            .init("FUNC_CFG_ACCESS", 0x01, .readWrite, summary: "Embedded-function register bank", fields: [FieldDescription.bit("FUNC_CFG_EN", 7, summary: "switches addresses 0x02–0x7F to the embedded-function bank").guarded(.interface)]),
            .init("FIFO_CTRL1", 0x06, .readWrite, summary: "FIFO threshold bits 7:0, in 16-bit words",
                  fields: [FieldDescription("FTH_7_0", mask: 0xFF)]),
            .init("FIFO_CTRL2", 0x07, .readWrite, summary: "FIFO threshold high bits, timestamp in FIFO", fields: [
                .bit("TIMER_PEDO_FIFO_EN", 7, summary: "Timestamp and step count as the 4th FIFO data set"),
                .bit("TIMER_PEDO_FIFO_DRDY", 6),
            ] + (ds3 ? [FieldDescription("FTH_11_8", mask: 0x0F)]
                     : [.bit("FIFO_TEMP_EN", 3), FieldDescription("FTH_10_8", mask: 0x07)])),
            .init("FIFO_CTRL3", 0x08, .readWrite, summary: "Gyroscope and accelerometer FIFO decimation", fields: [
                FieldDescription("DEC_FIFO_GYRO", mask: 0x38, meanings: decimationMeanings),
                FieldDescription("DEC_FIFO_XL", mask: 0x07, meanings: decimationMeanings),
            ]),
            .init("FIFO_CTRL4", 0x09, .readWrite, summary: "Third and fourth data set decimation", fields: [
                .bit("ONLY_HIGH_DATA", 6),
                FieldDescription("DEC_DS4_FIFO", mask: 0x38, summary: "Timestamp set", meanings: decimationMeanings),
                FieldDescription("DEC_DS3_FIFO", mask: 0x07, meanings: decimationMeanings),
            ]),
            .init("FIFO_CTRL5", 0x0A, .readWrite, summary: "FIFO rate and mode", fields: [
                FieldDescription("ODR_FIFO", mask: 0x78, meanings: odrMeanings),
                FieldDescription("FIFO_MODE", mask: 0x07, meanings: fifoModeMeanings),
            ]),
            ds3 ? .init("ORIENT_CFG_G", 0x0B, .readWrite, summary: "Gyroscope axis orientation and sign")
                : .init("DRDY_PULSE_CFG_G", 0x0B, .readWrite, summary: "Pulsed data-ready", fields: [
                    FieldDescription("DRDY_PULSED", mask: 0x80, meanings: [0: "latched", 1: "pulsed (75 µs)"]),
                ]),
            .init("INT1_CTRL", 0x0D, .readWrite, summary: "INT1 routing", fields: bits([
                ("INT1_STEP_DETECTOR", 7), ("INT1_SIGN_MOT", 6), ("INT1_FULL_FLAG", 5), ("INT1_FIFO_OVR", 4),
                ("INT1_FTH", 3), ("INT1_BOOT", 2), ("INT1_DRDY_G", 1), ("INT1_DRDY_XL", 0)])),
            .init("INT2_CTRL", 0x0E, .readWrite, summary: "INT2 routing", fields: bits([
                ("INT2_STEP_DELTA", 7), ("INT2_STEP_COUNT_OV", 6), ("INT2_FULL_FLAG", 5), ("INT2_FIFO_OVR", 4),
                ("INT2_FTH", 3), ("INT2_DRDY_TEMP", 2), ("INT2_DRDY_G", 1), ("INT2_DRDY_XL", 0)])),
            control1(lowBits: ds3 ? [FieldDescription("BW_XL", mask: 0x03, meanings: [0: "400 Hz", 1: "200 Hz", 2: "100 Hz", 3: "50 Hz"])]
                                  : bits([("LPF1_BW_SEL", 1), ("BW0_XL", 0)])),
            control2(wide: false),
            control3(),
            .init("CTRL4_C", 0x13, .readWrite, summary: "Sleep, interrupt and I2C control", fields: ds3
                  ? control4Cautions(bits([("XL_BW_SCAL_ODR", 7), ("SLEEP_G", 6), ("INT2_ON_INT1", 5), ("FIFO_TEMP_EN", 4),
                                ("DRDY_MASK", 3), ("I2C_DISABLE", 2), ("STOP_ON_FTH", 0)]))
                  : control4Cautions(bits([("DEN_XL_EN", 7), ("SLEEP", 6), ("INT2_ON_INT1", 5), ("DEN_DRDY_INT1", 4),
                                ("DRDY_MASK", 3), ("I2C_DISABLE", 2), ("LPF1_SEL_G", 1)]))),
            .init("CTRL5_C", 0x14, .readWrite, summary: "Rounding and self-test", fields: [
                FieldDescription("ROUNDING", mask: 0xE0),
                FieldDescription("ST_G", mask: 0x0C, meanings: gyroscopeSelfTestMeanings),
                FieldDescription("ST_XL", mask: 0x03, meanings: accelerometerSelfTestMeanings),
            ]),
            .init("CTRL6_C", 0x15, .readWrite, summary: "Triggers and accelerometer power mode", fields: [
                .bit("TRIG_EN", 7), .bit("LVL_EN", 6), .bit("LVL2_EN", 5),
                FieldDescription("XL_HM_MODE", mask: 0x10, meanings: [0: "high-performance", 1: "low-power/normal"]),
            ] + (ds3 ? [] : [FieldDescription("USR_OFF_W", mask: 0x08, meanings: [0: "2^-10 g/LSB", 1: "2^-6 g/LSB"]),
                             FieldDescription("FTYPE", mask: 0x03)])),
            .init("CTRL7_G", 0x16, .readWrite, summary: "Gyroscope power mode and high-pass filter", fields: [
                FieldDescription("G_HM_MODE", mask: 0x80, meanings: [0: "high-performance", 1: "low-power/normal"]),
                .bit("HP_G_EN", 6), FieldDescription("HPM_G", mask: 0x30),
            ]),
            .init("CTRL8_XL", 0x17, .readWrite, summary: "Accelerometer filters"),
            .init("CTRL9_XL", 0x18, .readWrite, reset: ds3 ? 0x38 : 0xE0, summary: ds3 ? "Accelerometer axis enables" : "DEN axes",
                  fields: ds3 ? bits([("ZEN_XL", 5), ("YEN_XL", 4), ("XEN_XL", 3), ("SOFT_EN", 2)])
                              : bits([("DEN_X", 7), ("DEN_Y", 6), ("DEN_Z", 5), ("DEN_XL_G", 4), ("SOFT_EN", 2)])),
            .init("CTRL10_C", 0x19, .readWrite, reset: ds3 ? 0x38 : 0x00, summary: ds3 ? "Gyroscope axis enables, functions" : "Timer and functions",
                  fields: ds3 ? bits([("ZEN_G", 5), ("YEN_G", 4), ("XEN_G", 3), ("FUNC_EN", 2), ("PEDO_RST_STEP", 1), ("SIGN_MOTION_EN", 0)])
                              : bits([("WRIST_TILT_EN", 7), ("TIMER_EN", 5), ("PEDO_EN", 4), ("TILT_EN", 3), ("FUNC_EN", 2),
                                      ("PEDO_RST_STEP", 1), ("SIGN_MOTION_EN", 0)])),
            .init("MASTER_CONFIG", 0x1A, .readWrite, summary: "Sensor hub"),
            .init("WAKE_UP_SRC", 0x1B, .readOnly, summary: "Wake-up source"),
            .init("STATUS_REG", 0x1E, .readOnly, summary: "New data available", fields: bits([("TDA", 2), ("GDA", 1), ("XLDA", 0)])),
            .init("FIFO_STATUS1", 0x3A, .readOnly, summary: "Unread FIFO words, bits 7:0", fields: [FieldDescription("DIFF_FIFO_7_0", mask: 0xFF)]),
            .init("FIFO_STATUS2", 0x3B, .readOnly, summary: "FIFO flags and unread words, high bits", fields: [
                .bit("WATERM", 7), .bit("OVER_RUN", 6), .bit(ds3 ? "FIFO_FULL" : "FIFO_FULL_SMART", 5), .bit("FIFO_EMPTY", 4),
                ds3 ? FieldDescription("DIFF_FIFO_11_8", mask: 0x0F) : FieldDescription("DIFF_FIFO_10_8", mask: 0x07),
            ]),
            .init("FIFO_STATUS3", 0x3C, .readOnly, summary: "Pattern position of the next word, bits 7:0",
                  fields: [FieldDescription("FIFO_PATTERN_7_0", mask: 0xFF)]),
            .init("FIFO_STATUS4", 0x3D, .readOnly, summary: "Pattern position, bits 9:8", fields: [FieldDescription("FIFO_PATTERN_9_8", mask: 0x03)]),
            RegisterDescription("FIFO_DATA_OUT_L", 0x3E, .readOnly, summary: "FIFO word, low byte (reading pops the next word)")
                .reading("reading pops the FIFO"),
            .init("FIFO_DATA_OUT_H", 0x3F, .readOnly, summary: "FIFO word, high byte; the pointer rolls back to 0x3E"),
            .init("TAP_CFG", 0x58, .readWrite, summary: ds3 ? "Timer, functions, latched interrupts" : "Interrupts, tap, latched interrupts",
                  fields: (ds3 ? bits([("TIMER_EN", 7), ("PEDO_EN", 6), ("TILT_EN", 5)]) : bits([("INTERRUPTS_ENABLE", 7)]))
                    + bits([("SLOPE_FDS", 4), ("TAP_X_EN", 3), ("TAP_Y_EN", 2), ("TAP_Z_EN", 1)])
                    + [FieldDescription("LIR", mask: 0x01, meanings: [0: "pulsed events", 1: "latched events"])]),
            .init("WAKE_UP_THS", 0x5B, .readWrite, summary: "Wake-up threshold"),
            .init("WAKE_UP_DUR", 0x5C, .readWrite, summary: "Wake-up duration, timer resolution", fields: [
                .bit("FF_DUR5", 7), FieldDescription("WAKE_DUR", mask: 0x60),
                FieldDescription("TIMER_HR", mask: 0x10, meanings: [0: "6.4 ms per LSB", 1: "25 µs per LSB"]),
                FieldDescription("SLEEP_DUR", mask: 0x0F),
            ]),
            .init("MD1_CFG", 0x5E, .readWrite, summary: "INT1 event routing"),
            .init("MD2_CFG", 0x5F, .readWrite, summary: "INT2 event routing"),
        ]
        rows += outputs(gyroscope: "G", accelerometer: "XL")
        rows += timestamps(count: 3)
        if !ds3 {
            rows += ["X", "Y", "Z"].enumerated().map {
                RegisterDescription("\($0.element)_OFS_USR", 0x73 + UInt8($0.offset), .readWrite, summary: "Accelerometer user offset \($0.element)")
            }
        }
        return rows
    }

    // MARK: DSO generation (LSM6DSO, DSOX, DSO32, DSR, ISM330DHCX)

    static func dsoRows() -> [RegisterDescription] {
        var rows: [RegisterDescription] = [
            .init("FUNC_CFG_ACCESS", 0x01, .readWrite, summary: "Embedded-function and sensor-hub register banks",
                  fields: [FieldDescription.bit("FUNC_CFG_ACCESS", 7, summary: "switches to the embedded-function bank").guarded(.interface),
                           FieldDescription.bit("SHUB_REG_ACCESS", 6, summary: "switches to the sensor-hub bank").guarded(.interface)]),
            .init("PIN_CTRL", 0x02, .readWrite, reset: 0x3F, summary: "SDO pull-up", fields: bits([("SDO_PU_EN", 6)])),
            .init("FIFO_CTRL1", 0x07, .readWrite, summary: "FIFO watermark bits 7:0, in 7-byte words",
                  fields: [FieldDescription("WTM_7_0", mask: 0xFF)]),
            .init("FIFO_CTRL2", 0x08, .readWrite, summary: "Watermark bit 8 and FIFO options", fields: [
                .bit("STOP_ON_WTM", 7), .bit("FIFO_COMPR_RT_EN", 6), .bit("ODRCHG_EN", 4),
                FieldDescription("UNCOPTR_RATE", mask: 0x06), .bit("WTM8", 0),
            ]),
            .init("FIFO_CTRL3", 0x09, .readWrite, summary: "Batch data rates", fields: [
                FieldDescription("BDR_GY", mask: 0xF0, meanings: odrMeanings.merging([11: "6.5 Hz"]) { $1 }),
                FieldDescription("BDR_XL", mask: 0x0F, meanings: odrMeanings.merging([11: "1.6 Hz"]) { $1 }),
            ]),
            .init("FIFO_CTRL4", 0x0A, .readWrite, summary: "Timestamp and temperature batching, FIFO mode", fields: [
                FieldDescription("DEC_TS_BATCH", mask: 0xC0, meanings: [0: "no timestamps", 1: "every batch", 2: "every 8th", 3: "every 32nd"]),
                FieldDescription("ODR_T_BATCH", mask: 0x30, meanings: [0: "no temperature", 1: "1.6 Hz", 2: "12.5 Hz", 3: "52 Hz"]),
                FieldDescription("FIFO_MODE", mask: 0x07, meanings: fifoModeMeanings),
            ]),
            .init("COUNTER_BDR_REG1", 0x0B, .readWrite, summary: "Pulsed data-ready, batch counter", fields: [
                FieldDescription("DATAREADY_PULSED", mask: 0x80, meanings: [0: "latched", 1: "pulsed (75 µs)"]),
                .bit("RST_COUNTER_BDR", 6), .bit("TRIG_COUNTER_BDR", 5), FieldDescription("CNT_BDR_TH_10_8", mask: 0x07),
            ]),
            .init("COUNTER_BDR_REG2", 0x0C, .readWrite, summary: "Batch counter threshold bits 7:0"),
            .init("INT1_CTRL", 0x0D, .readWrite, summary: "INT1 routing", fields: bits([
                ("DEN_DRDY_FLAG", 7), ("INT1_CNT_BDR", 6), ("INT1_FIFO_FULL", 5), ("INT1_FIFO_OVR", 4),
                ("INT1_FIFO_TH", 3), ("INT1_BOOT", 2), ("INT1_DRDY_G", 1), ("INT1_DRDY_XL", 0)])),
            .init("INT2_CTRL", 0x0E, .readWrite, summary: "INT2 routing", fields: bits([
                ("INT2_CNT_BDR", 6), ("INT2_FIFO_FULL", 5), ("INT2_FIFO_OVR", 4),
                ("INT2_FIFO_TH", 3), ("INT2_DRDY_TEMP", 2), ("INT2_DRDY_G", 1), ("INT2_DRDY_XL", 0)])),
            control1(lowBits: bits([("LPF2_XL_EN", 1)])),
            control2(wide: true),
            control3(),
            .init("CTRL4_C", 0x13, .readWrite, summary: "Sleep, interrupt and I2C control",
                  fields: control4Cautions(bits([("SLEEP_G", 6), ("INT2_ON_INT1", 5), ("DRDY_MASK", 3), ("I2C_DISABLE", 2), ("LPF1_SEL_G", 1)]))),
            .init("CTRL5_C", 0x14, .readWrite, summary: "Ultra-low-power, rounding and self-test", fields: [
                .bit("XL_ULP_EN", 7), FieldDescription("ROUNDING", mask: 0x60),
                FieldDescription("ST_G", mask: 0x0C, meanings: gyroscopeSelfTestMeanings),
                FieldDescription("ST_XL", mask: 0x03, meanings: accelerometerSelfTestMeanings),
            ]),
            .init("CTRL6_C", 0x15, .readWrite, summary: "Triggers, accelerometer power mode, gyroscope LPF1", fields: [
                .bit("TRIG_EN", 7), .bit("LVL1_EN", 6), .bit("LVL2_EN", 5),
                FieldDescription("XL_HM_MODE", mask: 0x10, meanings: [0: "high-performance", 1: "low-power/normal"]),
                FieldDescription("USR_OFF_W", mask: 0x08, meanings: [0: "2^-10 g/LSB", 1: "2^-6 g/LSB"]),
                FieldDescription("FTYPE", mask: 0x07),
            ]),
            .init("CTRL7_G", 0x16, .readWrite, summary: "Gyroscope power mode, high-pass, user offsets", fields: [
                FieldDescription("G_HM_MODE", mask: 0x80, meanings: [0: "high-performance", 1: "low-power/normal"]),
                .bit("HP_EN_G", 6), FieldDescription("HPM_G", mask: 0x30), .bit("USR_OFF_ON_OUT", 1),
            ]),
            .init("CTRL8_XL", 0x17, .readWrite, summary: "Accelerometer filters, full-scale mode", fields: [
                FieldDescription("HPCF_XL", mask: 0xE0), .bit("HP_REF_MODE_XL", 4), .bit("FASTSETTL_MODE_XL", 3),
                .bit("HP_SLOPE_XL_EN", 2), .bit("XL_FS_MODE", 1), .bit("LOW_PASS_ON_6D", 0),
            ]),
            .init("CTRL9_XL", 0x18, .readWrite, reset: 0xE0, summary: "DEN, I3C", fields: bits([
                ("DEN_X", 7), ("DEN_Y", 6), ("DEN_Z", 5), ("DEN_XL_G", 4), ("DEN_XL_EN", 3), ("DEN_LH", 2)])
                + [FieldDescription("I3C_DISABLE", mask: 0x02, meanings: [0: "I3C enabled", 1: "I3C disabled"])]),
            .init("CTRL10_C", 0x19, .readWrite, summary: "Timestamp counter", fields: bits([("TIMESTAMP_EN", 5)])),
            .init("ALL_INT_SRC", 0x1A, .readOnly, summary: "All interrupt sources"),
            .init("WAKE_UP_SRC", 0x1B, .readOnly, summary: "Wake-up source"),
            .init("STATUS_REG", 0x1E, .readOnly, summary: "New data available", fields: bits([("TDA", 2), ("GDA", 1), ("XLDA", 0)])),
            .init("FIFO_STATUS1", 0x3A, .readOnly, summary: "Unread FIFO words, bits 7:0", fields: [FieldDescription("DIFF_FIFO_7_0", mask: 0xFF)]),
            RegisterDescription("FIFO_STATUS2", 0x3B, .readOnly, summary: "FIFO flags and unread words, bits 9:8", fields: [
                .bit("FIFO_WTM_IA", 7), .bit("FIFO_OVR_IA", 6), .bit("FIFO_FULL_IA", 5), .bit("COUNTER_BDR_IA", 4),
                .bit("FIFO_OVR_LATCHED", 3, summary: "Cleared by reading this register"),
                FieldDescription("DIFF_FIFO_9_8", mask: 0x03),
            ]).reading("reading clears FIFO_OVR_LATCHED"),
            .init("TAP_CFG0", 0x56, .readWrite, summary: "Latched interrupts, tap", fields: [
                .bit("INT_CLR_ON_READ", 6), .bit("SLEEP_STATUS_ON_INT", 5), .bit("SLOPE_FDS", 4),
                .bit("TAP_X_EN", 3), .bit("TAP_Y_EN", 2), .bit("TAP_Z_EN", 1),
                FieldDescription("LIR", mask: 0x01, meanings: [0: "pulsed events", 1: "latched events"]),
            ]),
            .init("TAP_CFG2", 0x58, .readWrite, summary: "Interrupts enable, inactivity",
                  fields: [.bit("INTERRUPTS_ENABLE", 7), FieldDescription("INACT_EN", mask: 0x60)]),
            .init("WAKE_UP_THS", 0x5B, .readWrite, summary: "Wake-up threshold"),
            .init("WAKE_UP_DUR", 0x5C, .readWrite, summary: "Wake-up duration"),
            .init("MD1_CFG", 0x5E, .readWrite, summary: "INT1 event routing"),
            .init("MD2_CFG", 0x5F, .readWrite, summary: "INT2 event routing"),
            RegisterDescription("INTERNAL_FREQ_FINE", 0x63, .readOnly, summary: "Factory trim of the time base: signed, 0.15 % per LSB",
                                fields: [FieldDescription("FREQ_FINE", mask: 0xFF)]).factoryProgrammed(),
            RegisterDescription("FIFO_DATA_OUT_TAG", 0x78, .readOnly, summary: "FIFO word tag (reading pops the next word)", fields: [
                FieldDescription("TAG_SENSOR", mask: 0xF8, meanings: [1: "gyroscope", 2: "accelerometer", 3: "temperature",
                                                                      4: "timestamp", 5: "configuration change"]),
                FieldDescription("TAG_CNT", mask: 0x06), .bit("TAG_PARITY", 0),
            ]).reading("reading pops the FIFO"),
        ]
        rows += outputs(gyroscope: "G", accelerometer: "A")
        rows += timestamps(count: 4)
        rows += ["X", "Y", "Z"].enumerated().map {
            RegisterDescription("\($0.element)_OFS_USR", 0x73 + UInt8($0.offset), .readWrite, summary: "Accelerometer user offset \($0.element)")
        }
        for (i, axis) in ["X", "Y", "Z"].enumerated() {
            rows.append(.init("FIFO_DATA_OUT_\(axis)_L", 0x79 + UInt8(2 * i), .readOnly, summary: "FIFO word data \(axis), low byte"))
            rows.append(.init("FIFO_DATA_OUT_\(axis)_H", 0x7A + UInt8(2 * i), .readOnly, summary: "FIFO word data \(axis), high byte"
                              + (axis == "Z" ? "; the pointer rolls back to 0x78" : "")))
        }
        return rows
    }
}
