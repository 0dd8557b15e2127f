import PlumbHAL

/// Reads, decodes and writes a chip's registers by datasheet name through its ``RegisterMap``:
/// what `plumb regs dump|get|set` does, on a real bus or an emulated one.
///
/// Every register is read on its own (one combined write-pointer/read transfer per address), so a
/// dump is right whatever the chip's auto-increment setting. Registers whose read has a side
/// effect (a FIFO data port, a read-to-clear status) are left unread by ``dump()`` and read only
/// when asked for by name with ``read(_:)``.
///
/// Writes are read-modify-write and refuse what the map says the chip would ignore or the user
/// might regret: read-only registers, a value that does not fit its field, and — unless `force`
/// — reset bits, power bits, interface-disabling bits and addresses the map does not describe.
public struct RegisterEditor {
    public let map: RegisterMap
    public let bus: any I2CBus
    public let address: I2CAddress

    public init(map: RegisterMap, bus: any I2CBus, address: I2CAddress) {
        self.map = map; self.bus = bus; self.address = address
    }

    /// One register as read (or deliberately not read).
    public struct Reading: Sendable, Equatable {
        public var address: UInt8
        /// The datasheet name, or `nil` for an address the map does not describe.
        public var name: String?
        /// The value, or `nil` when the register was not read (see ``skipped``).
        public var value: UInt8?
        public var fields: [RegisterMap.DecodedField]
        /// Why the register was not read ("reading pops the FIFO").
        public var skipped: String?
        /// The access rule from the map ("RW", "RO", "RC"), `nil` for an unknown address.
        public var access: String?

        public init(address: UInt8, name: String?, value: UInt8?, fields: [RegisterMap.DecodedField], skipped: String?, access: String? = nil) {
            self.address = address; self.name = name; self.value = value; self.fields = fields; self.skipped = skipped; self.access = access
        }
    }

    /// The addresses a dump covers: 0x00 through the map's last register (at least 0x7F).
    public var dumpRange: ClosedRange<UInt8> {
        0...max(0x7F, map.registers.last?.address ?? 0)
    }

    /// Every address of ``dumpRange``, decoded.
    ///
    /// - Throws: the first bus error, unchanged (it names the bus, the address and the errno).
    public func dump() throws(I2CError) -> [Reading] {
        var readings: [Reading] = []
        for a in dumpRange {
            if let r = map[a], let effect = r.effectOfReading {
                readings.append(Reading(address: a, name: r.name, value: nil, fields: [], skipped: effect, access: r.access.rawValue))
            } else if let r = map[a], r.access == .writeOnly {
                readings.append(Reading(address: a, name: r.name, value: nil, fields: [], skipped: "write-only", access: r.access.rawValue))
            } else {
                readings.append(decode(a, value: try bus.readRegister(a, address: address)))
            }
        }
        return readings
    }

    /// Reads one register (side effects included: the user asked for it by name).
    public func read(_ register: UInt8) throws(I2CError) -> Reading {
        decode(register, value: try bus.readRegister(register, address: address))
    }

    /// `value` at `register`, decoded with the map.
    public func decode(_ register: UInt8, value: UInt8) -> Reading {
        Reading(address: register, name: map[register]?.name, value: value, fields: map.decode(register, value: value), skipped: nil,
                access: map[register]?.access.rawValue)
    }

    // MARK: Names and values

    /// The address named by `text`: a datasheet name (any case) or a number (0x1C, 28).
    ///
    /// A number the map does not describe is accepted (``plan(_:_:force:)`` then asks for force).
    public func resolve(_ text: String) throws(RegisterEditError) -> UInt8 {
        if let r = map.registers.first(where: { $0.name.caseInsensitiveEquals(text) }) { return r.address }
        if let n = RegisterEditor.number(text) {
            guard (0...0xFF).contains(n) else { throw .unknownRegister(text, part: map.name) }
            return UInt8(n)
        }
        throw .unknownRegister(text, part: map.name)
    }

