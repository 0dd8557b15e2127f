import PlumbHAL
import PlumbDrivers

/// A register-level MPU-6050 family chip (any row of ``MPU6050/variants``) in virtual time.
///
/// What it does, from the register maps (MPU-6000/6050 rev 4.2; MPU-9250 rev 1.4 for the
/// MPU-6500 generation):
/// - power-on reset values from the shared `RegisterMap` (PWR_MGMT_1 = 0x40 asleep on the
///   MPU-6050, 0x01 on the MPU-6500; WHO_AM_I per variant, read-only);
/// - DEVICE_RESET reloads every register and reads back set for ``resetDuration``; the
///   SIGNAL_PATH_RESET and USER_CTRL reset bits clear themselves; SIGNAL_PATH_RESET leaves the
///   sensor registers alone, USER_CTRL.SIG_COND_RESET clears them (rev 4.2 §4.26, §4.27);
/// - the register pointer auto-increments, except on FIFO_R_W (0x74), which pops the FIFO;
/// - samples at 1 kHz / (1 + SMPLRT_DIV) (8 kHz / (1 + SMPLRT_DIV) with DLPF_CFG 0 or 7), from
///   the ``MotionProfile`` through the ``SensorErrorModel``, quantised at the ranges in
///   GYRO_CONFIG / ACCEL_CONFIG and clipped at ±32767, plus the offset registers;
/// - a FIFO of the variant's size (on the ICM-20689, of the size ACCEL_CONFIG_2.FIFO_SIZE
///   selects: 512 bytes after reset) with records in register order (accel, temp, gyro x/y/z as
///   FIFO_EN selects); when full, the MPU-6050 overwrites its oldest bytes (alignment lost)
///   and the MPU-6500 generation with CONFIG.FIFO_MODE = 1 drops the new record; either way
///   INT_STATUS.FIFO_OFLOW_INT is set;
/// - DATA_RDY (and FIFO overflow) on the INT pin: latched until INT_STATUS is read (any read
///   with INT_RD_CLEAR), or 50 µs pulses; active-high or active-low;
/// - self-test: the GYRO_CONFIG / ACCEL_CONFIG self-test bits add the factory response given by
///   the SELF_TEST registers' codes, times (1 + ``selfTestDeviation``);
/// - the chip's oscillator runs ``clockError`` off nominal, so drivers must estimate the period.
///
/// - the MPU-9150's AK8975 (``magnetometer``) on the auxiliary bus, which the host bus reaches at
///   0x0C through INT_PIN_CFG.I2C_BYPASS_EN with USER_CTRL.I2C_MST_EN clear (``I2CBypassBridge``;
///   Register Map rev 4.2, register 55); the auxiliary I2C master itself is not modelled.
///
/// Faults: ``powerOnReset()`` (a brown-out), ``scheduledResets`` (the same at set times),
/// ``overflowFlagStuck`` (a FIFO_OFLOW_INT bit that always reads 1, as on some MPU-6050s).
public final class MPU6050Emulator: RegisterTarget {
    public let variant: MPU6050.Variant
    public private(set) var registers: RegisterFile
    public var registerPointer: UInt8 = 0
    /// The motion applied to the chip; its time 0 is virtual time ``profileStart``.
    public var profile: MotionProfile
    public var profileStart: UInt64 = 0
    public var errorModel: SensorErrorModel
    /// Die temperature, °C.
    public var temperature = 25.0
    /// The oscillator's error as a fraction: +0.01 samples 1 % faster than nominal.
    public var clockError = 0.0
    /// How long DEVICE_RESET takes, nanoseconds. Default 5 ms.
    public var resetDuration: UInt64 = 5 * Nanoseconds.perMillisecond
    /// Relative error of the self-test response against the factory trim. Default +0.03.
    public var selfTestDeviation = 0.03
    /// Virtual times at which the chip suffers a power-on reset (brown-out), ascending.
    public var scheduledResets: [UInt64] = []
    /// A WHO_AM_I value to answer instead of the variant's (a clone). Takes effect at the next
    /// power-on or reset.
    public var identityOverride: UInt8?
    /// A part whose INT_STATUS.FIFO_OFLOW_INT always reads 1, whatever the FIFO does. Linux
    /// commit 6e82ae6b8d11 ("iio: imu: inv_mpu6050: fix no data on MPU6050", by InvenSense):
    /// "Some chips have a fifo overflow bit issue where the bit is always set. The result is that
    /// every data is dropped"; since then `inv_mpu_ring.c` judges overflow by FIFO_COUNT alone.
    /// Default false.
    public var overflowFlagStuck = false
    /// The data-ready pin. The line holds the chip; the chip holds the line weakly.
    public weak var interruptLine: SimulatedInterruptLine?
    /// When set, every record written into the FIFO is logged here (ground truth for tests).
    public var fifoTruth: FIFOTruthLog?
    /// The magnetometer die on the auxiliary I2C bus, on a variant that has one
    /// (``MPU6050/Variant/companion``: the MPU-9150's AK8975), else `nil`. The host reaches it at
    /// 0x0C while INT_PIN_CFG.I2C_BYPASS_EN is set and USER_CTRL.I2C_MST_EN clear, asleep or
    /// not: the bypass is an analog switch (``bypassTargets``).
    public let magnetometer: AK8975Emulator?

