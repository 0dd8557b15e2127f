import PlumbHAL

/// One driver family in the table that `plumb probe` and `plumb read` search: where its chips
/// answer, which register identifies them, and how to open a driver.
///
/// Adding a family is adding a row to ``IMUFamilies/all`` (the LSM6DS driver adds its own).
public struct IMUFamily: Sendable {
    /// "MPU-6050 family".
    public var name: String
    /// The addresses its chips can have, in probing order.
    public var addresses: [I2CAddress]
    /// The identity register (WHO_AM_I).
    public var identityRegister: UInt8
    /// Each part's key (the `--part` / `--chip` name), name as the vendor writes it and WHO_AM_I
    /// in the variant table, so that a part key can be named and the parts answering alike found
    /// (``IMUFamilies/row(forPart:)``).
    public var parts: [(key: String, part: String, whoAmI: UInt8)]
    /// The `--part` / `--chip` names it drives.
    public var partKeys: [String] { parts.map(\.key) }
    /// The part for an identity value: (vendor name, key, warnings), or `nil` when not this family.
    public var match: @Sendable (UInt8) -> (part: String, key: String, warnings: [String])?
    /// Opens a driver on `bus` at `address`; `part` forces a variant.
    public var open: @Sendable (_ bus: any I2CBus, _ address: I2CAddress, _ clock: any MonotonicClock, _ part: String?) throws(IMUError) -> any IMU
    /// Tells apart parts that answer the same identity by going further on the bus (the MPU-6050
    /// family looks for the MPU-9150's magnetometer, writing INT_PIN_CFG and putting it back), as
    /// the driver's own identify does; `nil` when the identity register says all. With
    /// `leaveAlone` (why the chip must not be touched: another plumb process claims it) nothing is
    /// sent to the chip: the part is named by the identity alone, with a warning saying what could
    /// not be told apart and `leaveAlone`, when that leaves a doubt.
    public var refine: (@Sendable (_ bus: any I2CBus, _ address: I2CAddress, _ identity: UInt8, _ clock: any MonotonicClock,
                                   _ leaveAlone: String?) -> (part: String, key: String, warnings: [String])?)?

    public init(name: String, addresses: [I2CAddress], identityRegister: UInt8,
                parts: [(key: String, part: String, whoAmI: UInt8)],
                match: @escaping @Sendable (UInt8) -> (part: String, key: String, warnings: [String])?,
                open: @escaping @Sendable (_ bus: any I2CBus, _ address: I2CAddress, _ clock: any MonotonicClock, _ part: String?) throws(IMUError) -> any IMU,
                refine: (@Sendable (_ bus: any I2CBus, _ address: I2CAddress, _ identity: UInt8, _ clock: any MonotonicClock,
                                    _ leaveAlone: String?) -> (part: String, key: String, warnings: [String])?)? = nil) {
        self.name = name; self.addresses = addresses; self.identityRegister = identityRegister
        self.parts = parts; self.match = match; self.open = open; self.refine = refine
    }
}

extension MPU6050 {
    /// The MPU-6050 family row: 0x68/0x69, WHO_AM_I at 0x75.
    public static let family = IMUFamily(
        name: "MPU-6050 family", addresses: [I2CAddress(0x68), I2CAddress(0x69)], identityRegister: Register.whoAmI,
        parts: variants.map { ($0.key, $0.part, $0.whoAmI) },
        match: { who in variant(whoAmI: who).map { ($0.variant.part, $0.variant.key, $0.warnings) } },
        open: { bus, address, clock, part throws(IMUError) in try MPU6050(bus: bus, address: address, clock: clock, part: part) },
        refine: { bus, address, who, clock, leaveAlone in
            // Left alone, the look is undetermined before it starts: no register is read or written.
            detect(whoAmI: who, registers: RegisterAccess(bus: bus, address: address, clock: clock),
                   cached: leaveAlone.map { .undetermined($0) }, leavingBusyChipsAlone: true)
                .map { ($0.variant.part, $0.variant.key, $0.warnings) }
        })
}

/// What ``IMUFamilies/probe(_:)`` found at one address.
public struct ProbeFinding: Sendable, Equatable {
    public var address: I2CAddress
    /// The identity register read.
    public var register: UInt8
    /// Its value.
    public var whoAmI: UInt8
    /// The family, part and key when known; `nil` for an unknown chip that acknowledged.
    public var family: String?
    public var part: String?
    public var partKey: String?
    public var warnings: [String]
}

/// The table of driver families.
public enum IMUFamilies {
    /// Every family, in probing order.
    public static var all: [IMUFamily] { [MPU6050.family, LSM6DS.family] }

