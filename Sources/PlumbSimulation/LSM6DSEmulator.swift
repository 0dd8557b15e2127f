import PlumbHAL
import PlumbDrivers

/// A register-level LSM6DS (any row of ``LSM6DS/Variant``, both FIFO generations) in virtual time.
///
/// What it does, from the datasheets (reference/drivers.md §B2):
/// - Registers from ``LSM6DS/registerMap(for:)``: power-on values (CTRL3_C 0x04, CTRL9_XL …),
///   WHO_AM_I read-only, auto-increment only while CTRL3_C.IF_INC is set.
/// - CTRL3_C.SW_RESET restores every control register after 50 µs and then reads 0; BOOT reads 1
///   for 10 ms. Both durations are modelling choices: the datasheet pages read give none (ST-C
///   examples poll SW_RESET until it clears and wait BOOT_TIME, 10 ms on the LSM6DSO and 15 ms on
///   the LSM6DS3TR-C). ``powerOnReset()`` is a brown-out mid-stream.
/// - CTRL1_XL / CTRL2_G start sampling at their rate, quantised through the range currently in the
///   registers (FS_XL's odd code order, FS_125, FS_4000), with noise and bias from a
///   ``SensorErrorModel``, saturating at ±32767/−32768; STATUS_REG flags new data.
/// - FIFO with the real layouts: the pattern of 6-byte sets (gyroscope, accelerometer, timestamp
///   set decimated by FIFO_CTRL4) read through FIFO_DATA_OUT_L/H with the pattern position in
///   FIFO_STATUS3/4; or 7-byte tagged words (TAG_CNT per time slot, timestamp word first in its
///   slot, temperature at ODR_T_BATCH) read through 0x78–0x7E. Reading the first data register
///   pops the next word; the pointer rolls back after the last (0x7E → 0x78, 0x3F → 0x3E), so one
///   transfer reads many words, as K-LSM's `st_lsm6dsx_read_tagged_fifo` does with its 28-byte
///   (4-word) block reads from 0x78 (reference/drivers.md §B2). Bypass empties it; continuous mode
///   overwrites the oldest word when full and raises the overrun flags (FIFO_OVR_IA live,
///   OVER_RUN_LATCHED until FIFO_STATUS2 is read); FIFO mode stops. FIFO_WTM_IA and the routed
///   threshold pin follow the level: 1 while the FIFO holds at least the threshold's words
///   (DS12140 FIFO_STATUS2), re-evaluated at each pop and each write.
///   Reading FIFO_DATA_OUT_TAG with the FIFO empty gives zeros (TAG_SENSOR 0, not a sensor tag).
///   The datasheet does not say what the chip returns there (not found in the sources read), so the
///   driver never relies on it: it reads past the end only after a watermark edge it could not
///   have seen on a healthy chip, and treats any tag it did not batch as the end of valid data.
/// - FIFO compression (DSO generation), on while FIFO_CTRL2.FIFO_COMPR_RT_EN and
///   EMB_FUNC_EN_B.FIFO_COMPR_EN (embedded bank, through FUNC_CFG_ACCESS bit 7) are both set: each
///   sensor's samples wait until three are pending (T − 2, T − 1, T), then one word is written with
///   TAG_CNT = T: NC_T_2 (the oldest sample, uncompressed) when there is no reference yet, when
///   UNCOPTR_RATE forces one (every 8/16/32 batches), or when its difference to the reference does
///   not fit 8 bits; 3xC (all three, 5-bit differences) when every difference fits 5 bits; else 2xC
///   (the oldest two, 8-bit differences). Rules from ST's STEVAL-BCN002V1 user manual (DPCM
///   description); layouts as ``LSM6DS/TaggedFIFO/pack2x(_:_:)`` and ``LSM6DS/TaggedFIFO/pack3x(_:_:_:)``.
///   The watermark and FIFO_STATUS count words, as on the chip. FIFO_COMPR_INIT (EMB_FUNC_INIT_B
///   bit 3) restarts the compressor; a flush alone keeps its reference (an assumption, see `DPCM`).
/// - Every tag byte carries TAG_PARITY in bit 0 (an even number of ones in the byte; DS12140
///   FIFO_DATA_OUT_TAG, ST `fifo_utility.c` `has_even_parity`); ``corruptTag(ofWaitingWord:mask:)``
///   injects a corrupted tag.
/// - The 25 µs timer (6.4 ms on the DS3 generation without TIMER_HR), reset by 0xAA in
///   TIMESTAMP2, running fast by `frequencyFine` × 0.15 % as the trim in INTERNAL_FREQ_FINE says.
/// - The watermark (and FIFO overrun/full, data-ready) on INT1 or INT2 as routed, honouring
///   H_LACTIVE, driving a ``SimulatedInterruptLine`` wired to ``wiredPin``.
/// - Accelerometer noise: the error model's density in high-performance mode; with
///   CTRL6_C.XL_HM_MODE at 12.5–208 Hz the datasheet's normal/low-power RMS noise
///   (``lowPowerNoiseMilliG(range:)``, LSM6DSO and LSM6DSOX).
/// - Filter settling: the first samples after a sensor starts are wrong, or on the DSO generation
///   with CTRL4_C.DRDY_MASK marked (``settlingSamples(hertz:gyroscope:)``).
/// - Self-test: CTRL5_C ST_XL / ST_G add a fixed deflection (``selfTestAccelerometerMilliG``,
///   ``selfTestGyroscopeDPS``), positive or negative (negative is ST_XL = 2 but ST_G = 3).
/// - Temperature from ``temperature`` at 16 or 256 LSB/°C per part.
public final class LSM6DSEmulator: RegisterTarget {
    /// What the emulator has done.
    public struct Counters: Sendable, Equatable {
        /// Sampling instants produced.
        public var instants = 0
        /// FIFO words written (16-bit words on the pattern FIFO, 7-byte words tagged).
        public var fifoWordsWritten = 0
        /// FIFO words overwritten or refused because the FIFO was full.
        public var fifoWordsLost = 0
        /// Compressed-FIFO words written: uncompressed (NC_T_2), 2xC and 3xC.
        public var uncompressedWords = 0
        public var twoSampleWords = 0
        public var threeSampleWords = 0
        /// FIFO_COMPR_INIT requests served.
        public var compressorInits = 0
        /// Software, boot and power-on resets.
        public var resets = 0
        public init() {}
    }