    /// What the chip has done.
    public struct Counters: Sendable, Equatable {
        public var samples = 0
        public var fifoOverflows = 0
        public var resets = 0
        public init() {}
    }
    public private(set) var counters = Counters()

    private var now: UInt64 = 0
    private var nextSample: Double?
    private var resetBusyUntil: UInt64?
    private var fifo: [UInt8]
    private var fifoHead = 0
    private var fifoCount = 0
    private var lastFIFOByte: UInt8 = 0
    private var countLowLatch: UInt8 = 0
    private var pinAsserted = false
    private var random: SeededRandom

    /// - Parameters:
    ///   - variant: the part to be (its WHO_AM_I, FIFO size, temperature formula, map).
    ///   - profile: the motion. Default rest.
    ///   - errorModel: noise, bias and scale error. Default the part's datasheet noise only.
    ///   - seed: seeds the noise.
    public init(variant: MPU6050.Variant, profile: MotionProfile = .rest(), errorModel: SensorErrorModel? = nil, seed: UInt64 = 11) {
        self.variant = variant
        self.registers = RegisterFile(map: variant.registerMap)
        self.profile = profile
        self.errorModel = errorModel ?? .noiseOnly(variant.generation == .mpu6050 ? .mpu6050 : .mpu6500)
        self.random = SeededRandom(seed: seed)
        self.fifo = [UInt8](repeating: 0, count: variant.fifoSize)
        self.magnetometer = variant.companion == .ak8975 ? AK8975Emulator() : nil
        loadPowerOnState()
    }

    /// A chip of the variant named `key` ("mpu6050").
    public convenience init?(part key: String, profile: MotionProfile = .rest(), errorModel: SensorErrorModel? = nil, seed: UInt64 = 11) {
        guard let v = MPU6050.variant(named: key) else { return nil }
        self.init(variant: v, profile: profile, errorModel: errorModel, seed: seed)
    }

    /// Factory self-test codes written at power-on (SELF_TEST_X/Y/Z/A on the MPU-6050;
    /// SELF_TEST_*_GYRO, SELF_TEST_*_ACCEL on the MPU-6500 generation).
    public var factoryCodes6050: [UInt8] = [(4 << 5) | 15, (4 << 5) | 17, (3 << 5) | 13, 0b00_10_11]
    public var factoryGyroCodes6500: [UInt8] = [120, 125, 118]
    public var factoryAccelCodes6500: [UInt8] = [110, 108, 115]

    private func loadPowerOnState() {
        registers.powerOnReset()
        registers[MPU6050.Register.whoAmI] = identityOverride ?? variant.whoAmI
        if variant.generation == .mpu6050 {
            for (i, c) in factoryCodes6050.enumerated() { registers[MPU6050.Register.selfTestX + UInt8(i)] = c }
        } else {
            for i in 0..<3 {
                registers[MPU6050.Register.selfTestXGyro + UInt8(i)] = factoryGyroCodes6500[i]
                registers[MPU6050.Register.selfTestX + UInt8(i)] = factoryAccelCodes6500[i]
            }
        }
        fifoHead = 0; fifoCount = 0
        setPin(false, at: now)
        nextSample = nil
        restartSampling()
    }

