import PlumbDrivers

/// An emulated chip's 256 registers, built from the same ``RegisterMap`` the driver uses.
///
/// The chip side (`self[address]`) reads and writes freely; the host side (``hostRead(_:)``,
/// ``hostWrite(_:_:)``) follows each register's access rule: writes to read-only registers are
/// ignored, write-one-to-clear bits clear, read-to-clear registers clear after being read.
/// Addresses the map does not describe behave as plain read/write storage, reset to 0.
public struct RegisterFile: Sendable {
    public let map: RegisterMap
    private var storage: [UInt8]

    public init(map: RegisterMap) {
        self.map = map
        storage = [UInt8](repeating: 0, count: 256)
        powerOnReset()
    }

    /// Every register back to its datasheet reset value.
    public mutating func powerOnReset() {
        for i in storage.indices { storage[i] = 0 }
        for r in map.registers { storage[Int(r.address)] = r.resetValue }
    }

    /// The raw value, for the chip's own logic (no access rules).
    public subscript(address: UInt8) -> UInt8 {
        get { storage[Int(address)] }
        set { storage[Int(address)] = newValue }
    }

    /// The raw value of the register named `name`.
    public subscript(name: String) -> UInt8 {
        get { storage[Int(map.address(name))] }
        set { storage[Int(map.address(name))] = newValue }
    }

    /// The value of a field, by register and field name.
    public func field(_ register: String, _ field: String) -> UInt8 {
        let f = map.field(register, field)
        return f.extract(from: storage[Int(f.address)])
    }

    /// A read by the host: returns the value and applies read-to-clear.
    public mutating func hostRead(_ address: UInt8) -> UInt8 {
        let value = storage[Int(address)]
        if let r = map[address] {
            switch r.access {
            case .readToClear: storage[Int(address)] = 0
            case .writeOnly: return 0
            default: break
            }
        }
        return value
    }

    /// A write by the host, following the register's access rule.
    ///
    /// - Returns: `false` when the chip ignored the write (a read-only register).
    @discardableResult
    public mutating func hostWrite(_ address: UInt8, _ value: UInt8) -> Bool {
        guard let r = map[address] else { storage[Int(address)] = value; return true }
        switch r.access {
        case .readOnly, .readToClear: return false
        case .writeOneToClear: storage[Int(address)] &= ~value
        case .readWrite, .writeOnly: storage[Int(address)] = value
        }
        return true
    }
}