    public let variant: LSM6DS.Variant
    public private(set) var registers: RegisterFile
    public var registerPointer: UInt8 = 0
    /// The clock, when the emulator was given one (``powerOnReset()`` then acts at its time).
    public let clock: VirtualClock?
    /// The true motion. Time 0 of the profile is ``profileStart``.
    public var profile: MotionProfile
    public var profileStart: UInt64
    public var errorModel: SensorErrorModel
    /// Die temperature in °C.
    public var temperature: Double = 30
    /// Virtual times of power-on resets to suffer (brown-outs mid-stream), earliest first.
    public var scheduledResets: [UInt64] = []
    /// The factory trim in INTERNAL_FREQ_FINE (DSO generation): the oscillator runs
    /// `frequencyFine` × 0.15 % fast (K-LSM's gain formula read backwards). Default 0.
    public var frequencyFine: Int8 = 0 {
        didSet { if variant.generation == .dso { registers[0x63] = UInt8(bitPattern: frequencyFine) } }
    }
    /// The line wired to ``wiredPin``; held weakly (the line holds the chip as its source).
    public weak var interruptLine: SimulatedInterruptLine?
    /// When set, every instant whose data enters the FIFO is logged here, with the raw values
    /// before any compression (ground truth for tests).
    public var fifoTruth: FIFOTruthLog?
    /// Which chip pin the line is wired to. Default INT1.
    public var wiredPin: InterruptPinConfiguration.Pin = .int1
    /// Self-test deflection at ST = positive, per axis: a healthy part's response, chosen inside
    /// every variant's ``LSM6DS/Variant/selfTestLimits`` (at least 90–1700 mg and 150–700 dps); the
    /// datasheets give only the limits, no typical value.
    public var selfTestAccelerometerMilliG = SIMD3<Double>(520, 610, 880)
    public var selfTestGyroscopeDPS = SIMD3<Double>(310, 290, 350)
    /// Model the filters settling after a sensor starts (``settlingSamples(hertz:gyroscope:)``).
    /// Default true.
    public var settlesAfterStart = true
    /// How long after the sensors leave power-down the first sampling instant comes, in
    /// nanoseconds, beyond the usual one period. Default 0. A knob for tests of the reader's
    /// start-up: the LSM6DS turn-on time was not found in the sources read (DS12140's
    /// characteristics tables opened here give none); Linux st_lsm6dsx drops the first samples
    /// instead (``settlesAfterStart``), and for the MPU family gives engine start-up times of
    /// 20–30 ms (accelerometer) and 60–100 ms (gyroscope) (reference/drivers.md §B1).
    public var turnOnNanoseconds: UInt64 = 0
    /// When true, SW_RESET never clears (a stuck part, for timeout tests).
    public var resetNeverCompletes = false
    /// When true, BOOT stays set while the accelerometer is powered down (CTRL1_XL ODR 0) and
    /// completes 10 ms after it is written with the accelerometer on. Public transcriptions of the
    /// ISM330DHCX / ASM330LHH / LSM6DSRX CTRL3_C description say of BOOT "the accelerometer must be
    /// ON"; the pages read for the other parts carry no such note, so the default (false) clears
    /// BOOT either way. A knob for the driver's reset, which must start such a part too.
    public var bootNeedsAccelerometer = false
    /// Behave as a part without FIFO compression: the enable bits are stored but the FIFO stays
    /// uncompressed (for comparing a compressed stream with the same chip's plain one).
    public var ignoresCompression = false
    public private(set) var counters = Counters()

    private var random: SeededRandom
    private var now: UInt64
    // Sampling.
    private var instantStart: UInt64 = 0
    private var instantPeriod: Double = 0
    private var instantCount = 0
    private var nextInstant: UInt64?
    private var ratesInUse: (xl: Double, g: Double) = (0, 0)
    /// The earliest first instant after the sensors left power-down (``turnOnNanoseconds``).
    private var firstInstantNotBefore: UInt64 = 0
    /// Samples each sensor still takes with its filters settling (see ``settlingSamples(hertz:gyroscope:)``).
    private var settlingLeft: (xl: Int, g: Int) = (0, 0)
    private var settlingTotal: (xl: Int, g: Int) = (0, 0)
    private var dataFlags: UInt8 = 0
    // FIFO.
    private var fifo: [UInt8]
    private var fifoHead = 0
    private var fifoCount = 0
    private let unit: Int
    private var fifoInstant = 0
    private var fifoSlot: UInt8 = 0
    private var fifoEnabled = false
    private var latch: [UInt8] = [0, 0, 0, 0, 0, 0, 0]
    private var patternPosition = 0
    private var overrun = false
    private var overrunLatched = false
    private var nextTemperatureBatch: UInt64 = 0
    // Embedded functions bank (DSO generation): FUNC_CFG_ACCESS bit 7 selects it.
    private var embeddedBank = false
    private var embedded = [UInt8](repeating: 0, count: 128)
    /// DPCM state per sensor: the samples not yet written and the last one the decoder will know.
    /// Cleared by FIFO_COMPR_INIT (EMB_FUNC_INIT_B bit 3) and by a reset. Assumption (no source
    /// read says either way): the FIFO going from bypass to a FIFO mode does not clear the
    /// compressor, so without FIFO_COMPR_INIT a restarted stream may begin with compressed words
    /// against the reference of the previous stream (the samples still pending are dropped with
    /// the FIFO's contents).
    private struct DPCM {
        var pending: (SIMD3<Int16>, SIMD3<Int16>, SIMD3<Int16>) = (.zero, .zero, .zero)
        var count = 0
        var reference: SIMD3<Int16>?
        var sinceUncompressed = 0
    }
    private var dpcmGyroscope = DPCM()
    private var dpcmAccelerometer = DPCM()
    // Timer.
    private var timerOrigin: UInt64 = 0
    private var timerRunning = false
    // Reset and boot.
    private var resetDoneAt: UInt64?
    private var bootDoneAt: UInt64?
    private var pinHigh = false

    /// - Parameters:
    ///   - variant: the part; its WHO_AM_I, ranges, FIFO format and size.
    ///   - clock: the virtual clock shared with the bus and the line, or `nil` when the chip only
    ///     learns the time from ``advance(to:)`` (as in ``SimulatedSensor``).
    ///   - profile: the true motion. Default: at rest, z up.
    ///   - errorModel: noise, bias and scale error. Default: the part's datasheet noise only.
    ///   - seed: seeds the noise.
    public init(variant: LSM6DS.Variant, clock: VirtualClock? = nil, profile: MotionProfile = .rest(),
                errorModel: SensorErrorModel? = nil, seed: UInt64 = 11) {
        self.variant = variant
        self.clock = clock
        self.profile = profile
        self.profileStart = clock?.nowNanoseconds ?? 0
        self.errorModel = errorModel ?? .noiseOnly(.lsm6ds(variant))
        self.random = SeededRandom(seed: seed)
        self.registers = RegisterFile(map: LSM6DS.registerMap(for: variant))
        self.now = clock?.nowNanoseconds ?? 0
        self.unit = variant.generation == .dso ? 7 : 2
        // Whole data sets: 8 KB holds 1365 six-byte sets (4095 words, the largest 12-bit DIFF_FIFO);
        // the tagged FIFO holds 512 words of 6 data bytes (3 KB) plus their tags.
        let capacityBytes = variant.generation == .dso ? variant.fifoCapacityBytes / 6 * 7 : variant.fifoCapacityBytes / 6 * 6
        self.fifo = [UInt8](repeating: 0, count: capacityBytes)
    }