    /// A brown-out: every register back to its power-on value, FIFO empty, pin released.
    public func powerOnReset() {
        counters.resets += 1
        resetBusyUntil = nil
        loadPowerOnState()
    }

    /// Bytes waiting in the FIFO.
    public var fifoLevel: Int { fifoCount }
    /// Whether the INT pin is asserted.
    public var isInterruptAsserted: Bool { pinAsserted }

    /// Whether the gyroscope's MEMS drive runs, the chip's largest current (Product
    /// Specification rev 3.4 §6.4: 3.6 mA gyroscope, 500 µA accelerometer): awake with an axis
    /// out of standby (PWR_MGMT_2 STBY_XG/YG/ZG), or, on the MPU-6050 generation, with CLKSEL
    /// choosing a gyro PLL (1–3). The MPU-60X0 runs "in low power modes with the gyroscopes
    /// disabled" only on the internal oscillator or an external clock (Register Map rev 4.2
    /// §4.28), and Linux `inv_mpu6050_clock_switch` switches these "old chips" to the internal
    /// clock by hand before the gyro goes to standby; so an axis in standby that is the clock
    /// reference is modelled as still driven. The MPU-6500 generation's CLKSEL 1–5 picks its
    /// source itself ("automatic clock switching" in the same kernel function).
    public var isGyroscopeRunning: Bool {
        let pm1 = registers[MPU6050.Register.powerManagement1], pm2 = registers[MPU6050.Register.powerManagement2]
        guard isSampling, pm1 & MPU6050.Bits.clockSelectMask != 7 else { return false }
        if pm2 & MPU6050.Bits.standbyGyro != MPU6050.Bits.standbyGyro { return true }
        let clock = pm1 & MPU6050.Bits.clockSelectMask
        return variant.generation == .mpu6050 && (1...3).contains(clock)
    }

    // MARK: Timing

    private var isSampling: Bool {
        resetBusyUntil == nil && registers[MPU6050.Register.powerManagement1] & (MPU6050.Bits.sleep | MPU6050.Bits.deviceReset) == 0
    }

    /// The sample period the registers ask for, nanoseconds (before the oscillator error).
    public var nominalPeriod: Double {
        let dlpf = registers[MPU6050.Register.config] & 0x07
        let base = (dlpf == 0 || dlpf == 7) ? 8000.0 : 1000.0
        return 1e9 * (1 + Double(registers[MPU6050.Register.sampleRateDivider])) / base
    }

    private var samplePeriod = 1e6

    private func restartSampling() {
        samplePeriod = nominalPeriod / (1 + clockError)
        nextSample = isSampling ? Double(now) + samplePeriod : nil
    }

    public func advance(to nanoseconds: UInt64) {
        guard nanoseconds > now else { return }
        while true {
            var t = UInt64.max
            var what = 0
            if let r = scheduledResets.first, r < t { t = r; what = 1 }
            if let b = resetBusyUntil, b < t { t = b; what = 2 }
            if let s = nextSample {
                let due = UInt64(s.rounded(.up))
                if due < t { t = due; what = 3 }
            }
            guard what != 0, t <= nanoseconds else { break }
            now = max(now, t)
            switch what {
            case 1:
                scheduledResets.removeFirst()
                powerOnReset()
            case 2:
                resetBusyUntil = nil
                registers[MPU6050.Register.powerManagement1] &= ~MPU6050.Bits.deviceReset
                restartSampling()
            default:
                let s = nextSample!
                produceSample(at: t)
                nextSample = s + samplePeriod
            }
        }
        now = nanoseconds
    }

    public func nextEventNanoseconds(after nanoseconds: UInt64) -> UInt64? {
        var t = UInt64.max
        if let r = scheduledResets.first, r > nanoseconds { t = min(t, r) }
        if let b = resetBusyUntil, b > nanoseconds { t = min(t, b) }
        if let s = nextSample {
            let due = UInt64(s.rounded(.up))
            if due > nanoseconds { t = min(t, due) }
        }
        return t == .max ? nil : t
    }

    // MARK: Sampling

