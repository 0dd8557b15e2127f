/// One part of a combined I2C transfer: bytes to send, or a number of bytes to receive.
///
/// A transfer is a list of operations to one address, run as one bus transaction: a START,
/// each operation in turn with a repeated START between a write and a following read, and one
/// STOP at the end (embedded-hal's `I2c::transaction`).
public struct I2COperation: Sendable, Equatable {
    public enum Direction: Sendable, Equatable { case write, read }

    /// Whether this part sends or receives.
    public var direction: Direction
    /// For a write, the bytes sent. For a read, the buffer filled by the transfer: its count is
    /// the number of bytes read, and a caller that reuses the operation reuses the storage.
    public var bytes: [UInt8]

    public static func write(_ bytes: [UInt8]) -> I2COperation { I2COperation(direction: .write, bytes: bytes) }
    public static func read(count: Int) -> I2COperation { I2COperation(direction: .read, bytes: [UInt8](repeating: 0, count: count)) }
}

/// An I2C bus controller that can address any target on it.
///
/// The one requirement is ``transfer(_:address:)``; `write`, `read`, `writeRead` and the register
/// helpers are extensions built on it. A driver owns its bus; sharing one bus between drivers is
/// the job of a wrapper type, never of the driver.
///
/// Implementations: `LinuxI2CBus` (PlumbLinux, `/dev/i2c-N`) and `EmulatedI2CBus` (PlumbSimulation).
public protocol I2CBus: AnyObject {
    /// A name for messages, such as "/dev/i2c-1" or "simulated bus".
    var path: String { get }

    /// The longest read the bus can do in one transfer, or `nil` when it has no limit.
    ///
    /// An SMBus-only adapter (such as `i2c-stub`) reads at most 32 bytes per I2C-block call,
    /// and cannot continue a read across calls without addressing the register again.
    var maximumReadLength: Int? { get }

    /// How many times the bus itself tries a transfer that fails with a transient error
    /// (``I2CError/isTransient``) before it throws: 1 when it does not retry.
    ///
    /// Retries of a transfer belong here, in the bus, where they are cheap and the same for every
    /// driver (`LinuxI2CBus` tries three times, 1 ms then 2 ms apart). A driver that must see a
    /// read fail several times before it draws a conclusion from the failure (that nothing
    /// answers at an address: `IMUFamilies.probeRead` in PlumbDrivers) counts these tries
    /// instead of repeating what the bus has already done.
    var attemptsPerTransfer: Int { get }

    /// Runs `operations` against `address` as one combined transaction.
    ///
    /// On return each read operation's `bytes` holds what the target sent.
    /// - Throws: ``I2CError`` carrying errno, its meaning, the bus path and the address.
    func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError)
}

extension I2CBus {
    public var maximumReadLength: Int? { nil }

    /// One: a bus that does not say otherwise does not retry.
    public var attemptsPerTransfer: Int { 1 }

    /// Sends `bytes` to `address`: START, address+W, bytes, STOP.
    public func write(_ bytes: [UInt8], to address: I2CAddress) throws(I2CError) {
        var ops = [I2COperation.write(bytes)]
        try transfer(&ops, address: address)
    }

    /// Reads `count` bytes from `address`: START, address+R, bytes, STOP.
    ///
    /// - Throws: also EIO when the bus returns fewer bytes than asked (``shortRead(_:of:register:address:)``).
    public func read(count: Int, from address: I2CAddress) throws(I2CError) -> [UInt8] {
        var ops = [I2COperation.read(count: count)]
        try transfer(&ops, address: address)
        guard ops[0].bytes.count == count else { throw shortRead(ops[0].bytes.count, of: count, register: nil, address: address) }
        return ops[0].bytes
    }

    /// Sends `bytes`, then reads `count` bytes after a repeated START: the register read of almost
    /// every sensor.
    ///
    /// - Throws: also EIO when the bus returns fewer bytes than asked (``shortRead(_:of:register:address:)``).
    public func writeRead(_ bytes: [UInt8], count: Int, address: I2CAddress) throws(I2CError) -> [UInt8] {
        var ops = [I2COperation.write(bytes), I2COperation.read(count: count)]
        try transfer(&ops, address: address)
        guard ops[1].bytes.count == count else { throw shortRead(ops[1].bytes.count, of: count, register: bytes.first, address: address) }
        return ops[1].bytes
    }

    /// The error for a read that returned `received` of `requested` bytes: EIO, a bus error (as
    /// `LinuxI2CBus` reports a short SMBus block read), so the drivers' retry policy applies and
    /// no caller indexes past the bytes it got.
    public func shortRead(_ received: Int, of requested: Int, register: UInt8?, address: I2CAddress) -> I2CError {
        let from = register.map { " from register 0x" + hex($0) } ?? ""
        return I2CError(errno: Errno.EIO, bus: path, address: address, kind: .bus,
                        detail: "short read at \(address) on \(path): \(received) of \(requested) bytes\(from)")
    }

    /// Reads one 8-bit register.
    public func readRegister(_ register: UInt8, address: I2CAddress) throws(I2CError) -> UInt8 {
        try writeRead([register], count: 1, address: address)[0]
    }

    /// Writes one 8-bit register.
    public func writeRegister(_ register: UInt8, _ value: UInt8, address: I2CAddress) throws(I2CError) {
        try write([register, value], to: address)
    }

    /// Reads `count` bytes starting at `register`, split into reads the bus can do.
    ///
    /// - Parameter autoIncrement: `true` when the chip advances its register pointer after each
    ///   byte (ordinary registers), so a continuation addresses `register + offset`; `false` for
    ///   a FIFO data register that the chip keeps addressed, so every part re-addresses `register`.
    public func readRegisters(_ register: UInt8, count: Int, autoIncrement: Bool = true,
                              address: I2CAddress) throws(I2CError) -> [UInt8] {
        let limit = maximumReadLength ?? count
        if count <= limit { return try writeRead([register], count: count, address: address) }
        var result: [UInt8] = []
        result.reserveCapacity(count)
        var offset = 0
        while offset < count {
            let n = min(limit, count - offset)
            let start = autoIncrement ? register &+ UInt8(truncatingIfNeeded: offset) : register
            result += try writeRead([start], count: n, address: address)
            offset += n
        }
        return result
    }
}
