import PlumbHAL

/// What a driver found when it read the identity register.
public struct IMUIdentity: Sendable, Equatable {
    /// The part's family and name as the vendor writes it ("MPU-6050", "LSM6DSO").
    public var part: String
    /// The lowercase name used by `--chip` and `--part` ("mpu6050", "lsm6dso").
    public var partKey: String
    /// The WHO_AM_I value read.
    public var whoAmI: UInt8
    public var address: I2CAddress
    public var bus: String
    /// Things the user should know: a clone ID, a part override.
    public var warnings: [String]

    public init(part: String, partKey: String, whoAmI: UInt8, address: I2CAddress, bus: String, warnings: [String] = []) {
        self.part = part; self.partKey = partKey; self.whoAmI = whoAmI
        self.address = address; self.bus = bus; self.warnings = warnings
    }
}

/// The outcome of a self-test: each axis's response against the datasheet limits.
public struct SelfTestResult: Sendable, Equatable {
    public struct Axis: Sendable, Equatable {
        /// "accelerometer x", "gyroscope z".
        public var name: String
        /// The self-test response in the unit the datasheet uses for its limits.
        public var response: Double
        public var limits: ClosedRange<Double>
        /// "mg", "dps" or "% of factory trim".
        public var unit: String
        public var passed: Bool { limits.contains(response) }

        public init(name: String, response: Double, limits: ClosedRange<Double>, unit: String) {
            self.name = name; self.response = response; self.limits = limits; self.unit = unit
        }
    }
    public var axes: [Axis]
    public var passed: Bool { axes.allSatisfy(\.passed) }

    public init(axes: [Axis]) { self.axes = axes }
}

/// What one drain of the FIFO produced.
public struct DrainResult: Sendable, Equatable {
    /// Samples appended, oldest first.
    public var sampleCount: Int
    /// Gaps found while draining (overflow, a lost read).
    public var gaps: [StreamGap]
    /// Samples read in this drain but held back until they can be timed (the LSM6DSO after a
    /// read that may have lost slots unseen); a later drain appends them. Data all the same.
    public var heldSamples: Int
    /// Samples the chip delivered but the driver dropped because they were taken while the
    /// sensors' filters settled after start-up (not a loss: the stream begins after them).
    public var settlingDiscards: Int

    public init(sampleCount: Int = 0, gaps: [StreamGap] = [], heldSamples: Int = 0, settlingDiscards: Int = 0) {
        self.sampleCount = sampleCount; self.gaps = gaps; self.heldSamples = heldSamples
        self.settlingDiscards = settlingDiscards
    }
}

/// What one interrupt edge means while streaming.
public enum InterruptSignal: String, Sendable, Equatable {
    /// An edge per sample (MPU family DATA_RDY; the FIFO has no watermark interrupt).
    case everySample
    /// An edge when the FIFO reaches the configured watermark (LSM6DS family).
    case watermark
}

/// A 6-axis IMU on an I2C bus.
///
/// Methods that touch the bus are throwing verbs; properties hold cached state only.
/// Implementations: `MPU6050` and `LSM6DS`, each driven by a table of chip variants.
public protocol IMU: AnyObject {
    /// The identity found by the last ``identify()``, if any.
    var identity: IMUIdentity? { get }
    /// The configuration in effect after the last ``apply(_:)``.
    var configuration: IMUConfiguration { get }