    /// Noise bandwidth per CONFIG.DLPF_CFG, hertz: the gyroscope bandwidths of the MPU-6000/MPU-6050
    /// Register Map RM-MPU-6000A-00 rev 4.2 §4.3 (256, 188, 98, 42, 20, 10, 5; code 7 reserved,
    /// modelled as 256), used for both sensors and every generation. The MPU-6500 generation's own
    /// table differs by a few hertz (250/184/92/41/20/10/5, 3600 for code 7, MPU-9250 Register Map
    /// rev 1.4 §4.5, not re-checked here) and its accelerometer has a separate filter; the noise
    /// model ignores both differences.
    private static let dlpfBandwidth: [Double] = [256, 188, 98, 42, 20, 10, 5, 256]

    private func produceSample(at t: UInt64) {
        counters.samples += 1
        let seconds = Double(Int64(bitPattern: t &- profileStart)) / 1e9
        let state = profile.state(at: seconds)
        let config = registers[MPU6050.Register.config]
        let bandwidth = MPU6050Emulator.dlpfBandwidth[Int(config & 0x07)]
        var (rate, force) = errorModel.measure(state, bandwidth: bandwidth, random: &random)

        let gyroConfig = registers[MPU6050.Register.gyroConfig], accelConfig = registers[MPU6050.Register.accelConfig]
        let gyroRange = MPU6050.gyroscopeRanges[Int((gyroConfig >> 3) & 3)]
        let accelRange = MPU6050.accelerometerRanges[Int((accelConfig >> 3) & 3)]
        let g = MotionConstants.standardGravity, degree = MotionConstants.radiansPerDegree
        if (gyroConfig | accelConfig) & MPU6050.Bits.selfTestXYZ != 0 {
            let trim = factoryTrim()
            let accelTestLSBPerG = variant.generation == .mpu6050 ? 4096.0 : 16384.0
            for i in 0..<3 {
                let bit = UInt8(0x80) >> UInt8(i)
                if gyroConfig & bit != 0, let ft = trim.gyroscope[i] { rate[i] += ft * (1 + selfTestDeviation) / 131 * degree }
                if accelConfig & bit != 0, let ft = trim.accelerometer[i] { force[i] += ft * (1 + selfTestDeviation) / accelTestLSBPerG * g }
            }
        }
        var accelLSB = force / g * accelRange.lsbPerG
        var gyroLSB = rate / degree * gyroRange.lsbPerDegree
        for i in 0..<3 {
            let go = word(MPU6050.Register.gyroOffset + UInt8(2 * i))
            let ao = word(variant.accelerometerOffsetRegister + UInt8(i) * variant.accelerometerOffsetStride) & ~1
            if ao != 0 { accelLSB[i] += Double(ao) / 2048 * accelRange.lsbPerG }
            if go != 0 { gyroLSB[i] += Double(go) / MPU6050.Offsets.gyroscopeCountsPerDegree * gyroRange.lsbPerDegree }
        }
        let temperatureRaw = MPU6050Emulator.quantise((temperature - variant.temperatureOffset) * variant.temperatureSensitivity)
        for i in 0..<3 {
            store(MPU6050Emulator.quantise(accelLSB[i]), at: MPU6050.Register.accelXOutH + UInt8(2 * i))
            store(MPU6050Emulator.quantise(gyroLSB[i]), at: MPU6050.Register.gyroXOutH + UInt8(2 * i))
        }
        store(temperatureRaw, at: MPU6050.Register.tempOutH)
        if registers[MPU6050.Register.userControl] & MPU6050.Bits.userFIFOEnable != 0 { pushRecord() }
        registers[MPU6050.Register.intStatus] |= MPU6050.Bits.dataReady
        if registers[MPU6050.Register.intEnable] & MPU6050.Bits.dataReady != 0 { assertInterrupt(at: t) }
    }

    @inline(__always) private func word(_ a: UInt8) -> Int16 {
        Int16(bitPattern: UInt16(registers[a]) << 8 | UInt16(registers[a &+ 1]))
    }

    @inline(__always) private func store(_ v: Int16, at a: UInt8) {
        let u = UInt16(bitPattern: v)
        registers[a] = UInt8(u >> 8)
        registers[a &+ 1] = UInt8(u & 0xFF)
    }

    static func quantise(_ lsb: Double) -> Int16 {
        Int16(max(-32768, min(32767, lsb.rounded())))
    }