    // MARK: - Chip-level faults and state

    /// A brown-out: every register to its power-on value, FIFO empty, sensors off, timer stopped.
    public func powerOnReset() {
        if let clock { advance(to: clock.nowNanoseconds) }
        softwareReset(at: now)
    }

    /// FIFO words waiting now (16-bit words on the pattern FIFO, 7-byte words on the tagged FIFO).
    public var fifoLevel: Int {
        if let clock { advance(to: clock.nowNanoseconds) }
        return fifoCount / unit
    }

    /// A register of the embedded functions bank (DSO generation), as the chip holds it.
    public func embeddedRegister(_ address: UInt8) -> UInt8 { embedded[Int(address & 0x7F)] }

    /// True while FIFO compression is on (FIFO_COMPR_RT_EN and FIFO_COMPR_EN both set).
    public var isCompressing: Bool { compressionActive }

    /// Fault injection: flips the bits of `mask` in the tag byte of the `index`-th word waiting
    /// in the tagged FIFO (0 = the oldest), as a corrupted transfer or FIFO cell would. Returns
    /// false (and changes nothing) when fewer words are waiting or the FIFO is not tagged.
    @discardableResult
    public func corruptTag(ofWaitingWord index: Int, mask: UInt8) -> Bool {
        if let clock { advance(to: clock.nowNanoseconds) }
        guard variant.generation == .dso, index >= 0, index < fifoCount / unit else { return false }
        let i = (fifoHead + index * unit) % fifo.count
        fifo[i] ^= mask
        return true
    }

    /// Fault injection: flips the bits of `mask` in data byte `byte` (0...5) of the `index`-th word
    /// waiting in the tagged FIFO, leaving its tag (and so its parity) intact, as a bit error on
    /// the data lines would. Returns false (and changes nothing) when fewer words are waiting or
    /// the FIFO is not tagged.
    @discardableResult
    public func corruptData(ofWaitingWord index: Int, byte: Int, mask: UInt8) -> Bool {
        if let clock { advance(to: clock.nowNanoseconds) }
        guard variant.generation == .dso, index >= 0, index < fifoCount / unit, (0..<6).contains(byte) else { return false }
        let i = (fifoHead + index * unit + 1 + byte) % fifo.count
        fifo[i] ^= mask
        return true
    }

    /// Fault injection: swaps the `i`-th and `j`-th words waiting in the tagged FIFO (0 = the
    /// oldest), so valid tags arrive out of order. Returns false (and changes nothing) when fewer
    /// words are waiting or the FIFO is not tagged.
    @discardableResult
    public func swapWaitingWords(_ i: Int, _ j: Int) -> Bool {
        if let clock { advance(to: clock.nowNanoseconds) }
        let waiting = fifoCount / unit
        guard variant.generation == .dso, i >= 0, j >= 0, i < waiting, j < waiting else { return false }
        let a = (fifoHead + i * unit) % fifo.count, b = (fifoHead + j * unit) % fifo.count
        for k in 0..<unit { fifo.swapAt((a + k) % fifo.count, (b + k) % fifo.count) }
        return true
    }

    /// The counter as the host would read it now, in ticks.
    public var timerTicks: UInt64 {
        if let clock { advance(to: clock.nowNanoseconds) }
        return ticks(at: now)
    }

    private var oscillator: Double { variant.generation == .dso ? 1 - Double(frequencyFine) * 0.0015 : 1 }

    private func ticks(at t: UInt64) -> UInt64 {
        guard timerRunning, t >= timerOrigin else { return 0 }
        let hr = variant.generation == .dso || registers[LSM6DS.Register.wakeUpDuration] & 0x10 != 0
        let tick = (hr ? 25_000 : 6_400_000) * oscillator
        return UInt64(Double(t - timerOrigin) / tick)
    }

    private func softwareReset(at t: UInt64) {
        registers.powerOnReset()
        embeddedBank = false
        dpcmGyroscope = DPCM(); dpcmAccelerometer = DPCM()
        for i in embedded.indices { embedded[i] = 0 }
        if variant.generation == .dso { registers[0x63] = UInt8(bitPattern: frequencyFine) }
        resetDoneAt = nil
        bootDoneAt = nil
        fifoClear()
        fifoEnabled = false
        updatePattern()
        timerRunning = false
        dataFlags = 0
        counters.resets += 1
        reschedule(at: t)
        updatePin(at: t)
    }

    // MARK: - Virtual time

    public func advance(to t: UInt64) {
        while true {
            var next = UInt64.max
            if let n = nextInstant { next = min(next, n) }
            if let r = resetDoneAt { next = min(next, r) }
            if let b = bootDoneAt { next = min(next, b) }
            if let p = scheduledResets.first { next = min(next, p) }
            guard next <= t else { break }
            now = max(now, next)
            if scheduledResets.first == next {
                scheduledResets.removeFirst()
                softwareReset(at: next)
            } else if resetDoneAt == next {
                softwareReset(at: next)
            } else if bootDoneAt == next {
                bootDoneAt = nil
                registers[LSM6DS.Register.control3C] &= ~LSM6DS.Control3.boot
                counters.resets += 1
            } else {
                sample(at: next)
                instantCount += 1
                nextInstant = instantStart + UInt64((Double(instantCount + 1) * instantPeriod).rounded())
            }
        }
        now = max(now, t)
    }

    public func nextEventNanoseconds(after t: UInt64) -> UInt64? {
        [nextInstant, resetDoneAt, bootDoneAt, scheduledResets.first].compactMap { $0 }.filter { $0 > t }.min()
    }

    private static func hertz(_ code: UInt8) -> Double {
        switch code {
        case 0: return 0
        case 11: return 1.6
        default: return [12.5, 26, 52, 104, 208, 416, 833, 1666, 3332, 6664][Int(min(code, 10)) - 1]
        }
    }

