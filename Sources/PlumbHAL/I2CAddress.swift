/// A 7-bit I2C target address, right-aligned (0x68, not 0xD0).
///
/// Addresses 0x00–0x07 and 0x78–0x7F are reserved by the I2C specification (general call,
/// CBUS, high-speed master codes, 10-bit prefixes); the initializer accepts them only when
/// `allowReserved` is true, since no IMU answers there.
public struct I2CAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 7-bit address, 0x00...0x7F.
    public let rawValue: UInt8

    /// Creates an address, or returns `nil` when the value does not fit in 7 bits or is reserved.
    public init?(_ value: Int, allowReserved: Bool = false) {
        guard (0...0x7F).contains(value) else { return nil }
        if !allowReserved, value < 0x08 || value > 0x77 { return nil }
        rawValue = UInt8(value)
    }

    /// Creates an address from a literal that the caller knows is valid.
    ///
    /// - Precondition: `value` is a valid, non-reserved 7-bit address.
    public init(_ value: UInt8) {
        precondition(value >= 0x08 && value <= 0x77, "I2C address 0x\(String(value, radix: 16)) is outside 0x08...0x77")
        rawValue = value
    }

    /// Parses "0x68", "68h", "104" or "0b1101000".
    public init?(parsing text: String) {
        let t = text.trimmingWhitespace().lowercased()
        let value: Int?
        if t.hasPrefix("0x") { value = Int(t.dropFirst(2), radix: 16) }
        else if t.hasSuffix("h") { value = Int(t.dropLast(), radix: 16) }
        else if t.hasPrefix("0b") { value = Int(t.dropFirst(2), radix: 2) }
        else { value = Int(t) }
        guard let value else { return nil }
        self.init(value)
    }

    /// "0x68".
    public var description: String { "0x" + hex(rawValue) }

    public static func < (lhs: I2CAddress, rhs: I2CAddress) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Two lowercase hexadecimal digits.
public func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