    private func factoryTrim() -> MPU6050.FactoryTrim {
        if variant.generation == .mpu6050 {
            return MPU6050.factoryTrim6050(codes: (0..<4).map { registers[MPU6050.Register.selfTestX + UInt8($0)] })
        }
        return MPU6050.factoryTrim6500(gyroCodes: (0..<3).map { registers[MPU6050.Register.selfTestXGyro + UInt8($0)] },
                                       accelCodes: (0..<3).map { registers[MPU6050.Register.selfTestX + UInt8($0)] })
    }

    private func pushRecord() {
        let enable = registers[MPU6050.Register.fifoEnable]
        var size = 0
        if enable & MPU6050.Bits.fifoAccel != 0 { size += 6 }
        if enable & MPU6050.Bits.fifoTemperature != 0 { size += 2 }
        size += 2 * (enable & MPU6050.Bits.fifoGyro).nonzeroBitCount
        guard size > 0 else { return }
        let capacity = fifo.count
        if fifoCount + size > fifoCapacity {
            counters.fifoOverflows += 1
            registers[MPU6050.Register.intStatus] |= MPU6050.Bits.fifoOverflow
            if registers[MPU6050.Register.intEnable] & MPU6050.Bits.fifoOverflow != 0 { assertInterrupt(at: now) }
            let stopWhenFull = variant.generation != .mpu6050 && registers[MPU6050.Register.config] & MPU6050.Bits.fifoModeStopWhenFull != 0
            if stopWhenFull { return }
            let drop = fifoCount + size - fifoCapacity
            fifoHead = (fifoHead + drop) % capacity
            fifoCount -= drop
        }
        @inline(__always) func put(_ register: Int) {
            fifo[(fifoHead + fifoCount) % capacity] = registers[UInt8(register)]
            fifoCount += 1
        }
        if enable & MPU6050.Bits.fifoAccel != 0 { for a in 0x3B...0x40 { put(a) } }
        if enable & MPU6050.Bits.fifoTemperature != 0 { put(0x41); put(0x42) }
        if enable & 0x40 != 0 { put(0x43); put(0x44) }
        if enable & 0x20 != 0 { put(0x45); put(0x46) }
        if enable & 0x10 != 0 { put(0x47); put(0x48) }
        if let log = fifoTruth {
            let gyroRange = MPU6050.gyroscopeRanges[Int((registers[MPU6050.Register.gyroConfig] >> 3) & 3)]
            let accelRange = MPU6050.accelerometerRanges[Int((registers[MPU6050.Register.accelConfig] >> 3) & 3)]
            func triple(_ a: UInt8) -> SIMD3<Int16> { SIMD3(word(a), word(a + 2), word(a + 4)) }
            log.append(nanoseconds: now,
                       accelerometer: enable & MPU6050.Bits.fifoAccel != 0 ? triple(MPU6050.Register.accelXOutH) : nil,
                       gyroscope: enable & MPU6050.Bits.fifoGyro == MPU6050.Bits.fifoGyro ? triple(MPU6050.Register.gyroXOutH) : nil,
                       accelerometerScale: MotionConstants.standardGravity / accelRange.lsbPerG,
                       gyroscopeScale: MotionConstants.radiansPerDegree / gyroRange.lsbPerDegree)
        }
    }

    /// The FIFO's size in bytes now: the variant's, or on a part that selects it (ICM-20689,
    /// ``MPU6050/Variant/fifoSizeSelect``) 512 << ACCEL_CONFIG_2.FIFO_SIZE (bits 7:6): 512 bytes
    /// until the host selects more (IAM-20680HT register map, the same field; Linux
    /// `inv_mpu6050_set_lpf_regs` writes 0xC0 for the ICM-20689).
    public var fifoCapacity: Int {
        guard variant.fifoSizeSelect != 0 else { return fifo.count }
        return min(fifo.count, 512 << Int(registers[MPU6050.Register.accelConfig2] >> 6 & 0x03))
    }

    // MARK: Interrupt pin

    private func assertInterrupt(at t: UInt64) {
        let pinConfig = registers[MPU6050.Register.intPinConfig]
        if pinConfig & MPU6050.Bits.intLatch != 0 {
            if !pinAsserted { setPin(true, at: t) }
        } else {
            setPin(true, at: t)
            setPin(false, at: t + 50 * Nanoseconds.perMicrosecond)
        }
    }

