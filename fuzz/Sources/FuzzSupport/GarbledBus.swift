import PlumbHAL

/// An I2C bus in front of a real one (an emulated chip) that lets the fuzzer garble what comes
/// back: each transfer takes one control byte, which passes it through, flips bits in the bytes
/// read, replaces them with the fuzzer's bytes, cuts the read short, or fails it with a kernel
/// errno. Writes always reach the chip. With the input used up, everything passes through.
///
/// What a glitching bus does on a Raspberry Pi (a loose wire, a brown-out, clock stretching the
/// BCM2835 controller does not honour): any register the driver reads can come back as anything.
public final class GarbledBus: I2CBus {
    public let inner: any I2CBus
    public let input: FuzzInput
    public var maximumReadLength: Int?
    public var path: String { inner.path }
    /// Transfers garbled so far (for the harness's statistics only).
    public private(set) var garbled = 0

    public init(_ inner: any I2CBus, input: FuzzInput, maximumReadLength: Int? = nil) {
        self.inner = inner
        self.input = input
        self.maximumReadLength = maximumReadLength
    }

    static let errnos: [Int32] = [Errno.EIO, Errno.EREMOTEIO, Errno.ETIMEDOUT, Errno.EAGAIN, Errno.ENXIO, Errno.EPROTO]

    public func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
        guard operations.contains(where: { $0.direction == .read }), !input.isEmpty else {
            try inner.transfer(&operations, address: address)
            return
        }
        let control = input.byte()
        switch control {
        case 0..<0x90:
            try inner.transfer(&operations, address: address)
        case 0x90..<0xC0:
            // Bit flips: a run of XOR masks at an offset in the read.
            try inner.transfer(&operations, address: address)
            garble(&operations) { bytes in
                guard !bytes.isEmpty else { return }
                let start = Int(input.byte()) % bytes.count
                for (k, mask) in input.take(Int(input.byte() % 16) + 1).enumerated() where start + k < bytes.count {
                    bytes[start + k] ^= mask
                }
            }
        case 0xC0..<0xE0:
            // The chip's answer replaced by the fuzzer's bytes (the chip is still addressed, so
            // a FIFO read pops what it would have).
            try inner.transfer(&operations, address: address)
            garble(&operations) { bytes in
                for i in bytes.indices { bytes[i] = input.byte() }
            }
        case 0xE0..<0xE8:
            // All one value: what a stuck SDA line gives.
            try inner.transfer(&operations, address: address)
            let value: UInt8 = control & 1 == 0 ? 0x00 : 0xFF
            garble(&operations) { bytes in for i in bytes.indices { bytes[i] = value } }
        case 0xE8..<0xF0:
            // A short read: fewer bytes than asked.
            try inner.transfer(&operations, address: address)
            garble(&operations) { bytes in
                guard !bytes.isEmpty else { return }
                bytes.removeLast(1 + Int(input.byte()) % bytes.count)
            }
        default:
            garbled += 1
            throw I2CError(errno: Self.errnos[Int(control - 0xF0) % Self.errnos.count], bus: path, address: address)
        }
    }

    /// Applies `body` to the bytes of the transfer's last read.
    private func garble(_ operations: inout [I2COperation], _ body: (inout [UInt8]) -> Void) {
        guard let i = operations.lastIndex(where: { $0.direction == .read }) else { return }
        garbled += 1
        body(&operations[i].bytes)
    }
}