    /// Parses 0x1C, 0b0001_1100, or 28.
    public static func number(_ text: String) -> Int? {
        let t = text.lowercased().replacingUnderscores()
        if t.hasPrefix("0x") { return Int(t.dropFirst(2), radix: 16) }
        if t.hasPrefix("0b") { return Int(t.dropFirst(2), radix: 2) }
        return Int(t)
    }

    /// A write worked out before it is done.
    public struct WritePlan: Sendable, Equatable {
        public var address: UInt8
        public var name: String?
        /// The value read before the write: always, but for a whole-value write to a register
        /// whose read has a side effect or that is write-only (``beforeUnread`` says why).
        public var before: UInt8?
        public var value: UInt8
        /// Whether the write sets a self-clearing bit (the read-back will differ).
        public var triggersReset: Bool
        /// Why ``before`` was not read ("reading pops the FIFO", "write-only"); `nil` when it was.
        public var beforeUnread: String?
    }

    /// Works out the byte to write to `register` for `assignments`: either one number (the whole
    /// register) or one or more `FIELD=VALUE` pairs (read-modify-write; a field value is a number
    /// or one of the field's meanings, such as `AFS_SEL=±8 g`).
    ///
    /// - Parameter current: reads the register's present value; called at most once.
    /// - Throws: ``RegisterEditError`` for a read-only register, an unknown field, a value that
    ///   does not fit, or (without `force`) a reset, power or interface bit or an undescribed address.
    public func plan(_ register: UInt8, _ assignments: [String], force: Bool,
                     current: () throws(I2CError) -> UInt8) throws(RegisterEditError) -> WritePlan {
        guard !assignments.isEmpty else { throw .badValue("", register: map[register]?.name ?? "0x\(registerHex(register))") }
        guard let row = map[register] else {
            guard force else { throw .undescribedAddress(register, part: map.name) }
            guard assignments.count == 1, let n = RegisterEditor.number(assignments[0]) else {
                throw .badValue(assignments.joined(separator: " "), register: "0x\(registerHex(register))")
            }
            guard (0...0xFF).contains(n) else { throw .valueOutOfRange(field: nil, register: "0x\(registerHex(register))", value: assignments[0], maximum: 0xFF, meanings: [:]) }
            // Read as `dump` reads an undescribed address, so the plan shows what the write replaces.
            let before: UInt8
            do { before = try current() } catch { throw .bus(error) }
            return WritePlan(address: register, name: nil, before: before, value: UInt8(n), triggersReset: false)
        }
        guard row.isWritable else { throw .readOnly(row.name, address: register, part: map.name, access: row.access) }

        var before: UInt8?
        func readCurrent() throws(RegisterEditError) -> UInt8 {
            if let before { return before }
            do { let v = try current(); before = v; return v } catch { throw .bus(error) }
        }

        var value: UInt8
        if assignments.count == 1, !assignments[0].contains("="), let n = RegisterEditor.number(assignments[0]) {
            guard (0...0xFF).contains(n) else {
                throw .valueOutOfRange(field: nil, register: row.name, value: assignments[0], maximum: 0xFF, meanings: [:])
            }
            value = UInt8(n)
            // The value it replaces, for the "before -> after" line; a register whose read has a
            // side effect (a FIFO port, a read-to-clear status) or that cannot be read is left alone.
            if row.effectOfReading == nil, row.access != .writeOnly { _ = try readCurrent() }
        } else {
            value = try readCurrent()
            for assignment in assignments {
                guard let eq = assignment.firstIndex(of: "=") else { throw .badValue(assignment, register: row.name) }
                let fieldName = String(assignment[..<eq]), text = String(assignment[assignment.index(after: eq)...])
                guard let field = row.fields.first(where: { $0.name.caseInsensitiveEquals(fieldName) }) else {
                    throw .unknownField(fieldName, register: row.name, fields: row.fields.map(\.name))
                }
                let fieldValue: Int
                if let n = RegisterEditor.number(text) {
                    fieldValue = n
                } else if let m = field.meanings.first(where: { $0.value.looselyEquals(text) }) {
                    fieldValue = Int(m.key)
                } else {
                    throw .valueOutOfRange(field: field.name, register: row.name, value: text, maximum: field.maximum, meanings: field.meanings)
                }
                guard (0...Int(field.maximum)).contains(fieldValue) else {
                    throw .valueOutOfRange(field: field.name, register: row.name, value: text, maximum: field.maximum, meanings: field.meanings)
                }
                value = (value & ~field.mask) | (UInt8(fieldValue) << UInt8(field.mask.trailingZeroBitCount))
            }
        }

        // Hazards: a reset bit written as 1; a power or interface field whose value changes.
        var hazards: [(String, FieldDescription.Caution)] = []
        for field in row.fields {
            guard let hazard = field.hazard else { continue }
            let new = field.extract(from: value)
            switch hazard {
            case .reset:
                if new != 0 { hazards.append((field.name, hazard)) }
            case .power, .interface:
                let old = try readCurrent()
                if new != field.extract(from: old) { hazards.append((field.name, hazard)) }
            }
        }
        if !hazards.isEmpty, !force {
            throw .needsForce(register: row.name, fields: hazards.map { "\($0.0) (\($0.1.rawValue))" })
        }
        let resets = row.fields.contains { $0.hazard == .reset && $0.extract(from: value) != 0 }
        let unread = before != nil ? nil : row.effectOfReading ?? (row.access == .writeOnly ? "write-only" : nil)
        return WritePlan(address: register, name: row.name, before: before, value: value, triggersReset: resets, beforeUnread: unread)
    }