    /// Reads WHO_AM_I and matches it against the variant table (or the explicit part override).
    func identify() throws(IMUError) -> IMUIdentity
    /// Resets the chip to a known state, in the order its datasheet and the kernel driver use.
    func reset() throws(IMUError)
    /// Programs rate, ranges, filter, FIFO and interrupt pin; returns what the chip really runs.
    @discardableResult
    func apply(_ configuration: IMUConfiguration) throws(IMUError) -> IMUConfiguration
    /// Empties and enables the FIFO and the data-ready or watermark interrupt.
    func startStreaming() throws(IMUError)
    /// Disables the FIFO and the interrupt and puts the sensors to sleep.
    func stopStreaming() throws(IMUError)
    /// Reads every whole record waiting in the FIFO and appends the samples to `samples`.
    ///
    /// - Parameter edges: the interrupt edges seen since the last drain, oldest first, whose
    ///   kernel timestamps anchor the sample times (MPU family); empty when polling.
    func drain(into samples: inout [IMUSample], edges: [EdgeEvent]) throws(IMUError) -> DrainResult
    /// What the chip's interrupt pin signals while streaming, so a reader knows whether one
    /// edge means "one sample" or "a watermark's worth".
    var interruptSignal: InterruptSignal { get }
    /// The most samples one watermark interrupt can stand for: the configured watermark, or more
    /// when the FIFO compresses its data (LSM6DSO generation). A reader sizes its watchdog by it.
    var maximumSamplesPerWatermark: Int { get }
    /// What streaming `configuration` would put on the bus, as this driver reads the FIFO: computed
    /// without touching the bus, from the configuration as ``apply(_:)`` would program it. `nil`
    /// before ``identify()`` (the layout depends on the part) or for a configuration the part
    /// refuses. See ``BusBudget``.
    func streamTraffic(for configuration: IMUConfiguration) -> StreamTraffic?
    /// Runs the chip's self-test and compares the response with the datasheet limits.
    func selfTest() throws(IMUError) -> SelfTestResult
    /// True when the chip still holds the configuration last applied (a brown-out or reset
    /// clears it); read back from the chip.
    func verifyConfiguration() throws(IMUError) -> Bool
    /// Takes what the chip reads back now as its configuration for ``verifyConfiguration()``,
    /// until the next reset, apply, start or stop: for a chip that does not read back what it was
    /// written (a clone, a stuck bit). The default does nothing.
    func acceptReadBack() throws(IMUError)
}

extension IMU {
    public func acceptReadBack() throws(IMUError) {}

    /// The configured watermark: a chip whose FIFO holds each sample whole.
    public var maximumSamplesPerWatermark: Int { max(1, configuration.fifoWatermark) }

    /// A driver that cannot say what its stream costs the bus.
    public func streamTraffic(for configuration: IMUConfiguration) -> StreamTraffic? { nil }

    /// Drains with at most one edge (the one that woke the reader).
    public func drain(into samples: inout [IMUSample], edge: EdgeEvent?) throws(IMUError) -> DrainResult {
        try drain(into: &samples, edges: edge.map { [$0] } ?? [])
    }
}