    /// Rates from CTRL1_XL / CTRL2_G; a change restarts the sampling clock one period from now.
    private func reschedule(at t: UInt64) {
        let xl = Self.hertz(registers[LSM6DS.Register.control1XL] >> 4)
        let g = Self.hertz(registers[LSM6DS.Register.control2G] >> 4)
        guard xl != ratesInUse.xl || g != ratesInUse.g else { return }
        if xl != ratesInUse.xl {
            settlingTotal.xl = xl > 0 ? settlingSamples(hertz: xl, gyroscope: false) : 0
            settlingLeft.xl = settlingTotal.xl
        }
        if g != ratesInUse.g {
            settlingTotal.g = g > 0 ? settlingSamples(hertz: g, gyroscope: true) : 0
            settlingLeft.g = settlingTotal.g
        }
        let wasOff = ratesInUse.xl == 0 && ratesInUse.g == 0
        ratesInUse = (xl, g)
        let base = max(xl, g)
        guard base > 0 else { nextInstant = nil; return }
        // Out of power-down the first instant waits for the turn-on time; a second sensor switched
        // on moments later (CTRL2_G written after CTRL1_XL) does not restart that wait.
        if wasOff { firstInstantNotBefore = t + turnOnNanoseconds }
        instantPeriod = 1e9 / base * oscillator
        instantStart = max(t, firstInstantNotBefore)
        instantCount = 0
        nextInstant = instantStart + UInt64(instantPeriod.rounded())
    }

    // MARK: - Sampling

    /// Samples a sensor takes after it is switched on (or its rate changes) before its digital
    /// filters have settled: the LSM6DSM-like counts of Linux `samples_to_discard` (accelerometer
    /// 1, 1, 1, 2, 2, 2 and gyroscope 2, 5, 7, 12, 20, 36 at 12.5–416 Hz; the 416 Hz count above
    /// it), for the DSL generation and, as a modelling choice (no count was found for it), the
    /// DSO generation; none on the LSM6DS3 generation (no source gives one). While a sensor
    /// settles its output is the signal scaled by a ramp from 1/(n+1) to n/(n+1) (the shape is a
    /// modelling choice: only that the samples are wrong is sourced), or, on the DSO generation
    /// with CTRL4_C.DRDY_MASK set, the mark 0x7FFE on every axis (Linux: "corrupted samples are
    /// masked in hw with values greather than 0x7ffd", commit db3c490503be; the exact value is
    /// an assumption).
    func settlingSamples(hertz: Double, gyroscope: Bool) -> Int {
        guard variant.generation != .ds3, settlesAfterStart else { return 0 }
        let rates: [Double] = [12.5, 26, 52, 104, 208, 416]
        let i = rates.firstIndex { hertz <= $0 * 1.01 } ?? rates.count - 1
        return gyroscope ? [2, 5, 7, 12, 20, 36][i] : [1, 1, 1, 2, 2, 2][i]
    }

    /// The accelerometer's RMS noise in mg when CTRL6_C.XL_HM_MODE takes it out of
    /// high-performance mode (low-power at 12.5–52 Hz, normal at 104–208 Hz), or `nil` in
    /// high-performance mode. LSM6DSO DS12140 Rev 2, Table 2 (p. 10), "Acceleration RMS noise in
    /// normal/low-power mode": 1.8, 2.0, 2.4, 3.0 mg at ±2, 4, 8, 16 g, "independent of the ODR"
    /// (noise RMS related to BW = ODR/2). Used for the LSM6DSO and LSM6DSOX rows only; the other
    /// parts' tables were not opened, so they keep the high-performance noise density. An
    /// error model without noise (``SensorErrorModel/ideal``) stays without noise.
    func lowPowerNoiseMilliG(range: LSM6DS.AccelerometerRange) -> Double? {
        guard variant.key == "lsm6dso" || variant.key == "lsm6dsox",
              registers[LSM6DS.Register.control6C] & 0x10 != 0, ratesInUse.xl > 0, ratesInUse.xl <= 208 * 1.01 else { return nil }
        switch range.g {
        case 2: return 1.8
        case 4: return 2.0
        case 8: return 2.4
        default: return 3.0
        }
    }

    /// The raw output of a sensor with `settling` samples still to go of `total`.
    private func settlingOutput(_ raw: SIMD3<Int16>, left: Int, total: Int) -> SIMD3<Int16> {
        if variant.generation == .dso, registers[0x13] & 0x08 != 0 { return SIMD3(repeating: 0x7FFE) }
        let f = Double(total - left + 1) / Double(total + 1)
        return SIMD3(quantise(Double(raw.x) * f), quantise(Double(raw.y) * f), quantise(Double(raw.z) * f))
    }

    private func quantise(_ value: Double) -> Int16 {
        Int16(clamping: Int(max(-32768, min(32767, value.rounded()))))
    }

    private func sample(at t: UInt64) {
        counters.instants += 1
        let base = max(ratesInUse.xl, ratesInUse.g)
        let xlDue = ratesInUse.xl > 0 && instantCount % max(1, Int((base / ratesInUse.xl).rounded())) == 0
        let gDue = ratesInUse.g > 0 && instantCount % max(1, Int((base / ratesInUse.g).rounded())) == 0
        let state = profile.state(at: Double(t &- profileStart) / 1e9)
        let measured = errorModel.measure(state, bandwidth: base / 2, random: &random)
        let c5 = registers[LSM6DS.Register.control5C]
        var xlRaw = SIMD3<Int16>.zero, gRaw = SIMD3<Int16>.zero
        if xlDue {
            let fs = registers[LSM6DS.Register.control1XL] >> 2 & 0x03
            let range = variant.accelerometerRanges.first { $0.code == fs } ?? variant.accelerometerRanges[0]
            var mg = measured.specificForce / LSM6DS.standardGravity * 1000
            if let rms = lowPowerNoiseMilliG(range: range) {
                // Normal/low-power mode: the datasheet's RMS noise replaces the high-performance
                // density's (added in quadrature on top of what the error model drew).
                let drawn = errorModel.accelerometerNoise(bandwidth: ratesInUse.xl / 2) / LSM6DS.standardGravity * 1000
                let extra = (max(0, rms * rms - drawn * drawn)).squareRoot()
                if extra > 0, errorModel.accelerometerNoiseDensity > 0 {
                    mg += SIMD3(random.gaussian(), random.gaussian(), random.gaussian()) * extra
                }
            }
            switch c5 & 0x03 { case 1: mg += selfTestAccelerometerMilliG; case 2: mg -= selfTestAccelerometerMilliG; default: break }
            let lsb = mg / range.milliGPerLSB
            xlRaw = SIMD3(quantise(lsb.x), quantise(lsb.y), quantise(lsb.z))
            if settlingLeft.xl > 0 {
                xlRaw = settlingOutput(xlRaw, left: settlingLeft.xl, total: settlingTotal.xl)
                settlingLeft.xl -= 1
            }
            store(xlRaw, at: LSM6DS.Register.outAccelerometer)
            dataFlags |= 0x01
        }
        if gDue {
            let code = variant.gyroscopeRangeField.extract(from: registers[LSM6DS.Register.control2G])
            let range = variant.gyroscopeRanges.first { $0.code == code } ?? variant.gyroscopeRanges[1]
            var dps = measured.angularRate * (180 / .pi)
            // ST_G: 1 positive, 3 negative, 2 "not allowed" (taken as no deflection). Not ST_XL's
            // coding, where 2 is negative: ST-C `*_st_g_t` (`*_GY_ST_NEGATIVE = 3`) for the
            // LSM6DS3, LSM6DS3TR-C and LSM6DSO.
            switch c5 >> 2 & 0x03 { case 1: dps += selfTestGyroscopeDPS; case 3: dps -= selfTestGyroscopeDPS; default: break }
            let lsb = dps * 1000 / range.milliDPSPerLSB
            gRaw = SIMD3(quantise(lsb.x), quantise(lsb.y), quantise(lsb.z))
            if settlingLeft.g > 0 {
                gRaw = settlingOutput(gRaw, left: settlingLeft.g, total: settlingTotal.g)
                settlingLeft.g -= 1
            }
            store(gRaw, at: LSM6DS.Register.outGyroscope)
            dataFlags |= 0x02
        }
        let tRaw = quantise((temperature - 25) * variant.temperatureLSBPerDegree)
        registers[0x20] = UInt8(truncatingIfNeeded: tRaw)
        registers[0x21] = UInt8(truncatingIfNeeded: tRaw >> 8)
        dataFlags |= 0x04
        if fifoEnabled { batch(at: t, xl: xlDue ? xlRaw : nil, g: gDue ? gRaw : nil, temperature: tRaw) }
        updatePin(at: t)
    }

