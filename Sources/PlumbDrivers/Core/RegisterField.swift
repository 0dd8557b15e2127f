/// A bit field inside one 8-bit register: where it lives and how to shift it.
///
/// The Swift form of the kernel's `ST_LSM6DSX_SHIFT_VAL`: `field.insert(3, into: old)` replaces
/// only the field's bits.
public struct RegisterField: Sendable, Hashable {
    /// The register address.
    public var address: UInt8
    /// The field's bits within the register (e.g. 0b0001_1000 for bits 4:3).
    public var mask: UInt8

    public init(address: UInt8, mask: UInt8) {
        precondition(mask != 0, "a register field needs at least one bit")
        self.address = address
        self.mask = mask
    }

    /// The lowest bit of the mask.
    public var shift: UInt8 { UInt8(mask.trailingZeroBitCount) }

    /// The largest value the field can hold.
    public var maximum: UInt8 { mask >> shift }

    /// The field's value in `register`.
    public func extract(from register: UInt8) -> UInt8 { (register & mask) >> shift }

    /// `register` with the field replaced by `value`.
    ///
    /// - Precondition: `value` fits in the field.
    public func insert(_ value: UInt8, into register: UInt8) -> UInt8 {
        precondition(value <= maximum, "value \(value) does not fit field mask 0x\(String(mask, radix: 16))")
        return (register & ~mask) | (value << shift)
    }
}