    private func setPin(_ asserted: Bool, at t: UInt64) {
        guard asserted != pinAsserted else { return }
        pinAsserted = asserted
        let activeLow = registers[MPU6050.Register.intPinConfig] & MPU6050.Bits.intActiveLow != 0
        interruptLine?.raise(at: t, kind: asserted != activeLow ? .rising : .falling)
    }

    private func clearInterruptStatus() {
        registers[MPU6050.Register.intStatus] = 0
        if pinAsserted, registers[MPU6050.Register.intPinConfig] & MPU6050.Bits.intLatch != 0 { setPin(false, at: now) }
    }

    // MARK: Host access

    public func readRegister(_ address: UInt8) -> UInt8 {
        if registers[MPU6050.Register.intPinConfig] & MPU6050.Bits.intReadClear != 0, address != MPU6050.Register.intStatus {
            clearInterruptStatus()
        }
        switch address {
        case MPU6050.Register.fifoData:
            guard fifoCount > 0 else { return lastFIFOByte }
            lastFIFOByte = fifo[fifoHead]
            fifoHead = (fifoHead + 1) % fifo.count
            fifoCount -= 1
            return lastFIFOByte
        case MPU6050.Register.fifoCountH:
            countLowLatch = UInt8(fifoCount & 0xFF)
            return UInt8(fifoCount >> 8)
        case MPU6050.Register.fifoCountH + 1:
            return countLowLatch
        case MPU6050.Register.intStatus:
            let value = registers[address] | (overflowFlagStuck ? MPU6050.Bits.fifoOverflow : 0)
            clearInterruptStatus()
            return value
        default:
            return registers.hostRead(address)
        }
    }

    public func writeRegister(_ address: UInt8, _ value: UInt8) {
        switch address {
        case MPU6050.Register.powerManagement1:
            if value & MPU6050.Bits.deviceReset != 0 {
                counters.resets += 1
                loadPowerOnState()
                registers[address] |= MPU6050.Bits.deviceReset
                resetBusyUntil = now + resetDuration
                nextSample = nil
                return
            }
            let wasSampling = isSampling
            registers.hostWrite(address, value)
            if isSampling != wasSampling { restartSampling() }
        case MPU6050.Register.signalPathReset:
            // The reset bits clear themselves. "This register does not clear the sensor
            // registers" (RM-MPU-6000A-00 rev 4.2 §4.26; RM-MPU-9250A-00 rev 1.4 §4.31): only
            // USER_CTRL.SIG_COND_RESET does that.
            registers[address] = 0
        case MPU6050.Register.userControl:
            if value & MPU6050.Bits.userFIFOReset != 0 { fifoHead = 0; fifoCount = 0 }
            if value & MPU6050.Bits.userSignalConditionReset != 0 { for a in 0x3B...0x48 { registers[UInt8(a)] = 0 } }
            registers[address] = value & ~UInt8(0x0F)
        case MPU6050.Register.sampleRateDivider, MPU6050.Register.config:
            let before = nominalPeriod
            registers.hostWrite(address, value)
            if nominalPeriod != before { restartSampling() }
        case MPU6050.Register.fifoData:
            break
        default:
            registers.hostWrite(address, value)
        }
    }

    public func pointer(after address: UInt8) -> UInt8 {
        address == MPU6050.Register.fifoData ? address : address &+ 1
    }
}

extension MPU6050Emulator: I2CBypassBridge {
    /// The AK8975 at 0x0C while INT_PIN_CFG.I2C_BYPASS_EN is set and USER_CTRL.I2C_MST_EN clear
    /// ("When this bit is equal to 1 and I2C_MST_EN … is equal to 0, the host application processor
    /// will be able to directly access the auxiliary I2C bus", Register Map rev 4.2, register 55).
    public var bypassTargets: [UInt8: any I2CTarget] {
        guard let magnetometer, registers[MPU6050.Register.intPinConfig] & MPU6050.Bits.i2cBypass != 0,
              registers[MPU6050.Register.userControl] & MPU6050.Bits.userI2CMaster == 0 else { return [:] }
        return [AK8975Emulator.address.rawValue: magnetometer]
    }
}
