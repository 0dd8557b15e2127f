/// The fuzzer's bytes, taken from the front: the harnesses' only source of choices (a class, so
/// the bus, the line and the harness loop share one cursor).
///
/// Every accessor is total: past the end it answers 0 (and `isEmpty` turns true), so a harness
/// never has to check lengths and libFuzzer's shortest inputs still run the whole path.
public final class FuzzInput {
    public let bytes: [UInt8]
    public private(set) var offset = 0

    public init(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        bytes = count > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: count)) : []
    }

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var isEmpty: Bool { offset >= bytes.count }
    public var remaining: Int { max(0, bytes.count - offset) }

    public func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Up to `n` bytes (fewer at the end).
    public func take(_ n: Int) -> ArraySlice<UInt8> {
        let end = min(bytes.count, offset + max(0, n))
        defer { offset = max(offset, end) }
        return bytes[min(offset, end)..<end]
    }

    /// Everything left.
    public func rest() -> ArraySlice<UInt8> { take(remaining) }

    public func uint16() -> UInt16 { UInt16(byte()) | UInt16(byte()) << 8 }
    public func uint32() -> UInt32 { UInt32(uint16()) | UInt32(uint16()) << 16 }
    public func uint64() -> UInt64 { UInt64(uint32()) | UInt64(uint32()) << 32 }

    /// One of `choices`, picked by the next byte.
    public func pick<T>(_ choices: [T]) -> T {
        precondition(!choices.isEmpty)
        return choices[Int(byte()) % choices.count]
    }

    public func bool() -> Bool { byte() & 1 == 1 }
}
