import PlumbHAL

/// A chip's register map as data: one table that the driver, its emulator and `plumb regs` share.
///
/// Each ``RegisterDescription`` gives the datasheet name, the address, the access rule, the
/// power-on reset value and the named bit fields with the meaning of each value. The driver takes
/// its ``RegisterField``s from here (`map.field("PWR_MGMT_1", "H_RESET")`), the emulator builds its
/// register file from the same rows (reset values, read-only and clear-on-read behaviour), and a
/// register dump decodes bytes with ``RegisterMap/decode(_:value:)``. One source, so the three can
/// never disagree.
public struct RegisterMap: Sendable {
    /// "MPU-6050", "MPU-6500".
    public var name: String
    /// Rows in address order.
    public private(set) var registers: [RegisterDescription]
    private var index: [Int]

    public init(name: String, registers: [RegisterDescription]) {
        self.name = name
        self.registers = registers.sorted { $0.address < $1.address }
        var index = [Int](repeating: -1, count: 256)
        for (i, r) in self.registers.enumerated() {
            precondition(index[Int(r.address)] == -1, "\(name): two registers at 0x\(hex(r.address))")
            index[Int(r.address)] = i
        }
        self.index = index
    }

    /// The row at `address`, or `nil` for a reserved address.
    public subscript(address: UInt8) -> RegisterDescription? {
        let i = index[Int(address)]
        return i < 0 ? nil : registers[i]
    }

    /// The row named `name` (the datasheet spelling, "PWR_MGMT_1").
    public subscript(name: String) -> RegisterDescription? {
        registers.first { $0.name == name }
    }

    /// The bit field `field` of register `register`, as a ``RegisterField`` for shifting.
    ///
    /// - Precondition: both names exist in the map (a typo is a programmer error).
    public func field(_ register: String, _ field: String) -> RegisterField {
        guard let r = self[register], let f = r.fields.first(where: { $0.name == field }) else {
            preconditionFailure("\(name) has no field \(register).\(field)")
        }
        return RegisterField(address: r.address, mask: f.mask)
    }

    /// The address of the register named `name`.
    ///
    /// - Precondition: the name exists in the map.
    public func address(_ register: String) -> UInt8 {
        guard let r = self[register] else { preconditionFailure("\(name) has no register \(register)") }
        return r.address
    }

    /// One decoded field of a register value.
    public struct DecodedField: Sendable, Equatable {
        public var name: String
        public var value: UInt8
        /// The meaning of the value from the table, when it has one ("±2000 °/s").
        public var meaning: String?
    }

    /// The fields of `value` read from `address`, with their meanings; empty for a reserved address.
    public func decode(_ address: UInt8, value: UInt8) -> [DecodedField] {
        guard let r = self[address] else { return [] }
        return r.fields.map { f in
            let v = (value & f.mask) >> UInt8(f.mask.trailingZeroBitCount)
            return DecodedField(name: f.name, value: v, meaning: f.meanings[v])
        }
    }
}

/// One register: name, address, access, reset value and fields.
public struct RegisterDescription: Sendable {
    /// How the host may use a register.
    public enum Access: String, Sendable, Equatable {
        /// Read-only: writes are ignored by the chip (WHO_AM_I, data outputs).
        case readOnly = "RO"
        /// Read and write.
        case readWrite = "RW"
        /// Write-only: reads return 0 or undefined data.
        case writeOnly = "WO"
        /// Read-only, and reading clears it (MPU INT_STATUS).
        case readToClear = "RC"
        /// Writing 1 to a bit clears it.
        case writeOneToClear = "W1C"
    }

    /// The datasheet name, "PWR_MGMT_1".
    public var name: String
    public var address: UInt8
    public var access: Access
    /// The value after power-on or a full reset.
    public var resetValue: UInt8
    public var fields: [FieldDescription]
    /// One line on what the register does.
    public var summary: String
    /// What a host read does besides returning the value ("reading pops the FIFO"), or `nil`
    /// when a read changes nothing. A register dump does not read such registers.
    public var readEffect: String?
    /// The chip's factory programs the value (self-test codes, trims): the power-on value is the
    /// part's own, not ``resetValue``.
    public var isFactoryProgrammed = false

    public init(_ name: String, _ address: UInt8, _ access: Access, reset: UInt8 = 0,
                summary: String, fields: [FieldDescription] = []) {
        self.name = name; self.address = address; self.access = access
        self.resetValue = reset; self.summary = summary; self.fields = fields
    }

    /// Bits that clear themselves once the chip has acted on them (reset bits).
    public var selfClearingMask: UInt8 {
        fields.filter(\.selfClearing).reduce(0) { $0 | $1.mask }
    }

    /// This row with a read side effect: `.init(…).reading("reading pops the FIFO")`.
    public func reading(_ effect: String) -> RegisterDescription {
        var r = self; r.readEffect = effect; return r
    }

    /// This row marked as factory-programmed.
    public func factoryProgrammed() -> RegisterDescription {
        var r = self; r.isFactoryProgrammed = true; return r
    }

    /// What a host read does besides returning the value: ``readEffect``, or "reading clears
    /// it" for a read-to-clear register.
    public var effectOfReading: String? {
        readEffect ?? (access == .readToClear ? "reading clears it" : nil)
    }

    /// Whether the host may write it (not read-only, not read-to-clear).
    public var isWritable: Bool { access != .readOnly && access != .readToClear }
}

/// A named bit field inside a register, with what each value means.
public struct FieldDescription: Sendable {
    public var name: String
    /// The field's bits (0b0001_1000 for bits 4:3).
    public var mask: UInt8
    /// The chip clears the bit(s) itself after acting on a write of 1.
    public var selfClearing: Bool
    /// Value → meaning ("0": "±250 °/s").
    public var meanings: [UInt8: String]
    public var summary: String
    /// Why writing this field needs care, when it does (set with ``guarded(_:)``). Self-clearing
    /// bits are reset bits whether or not this is set: see ``hazard``.
    public var caution: Caution?

    /// What can go wrong when a host writes a field.
    public enum Caution: String, Sendable, Equatable {
        /// Resets registers or a signal path (a self-clearing bit).
        case reset
        /// Puts the chip or one of its sensors to sleep, or stops its clock.
        case power
        /// Can cut the host off: disables the I2C interface, or switches the register bank.
        case interface
    }

    /// The field's caution: ``caution``, or `.reset` for a self-clearing bit.
    public var hazard: Caution? { caution ?? (selfClearing ? .reset : nil) }

    /// This field with a caution: `.bit("SLEEP", 6).guarded(.power)`.
    public func guarded(_ kind: Caution) -> FieldDescription {
        var f = self; f.caution = kind; return f
    }

    /// The field's value in a register value.
    public func extract(from register: UInt8) -> UInt8 { (register & mask) >> UInt8(mask.trailingZeroBitCount) }

    /// The largest value the field holds.
    public var maximum: UInt8 { mask >> UInt8(mask.trailingZeroBitCount) }

    public init(_ name: String, mask: UInt8, selfClearing: Bool = false, summary: String = "",
                meanings: [UInt8: String] = [:]) {
        precondition(mask != 0, "field \(name) needs at least one bit")
        self.name = name; self.mask = mask; self.selfClearing = selfClearing
        self.summary = summary; self.meanings = meanings
    }

    /// A one-bit field.
    public static func bit(_ name: String, _ bit: Int, selfClearing: Bool = false, summary: String = "") -> FieldDescription {
        FieldDescription(name, mask: UInt8(1) << UInt8(bit), selfClearing: selfClearing, summary: summary)
    }
}
