import PlumbHAL

/// Programming rate, ranges, FIFO and interrupt pin.
extension LSM6DS {
    /// The register values an ``IMUConfiguration`` becomes on `variant`: a pure function, so the
    /// plan can be checked without a bus.
    public struct Plan: Sendable, Equatable {
        public var accelerometerRange: AccelerometerRange
        public var gyroscopeRange: GyroscopeRange
        public var dataRate: DataRate
        /// CTRL1_XL (0x10).
        public var control1XL: UInt8
        /// CTRL2_G (0x11).
        public var control2G: UInt8
        /// CTRL3_C (0x12).
        public var control3C: UInt8
        /// CTRL6_C (0x15): XL_HM_MODE for the low-energy mode.
        public var control6C: UInt8
        /// FIFO_CTRL1, FIFO_CTRL2 (watermark; TIMER_PEDO_FIFO_EN on the DS3 generation).
        public var fifoControl1: UInt8
        public var fifoControl2: UInt8
        /// FIFO_CTRL3: decimation (DS3 gen) or batch rates (DSO gen).
        public var fifoControl3: UInt8
        /// FIFO_CTRL4 (DS3 gen only): timestamp decimation.
        public var fifoControl4: UInt8?
        /// FIFO_CTRL5 (DS3 gen) / FIFO_CTRL4 (DSO gen) at 0x0A, in bypass; streaming sets FIFO_MODE.
        public var fifoModeControl: UInt8
        /// The watermark in FIFO words (16-bit words on the DS3 generation, 7-byte words on DSO).
        public var watermarkWords: Int
        /// Timestamp decimation: one timestamp per this many sampling instants.
        public var timestampDecimation: Int
        /// FIFO compression on (DSO generation; FIFO_CTRL2 and EMB_FUNC_EN_B). The watermark keeps
        /// its uncompressed word count, so a drain still holds at least the watermark's samples
        /// (up to about three times as many when the signal compresses well).
        public var compression: Bool
        /// The most samples one watermark can stand for: the watermark, or with compression the
        /// threshold's words over the fewest words a sample can take (3xC: a third of a word per
        /// sensor, plus the timestamp word per 32).
        public var maximumSamplesPerWatermark: Int
        /// What the chip really runs, as returned by ``apply(_:)``.
        public var effective: IMUConfiguration
    }

