import PlumbHAL

/// An ST LSM6DS 6-axis IMU on I2C, driven from its FIFO with hardware timestamps.
///
/// | | |
/// |---|---|
/// | Addresses | 0x6A (SA0 low), 0x6B (SA0 high) |
/// | WHO_AM_I (0x0F) | 0x69 LSM6DS3/DS3H/DS33; 0x6A LSM6DS3TR-C/DSL/DSM/ISM330DLC; 0x6C LSM6DSO/DSOX/DSO32; 0x6B LSM6DSR/ISM330DHCX |
/// | Refused | 0x70 LSM6DSV (different register map), 0x6D, 0x22, 0x68 |
/// | Accelerometer | ±2/4/8/16 g (LSM6DSO32 ±4/8/16/32 g) |
/// | Gyroscope | ±125–2000 dps (LSM6DSR, ISM330DHCX to ±4000) |
/// | Rates | 12.5, 26, 52, 104, 208, 416, 833, 1666 Hz |
///
/// The part table is ``Variant``; this type holds no per-part logic beyond looking fields up there.
///
/// Streaming: the FIFO runs in continuous mode and raises its watermark on INT1 or INT2; each drain
/// reads the FIFO status, then every complete sampling instant in one burst, decodes the pattern
/// (DS3 generation) or tagged (DSO generation) format, and times each sample from the chip's 25 µs
/// timestamp counter, which was reset and anchored to the host clock when streaming started.
///
/// INT1 at reset: an LSM6DSO/DSR whose INT1 is high during reset comes up in I3C-only mode and
/// stops answering I2C (zephyrproject-rtos/zephyr#38902, stm32duino/LSM6DSR#4). Give INT1 a
/// pull-down or route the interrupt to INT2; ``reset()`` disables I3C as soon as the chip answers.
public final class LSM6DS: IMU {
    /// The bus the chip is on.
    public let bus: any I2CBus
    public let address: I2CAddress
    let clock: any MonotonicClock
    /// The part forced by the caller (`--part`), if any.
    public let partOverride: Variant?

    /// The part being driven: the override, or the one found by ``identify()``.
    public internal(set) var variant: Variant?
    public private(set) var identity: IMUIdentity?
    public internal(set) var configuration: IMUConfiguration = .default

    /// Register access with the drivers' retry policy (``RegisterAccess/RetryPolicy``): transient
    /// bus errors are retried, permanent ones reported at once. FIFO data reads are not retried:
    /// the chip may have popped the words, so the loss is reported as a gap instead.
    public var registers: RegisterAccess
    /// Use FIFO compression on parts that have it (DSO generation): lossless, one 7-byte word
    /// carries one to three samples of a sensor; taken only where a watermark then fills within
    /// ``maximumCompressedBatchNanoseconds``. Read by ``apply(_:)``. Default true.
    public var fifoCompression = true
    /// The longest a compressed watermark may take to fill, nanoseconds (see
    /// ``plan(_:for:compression:maximumCompressedBatchNanoseconds:)``: the most samples the
    /// watermark's words can hold at the best compression, a word per three samples of a sensor).
    /// Default 125 ms: at 833 Hz, watermarks up to 35 samples compress (35 → 104 samples, 124.85 ms;
    /// 36 → 107 samples, 128.45 ms); the 104 Hz and 12.5 Hz orientation modes do not.
    public var maximumCompressedBatchNanoseconds = LSM6DS.defaultMaximumCompressedBatchNanoseconds
    /// 125 ms.
    public static let defaultMaximumCompressedBatchNanoseconds: UInt64 = 125_000_000
    /// True when the configuration applied last compresses the FIFO.
    public var isCompressingFIFO: Bool { plan?.compression ?? false }
    /// The pin signals a FIFO watermark, not every sample.
    public var interruptSignal: InterruptSignal { .watermark }
    /// The watermark, or more with FIFO compression (``Plan/maximumSamplesPerWatermark``).
    public var maximumSamplesPerWatermark: Int { max(1, plan?.maximumSamplesPerWatermark ?? configuration.fifoWatermark) }
    /// True between ``startStreaming()`` and ``stopStreaming()``.
    public var isStreaming: Bool { streaming }