    private func store(_ v: SIMD3<Int16>, at address: UInt8) {
        registers[address] = UInt8(truncatingIfNeeded: v.x); registers[address + 1] = UInt8(truncatingIfNeeded: v.x >> 8)
        registers[address + 2] = UInt8(truncatingIfNeeded: v.y); registers[address + 3] = UInt8(truncatingIfNeeded: v.y >> 8)
        registers[address + 4] = UInt8(truncatingIfNeeded: v.z); registers[address + 5] = UInt8(truncatingIfNeeded: v.z >> 8)
    }

    // MARK: - FIFO

    private static func decimation(_ code: UInt8) -> Int { [0, 1, 2, 3, 4, 8, 16, 32][Int(code & 7)] }

    private var fifoMode: UInt8 { registers[LSM6DS.Register.fifoModeControl] & 0x07 }

    /// FIFO threshold in words, 0 = none.
    private var threshold: Int {
        switch variant.generation {
        case .ds3: return Int(registers[0x06]) | Int(registers[0x07] & 0x0F) << 8
        case .dsl: return Int(registers[0x06]) | Int(registers[0x07] & 0x07) << 8
        case .dso: return Int(registers[0x07]) | Int(registers[0x08] & 0x01) << 8
        }
    }

    private func fifoClear() {
        fifoHead = 0; fifoCount = 0; fifoInstant = 0; fifoSlot = 0
        // The compressor keeps its reference (see ``DPCM``); pending samples go with the FIFO.
        dpcmGyroscope.count = 0; dpcmAccelerometer.count = 0
        patternPosition = 0; overrun = false; overrunLatched = false
    }

    /// Words per pattern of the current FIFO configuration (pattern FIFO only), kept current on
    /// writes to FIFO_CTRL2–5.
    private var patternWords = 0

    private func updatePattern() {
        patternWords = variant.generation.hasPatternFIFO ? (pattern?.wordsPerPattern ?? 0) : 0
    }

    private var pattern: LSM6DS.PatternFIFO? {
        let c3 = registers[0x08], c4 = registers[0x09]
        let ts = registers[0x07] & 0x80 != 0 ? Self.decimation(c4 >> 3) : 0
        let g = Self.decimation(c3 >> 3), xl = Self.decimation(c3)
        guard g + xl + ts > 0 else { return nil }
        return LSM6DS.PatternFIFO(gyroscopeDecimation: g, accelerometerDecimation: xl, timestampDecimation: ts)
    }

    /// Makes room for `count` bytes; false when the FIFO is full in FIFO mode (the data is lost).
    private func reserve(_ count: Int) -> Bool {
        guard fifoCount + count > fifo.count else { return true }
        if fifoMode == LSM6DS.FIFOMode.fifo.rawValue {
            counters.fifoWordsLost += count / unit
            return false
        }
        while fifoCount + count > fifo.count {
            fifoHead = (fifoHead + unit) % fifo.count
            fifoCount -= unit
            counters.fifoWordsLost += 1
            if patternWords > 0 { patternPosition = (patternPosition + 1) % patternWords }
        }
        overrun = true
        overrunLatched = true
        return true
    }

    @inline(__always)
    private func put(_ b: UInt8) {
        var i = fifoHead + fifoCount
        if i >= fifo.count { i -= fifo.count }
        fifo[i] = b
        fifoCount += 1
    }

    /// Stores one data set or tagged word: an optional tag byte, then six data bytes.
    private func push(tag: UInt8?, _ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8, _ b4: UInt8, _ b5: UInt8) {
        guard reserve(tag == nil ? 6 : 7) else { return }
        if let tag { put(tag) }
        put(b0); put(b1); put(b2); put(b3); put(b4); put(b5)
        counters.fifoWordsWritten += tag == nil ? 3 : 1
    }

    private func push(tag: UInt8?, _ v: SIMD3<Int16>) {
        push(tag: tag, UInt8(truncatingIfNeeded: v.x), UInt8(truncatingIfNeeded: v.x >> 8),
             UInt8(truncatingIfNeeded: v.y), UInt8(truncatingIfNeeded: v.y >> 8),
             UInt8(truncatingIfNeeded: v.z), UInt8(truncatingIfNeeded: v.z >> 8))
    }