    /// Plans `configuration` for `variant`.
    ///
    /// - Parameters:
    ///   - compression: use FIFO compression where the part has it (the DSO generation)...
    ///   - maximumCompressedBatchNanoseconds: ...as long as the longest a watermark can then take
    ///     to fill (about three watermarks when every word holds three samples) stays within this.
    ///     Compression saves bus traffic where there is most of it (high rates, small watermarks)
    ///     without stretching the wake-up interval of slow, low-energy configurations.
    /// - Throws: ``IMUError/invalidConfiguration(_:)`` for a watermark outside 1...the FIFO's limit,
    ///   a non-positive range, or a rate that is not positive or is above the part's fastest
    ///   (``Variant/dataRates``; up to 0.1 % above it runs at it, as the rate table rounds).
    public static func plan(_ configuration: IMUConfiguration, for variant: Variant, compression: Bool = true,
                            maximumCompressedBatchNanoseconds: UInt64 = LSM6DS.defaultMaximumCompressedBatchNanoseconds) throws(IMUError) -> Plan {
        let c = configuration
        guard c.outputDataRate > 0, c.outputDataRate.isFinite else {
            throw .invalidConfiguration("output data rate \(c.outputDataRate) Hz: expected a rate above 0 (\(variant.ratesText))")
        }
        // A faster rate used to run at the fastest without a word, where the MPU-6050 family
        // refuses one above its 1000 Hz.
        guard let rate = variant.dataRate(for: c.outputDataRate) else {
            throw .invalidConfiguration("output data rate \(c.outputDataRate) Hz: the \(variant.name) runs at up to \(LSM6DS.Variant.hertzText(variant.fastestRate.hertz)) Hz (\(variant.ratesText))")
        }
        guard c.accelerometerRange > 0, c.gyroscopeRange > 0 else {
            throw .invalidConfiguration("ranges must be positive (accelerometer \(c.accelerometerRange) g, gyroscope \(c.gyroscopeRange) dps)")
        }
        let maxWatermark = variant.maximumWatermarkSamples
        guard (1...maxWatermark).contains(c.fifoWatermark) else {
            throw .invalidConfiguration("FIFO watermark \(c.fifoWatermark): expected 1...\(maxWatermark) samples on \(variant.name)")
        }
        let xl = variant.accelerometerRange(for: c.accelerometerRange)
        let gy = variant.gyroscopeRange(for: c.gyroscopeRange)
        let gyroOn = c.gyroscopeEnabled

        let control1XL = rate.code << 4 | xl.code << 2
        let control2G = variant.gyroscopeRangeField.insert(gy.code, into: gyroOn ? rate.code << 4 : 0)
        var control3C = Control3.blockDataUpdate | Control3.autoIncrement
        if c.interrupt.drive == .openDrain { control3C |= Control3.openDrain }
        if c.interrupt.level == .activeLow { control3C |= Control3.activeLow }
        // Low energy: gyroscope off and the accelerometer out of high-performance mode
        // (XL_HM_MODE = 1: low-power at 12.5–52 Hz, normal at 104–208 Hz; DS3 DS10193 §4.1, DSO DS12140 §6.2).
        let control6C: UInt8 = gyroOn ? 0 : 0x10

        let tsDecimation = variant.timestampDecimation
        let watermarkWords = variant.fifoWords(samples: c.fifoWatermark, gyroscope: gyroOn)
        let fewestWordsPerSample = (gyroOn ? 2.0 : 1.0) / 3 + 1 / Double(tsDecimation)
        let compressedSamples = Int((Double(watermarkWords) / fewestWordsPerSample).rounded(.up))
        let compress = compression && variant.generation == .dso
            && Double(compressedSamples) / rate.hertz * 1e9 <= Double(maximumCompressedBatchNanoseconds)
        let fifoControl1, fifoControl2, fifoControl3, fifoModeControl: UInt8
        var fifoControl4: UInt8? = nil
        switch variant.generation {
        case .ds3, .dsl:
            fifoControl1 = UInt8(truncatingIfNeeded: watermarkWords)
            // TIMER_PEDO_FIFO_EN (bit 7) puts the timestamp set in the FIFO.
            fifoControl2 = variant.fifoThresholdHigh.insert(UInt8(watermarkWords >> 8), into: 0x80)
            // DEC_FIFO_GYRO 5:3, DEC_FIFO_XL 2:0: 1 = every sample, 0 = not in the FIFO.
            fifoControl3 = (gyroOn ? 1 << 3 : 0) | 1
            // DEC_DS4_FIFO 5:3 = the code for the timestamp decimation.
            fifoControl4 = (PatternFIFO.decimationCode(tsDecimation) ?? 0) << 3
            // ODR_FIFO 6:3, FIFO_MODE 2:0 = bypass.
            fifoModeControl = rate.code << 3
        case .dso:
            fifoControl1 = UInt8(truncatingIfNeeded: watermarkWords)
            fifoControl2 = UInt8(watermarkWords >> 8) & 0x01
                // FIFO_COMPR_RT_EN, and an uncompressed word at least every 32 batches so the
                // decoder can pick the stream up again after an overrun (UNCOPTR_RATE = 3).
                | (compress ? Self.fifoCompressionRuntime | Self.uncompressedEvery32 : 0)
            // BDR_GY 7:4, BDR_XL 3:0.
            fifoControl3 = (gyroOn ? rate.code << 4 : 0) | rate.code
            // DEC_TS_BATCH 7:6 = 3 (every 32nd batch), ODR_T_BATCH 5:4 = 1 (temperature at 1.6 Hz).
            fifoModeControl = 3 << 6 | 1 << 4
        }

        var effective = c
        effective.outputDataRate = rate.hertz
        effective.accelerometerRange = xl.g
        effective.gyroscopeRange = gy.dps
        // The chip's default digital path: accelerometer and gyroscope LPF1 at about ODR/2.
        effective.lowPassBandwidth = rate.hertz / 2
        if variant.dataReadyPulsed == nil { effective.interrupt.mode = .latched }
        return Plan(accelerometerRange: xl, gyroscopeRange: gy, dataRate: rate, control1XL: control1XL,
                    control2G: control2G, control3C: control3C, control6C: control6C,
                    fifoControl1: fifoControl1, fifoControl2: fifoControl2, fifoControl3: fifoControl3,
                    fifoControl4: fifoControl4, fifoModeControl: fifoModeControl,
                    watermarkWords: watermarkWords, timestampDecimation: tsDecimation,
                    compression: compress, maximumSamplesPerWatermark: compress ? compressedSamples : c.fifoWatermark,
                    effective: effective)
    }

