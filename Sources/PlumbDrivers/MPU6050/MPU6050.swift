import PlumbHAL

/// The InvenSense/TDK MPU-6050 family on I2C, driven from a variant table.
///
/// | Part | WHO_AM_I | Generation | FIFO | Temperature |
/// |---|---|---|---|---|
/// | MPU-6050, MPU-6000, MPU-9150 | 0x68 | MPU-6050 | 1024 B | raw/340 + 36.53 °C |
/// | MPU-6500 | 0x70 | MPU-6500 | 512 B | raw/333.87 + 21 °C |
/// | MPU-9250 / MPU-9255 / MPU-6515 | 0x71 / 0x73 / 0x74 | MPU-6500 | 512 B | raw/333.87 + 21 °C |
/// | ICM-20602 | 0x12 | ICM | 1008 B | raw/326.8 + 25 °C |
/// | ICM-20608 | 0xAF | ICM | 512 B | raw/326.8 + 25 °C |
/// | ICM-20689 | 0x98 | ICM | 4096 B | raw/326.8 + 25 °C |
/// | clones | 0x98, 0x72, 0x70 | accepted with a warning naming the chip | | |
///
/// WHO_AM_I 0x68 names the MPU-6050 row; ``identify()`` then names an MPU-9150 when its AK8975
/// answers WIA 0x48 at 0x0C through the I2C bypass, and nothing does with the bypass off
/// (``detectCompanion(_:registers:)``). The MPU-6000 is driven only when named.
///
/// Addresses 0x68 (AD0 low) and 0x69 (AD0 high). Ranges ±2/4/8/16 g and ±250/500/1000/2000 °/s;
/// output data rates 1000/(1 + n) Hz, 3.9–1000 Hz, with the DLPF chosen from the rate.
///
/// Streaming reads whole FIFO records (accelerometer and gyroscope, 12 bytes; ICM-20602 adds
/// the temperature it requires) in one burst per drain; the temperature is read from TEMP_OUT at
/// most once a second otherwise. Overflow (FIFO_COUNT within three records of full, as Linux
/// `inv_mpu_ring.c` judges it; never INT_STATUS.FIFO_OFLOW_INT, stuck at 1 on some chips) resets
/// the FIFO and reports a ``StreamGap``, never a misaligned sample. Sample times come from the
/// data-ready edges through a ``SampleClock``.
///
/// Datasheet: MPU-6000/MPU-6050 Product Specification rev 3.4 and Register Map rev 4.2;
/// MPU-9250 Register Map rev 1.4 for the MPU-6500 generation; Linux `drivers/iio/imu/inv_mpu6050`.
public final class MPU6050: IMU {
    public let bus: any I2CBus
    public let address: I2CAddress
    public let clock: any MonotonicClock
    /// The part forced by the caller (`--part`), if any.
    public let partOverride: Variant?
    /// Register access with the drivers' retry policy (``RegisterAccess/RetryPolicy``): transient
    /// bus errors are retried, permanent ones reported at once. FIFO data reads are not retried.
    public var registers: RegisterAccess

    public private(set) var identity: IMUIdentity?
    public private(set) var variant: Variant?
    public private(set) var configuration: IMUConfiguration = .default
    /// The register values of the last ``apply(_:)``.
    public private(set) var settings: Settings?
    public private(set) var isStreaming = false {
        didSet { acceptedReadBack = nil }
    }
    /// What ``acceptReadBack()`` took as the configuration (see there); cleared by the next reset,
    /// apply, start or stop of streaming.
    private var acceptedReadBack: [UInt8]?
    public var interruptSignal: InterruptSignal { .everySample }