    /// The family that drives `partKey`, or `nil`.
    public static func family(forPart partKey: String) -> IMUFamily? {
        all.first { $0.partKeys.contains(partKey.lowercased()) }
    }

    /// Every part key, in table order.
    public static var partKeys: [String] { all.flatMap(\.partKeys) }

    /// The family, the vendor's name and the variant table's WHO_AM_I of the part `key`
    /// ("mpu6050": "MPU-6050 family", "MPU-6050", 0x68), or `nil` for a key no family drives.
    public static func row(forPart key: String) -> (family: String, part: String, whoAmI: UInt8)? {
        for family in all {
            if let row = family.parts.first(where: { $0.key == key.lowercased() }) { return (family.name, row.part, row.whoAmI) }
        }
        return nil
    }

    /// A part key as messages name it: "MPU-6050 (mpu6050)", or the key alone when no family
    /// drives it.
    public static func name(ofPart key: String) -> String {
        row(forPart: key).map { "\($0.part) (\(key))" } ?? key
    }

    /// Reads each family's identity register at each of its addresses.
    ///
    /// An address that does not acknowledge is skipped; one that acknowledges with an unknown
    /// value is reported with `family == nil`, so the user learns what is there. On a Raspberry
    /// Pi an address nobody acknowledges fails with EREMOTEIO, not ENXIO
    /// (``I2CError/mayMeanNothingAnswers``): such a read is tried ``probeAttempts`` times in all,
    /// the bus's own tries counted (``probeRead(_:_:)``), and an address that fails every time is
    /// skipped too (a chip that is there but whose every read
    /// fails is then missing from the list, which `plumb probe` and the "no IMU answers" errors
    /// explain with the wiring).
    /// - Parameter clock: when given, a family's ``IMUFamily/refine`` step runs on each chip it
    ///   matched (it writes to the chip and puts back what it changed; `plumb probe` names an
    ///   MPU-9150 this way), except on a chip another program is streaming from (the MPU
    ///   family: INT_ENABLE or USER_CTRL.FIFO_EN set), which is only read and gets a warning.
    ///   Without it only identity registers are read.
    /// - Parameter leavingAlone: why the chip at an address must not be written to (another plumb
    ///   process claims it: `plumb probe` asks before the refine step), or nil. A chip left alone
    ///   gets no refine step: only its identity register is read, and its family names the part
    ///   by it, with a warning when that leaves a doubt (an MPU-6050 may be an MPU-9150).
    /// - Throws: ``IMUError/bus(_:)`` for a bus failure other than "nothing answers".
    public static func probe(_ bus: any I2CBus, refiningWith clock: (any MonotonicClock)? = nil,
                             leavingAlone: (I2CAddress) -> String? = { _ in nil }) throws(IMUError) -> [ProbeFinding] {
        var findings: [ProbeFinding] = []
        for family in all {
            for address in family.addresses where !findings.contains(where: { $0.address == address && $0.family != nil }) {
                guard let value = try readIdentity(bus, register: family.identityRegister, address: address) else { continue }
                if var m = family.match(value) {
                    if let clock, let refine = family.refine, let refined = refine(bus, address, value, clock, leavingAlone(address)) { m = refined }
                    findings.removeAll { $0.address == address }
                    findings.append(ProbeFinding(address: address, register: family.identityRegister, whoAmI: value,
                                                 family: family.name, part: m.part, partKey: m.key, warnings: m.warnings))
                } else if !findings.contains(where: { $0.address == address }) {
                    findings.append(ProbeFinding(address: address, register: family.identityRegister, whoAmI: value,
                                                 family: nil, part: nil, partKey: nil,
                                                 warnings: ["register 0x\(hex(family.identityRegister)) reads 0x\(hex(value)): not a known \(family.name) part"]))
                }
            }
        }
        return findings.sorted { $0.address < $1.address }
    }

    /// One identity register for ``probe(_:refiningWith:leavingAlone:)``, or `nil` when nothing answers at
    /// `address` (``probeRead(_:_:)``: ENXIO or ENODEV at once, EREMOTEIO on every one of
    /// ``probeAttempts`` tries, the bus's own counted). Also the first read of a chip whose
    /// address and part are given (`--address` with `--part`), which skips the probe but must
    /// tell an empty address so too.
    /// - Throws: ``IMUError/bus(_:)`` for any other failure (EIO and EPROTO after their tries:
    ///   something is there, but it did not answer).
    public static func readIdentity(_ bus: any I2CBus, register: UInt8, address: I2CAddress) throws(IMUError) -> UInt8? {
        switch probeRead(bus, { () throws(I2CError) -> UInt8 in try bus.readRegister(register, address: address) }) {
        case .answered(let value): return value
        case .nothingAnswers: return nil
        case .failed(let error): throw .bus(error)
        }
    }
}