    private func batch(at t: UInt64, xl: SIMD3<Int16>?, g: SIMD3<Int16>?, temperature: Int16) {
        defer { fifoInstant += 1 }
        if variant.generation.hasPatternFIFO {
            guard registers[0x0A] >> 3 & 0x0F != 0 else { return } // ODR_FIFO 0: FIFO off
            let c3 = registers[0x08], c4 = registers[0x09]
            let decG = Self.decimation(c3 >> 3), decXL = Self.decimation(c3)
            let decTS = registers[0x07] & 0x80 != 0 ? Self.decimation(c4 >> 3) : 0
            let j = fifoInstant
            let gBatched = decG > 0 && g != nil && j % decG == 0, xlBatched = decXL > 0 && xl != nil && j % decXL == 0
            if gBatched, let g { push(tag: nil, g) }
            if xlBatched, let xl { push(tag: nil, xl) }
            if gBatched || xlBatched { logTruth(at: t, xl: xlBatched ? xl : nil, g: gBatched ? g : nil) }
            if decTS > 0, j % decTS == 0 {
                // The fourth data set: B0 = ts[15:8], B1 = ts[23:16], B3 = ts[7:0].
                let ts = ticks(at: t)
                push(tag: nil, UInt8(truncatingIfNeeded: ts >> 8), UInt8(truncatingIfNeeded: ts >> 16), 0,
                     UInt8(truncatingIfNeeded: ts), 0, 0)
            }
            return
        }
        let c3 = registers[0x09], c4 = registers[0x0A]
        let batchG = g != nil && c3 >> 4 != 0
        let batchXL = xl != nil && c3 & 0x0F != 0
        guard batchG || batchXL else { return }
        logTruth(at: t, xl: batchXL ? xl : nil, g: batchG ? g : nil)
        let slot = fifoSlot
        fifoSlot = (fifoSlot &+ 1) & 0x03
        typealias Tag = LSM6DS.TaggedFIFO.Tag
        let decTS = [0, 1, 8, 32][Int(c4 >> 6)]
        if decTS > 0, fifoInstant % decTS == 0 {
            let ts = UInt32(truncatingIfNeeded: ticks(at: t))
            push(tag: LSM6DS.TaggedFIFO.tagByte(.timestamp, slot: slot), UInt8(truncatingIfNeeded: ts), UInt8(truncatingIfNeeded: ts >> 8),
                 UInt8(truncatingIfNeeded: ts >> 16), UInt8(truncatingIfNeeded: ts >> 24), 0, 0)
        }
        let tRate = [0, 1.6, 12.5, 52][Int(c4 >> 4 & 0x03)]
        if tRate > 0, t >= nextTemperatureBatch {
            nextTemperatureBatch = t + UInt64(1e9 / tRate)
            push(tag: LSM6DS.TaggedFIFO.tagByte(.temperature, slot: slot), UInt8(truncatingIfNeeded: temperature),
                 UInt8(truncatingIfNeeded: temperature >> 8), 0, 0, 0, 0)
        }
        if compressionActive {
            let forced = [0, 8, 16, 32][Int(registers[0x08] >> 1 & 0x03)]
            if batchG, let g { compress(g, into: &dpcmGyroscope, gyroscope: true, slot: slot, forcedEvery: forced) }
            if batchXL, let xl { compress(xl, into: &dpcmAccelerometer, gyroscope: false, slot: slot, forcedEvery: forced) }
            return
        }
        if batchG, let g { push(tag: LSM6DS.TaggedFIFO.tagByte(.gyroscope, slot: slot), g) }
        if batchXL, let xl { push(tag: LSM6DS.TaggedFIFO.tagByte(.accelerometer, slot: slot), xl) }
    }

    /// Appends an instant to ``fifoTruth`` with the scales of the ranges in the registers now.
    private func logTruth(at t: UInt64, xl: SIMD3<Int16>?, g: SIMD3<Int16>?) {
        guard let log = fifoTruth else { return }
        let fs = registers[LSM6DS.Register.control1XL] >> 2 & 0x03
        let xlRange = variant.accelerometerRanges.first { $0.code == fs } ?? variant.accelerometerRanges[0]
        let code = variant.gyroscopeRangeField.extract(from: registers[LSM6DS.Register.control2G])
        let gRange = variant.gyroscopeRanges.first { $0.code == code } ?? variant.gyroscopeRanges[1]
        log.append(nanoseconds: t, accelerometer: xl, gyroscope: g,
                   accelerometerScale: xlRange.milliGPerLSB * 1e-3 * LSM6DS.standardGravity,
                   gyroscopeScale: gRange.milliDPSPerLSB * 1e-3 * .pi / 180)
    }

    /// FIFO_COMPR_RT_EN (FIFO_CTRL2 bit 6) and FIFO_COMPR_EN (EMB_FUNC_EN_B bit 3).
    private var compressionActive: Bool {
        variant.generation == .dso && !ignoresCompression && registers[0x08] & 0x40 != 0 && embedded[0x05] & 0x08 != 0
    }

    /// Adds `v` to the sensor's pending samples and writes a word once three are pending.
    private func compress(_ v: SIMD3<Int16>, into s: inout DPCM, gyroscope: Bool, slot: UInt8, forcedEvery: Int) {
        typealias F = LSM6DS.TaggedFIFO
        switch s.count {
        case 0: s.pending.0 = v
        case 1: s.pending.1 = v
        default: s.pending.2 = v
        }
        s.count += 1
        s.sinceUncompressed += 1
        guard s.count == 3 else { return }
        let (a2, a1, a0) = s.pending
        func diff(_ a: SIMD3<Int16>, _ b: SIMD3<Int16>) -> SIMD3<Int16>? {
            let d = SIMD3<Int32>(truncatingIfNeeded: a) &- SIMD3<Int32>(truncatingIfNeeded: b)
            let lo = SIMD3<Int32>(repeating: -128), hi = SIMD3<Int32>(repeating: 127)
            guard all(d .>= lo), all(d .<= hi) else { return nil }
            return SIMD3<Int16>(truncatingIfNeeded: d)
        }
        func uncompressed(_ tag: F.Tag) {
            push(tag: F.tagByte(tag, slot: slot), a2)
            counters.uncompressedWords += 1
            s.reference = a2
            s.sinceUncompressed = 0
            s.pending = (a1, a0, .zero)
            s.count = 2
        }
        guard let r = s.reference, forcedEvery == 0 || s.sinceUncompressed < forcedEvery,
              let d2 = diff(a2, r) else {
            uncompressed(gyroscope ? .gyroscopeT2 : .accelerometerT2)
            return
        }
        let d1 = diff(a1, a2), d0 = diff(a0, a1)
        if let d1, let d0, F.fits(d2, bits: 5), F.fits(d1, bits: 5), F.fits(d0, bits: 5) {
            let b = F.pack3x(d2, d1, d0)
            push(tag: F.tagByte(gyroscope ? .gyroscope3x : .accelerometer3x, slot: slot), b[0], b[1], b[2], b[3], b[4], b[5])
            counters.threeSampleWords += 1
            s.reference = a0
            s.count = 0
        } else if let d1 {
            let b = F.pack2x(d2, d1)
            push(tag: F.tagByte(gyroscope ? .gyroscope2x : .accelerometer2x, slot: slot), b[0], b[1], b[2], b[3], b[4], b[5])
            counters.twoSampleWords += 1
            s.reference = a1
            s.pending = (a0, .zero, .zero)
            s.count = 1
        } else {
            uncompressed(gyroscope ? .gyroscopeT2 : .accelerometerT2)
        }
    }

