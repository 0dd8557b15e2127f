/// LSM6DS register addresses and bits used by the driver (reference/drivers.md §B2).
///
/// Names follow the datasheets; where the two generations put different registers at one address
/// the doc says which. The full maps, with reset values and field meanings for `plumb regs`, are
/// in `LSM6DS+RegisterMap.swift`.
extension LSM6DS {
    public enum Register {
        /// FUNC_CFG_ACCESS (0x01, DSO gen): bit 7 switches addresses 0x02–0x7F to the embedded
        /// functions bank; the register itself answers in every bank, so writing 0 always returns
        /// to the main bank. Datasheet: LSM6DSO DS12140 §9.1; ST-C `lsm6dso_mem_bank_set`.
        public static let functionConfigurationAccess: UInt8 = 0x01
        /// EMB_FUNC_EN_B (0x05 in the embedded functions bank, DSO gen): FIFO_COMPR_EN bit 3.
        /// Datasheet: LSM6DSO DS12140 §6.5.7 and §11 (embedded functions registers).
        public static let embeddedFunctionEnableB: UInt8 = 0x05
        /// EMB_FUNC_INIT_B (0x67 in the embedded functions bank, DSO gen): FIFO_COMPR_INIT bit 3
        /// restarts the FIFO compressor. Datasheet: LSM6DSO DS12140 embedded functions registers;
        /// ST-C `lsm6dso_emb_func_init_b_t` / `lsm6dso_compression_algo_init_set`.
        public static let embeddedFunctionInitB: UInt8 = 0x67
        /// FIFO_CTRL1 (0x06 DS3 gen) / (0x07 DSO gen): watermark bits 7:0.
        public static func fifoControl1(_ g: Generation) -> UInt8 { g == .dso ? 0x07 : 0x06 }
        /// FIFO_CTRL2: watermark high bits, TIMER_PEDO_FIFO_EN (DS3 gen, bit 7).
        public static func fifoControl2(_ g: Generation) -> UInt8 { g == .dso ? 0x08 : 0x07 }
        /// FIFO_CTRL3: DEC_FIFO_GYRO 5:3 + DEC_FIFO_XL 2:0 (0x08, DS3 gen) / BDR_GY 7:4 + BDR_XL 3:0 (0x09, DSO gen).
        public static func fifoControl3(_ g: Generation) -> UInt8 { g == .dso ? 0x09 : 0x08 }
        /// FIFO_CTRL4 (0x09, DS3 gen): DEC_DS4_FIFO 5:3, the timestamp decimation.
        public static let fifoControl4DS3: UInt8 = 0x09
        /// FIFO_CTRL5 (0x0A, DS3 gen: ODR_FIFO 6:3, FIFO_MODE 2:0) / FIFO_CTRL4 (0x0A, DSO gen:
        /// DEC_TS_BATCH 7:6, ODR_T_BATCH 5:4, FIFO_MODE 2:0).
        public static let fifoModeControl: UInt8 = 0x0A
        /// DRDY_PULSE_CFG_G (DSL group) / COUNTER_BDR_REG1 (DSO gen) (0x0B): bit 7 pulsed data-ready.
        public static let dataReadyPulse: UInt8 = 0x0B
        /// INT1_CTRL (0x0D): bit 3 INT1_FTH / INT1_FIFO_TH, the FIFO watermark.
        public static let int1Control: UInt8 = 0x0D
        /// INT2_CTRL (0x0E): bit 3 INT2_FTH / INT2_FIFO_TH.
        public static let int2Control: UInt8 = 0x0E
        /// WHO_AM_I (0x0F), read-only.
        public static let whoAmI: UInt8 = 0x0F
        /// CTRL1_XL (0x10): ODR_XL 7:4, FS_XL 3:2.
        public static let control1XL: UInt8 = 0x10
        /// CTRL2_G (0x11): ODR_G 7:4, FS_G 3:2, FS_125 bit 1 (FS_4000 bit 0 on DSR/DHCX).
        public static let control2G: UInt8 = 0x11
        /// CTRL3_C (0x12): BOOT 7, BDU 6, H_LACTIVE 5, PP_OD 4, SIM 3, IF_INC 2, SW_RESET 0. Resets to 0x04.
        public static let control3C: UInt8 = 0x12
        /// CTRL5_C (0x14): ST_G 3:2, ST_XL 1:0 (self-test).
        public static let control5C: UInt8 = 0x14
        /// CTRL6_C (0x15): XL_HM_MODE bit 4 (1 = accelerometer high-performance off).
        public static let control6C: UInt8 = 0x15
        /// CTRL9_XL (0x18): I3C_DISABLE bit 1 on the DSO generation. Resets to 0xE0 (DSO) / 0x38 (DS3).
        public static let control9XL: UInt8 = 0x18
        /// CTRL10_C (0x19): TIMER_EN / TIMESTAMP_EN bit 5 (DSL and DSO generations).
        public static let control10C: UInt8 = 0x19
        /// STATUS_REG (0x1E): TDA 2, GDA 1, XLDA 0.
        public static let status: UInt8 = 0x1E
        /// OUT_TEMP_L (0x20), then OUT_TEMP_H.
        public static let outTemperature: UInt8 = 0x20
        /// OUTX_L_G (0x22): gyroscope x, y, z little-endian, then the accelerometer at 0x28.
        public static let outGyroscope: UInt8 = 0x22
        /// OUTX_L_XL / OUTX_L_A (0x28).
        public static let outAccelerometer: UInt8 = 0x28
        /// FIFO_STATUS1 (0x3A): DIFF_FIFO 7:0.
        public static let fifoStatus1: UInt8 = 0x3A
        /// TIMESTAMP0 (0x40) … TIMESTAMP2 (0x42) / TIMESTAMP3 (0x43 DSO gen).
        public static let timestamp0: UInt8 = 0x40
        /// TIMESTAMP2 (0x42): writing 0xAA resets the timer (K-LSM `ST_LSM6DSX_TS_RESET_VAL`).
        public static let timestamp2: UInt8 = 0x42
        /// WAKE_UP_DUR (0x5C): TIMER_HR bit 4 on the DS3 generation (1 = 25 µs tick, 0 = 6.4 ms).
        public static let wakeUpDuration: UInt8 = 0x5C
        /// INTERNAL_FREQ_FINE (0x63, DSO gen): signed trim of the timer and ODR, 0.15 % per LSB.
        public static let internalFrequencyFine: UInt8 = 0x63
    }