    /// Writes a planned value.
    public func write(_ plan: WritePlan) throws(I2CError) {
        try bus.writeRegister(plan.address, plan.value, address: address)
    }
}

/// Why `plumb regs` refused a request.
public enum RegisterEditError: Error, Equatable, CustomStringConvertible {
    case unknownRegister(String, part: String)
    case unknownField(String, register: String, fields: [String])
    case badValue(String, register: String)
    case valueOutOfRange(field: String?, register: String, value: String, maximum: UInt8, meanings: [UInt8: String])
    case readOnly(String, address: UInt8, part: String, access: RegisterDescription.Access)
    case undescribedAddress(UInt8, part: String)
    case needsForce(register: String, fields: [String])
    case bus(I2CError)

    /// Whether the request itself was malformed (a usage error, exit 64) rather than refused.
    public var isUsage: Bool {
        switch self {
        case .unknownRegister, .unknownField, .badValue, .valueOutOfRange: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .unknownRegister(let text, let part):
            "'\(text)' is no register of the \(part): give a datasheet name such as WHO_AM_I or an address such as 0x75."
        case .unknownField(let name, let register, let fields):
            fields.isEmpty ? "\(register) has no named fields ('\(name)'): give the whole value as a number."
                : "\(register) has no field '\(name)': its fields are \(fields.joined(separator: ", "))."
        case .badValue(let text, let register):
            "'\(text)' is no value for \(register): give a number such as 0x10 or FIELD=VALUE pairs."
        case .valueOutOfRange(let field, let register, let value, let maximum, let meanings):
            if let field {
                "The value '\(value)' does not fit \(register).\(field): expected 0...\(maximum)"
                    + (meanings.isEmpty ? "." : " (" + meanings.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(separator: ", ") + ").")
            } else {
                "The value '\(value)' does not fit \(register): expected 0...255."
            }
        case .readOnly(let name, let address, let part, let access):
            "\(name) (0x\(registerHex(address))) is \(access == .readToClear ? "read-only (reading clears it)" : "read-only") on the \(part): the chip ignores writes."
        case .undescribedAddress(let address, let part):
            "0x\(registerHex(address)) is not in the \(part) register map (reserved or undocumented)."
        case .needsForce(let register, let fields):
            "writing \(register) changes \(fields.joined(separator: ", ")); refusing without --force."
        case .bus(let error):
            error.description
        }
    }