    /// Pops the next FIFO word into the output latch (zeros when empty).
    private func pop() {
        guard fifoCount >= unit else {
            for i in latch.indices { latch[i] = 0 }
            return
        }
        for i in 0..<unit { latch[i] = fifo[(fifoHead + i) % fifo.count] }
        fifoHead = (fifoHead + unit) % fifo.count
        fifoCount -= unit
        overrun = false
        if patternWords > 0 { patternPosition = (patternPosition + 1) % patternWords }
        updatePin(at: now)
    }

    // MARK: - Interrupt pin

    private func updatePin(at t: UInt64) {
        let route = registers[wiredPin == .int1 ? LSM6DS.Register.int1Control : LSM6DS.Register.int2Control]
        let words = fifoCount / unit
        let wtm = threshold > 0 && words >= threshold
        let full = fifoCount + unit > fifo.count
        var active = (route & 0x08 != 0 && wtm) || (route & 0x10 != 0 && overrun) || (route & 0x20 != 0 && full)
        active = active || (route & 0x01 != 0 && dataFlags & 0x01 != 0) || (route & 0x02 != 0 && dataFlags & 0x02 != 0)
        // The electrical level: H_LACTIVE inverts it, so changing the polarity alone moves the pin.
        let high = active != (registers[LSM6DS.Register.control3C] & LSM6DS.Control3.activeLow != 0)
        guard high != pinHigh else { return }
        pinHigh = high
        interruptLine?.raise(at: t, kind: high ? .rising : .falling)
    }

    // MARK: - Register access

    public func pointer(after address: UInt8) -> UInt8 {
        if variant.generation == .dso, address == 0x7E { return 0x78 }
        if variant.generation != .dso, address == 0x3F { return 0x3E }
        return registers[LSM6DS.Register.control3C] & LSM6DS.Control3.autoIncrement != 0 ? address &+ 1 : address
    }

    public func readRegister(_ address: UInt8) -> UInt8 {
        let dso = variant.generation == .dso
        if dso, embeddedBank, address != LSM6DS.Register.functionConfigurationAccess {
            return embedded[Int(address & 0x7F)]
        }
        switch address {
        case LSM6DS.Register.status:
            return dataFlags
        case 0x20, 0x21:
            dataFlags &= ~0x04
            return registers[address]
        case 0x22...0x27:
            dataFlags &= ~0x02
            updatePin(at: now)
            return registers[address]
        case 0x28...0x2D:
            dataFlags &= ~0x01
            updatePin(at: now)
            return registers[address]
        case 0x3A:
            return UInt8(truncatingIfNeeded: fifoCount / unit)
        case 0x3B:
            let words = fifoCount / unit
            let wtm: UInt8 = threshold > 0 && words >= threshold ? 0x80 : 0
            let full: UInt8 = fifoCount + unit > fifo.count ? 0x20 : 0
            if dso {
                let latched: UInt8 = overrunLatched ? 0x08 : 0
                overrunLatched = false
                return wtm | (overrun ? 0x40 : 0) | full | latched | UInt8(words >> 8 & 0x03)
            }
            let empty: UInt8 = words == 0 ? 0x10 : 0
            return wtm | (overrun ? 0x40 : 0) | full | empty | UInt8(words >> 8 & (variant.generation == .ds3 ? 0x0F : 0x07))
        case 0x3C where !dso:
            return UInt8(truncatingIfNeeded: patternPosition)
        case 0x3D where !dso:
            return UInt8(patternPosition >> 8 & 0x03)
        case 0x3E where !dso:
            pop()
            return latch[0]
        case 0x3F where !dso:
            return latch[1]
        case 0x40...0x43:
            let i = Int(address - 0x40)
            if !dso && i == 3 { return registers[address] }
            return UInt8(truncatingIfNeeded: ticks(at: now) >> UInt64(8 * i))
        case 0x78 where dso:
            pop()
            return latch[0]
        case 0x79...0x7E where dso:
            return latch[Int(address - 0x78)]
        default:
            return registers.hostRead(address)
        }
    }

    public func writeRegister(_ address: UInt8, _ value: UInt8) {
        if variant.generation == .dso {
            if address == LSM6DS.Register.functionConfigurationAccess {
                registers.hostWrite(address, value)
                embeddedBank = value & LSM6DS.embeddedBankAccess != 0
                return
            }
            if embeddedBank {
                // EMB_FUNC_INIT_B (0x67) bit 3, FIFO_COMPR_INIT: the compressor starts again (no
                // reference, nothing pending), so its next word is uncompressed. Datasheet: LSM6DSO
                // DS12140 embedded functions registers; ST `lsm6dso_compression_algo_init_set`.
                // Assumption: the request bit reads back 0 once served (the datasheet gives no
                // read-back behaviour in the sources read).
                if address == 0x67, value & 0x08 != 0 {
                    dpcmGyroscope = DPCM(); dpcmAccelerometer = DPCM()
                    counters.compressorInits += 1
                    embedded[0x67] = value & ~0x08
                    return
                }
                embedded[Int(address & 0x7F)] = value
                return
            }
        }
        switch address {
        case LSM6DS.Register.control3C:
            registers[address] = value
            if value & LSM6DS.Control3.softwareReset != 0, !resetNeverCompletes { resetDoneAt = now + 50_000 }
            if value & LSM6DS.Control3.boot != 0,
               !bootNeedsAccelerometer || registers[LSM6DS.Register.control1XL] >> 4 != 0 {
                bootDoneAt = now + 10_000_000
            }
            updatePin(at: now)
        case LSM6DS.Register.timestamp2:
            if value == LSM6DS.timestampResetValue { timerOrigin = now }
        case LSM6DS.Register.control1XL, LSM6DS.Register.control2G:
            registers.hostWrite(address, value)
            reschedule(at: now)
        case LSM6DS.Register.fifoModeControl:
            registers.hostWrite(address, value)
            let enabled = value & 0x07 != 0
            if !enabled { fifoClear() }
            if enabled && !fifoEnabled {
                fifoInstant = 0; fifoSlot = 0; nextTemperatureBatch = now
                dpcmGyroscope.count = 0; dpcmAccelerometer.count = 0
            }
            fifoEnabled = enabled
            updatePattern()
            updatePin(at: now)
        default:
            registers.hostWrite(address, value)
            if variant.generation.hasPatternFIFO, (0x07...0x09).contains(address) { updatePattern() }
            if address == variant.timerEnable.address {
                let running = value & variant.timerEnable.mask != 0
                if running && !timerRunning { timerOrigin = now }
                timerRunning = running
            }
            updatePin(at: now)
        }
    }
}

