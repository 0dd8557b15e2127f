extension MPU6050 {
    /// The register values that realise one ``IMUConfiguration`` on one variant: computed without
    /// touching the bus, so the choice of divider, filter and ranges is testable on its own.
    public struct Settings: Sendable, Equatable {
        /// SMPLRT_DIV (0x19).
        public var sampleRateDivider: UInt8
        /// CONFIG.DLPF_CFG (0x1A bits 2:0), 1...6 (the 1 kHz internal rate).
        public var lowPassCode: UInt8
        /// GYRO_CONFIG.FS_SEL (0x1B bits 4:3).
        public var gyroscopeRangeCode: UInt8
        /// ACCEL_CONFIG.AFS_SEL (0x1C bits 4:3).
        public var accelerometerRangeCode: UInt8
        /// INT_PIN_CFG (0x37).
        public var interruptPinConfig: UInt8
        /// FIFO_EN (0x23) while streaming.
        public var fifoEnable: UInt8
        /// PWR_MGMT_1 (0x6B) while running: CLKSEL only (awake, temperature sensor on). The PLL
        /// (CLKSEL = 1) whenever the gyroscope runs; with the gyroscope in standby on the
        /// MPU-6050 generation, the internal oscillator (CLKSEL = 0), because these parts do not
        /// leave a gyro PLL by themselves ("When the internal 8 MHz oscillator or an external
        /// source is chosen as the clock source, the MPU-60X0 can operate in low power modes with
        /// the gyroscopes disabled", Register Map rev 4.2 §4.28; Product Specification rev 3.4
        /// §7.15; Linux `inv_mpu6050_clock_switch`: "old chips: switch clock manually"). The
        /// MPU-6500 generation's CLKSEL = 1 picks the internal oscillator itself when the gyro
        /// is off ("automatic clock switching, nothing to do").
        public var powerManagement1: UInt8
        /// PWR_MGMT_2 (0x6C): gyro standby (STBY_XG/YG/ZG) in the low-energy mode.
        public var powerManagement2: UInt8
        /// What the chip really runs.
        public var effective: IMUConfiguration

        /// Bytes per FIFO record: accel (6), temperature (2) when enabled, gyro (6) when enabled.
        public var recordSize: Int {
            (fifoEnable & Bits.fifoAccel != 0 ? 6 : 0) + (fifoEnable & Bits.fifoTemperature != 0 ? 2 : 0)
                + (fifoEnable & Bits.fifoGyro != 0 ? 6 : 0)
        }

        /// CONFIG (0x1A): DLPF plus, on the MPU-6500 generation, FIFO_MODE = 1 (a full FIFO
        /// keeps its whole records instead of overwriting the oldest bytes).
        public func config(for generation: Generation) -> UInt8 {
            lowPassCode | (generation == .mpu6050 ? 0 : Bits.fifoModeStopWhenFull)
        }
    }

    /// Internal sample rate with DLPF_CFG 1...6, hertz (Register Map rev 4.2 §4.2: "the Gyroscope
    /// Output Rate is 8kHz when the DLPF is disabled (DLPF_CFG = 0 or 7), and 1kHz when the DLPF
    /// is enabled"). The driver always enables the DLPF, so the accelerometer (1 kHz) and the
    /// gyroscope share one rate.
    public static let internalRate = 1000.0

    /// DLPF_CFG codes 1...6 and their gyroscope bandwidths in hertz (Register Map rev 4.2 §4.3;
    /// MPU-6500 Register Map §4.5 gives 184/92/41/20/10/5 for the same codes).
    public static let lowPassBandwidths: [(code: UInt8, hertz: Double)] = [(1, 188), (2, 98), (3, 42), (4, 20), (5, 10), (6, 5)]

    /// Accelerometer ranges: AFS_SEL code, ± g, LSB per g (Product Specification rev 3.4 §6.2).
    public static let accelerometerRanges: [(code: UInt8, g: Double, lsbPerG: Double)] =
        [(0, 2, 16384), (1, 4, 8192), (2, 8, 4096), (3, 16, 2048)]
    /// Gyroscope ranges: FS_SEL code, ± °/s, LSB per °/s (Product Specification rev 3.4 §6.1).
    public static let gyroscopeRanges: [(code: UInt8, degreesPerSecond: Double, lsbPerDegree: Double)] =
        [(0, 250, 131), (1, 500, 65.5), (2, 1000, 32.8), (3, 2000, 16.4)]

    /// The lowest and highest output data rates the FIFO path supports, hertz (1 kHz / 256 and
    /// 1 kHz; the kernel's `INV_MPU6050_MIN_FIFO_RATE`…`MAX` is 4…1000).
    public static let rateLimits = (minimum: internalRate / 256, maximum: internalRate)

    /// Chooses register values for `configuration` on `variant`.
    ///
    /// - Rate: SMPLRT_DIV = round(1000 / rate) − 1, clamped to 0...255.
    /// - Low-pass: the widest DLPF bandwidth not above the requested one, or, when none is
    ///   requested, not above half the output rate (as the kernel's `inv_mpu6050_set_lpf`).
    /// - Ranges: the smallest range that covers the request, else the largest.
    /// - Throws: ``IMUError/invalidConfiguration(_:)`` for a rate outside the limits, a
    ///   watermark below 1, or INT2 (the family has one interrupt pin).
    public static func settings(for configuration: IMUConfiguration, variant: Variant) throws(IMUError) -> Settings {
        let rate = configuration.outputDataRate
        guard rate.isFinite, rate >= 3.9, rate <= rateLimits.maximum * 1.001 else {
            throw .invalidConfiguration("output data rate \(rate) Hz: the \(variant.part) FIFO runs at 3.9...1000 Hz")
        }
        guard configuration.fifoWatermark >= 1 else {
            throw .invalidConfiguration("FIFO watermark \(configuration.fifoWatermark): expected 1 or more samples")
        }
        guard configuration.interrupt.pin == .int1 else {
            throw .invalidConfiguration("the \(variant.part) has one interrupt pin (INT); choose int1")
        }
        let divider = UInt8(max(0, min(255, (internalRate / rate).rounded() - 1)))
        let actualRate = internalRate / (1 + Double(divider))
        let wanted = configuration.lowPassBandwidth ?? actualRate / 2
        let filter = lowPassBandwidths.first { $0.hertz <= wanted } ?? lowPassBandwidths.last!
        let accel = accelerometerRanges.first { $0.g >= configuration.accelerometerRange } ?? accelerometerRanges.last!
        let gyro = gyroscopeRanges.first { $0.degreesPerSecond >= configuration.gyroscopeRange } ?? gyroscopeRanges.last!

        var pin: UInt8 = variant.acknowledgesOnAnyRead ? Bits.intReadClear : 0
        if configuration.interrupt.level == .activeLow { pin |= Bits.intActiveLow }
        if configuration.interrupt.drive == .openDrain { pin |= Bits.intOpenDrain }
        if configuration.interrupt.mode == .latched { pin |= Bits.intLatch }

        var fifo = Bits.fifoAccel
        if configuration.gyroscopeEnabled { fifo |= Bits.fifoGyro }
        if variant.temperatureInFIFORequired { fifo |= Bits.fifoTemperature }
        let recordSize = (fifo & Bits.fifoGyro != 0 ? 12 : 6) + (fifo & Bits.fifoTemperature != 0 ? 2 : 0)
        // Keep the watermark well inside the FIFO: at most half of it, so a late reader has room.
        let maxWatermark = max(1, variant.fifoSize / recordSize / 2)

        var effective = configuration
        effective.outputDataRate = actualRate
        effective.lowPassBandwidth = filter.hertz
        effective.accelerometerRange = accel.g
        effective.gyroscopeRange = gyro.degreesPerSecond
        effective.fifoWatermark = min(configuration.fifoWatermark, maxWatermark)
        return Settings(sampleRateDivider: divider, lowPassCode: filter.code, gyroscopeRangeCode: gyro.code,
                        accelerometerRangeCode: accel.code, interruptPinConfig: pin, fifoEnable: fifo,
                        powerManagement1: Self.clockSource(gyroscopeEnabled: configuration.gyroscopeEnabled, generation: variant.generation),
                        powerManagement2: configuration.gyroscopeEnabled ? 0 : Bits.standbyGyro, effective: effective)
    }

    /// PWR_MGMT_1.CLKSEL for a run with or without the gyroscope (see ``Settings/powerManagement1``).
    public static func clockSource(gyroscopeEnabled: Bool, generation: Generation) -> UInt8 {
        gyroscopeEnabled || generation != .mpu6050 ? Bits.clockPLL : Bits.clockInternal
    }
}