    /// What to do about it, when there is something.
    public var fix: String? {
        switch self {
        case .readOnly: "only registers with access RW can be written: 'plumb regs dump --format json' lists each register's access"
        case .undescribedAddress: "give a register name, or add --force to write the raw address anyway"
        case .needsForce: "add --force if you mean it (a reset reloads every register; a power bit can stop the sensor; I2C_DISABLE cuts the bus off)"
        default: nil
        }
    }
}

extension RegisterEditor.Reading {
    /// One line of text: `ACCEL_CONFIG 0x1C = 0x10  AFS_SEL=±8 g`.
    ///
    /// Fields are listed when they have a meaning for their value or are non-zero, so a line
    /// shows what is set without a wall of zero bits. Unknown addresses read
    /// `(unknown) 0x01 = 0x00`; registers left unread say why.
    public var text: String {
        let head = "\(name ?? "(unknown)") 0x\(registerHex(address))"
        guard let value else { return "\(head)  (not read: \(skipped ?? "skipped"))" }
        let shown = fields.filter { $0.meaning != nil || $0.value != 0 }
            .map { "\($0.name)=\($0.meaning ?? String($0.value))" }
        return "\(head) = 0x\(registerHex(value))" + (shown.isEmpty ? "" : "  " + shown.joined(separator: ", "))
    }

    /// One JSON object: `{"address":"0x1C","name":"ACCEL_CONFIG","access":"RW","value":"0x10","fields":{"AFS_SEL":{"value":2,"meaning":"±8 g"}, …}}`.
    ///
    /// `name` and `access` are null for an unknown address; `value` is null (with `"skipped"`)
    /// for a register left unread. Every field is listed, zero or not.
    public var json: String {
        var parts = ["\"address\":\"0x\(registerHex(address))\"", "\"name\":\(name.map(jsonString) ?? "null")",
                     "\"access\":\(access.map(jsonString) ?? "null")",
                     "\"value\":\(value.map { "\"0x\(registerHex($0))\"" } ?? "null")"]
        let fieldText = fields.map { f in
            "\(jsonString(f.name)):{\"value\":\(f.value)" + (f.meaning.map { ",\"meaning\":\(jsonString($0))" } ?? "") + "}"
        }
        parts.append("\"fields\":{\(fieldText.joined(separator: ","))}")
        if let skipped { parts.append("\"skipped\":\(jsonString(skipped))") }
        return "{" + parts.joined(separator: ",") + "}"
    }
}

/// A JSON string literal (quotes, backslash and control characters escaped).
func jsonString(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        default:
            if u.value < 0x20 {
                let h = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            } else {
                out.unicodeScalars.append(u)
            }
        }
    }
    return out + "\""
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool { lowercased() == other.lowercased() }

    /// Equal ignoring case, spaces and a leading "±": "±8 g" matches "8g".
    func looselyEquals(_ other: String) -> Bool {
        func norm(_ s: String) -> String { s.lowercased().filter { $0 != " " && $0 != "±" } }
        return norm(self) == norm(other)
    }

    func replacingUnderscores() -> String { filter { $0 != "_" } }
}

extension IMUFamilies {
    /// The register map of the part `key` ("mpu6050", "lsm6dso"): the table its driver and its
    /// emulator use. `nil` for an unknown key.
    public static func registerMap(forPart key: String) -> RegisterMap? {
        if let v = MPU6050.variant(named: key) { return v.registerMap }
        if let v = LSM6DS.Variant.all.first(where: { $0.key == key.lowercased() }) { return LSM6DS.registerMap(for: v) }
        return nil
    }
}

/// Two upper-case hex digits, as register maps print them ("1C").
public func registerHex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}