    /// Programs the chip; the FIFO stays in bypass until ``startStreaming()``.
    ///
    /// Writes CTRL3_C, CTRL6_C, CTRL4_C (DRDY_MASK, DSO generation), the FIFO control registers, the timer enable and resolution,
    /// the latch/pulse bits, then CTRL1_XL and CTRL2_G last, so the sensors start with everything
    /// else in place.
    ///
    /// - Returns: what the chip runs: the rate and ranges at or above those asked for.
    @discardableResult
    public func apply(_ configuration: IMUConfiguration) throws(IMUError) -> IMUConfiguration {
        let v = try requireVariant()
        let p = try Self.plan(configuration, for: v, compression: fifoCompression,
                              maximumCompressedBatchNanoseconds: maximumCompressedBatchNanoseconds)
        streaming = false
        try writeRegister(Register.control3C, p.control3C)
        try writeRegister(Register.control6C, p.control6C)
        // DSO generation: CTRL4_C.DRDY_MASK, so samples taken while the filters settle reach the
        // FIFO marked rather than as data (Linux `st_lsm6dsx_init_device`, "enable drdy-mask").
        if let mask = v.dataReadyMask { try writeRegister(mask.address, mask.mask) }
        try writeRegister(Register.fifoModeControl, p.fifoModeControl)
        try writeRegister(Register.fifoControl1(v.generation), p.fifoControl1)
        try writeRegister(Register.fifoControl2(v.generation), p.fifoControl2)
        try writeRegister(Register.fifoControl3(v.generation), p.fifoControl3)
        if let c4 = p.fifoControl4 { try writeRegister(Register.fifoControl4DS3, c4) }
        if v.generation == .dso { try setEmbeddedFIFOCompression(p.compression) }
        // Timer on; on the DS3 generation TAP_CFG also holds LIR, so both are set together.
        let latched = p.effective.interrupt.mode == .latched
        switch v.generation {
        case .ds3:
            // TAP_CFG (0x58): TIMER_EN bit 7, LIR bit 0.
            try writeRegister(0x58, 0x80 | (latched ? 0x01 : 0))
            // WAKE_UP_DUR (0x5C): TIMER_HR bit 4 = 25 µs.
            try writeRegister(Register.wakeUpDuration, 0x10)
        case .dsl:
            try writeRegister(Register.control10C, 0x20)
            try writeRegister(0x58, latched ? 0x01 : 0)
            try writeRegister(Register.wakeUpDuration, 0x10)
        case .dso:
            try writeRegister(Register.control10C, 0x20)
            // TAP_CFG0 (0x56): LIR bit 0.
            try writeRegister(0x56, latched ? 0x01 : 0)
        }
        if let pulse = v.dataReadyPulsed {
            try writeRegister(pulse.address, latched ? 0 : pulse.mask)
        }
        try writeRegister(Register.control1XL, p.control1XL)
        try writeRegister(Register.control2G, p.control2G)
        expectedControl = [p.control1XL, p.control2G, p.control3C]
        self.configuration = p.effective
        plan = p
        return p.effective
    }

    /// Sets or clears FIFO_COMPR_EN in EMB_FUNC_EN_B (embedded functions bank) by
    /// read-modify-write between FUNC_CFG_ACCESS = 0x80 and = 0x00, as ST-C
    /// `lsm6dso_compression_algo_set` does. If anything fails inside the bank, the driver still
    /// tries to switch back to the main bank before reporting the error, so no later write lands
    /// in the embedded bank (``reset()`` switches back too).
    func setEmbeddedFIFOCompression(_ on: Bool) throws(IMUError) {
        try writeRegister(Register.functionConfigurationAccess, Self.embeddedBankAccess)
        do {
            let old = try readRegister(Register.embeddedFunctionEnableB)
            let new = on ? old | Self.fifoCompressionEnable : old & ~Self.fifoCompressionEnable
            if new != old { try writeRegister(Register.embeddedFunctionEnableB, new) }
        } catch {
            // The error being reported is the bank access's; a failure to switch back is a second
            // symptom of the same bus fault, and reset() switches back first anyway.
            do { try writeRegister(Register.functionConfigurationAccess, 0) } catch let second { _ = second }
            throw error
        }
        try writeRegister(Register.functionConfigurationAccess, 0)
    }

    /// Requests FIFO_COMPR_INIT (EMB_FUNC_INIT_B, embedded functions bank) between
    /// FUNC_CFG_ACCESS = 0x80 and = 0x00, as ST-C `lsm6dso_compression_algo_init_set` does, so the
    /// chip's compressor starts without a reference and its first word is uncompressed. A plain
    /// write (no read first): the register's other bits are initialisation requests too, and 0
    /// requests nothing. On a failure inside the bank the driver switches back as
    /// ``setEmbeddedFIFOCompression(_:)`` does.
    func initialiseFIFOCompression() throws(IMUError) {
        try writeRegister(Register.functionConfigurationAccess, Self.embeddedBankAccess)
        do {
            try writeRegister(Register.embeddedFunctionInitB, Self.fifoCompressionInit)
        } catch {
            do { try writeRegister(Register.functionConfigurationAccess, 0) } catch let second { _ = second }
            throw error
        }
        try writeRegister(Register.functionConfigurationAccess, 0)
    }

    /// Reads CTRL1_XL…CTRL3_C back and compares them with what ``apply(_:)`` wrote; a chip that
    /// browned out or was reset reads CTRL3_C = 0x04 and the rest zero.
    public func verifyConfiguration() throws(IMUError) -> Bool {
        guard !expectedControl.isEmpty else { return false }
        let now = try readRegisters(Register.control1XL, count: 3)
        return now == expectedControl
    }

    /// Takes what CTRL1_XL..CTRL3_C read back now as the configuration until the next reset,
    /// apply, start or stop (a chip that does not read back what it was written: a clone, a stuck
    /// bit), so that a brown-out, which returns them to their defaults, is still found without
    /// re-initialising every second.
    public func acceptReadBack() throws(IMUError) {
        guard !expectedControl.isEmpty else { return }
        expectedControl = try readRegisters(Register.control1XL, count: 3)
    }
}