    /// Attempts and interval for polling a self-clearing bit (SW_RESET, BOOT) or a data-ready flag.
    public var pollAttempts = 50
    public var pollIntervalNanoseconds: UInt64 = 1_000_000
    /// Time given to BOOT before the first poll: 15 ms (ST-C BOOT_TIME: DSO 10 ms, DS3TR-C 15 ms).
    public var bootNanoseconds: UInt64 = 15_000_000
    /// Whether the last ``reset()`` saw BOOT clear (the trim reloaded). `false` after a reset
    /// whose BOOT was still set after ``pollAttempts`` reads: the reset goes on without it, as
    /// the kernel's does.
    public private(set) var bootCompleted = false

    // Register values written by the last apply, checked by verifyConfiguration.
    var expectedControl: [UInt8] = []
    var plan: Plan?
    var streaming = false
    var assembler: SampleAssembler?
    var pattern: PatternFIFO?
    var patternPosition = 0
    var patternSlot: UInt8 = 0
    var words: [FIFOWord] = []
    var fifoOperations: [I2COperation] = []
    var fifoBytes: [UInt8] = []
    var pendingGaps: [StreamGap] = []
    var lastTemperatureReadNanoseconds: UInt64 = 0
    /// Tagged FIFO: the host time the last FIFO read finished, whether it left the stream in a
    /// known state (a status-checked or valid watermark read), and watermark reads since the
    /// last FIFO_STATUS read. See ``drainTagged(_:edges:catchingUp:into:)``.
    var taggedLastReadEndNanoseconds: UInt64 = 0
    var taggedStateKnown = false
    var taggedReadsSinceStatus = 0
    /// What the driver last knew of the FIFO's fill (``FIFOFill``): set by every status read and
    /// burst, read by the stray-edge check (``fifoFilledToThreshold(now:threshold:configuration:)``)
    /// and by the catch-up reads (``fifoMayHoldThreshold(lastSample:periodNanoseconds:)``).
    var fill = FIFOFill(fromNanoseconds: 0)
    /// Tagged FIFO: the words an instant adds, measured with compression
    /// (``measureWordsPerInstant(_:configuration:)``), exact without.
    var taggedWordsPerInstant = 0.0
    /// Tagged FIFO: the last FIFO read held corrupted words (a tag with wrong parity, or a tag not
    /// batched, that is not the all-zero read past the end); reported by ``drain(into:edges:)``.
    var taggedCorruption = false
    /// Tagged FIFO: words a status-checked read got back as zeros (FIFO_STATUS said they were
    /// there, so the chip popped them and the bus lost them); reported by ``drain(into:edges:)``.
    var taggedZeroedWords = 0
    /// Tagged FIFO with compression: the DPCM decoder, kept across drains.
    var decompressor = TaggedFIFO.Decompressor(gyroscopeEnabled: true)
    /// Drains that read FIFO_STATUS1/2, and drains that read a watermark's worth directly.
    public internal(set) var statusDrains = 0
    public internal(set) var watermarkDrains = 0
    /// Status reads a drain added because its burst may have left the threshold's words behind
    /// (``fifoMayHoldThreshold(lastSample:periodNanoseconds:)``); on the tagged FIFO counted in ``statusDrains`` too.
    public internal(set) var catchUpReads = 0
    /// Pattern FIFO: CTRL1_XL reads after a burst whose last set may have been cut short by a
    /// brown-out (``patternKeptThroughBurst()``).
    public internal(set) var partialSetChecks = 0
    /// Whether a drain reads the status again when the FIFO may still hold its threshold after the
    /// burst (see ``drain(into:edges:)``). Default on; off only for a register file that is not a
    /// FIFO, such as the kernel's i2c-stub in the VM test, whose FIFO_STATUS never goes down.
    public var catchesUp = true