    /// CTRL3_C bits.
    public enum Control3: Sendable {
        public static let softwareReset: UInt8 = 0x01
        public static let autoIncrement: UInt8 = 0x04
        public static let openDrain: UInt8 = 0x10
        public static let activeLow: UInt8 = 0x20
        public static let blockDataUpdate: UInt8 = 0x40
        public static let boot: UInt8 = 0x80
    }

    /// FUNC_CFG_ACCESS bit 7: the embedded functions bank.
    public static let embeddedBankAccess: UInt8 = 0x80
    /// EMB_FUNC_EN_B bit 3, FIFO_COMPR_EN.
    public static let fifoCompressionEnable: UInt8 = 0x08
    /// EMB_FUNC_INIT_B bit 3, FIFO_COMPR_INIT.
    public static let fifoCompressionInit: UInt8 = 0x08
    /// FIFO_CTRL2 (0x08, DSO gen) bit 6, FIFO_COMPR_RT_EN; bits 2:1 UNCOPTR_RATE (0 none forced,
    /// 1/2/3 an uncompressed word every 8/16/32 batches). ST-C `lsm6dso_fifo_ctrl2_t`.
    public static let fifoCompressionRuntime: UInt8 = 0x40
    /// UNCOPTR_RATE = 3 in FIFO_CTRL2 bits 2:1: an uncompressed word at least every 32 batches.
    public static let uncompressedEvery32: UInt8 = 0x06

    /// The value written to TIMESTAMP2 to reset the timer.
    public static let timestampResetValue: UInt8 = 0xAA
    /// INTx_CTRL bit routing the FIFO watermark to the pin.
    public static let fifoThresholdInterrupt: UInt8 = 0x08
}