/// A driver failure, saying what was found.
public enum IMUError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bus failed.
    case bus(I2CError)
    /// WHO_AM_I matched no known part: "0x12 at 0x68 on /dev/i2c-1 is not a known IMU".
    case unexpectedIdentity(whoAmI: UInt8, address: I2CAddress, bus: String, expected: [UInt8])
    /// The part is known but not driven (e.g. LSM6DSV), or a setting is not possible.
    case unsupported(String)
    /// A bit that should have cleared did not.
    case timeout(waitingFor: String)
    /// An invalid setting ("fifo watermark 0: expected 1...").
    case invalidConfiguration(String)
    /// The part given (`--part`, `imu.part`) is not what answers: its family's WHO_AM_I
    /// (`register`) read `read`, which names none of that family's parts, and the chip answers
    /// another family's WHO_AM_I as `found` (``IMUFamilies/partOfOtherFamily(besides:address:bus:read:)``).
    case partMismatch(given: String, register: UInt8, read: UInt8, found: IMUIdentity)
    /// The calibration in `file` was made on the part `madeOn` (a key, "mpu6050"), which does not
    /// answer as the chip `found` (``Calibration/fits(_:)``): its corrections are another chip's.
    case calibrationForAnotherPart(file: String, madeOn: String, found: IMUIdentity)

    public var description: String {
        switch self {
        case .bus(let e): return e.description
        case .unexpectedIdentity(let who, let address, let bus, let expected):
            let list = expected.map { "0x" + hex($0) }.joined(separator: ", ")
            let found = "0x\(hex(who)) at \(address) on \(bus) is not a known IMU (expected one of \(list))"
            // One byte is weak evidence: a chip that is not an IMU may answer 0x00 or 0xFF at
            // that register (the DS1307/DS3231 real-time clocks of many Pi add-on boards sit at
            // 0x68 too), so the hint names that as well.
            guard let hint = IMUError.stuckBusHint([who]) else { return found }
            let other = address == I2CAddress(0x68) ? " (a DS1307/DS3231 real-time clock on many Pi add-on boards uses 0x68)" : ""
            return "\(found); either another chip answers at \(address)\(other), or \(hint)"
        case .unsupported(let s): return s
        case .timeout(let what): return "timed out waiting for \(what)"
        case .invalidConfiguration(let s): return s
        case .partMismatch(let given, let register, let read, let found):
            return "\(found.address) on \(found.bus) is an \(found.part) (WHO_AM_I 0x\(hex(found.whoAmI))), not the \(given) given: "
                + "read as an \(given), its WHO_AM_I (0x\(hex(register))) is 0x\(hex(read)), which is no part of that family"
        case .calibrationForAnotherPart(let file, let madeOn, let found):
            return "the calibration \(file) was made on an \(IMUFamilies.name(ofPart: madeOn)), but the chip at \(found.address) on \(found.bus) is an "
                + "\(found.part) (\(found.partKey), WHO_AM_I 0x\(hex(found.whoAmI))): its biases and scales are another chip's"
        }
    }
}

extension IMUError {
    /// A register read that returned what the chip cannot report (a FIFO both empty and holding
    /// words, more words than the FIFO has room for): the bytes were corrupted on the way. It is
    /// reported as a bus error (EIO) that names the register, the bytes and why they are
    /// impossible, with the usual cause when every bit read alike (``stuckBusHint(_:)``).
    public static func implausibleRead(_ what: String, bytes: [UInt8], address: I2CAddress, bus: String,
                                       _ reason: String) -> IMUError {
        let raw = bytes.map { hex($0) }.joined(separator: " ")
        var detail = "\(what) at \(address) on \(bus) read \(raw): \(reason), which the chip cannot report"
        if let hint = stuckBusHint(bytes) { detail += "; " + hint }
        return .bus(I2CError(errno: Errno.EIO, bus: bus, address: address, kind: .bus, detail: detail))
    }

    /// What bytes that are all 0x00 or all 0xFF usually mean on I2C, and what to do; `nil` otherwise.
    ///
    /// SDA held low reads every data bit (and every acknowledge) as 0; a target that stopped
    /// driving SDA leaves the pull-up to read every bit as 1.
    public static func stuckBusHint(_ bytes: [UInt8]) -> String? {
        guard looksLikeStuckBus(bytes), let first = bytes.first else { return nil }
        switch first {
        case 0x00: return "every bit read as 0, as when SDA is held low (a device stuck mid-transfer, or a short to ground): power-cycle the sensor and check SDA"
        case 0xFF: return "every bit read as 1, as when nothing drives SDA (the sensor unpowered, resetting, or its SDA disconnected): check the sensor's power and SDA"
        default: return nil
        }
    }

    /// True when `bytes` are all 0x00 or all 0xFF: what a bus held low or left floating gives,
    /// not a running chip's data (whose noise never leaves every axis at exactly 0 or −1 LSB).
    /// Stops at the first byte that differs, so a real burst costs a byte or two.
    static func looksLikeStuckBus<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        guard let first = bytes.first, first == 0x00 || first == 0xFF else { return false }
        return bytes.allSatisfy { $0 == first }
    }
}