    /// Creates a driver; it touches the bus only when a method is called.
    ///
    /// - Parameters:
    ///   - bus: the I2C bus the chip is on.
    ///   - address: 0x6A or 0x6B.
    ///   - clock: the clock for waits and for anchoring the chip's timestamps (CLOCK_MONOTONIC on
    ///     Linux, virtual time in simulation).
    ///   - part: drive this part whatever WHO_AM_I says (with a warning when it disagrees).
    public init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x6A), clock: any MonotonicClock, part: Variant? = nil) {
        self.bus = bus
        self.address = address
        self.clock = clock
        self.registers = RegisterAccess(bus: bus, address: address, clock: clock)
        self.partOverride = part
        self.variant = part
    }

    /// Creates a driver with the part given by its key ("lsm6dso32"), as `--part` passes it.
    ///
    /// - Throws: ``IMUError/invalidConfiguration(_:)`` for an unknown key.
    public convenience init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x6A), clock: any MonotonicClock,
                            partKey: String?) throws(IMUError) {
        var part: Variant? = nil
        if let partKey {
            guard let v = Variant.named(partKey) else {
                throw .invalidConfiguration("unknown LSM6DS part '\(partKey)': expected one of \(Variant.all.map(\.key).joined(separator: ", "))")
            }
            part = v
        }
        self.init(bus: bus, address: address, clock: clock, part: part)
    }

    // MARK: - Identity

    /// Reads WHO_AM_I (0x0F) and finds the part in ``Variant/all``.
    ///
    /// - Throws: ``IMUError/unsupported(_:)`` for a known ST part with another register map
    ///   (LSM6DSV); ``IMUError/unexpectedIdentity(whoAmI:address:bus:expected:)`` for anything else;
    ///   with a part forced, ``IMUError/partMismatch(given:register:read:found:)`` when WHO_AM_I
    ///   names no LSM6DS part and the chip answers as another family's part at its WHO_AM_I (an
    ///   MPU-6050 at 0x68: ``IMUFamilies/partOfOtherFamily(besides:address:bus:read:)``), checked
    ///   before the unsupported parts, since the MPU-6050's 0x0F may read as the LSM6DST's 0x6D.
    @discardableResult
    public func identify() throws(IMUError) -> IMUIdentity {
        let who = try readRegister(Register.whoAmI)
        if let forced = partOverride, Variant.matching(whoAmI: who).isEmpty,
           let other = try IMUFamilies.partOfOtherFamily(besides: Self.family.name, address: address, bus: bus.path, read: readRegister) {
            throw .partMismatch(given: forced.name, register: Register.whoAmI, read: who, found: other)
        }
        let found = try Self.identity(whoAmI: who, address: address, bus: bus.path, override: partOverride)
        variant = Variant.named(found.partKey)
        identity = found
        return found
    }

    /// The identity for a WHO_AM_I value: a pure function of the table, for `probe` and tests.
    public static func identity(whoAmI who: UInt8, address: I2CAddress, bus: String,
                                override: Variant? = nil) throws(IMUError) -> IMUIdentity {
        let matches = Variant.matching(whoAmI: who)
        // A known part with another register map is refused even when a part is forced: driving
        // an LSM6DSV with the LSM6DSO map would write the wrong registers.
        if matches.isEmpty, let known = unsupportedParts.first(where: { $0.whoAmI == who }) {
            throw .unsupported("0x\(hex(who)) at \(address) on \(bus) is an \(known.name), which Plumb does not support yet: \(known.reason). Supported: LSM6DS3/DSL/DSO generations (WHO_AM_I \(supportedWhoAmI.map { "0x" + hex($0) }.joined(separator: ", ")))")
        }
        if let forced = override {
            var warnings: [String] = []
            if forced.whoAmI != who {
                let seen = matches.first.map { "an \($0.name)-generation part" } ?? "no known part"
                warnings.append("WHO_AM_I is 0x\(hex(who)) (\(seen)), not \(forced.name)'s 0x\(hex(forced.whoAmI)); driving it as \(forced.name) because the part was given")
            }
            return IMUIdentity(part: forced.name, partKey: forced.key, whoAmI: who, address: address, bus: bus, warnings: warnings)
        }
        guard let first = matches.first else {
            throw .unexpectedIdentity(whoAmI: who, address: address, bus: bus, expected: supportedWhoAmI)
        }
        var warnings: [String] = []
        let different = matches.dropFirst().filter {
            $0.accelerometerRanges != first.accelerometerRanges || $0.gyroscopeRanges != first.gyroscopeRanges
                || $0.fifoCapacityBytes != first.fifoCapacityBytes
        }
        if !different.isEmpty {
            let names = different.map { "\($0.name) (--part \($0.key))" }.joined(separator: ", ")
            warnings.append("WHO_AM_I 0x\(hex(who)) is also \(names); driving it as \(first.name)")
        }
        let part = matches.map(\.name).joined(separator: "/")
        return IMUIdentity(part: part, partKey: first.key, whoAmI: who, address: address, bus: bus, warnings: warnings)
    }

    func requireVariant() throws(IMUError) -> Variant {
        if let variant { return variant }
        try identify()
        guard let variant else { throw .unsupported("no LSM6DS part identified at \(address) on \(bus.path)") }
        return variant
    }

    // MARK: - Reset

    /// Resets the chip the way the kernel's st_lsm6dsx does, with bounded polls.
    ///
    /// 0. DSO generation: FUNC_CFG_ACCESS = 0 (the main register bank).
    /// 1. FIFO to bypass (FIFO_MODE = 0) first: "if the first interrupt line is asserted during
    ///    hw reset the device will work in I3C-only mode" (K-LSM `st_lsm6dsx_reset_device`).
    /// 2. CTRL3_C = SW_RESET | IF_INC; poll CTRL3_C until SW_RESET reads 0.
    /// 3. CTRL3_C = BOOT | IF_INC; wait the boot time; poll until BOOT reads 0, and go on when it
    ///    does not (``bootCompleted``; a part that reloads its trim only with the accelerometer on).
    /// 4. CTRL3_C = BDU | IF_INC (block data update, so a burst never mixes two samples;
    ///    Seeed-Studio/Seeed_Arduino_LSM6DS3#30).
    /// 5. DSO generation: CTRL9_XL.I3C_DISABLE = 1 (read-modify-write).
    ///
    /// - Throws: ``IMUError/timeout(waitingFor:)`` when SW_RESET stays set after ``pollAttempts`` reads.
    public func reset() throws(IMUError) {
        let v = try requireVariant()
        streaming = false
        // DSO generation: back to the main register bank first, in case an earlier access to the
        // embedded bank was cut short (FUNC_CFG_ACCESS answers in every bank).
        if v.generation == .dso { try writeRegister(Register.functionConfigurationAccess, 0) }
        try writeRegister(Register.fifoModeControl, FIFOMode.bypass.rawValue)
        try writeRegister(Register.control3C, Control3.softwareReset | Control3.autoIncrement)
        try pollUntilClear(Register.control3C, mask: Control3.softwareReset, what: "SW_RESET in CTRL3_C (0x12) to clear")
        try writeRegister(Register.control3C, Control3.boot | Control3.autoIncrement)
        clock.sleep(nanoseconds: bootNanoseconds)
        // A BOOT that has not cleared does not stop the start: K-LSM sets it with every sensor
        // powered down, sleeps and never reads it back, and the CTRL3_C description of the
        // ISM330DHCX / ASM330LHH / LSM6DSRX generation says the accelerometer must be on for it
        // (public transcriptions; not confirmed on a chip here), which right after SW_RESET it is
        // not. The trim was loaded at power-on, so the reload is a nicety; the next write of
        // CTRL3_C ends the request.
        bootCompleted = try clearsWithin(Register.control3C, mask: Control3.boot)
        try writeRegister(Register.control3C, Control3.blockDataUpdate | Control3.autoIncrement)
        if let i3c = v.i3cDisable {
            let old = try readRegister(i3c.address)
            try writeRegister(i3c.address, old | i3c.mask)
        }
        expectedControl = []
    }

    /// Reads `register` until `mask` reads zero, as ``pollUntilClear(_:mask:what:)`` does, and
    /// says whether it did instead of throwing.
    func clearsWithin(_ register: UInt8, mask: UInt8) throws(IMUError) -> Bool {
        for _ in 0..<pollAttempts {
            clock.sleep(nanoseconds: pollIntervalNanoseconds)
            if try readRegister(register) & mask == 0 { return true }
        }
        return false
    }

    /// Reads `register` until `mask` reads zero, sleeping ``pollIntervalNanoseconds`` before each
    /// read, at most ``pollAttempts`` reads. Every pass re-reads the register.
    func pollUntilClear(_ register: UInt8, mask: UInt8, what: String) throws(IMUError) {
        for _ in 0..<pollAttempts {
            clock.sleep(nanoseconds: pollIntervalNanoseconds)
            if try readRegister(register) & mask == 0 { return }
        }
        throw .timeout(waitingFor: "\(what) at \(address) on \(bus.path) (\(pollAttempts) reads)")
    }

    // MARK: - Bus helpers

    func readRegister(_ register: UInt8) throws(IMUError) -> UInt8 {
        try registers.readRegister(register)
    }

    func readRegisters(_ register: UInt8, count: Int) throws(IMUError) -> [UInt8] {
        try registers.readRegisters(register, count: count)
    }

    func writeRegister(_ register: UInt8, _ value: UInt8) throws(IMUError) {
        try registers.writeRegister(register, value)
    }
}