extension LSM6DSEmulator: EmulatedIMU {}

extension SimulatedChips {
    /// Every LSM6DS row of the driver's variant table, at 0x6A: a typical part (datasheet noise,
    /// bias and scale error drawn at a quarter of the tolerance); DSO-generation parts have an
    /// oscillator 0.45 % fast with the matching factory trim in INTERNAL_FREQ_FINE.
    public static let lsm6ds: [SimulatedChipModel] = LSM6DS.Variant.all.map { v in
        SimulatedChipModel(key: v.key, part: v.name, address: I2CAddress(UInt8(0x6A))) { seed in
            let chip = LSM6DSEmulator(variant: v, errorModel: .part(.lsm6ds(v), seed: seed), seed: seed)
            if v.generation == .dso { chip.frequencyFine = 3 }
            chip.temperature = 28.5
            return chip
        }
    }
}

extension SensorErrorModel.Figures {
    /// The figures the simulator uses for an LSM6DS part: LSM6DS3 for the DS3 generation, LSM6DSL
    /// for the DSL generation (LSM6DS3TR-C, LSM6DSL, LSM6DSM, ISM330DLC), LSM6DSR for the LSM6DSR
    /// and ISM330DHCX, LSM6DSO32 for itself, LSM6DSO for the LSM6DSO and LSM6DSOX (the LSM6DSOX's
    /// own table was not opened).
    public static func lsm6ds(_ variant: LSM6DS.Variant) -> Self {
        switch (variant.generation, variant.key) {
        case (.ds3, _): .lsm6ds3
        case (.dsl, _): .lsm6dsl
        case (.dso, "lsm6dsr"), (.dso, "ism330dhcx"): .lsm6dsr
        case (.dso, "lsm6dso32"): .lsm6dso32
        case (.dso, _): .lsm6dso
        }
    }

    /// LSM6DS3 (and LSM6DS33): rate noise 7 mdps/√Hz, accelerometer noise 90 µg/√Hz, zero-rate
    /// level ±10 dps, zero-g level ±40 mg, sensitivity tolerance ±1 %.
    ///
    /// Datasheet: LSM6DS3 DocID026899 Rev 7, Table 3 (p. 19): Rn 7 mdps/√Hz, An 90 µg/√Hz (±2 g,
    /// 104 Hz), G_TyOff ±10 dps, LA_TyOff ±40 mg (after soldering). That table has no initial
    /// sensitivity tolerance (only ±1 % / ±1.5 % change over temperature); ±1 % is the LSM6DSL's
    /// G_So%, assumed here.
    public static let lsm6ds3 = Self(gyroscopeNoiseDensityDegrees: 0.007, accelerometerNoiseDensityMicroG: 90,
                                     gyroscopeZeroRateTolerance: 10, accelerometerZeroGTolerance: SIMD3(40, 40, 40),
                                     scaleTolerance: 0.01)
    /// LSM6DSL: rate noise 4 mdps/√Hz, accelerometer noise 80 µg/√Hz at ±2 g, zero-rate level
    /// ±3 dps, zero-g level ±40 mg, sensitivity tolerance ±1 %.
    ///
    /// Datasheet: LSM6DSL DocID028475 Rev 7, Table 3 (Rn, An, G_TyOff, LA_TyOff, G_So%). The LSM6DSM
    /// datasheet's Table 3 gives 3.8 mdps/√Hz and 90 µg/√Hz with the same offsets.
    public static let lsm6dsl = Self(gyroscopeNoiseDensityDegrees: 0.004, accelerometerNoiseDensityMicroG: 80,
                                     gyroscopeZeroRateTolerance: 3, accelerometerZeroGTolerance: SIMD3(40, 40, 40),
                                     scaleTolerance: 0.01)
    /// LSM6DSO: rate noise 3.8 mdps/√Hz, accelerometer noise 70 µg/√Hz at ±2 g, zero-rate level
    /// ±1 dps, zero-g level ±20 mg, sensitivity tolerance ±1 %.
    ///
    /// Datasheet: LSM6DSO DS12140, Table 2 (Rn, An, G_TyOff, LA_TyOff, sensitivity tolerance), as
    /// quoted from Rev 3 by a project found in code search; the Rev 2 pages opened here (10–11)
    /// hold the rest of that table (RMS noise, ODRs, self-test), not these rows.
    public static let lsm6dso = Self(gyroscopeNoiseDensityDegrees: 0.0038, accelerometerNoiseDensityMicroG: 70,
                                     gyroscopeZeroRateTolerance: 1, accelerometerZeroGTolerance: SIMD3(20, 20, 20),
                                     scaleTolerance: 0.01)
    /// LSM6DSR (and ISM330DHCX): rate noise 5 mdps/√Hz, accelerometer noise 60 µg/√Hz, zero-rate
    /// level ±1 dps, zero-g level ±10 mg, sensitivity tolerance ±1 %.
    ///
    /// Datasheet: LSM6DSR, Table 2 (Rn, An, G_TyOff, LA_TyOff, G_So%). The ISM330DHCX's own
    /// table (DS13012) was not opened; a project quoting its Rev 6 gives the same 60 µg/√Hz and
    /// ±10 mg typical values.
    public static let lsm6dsr = Self(gyroscopeNoiseDensityDegrees: 0.005, accelerometerNoiseDensityMicroG: 60,
                                     gyroscopeZeroRateTolerance: 1, accelerometerZeroGTolerance: SIMD3(10, 10, 10),
                                     scaleTolerance: 0.01)
    /// LSM6DSO32: rate noise 3.8 mdps/√Hz, accelerometer noise 120 µg/√Hz at ±4 g (its smallest
    /// range), zero-rate level ±0.5 dps, zero-g level ±20 mg, sensitivity tolerance ±0.5 %.
    ///
    /// Datasheet: LSM6DSO32 DocID032891 Rev 1, Table 2 (pp. 25–26: Rn, An, G_TyOff, LA_TyOff,
    /// LA_So% and G_So%).
    public static let lsm6dso32 = Self(gyroscopeNoiseDensityDegrees: 0.0038, accelerometerNoiseDensityMicroG: 120,
                                       gyroscopeZeroRateTolerance: 0.5, accelerometerZeroGTolerance: SIMD3(20, 20, 20),
                                       scaleTolerance: 0.005)
}