    /// Sample-time model for the current FIFO run.
    public internal(set) var sampleClock = SampleClock(nominalPeriodNanoseconds: 1e7)
    /// Records drained since the FIFO was last reset.
    var fifoIndex = 0
    /// Edges that arrived after the last FIFO count, for the next drain.
    var pendingEdges: [EdgeEvent] = []
    var lastSampleTime: UInt64?
    var lastTemperature: Double?
    var lastTemperatureRead: UInt64?
    var fifoBuffer: [UInt8] = []
    /// When the last INT_STATUS read and FIFO count of this FIFO run happened, and the newest
    /// record index then (−1 after a FIFO reset).
    var previousStatusTime: UInt64 = 0
    var previousCountTime: UInt64 = 0
    /// When that FIFO_COUNT read ended: the chip took its count at some instant between
    /// ``previousCountTime`` and this one, as the transfer's bytes went by.
    var previousCountDoneTime: UInt64 = 0
    var previousNewest = -1
    /// Drains in a row whose timeline put the previous status read past the first record its
    /// count missed (``timeSamples(newest:countTime:latched:)``).
    var earlyTimelineDrains = 0

    /// - Parameters:
    ///   - bus: the bus the chip is on; the driver owns it from now on.
    ///   - address: 0x68 (AD0 low, default) or 0x69.
    ///   - clock: for the reset and start-up waits and the sample times.
    ///   - part: a variant key ("mpu6050", "icm20689") to drive regardless of WHO_AM_I.
    /// - Throws: ``IMUError/invalidConfiguration(_:)`` for an unknown part name.
    public init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x68), clock: any MonotonicClock, part: String? = nil) throws(IMUError) {
        self.bus = bus
        self.address = address
        self.clock = clock
        self.registers = RegisterAccess(bus: bus, address: address, clock: clock)
        if let part {
            guard let v = MPU6050.variant(named: part) else {
                throw .invalidConfiguration("unknown MPU part '\(part)': expected one of \(MPU6050.variants.map(\.key).joined(separator: ", "))")
            }
            partOverride = v
        } else {
            partOverride = nil
        }
        fifoBuffer.reserveCapacity(4096)
    }

    // MARK: Identity and reset

    /// The last companion-die look that told (or, when none has, the last one), and the
    /// WHO_AM_I it was made for: a later look that cannot tell keeps its answer, and one that
    /// tells otherwise is believed only when a second look agrees (``lookForCompanion(whoAmI:leavingBusyChipsAlone:)``).
    private var companionProbe: (whoAmI: UInt8, outcome: CompanionProbe)?

    /// The WHO_AM_I of the last identify when its look could not tell (its answer kept from an
    /// earlier look, or none): the look after a reset (``lookAgainForCompanion()``) is made then.
    private var companionLookPending: UInt8?

    /// Whether ``identify()`` leaves alone a chip another program is streaming from (INT_ENABLE
    /// set or USER_CTRL.FIFO_EN on, what ``startStreaming()`` sets): it is then only read and named
    /// by WHO_AM_I, with a warning, instead of looked behind (which writes INT_PIN_CFG). For
    /// `plumb regs`, which reads a chip it does not own, as `plumb probe` does through
    /// ``MPU6050/detect(whoAmI:registers:cached:leavingBusyChipsAlone:)``. Default `false`: a
    /// driver that is about to reset the chip looks regardless. A reset's own look again is not
    /// held back by it (after DEVICE_RESET the chip streams for no one).
    public var leavesBusyChipsAlone = false

    /// Why ``identify()`` must write nothing to the chip whatever its registers say (another plumb
    /// process claims it, which may be between its reset and its first stream, when INT_ENABLE and
    /// FIFO_EN are still clear): the chip is then named by WHO_AM_I, and the look behind it is
    /// undetermined for this reason, with the warning that says so. For `plumb regs`, as
    /// ``IMUFamilies/probe(_:refiningWith:leavingAlone:)`` leaves such a chip for `plumb probe`.
    public var leaveAloneReason: String?

    /// Reads WHO_AM_I and picks the variant row, or takes the `part` given at init.
    ///
    /// WHO_AM_I 0x68 is the MPU-6050, MPU-6000 and MPU-9150 alike. Without a `part`, every
    /// identify looks for the MPU-9150's AK8975 through the I2C bypass
    /// (``detectCompanion(_:registers:)``: INT_PIN_CFG is toggled and written back as found) and
    /// names the MPU-9150 when it answers. Every call, not only the first: the identify of a
    /// re-initialisation may face another board swapped in at the address, and a board swapped
    /// for the other part shows the same WHO_AM_I (a brown-out and a swap look alike to the driver;
    /// the look costs six transfers or so, once per re-initialisation). A look that cannot tell
    /// keeps the answer of an earlier one that could, and one that tells otherwise is believed
    /// only when a second look agrees (a bus that fails during a recovery does not rename the
    /// chip: ``lookForCompanion(whoAmI:leavingBusyChipsAlone:)``); with no earlier answer, a look
    /// that cannot tell drives the chip as an MPU-6050 with a warning. Never fails the call.
    ///
    /// With a `part`, any WHO_AM_I is driven as that part (with a warning when it differs), except
    /// one that names no part of the family on a chip that answers as another family's part at
    /// its WHO_AM_I (an LSM6DS at 0x6A: ``IMUFamilies/partOfOtherFamily(besides:address:bus:read:)``).
    /// - Throws: ``IMUError/partMismatch(given:register:read:found:)`` then.
    public func identify() throws(IMUError) -> IMUIdentity {
        let who = try readRegister(Register.whoAmI)
        let chosen: Variant
        var warnings: [String] = []
        if let forced = partOverride {
            chosen = forced
            if who != forced.whoAmI {
                let known = MPU6050.variant(whoAmI: who)
                if known == nil, let other = try IMUFamilies.partOfOtherFamily(
                    besides: MPU6050.family.name, address: address, bus: bus.path, read: readRegister) {
                    throw .partMismatch(given: forced.part, register: Register.whoAmI, read: who, found: other)
                }
                let found = known.map { "\($0.variant.part)" } ?? "no known part"
                warnings.append("WHO_AM_I 0x\(hex(who)) (\(found)) but driving it as \(forced.part) as requested")
            }
        } else {
            guard let match = lookForCompanion(whoAmI: who, leavingBusyChipsAlone: leavesBusyChipsAlone) else {
                throw .unexpectedIdentity(whoAmI: who, address: address, bus: bus.path, expected: MPU6050.acceptedIdentities)
            }
            chosen = match.variant
            warnings = match.warnings
        }
        return adopt(chosen, whoAmI: who, warnings: warnings)
    }

    /// Drives the chip as `chosen` from now on, and names it so (``identity``).
    @discardableResult
    private func adopt(_ chosen: Variant, whoAmI: UInt8, warnings: [String]) -> IMUIdentity {
        variant = chosen
        let id = IMUIdentity(part: chosen.part, partKey: chosen.key, whoAmI: whoAmI, address: address, bus: bus.path, warnings: warnings)
        identity = id
        return id
    }

    /// Resets the chip as the Linux driver does (`inv_mpu6050_init_config` and
    /// `inv_mpu6050_set_power_itg`): PWR_MGMT_1 = DEVICE_RESET, 100 ms, poll until the bit clears
    /// (bounded, re-read each pass), SIGNAL_PATH_RESET = 0x07 and 100 ms on the parts the kernel
    /// does it for, then PWR_MGMT_1 = CLKSEL PLL (awake) and 10 ms. The MPU-6050 wakes up asleep
    /// after reset (PWR_MGMT_1 = 0x40, Register Map rev 4.2 §4.28), so the wake write is required.
    ///
    /// Datasheet: Register Map rev 4.2 §4.28 (PWR_MGMT_1) and §4.26 (SIGNAL_PATH_RESET).
    public func reset() throws(IMUError) {
        let v = try requireVariant()
        isStreaming = false
        restartFIFORun() // whatever was counted belongs to the chip before the reset
        try writeRegister(Register.powerManagement1, Bits.deviceReset)
        clock.sleep(nanoseconds: 100 * Nanoseconds.perMillisecond)
        var cleared = false
        // A chip busy with its reset may not acknowledge for a moment (ENXIO; EREMOTEIO on a
        // Raspberry Pi, whose bus has already tried three times): that is polled again like a
        // bit not yet clear, within the same 10 × 10 ms, and thrown if it lasts. The register
        // access's own retries are cut to the bus's tries (``RegisterAccess/run(_:)``), so the
        // reset's window is this loop's, not theirs.
        var unanswered: IMUError?
        for _ in 0..<10 {
            do {
                if try readRegister(Register.powerManagement1) & Bits.deviceReset == 0 { cleared = true; break }
                unanswered = nil
            } catch {
                guard case .bus(let failure) = error, RegisterAccess.RetryPolicy.shouldRetry(failure) else { throw error }
                unanswered = error
            }
            clock.sleep(nanoseconds: 10 * Nanoseconds.perMillisecond)
        }
        if !cleared, let unanswered { throw unanswered }
        guard cleared else { throw .timeout(waitingFor: "PWR_MGMT_1.DEVICE_RESET to clear on \(v.part) at \(address) on \(bus.path)") }
        lookAgainForCompanion()
        if v.signalPathResetAfterReset {
            try writeRegister(Register.signalPathReset, Bits.signalPathResetAll)
            clock.sleep(nanoseconds: 100 * Nanoseconds.perMillisecond)
        }
        try writeRegister(Register.powerManagement1, Bits.clockPLL)
        clock.sleep(nanoseconds: 10 * Nanoseconds.perMillisecond)
        settings = nil
    }

    /// Makes the companion-die look again when the last one could not tell
    /// (``CompanionProbe/undetermined(_:)``), now that DEVICE_RESET has put USER_CTRL and
    /// INT_PIN_CFG at their power-on values (0x00, Register Map rev 4.2 §4.28): an auxiliary I2C
    /// master left on by another program (RTIMULib drives the MPU-9150's AK8975 that way) is off,
    /// and a bus that failed once has had its chance again. Also when that identify kept an
    /// earlier answer: the board may have been swapped for the other part. The answer replaces
    /// the variant and identity (same WHO_AM_I, so the same register map; only the MPU-9150's
    /// INT_RD_CLEAR and name differ), settled as identify settles it. A part named at init is
    /// never looked for.
    private func lookAgainForCompanion() {
        guard partOverride == nil, let who = companionLookPending, identity?.whoAmI == who,
              let match = lookForCompanion(whoAmI: who, leavingBusyChipsAlone: false), match.probe != nil else { return }
        adopt(match.variant, whoAmI: who, warnings: match.warnings)
    }

    /// Looks for the companion die behind `whoAmI` (``MPU6050/detect(whoAmI:registers:cached:leavingBusyChipsAlone:)``)
    /// and settles the answer with the earlier one for the same WHO_AM_I:
    /// - a look that cannot tell keeps an earlier answer that could (and marks the look to be made
    ///   again after a reset, ``companionLookPending``);
    /// - a look that tells otherwise than an earlier one is made once more, and believed only
    ///   when the second agrees; else the earlier answer is kept. A failing bus can tell wrong: a
    ///   read at the die's address that fails with EREMOTEIO on each of its three tries
    ///   counts as "nothing there" (``IMUFamilies/probeRead(_:_:)``; the Raspberry Pi reports an address NACK that way),
    ///   which names an MPU-9150 an MPU-6050 or, with the bypass off, hides a stand-alone AK8975
    ///   on the host's bus so that the read through the bypass finds it. A re-initialisation
    ///   after bus errors is where the look meets such a bus; a board really swapped for the
    ///   other part tells the same twice (one look more, once).
    /// - Returns: `nil` for a WHO_AM_I no row has.
    private func lookForCompanion(whoAmI who: UInt8, leavingBusyChipsAlone: Bool) -> (variant: Variant, warnings: [String], probe: CompanionProbe?)? {
        if let leaveAloneReason {
            return MPU6050.detect(whoAmI: who, registers: registers, cached: .undetermined(leaveAloneReason))
        }
        guard var match = MPU6050.detect(whoAmI: who, registers: registers, leavingBusyChipsAlone: leavingBusyChipsAlone) else { return nil }
        guard let probe = match.probe else {
            companionLookPending = nil
            return match
        }
        var pending = !probe.told
        if let earlier = companionProbe, earlier.whoAmI == who, earlier.outcome.told, probe != earlier.outcome {
            var settled = !probe.told
            if probe.told, let second = MPU6050.detect(whoAmI: who, registers: registers, leavingBusyChipsAlone: leavingBusyChipsAlone),
               second.probe != probe {
                settled = true
                pending = second.probe != earlier.outcome
            }
            if settled, let kept = MPU6050.detect(whoAmI: who, registers: registers, cached: earlier.outcome) { match = kept }
        }
        if let told = match.probe { companionProbe = (who, told) }
        companionLookPending = pending ? who : nil
        return match
    }

    // MARK: Configuration

    @discardableResult
    public func apply(_ configuration: IMUConfiguration) throws(IMUError) -> IMUConfiguration {
        let v = try requireVariant()
        let s = try MPU6050.settings(for: configuration, variant: v)
        let wasStreaming = isStreaming
        if wasStreaming { try stopStreaming() }
        // The MPU-6050 generation takes the gyro PLL only once the gyroscope runs (Product
        // Specification rev 3.4 §7.15: wait "for the MEMS oscillators to stabilize before they are
        // selected as the clock source"; Linux `inv_mpu6050_switch_engine` switches to the PLL
        // after the start-up time), and the internal oscillator while it is in standby.
        let pllAfterStartup = v.generation == .mpu6050 && s.powerManagement1 == Bits.clockPLL
        acceptedReadBack = nil
        try writeRegister(Register.powerManagement1, pllAfterStartup ? Bits.clockInternal : s.powerManagement1)
        try writeRegister(Register.powerManagement2, s.powerManagement2)
        var block: [UInt8] = [Register.sampleRateDivider, s.sampleRateDivider, s.config(for: v.generation),
                              s.gyroscopeRangeCode << 3, s.accelerometerRangeCode << 3]
        // ACCEL_CONFIG_2: the same filter code, as the kernel, and the FIFO size where the part selects it.
        if v.generation != .mpu6050 { block.append(s.lowPassCode | v.fifoSizeSelect) }
        try write(block)
        try writeRegister(Register.intPinConfig, s.interruptPinConfig)
        try writeRegister(Register.intEnable, 0)
        let startup = configuration.gyroscopeEnabled ? v.gyroscopeStartupMilliseconds : v.accelerometerStartupMilliseconds
        clock.sleep(nanoseconds: UInt64(startup) * Nanoseconds.perMillisecond)
        if pllAfterStartup { try writeRegister(Register.powerManagement1, Bits.clockPLL) }
        settings = s
        self.configuration = s.effective
        sampleClock.reset(nominalPeriodNanoseconds: 1e9 / s.effective.outputDataRate)
        if wasStreaming { try startStreaming() }
        return s.effective
    }

    public func startStreaming() throws(IMUError) {
        let s = try requireSettings()
        isStreaming = false
        restartFIFORun()
        try writeRegister(Register.intEnable, 0)
        try writeRegister(Register.fifoEnable, 0)
        try writeRegister(Register.userControl, 0)
        try writeRegister(Register.userControl, Bits.userFIFOReset)
        try writeRegister(Register.fifoEnable, s.fifoEnable)
        try writeRegister(Register.userControl, Bits.userFIFOEnable)
        _ = try readRegister(Register.intStatus) // clears a latched interrupt left from before
        // DATA_RDY only, as Linux `inv_mpu6050_set_enable`: FIFO_OFLOW_INT is stuck at 1 on some
        // MPU-6050s (kernel commit 6e82ae6b8d11), and with a latched pin (INT_PIN_CFG.LATCH_INT_EN)
        // an enabled stuck source could hold the line high, so no data-ready edge would come again.
        // Overflow is judged from FIFO_COUNT instead (see `drainFIFO`).
        try writeRegister(Register.intEnable, Bits.dataReady)
        restartFIFORun()
        isStreaming = true
    }

    public func stopStreaming() throws(IMUError) {
        isStreaming = false
        try writeRegister(Register.intEnable, 0)
        try writeRegister(Register.userControl, 0)
        try writeRegister(Register.fifoEnable, 0)
        try writeRegister(Register.powerManagement1, Bits.sleep | (settings?.powerManagement1 ?? Bits.clockPLL))
    }

    /// Reads back every configuration register and compares it with the last ``apply(_:)`` (and
    /// streaming state), or with the read-back ``acceptReadBack()`` kept for a chip that reads back
    /// otherwise than written. A brown-out or a reset of the chip alone shows up here as a mismatch.
    public func verifyConfiguration() throws(IMUError) -> Bool {
        let v = try requireVariant()
        guard let s = settings else { return false }
        let now = try readBack(v)
        if let acceptedReadBack { return now == acceptedReadBack }
        let count = v.generation == .mpu6050 ? 4 : 5
        var expected: [UInt8] = [s.sampleRateDivider, s.config(for: v.generation), s.gyroscopeRangeCode << 3, s.accelerometerRangeCode << 3]
        if count == 5 { expected.append(s.lowPassCode | v.fifoSizeSelect) }
        guard Array(now[0..<count]) == expected else { return false }
        let pin = now[count..<(count + 2)], power = now[(count + 2)..<(count + 5)]
        guard pin[pin.startIndex] == s.interruptPinConfig, pin[pin.startIndex + 1] == (isStreaming ? Bits.dataReady : 0) else { return false }
        let userExpected: UInt8 = isStreaming ? Bits.userFIFOEnable : 0
        let user = power[power.startIndex], power1 = power[power.startIndex + 1], power2 = power[power.startIndex + 2]
        guard user & ~UInt8(0x0F) == userExpected, power1 == s.powerManagement1 || (!isStreaming && power1 == Bits.sleep | s.powerManagement1),
              power2 == s.powerManagement2 else { return false }
        if isStreaming { guard now[count + 5] == s.fifoEnable else { return false } }
        return true
    }

    /// Takes what the chip reads back now as its configuration until the next reset, apply or
    /// start (``verifyConfiguration()`` then compares with it): for a chip that does not read back
    /// what it was written (a clone, a stuck bit), so that a brown-out, which returns the registers
    /// to their defaults, is still found without re-initialising every second.
    public func acceptReadBack() throws(IMUError) {
        acceptedReadBack = try readBack(try requireVariant())
    }

    /// USER_CTRL (its low four bits cleared) as ``acceptReadBack()`` took it; nil without one.
    var acceptedUserControl: UInt8? {
        guard let acceptedReadBack, let variant else { return nil }
        return acceptedReadBack[Self.configurationRegisterCount(variant) + 2]
    }

    /// SMPLRT_DIV through ACCEL_CONFIG (MPU-6050 generation) or ACCEL_CONFIG_2 (MPU-6500 on):
    /// the first registers ``readBack(_:)`` reads, ahead of INT_PIN_CFG, INT_ENABLE and USER_CTRL.
    private static func configurationRegisterCount(_ v: Variant) -> Int { v.generation == .mpu6050 ? 4 : 5 }

    /// SMPLRT_DIV through ACCEL_CONFIG(_2), INT_PIN_CFG and INT_ENABLE, USER_CTRL through
    /// PWR_MGMT_2 (USER_CTRL's self-clearing reset bits masked), and FIFO_EN while streaming.
    private func readBack(_ v: Variant) throws(IMUError) -> [UInt8] {
        var bytes = try readRegisters(Register.sampleRateDivider, count: Self.configurationRegisterCount(v))
        bytes += try readRegisters(Register.intPinConfig, count: 2)
        var power = try readRegisters(Register.userControl, count: 3)
        power[0] &= ~UInt8(0x0F)
        bytes += power
        if isStreaming { bytes.append(try readRegister(Register.fifoEnable)) }
        return bytes
    }

    // MARK: Bus helpers with bounded retries

    func requireVariant() throws(IMUError) -> Variant {
        if let variant { return variant }
        _ = try identify()
        return variant!
    }

    func requireSettings() throws(IMUError) -> Settings {
        guard let settings else { throw .invalidConfiguration("apply a configuration before streaming (\(address) on \(bus.path))") }
        return settings
    }

    func readRegister(_ register: UInt8) throws(IMUError) -> UInt8 {
        try registers.readRegister(register)
    }

    func readRegisters(_ register: UInt8, count: Int) throws(IMUError) -> [UInt8] {
        try registers.readRegisters(register, count: count)
    }

    func writeRegister(_ register: UInt8, _ value: UInt8) throws(IMUError) {
        try registers.writeRegister(register, value)
    }

    func write(_ bytes: [UInt8]) throws(IMUError) {
        try registers.write(bytes)
    }
}
