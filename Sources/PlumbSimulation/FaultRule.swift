import PlumbHAL

/// A failure the ``EmulatedI2CBus`` injects into matching transfers (Zephyr's `mock_api` idea:
/// fail chosen registers, or a fraction of everything).
///
/// ```swift
/// bus.faults = [
///     .init(.register(0x3A), effect: .errno(Errno.EREMOTEIO)),      // every access touching INT_STATUS
///     .init(.rate(0.01), effect: .errno(Errno.EIO)),                // 1 % of all transfers
///     .init(.address(I2CAddress(0x68)), effect: .noAcknowledge, count: 3),
/// ]
/// ```
public struct FaultRule: Sendable, Equatable {
    /// Which transfers the rule matches.
    public enum Trigger: Sendable, Equatable {
        /// Every transfer.
        case always
        /// Each transfer independently with probability p (from the bus's seeded generator).
        case rate(Double)
        /// Transfers that touch `register`: a write to it, or a read starting at it or running
        /// across it with auto-increment.
        case register(UInt8)
        /// Only reads that touch `register`.
        case readOf(UInt8)
        /// Only writes that touch `register`.
        case writeOf(UInt8)
        /// Transfers to one address.
        case address(I2CAddress)
        /// Transfers while the virtual clock is within the window (nanoseconds).
        case during(ClosedRange<UInt64>)
        /// The n-th transfer on the bus (1-based), and only that one.
        case transaction(Int)
    }

    /// What a matching transfer suffers.
    public enum Effect: Sendable, Equatable {
        /// The transfer fails with this errno (EIO, EREMOTEIO, ETIMEDOUT, EAGAIN…) after the chip
        /// has seen it: a write may have landed and a read may have popped FIFO bytes, but the
        /// caller gets no data (the harsh case of a NACK or glitch mid-transfer).
        case errno(Int32)
        /// Nothing acknowledges the address (``EmulatedI2CBus/nothingAnswersErrno``: ENXIO, or
        /// EREMOTEIO as a Raspberry Pi's adapter says it).
        case noAcknowledge
        /// The bus is stuck (SDA held low): the transfer times out (ETIMEDOUT) after the adapter's
        /// timeout, which costs virtual time.
        case stuck
        /// The transfer is acknowledged but never reaches the chip: writes are lost and every byte
        /// read is `value`. 0x00 is SDA held low (the controller reads every ACK and data bit as
        /// 0); 0xFF is a chip that stopped driving SDA behind its pull-up.
        case reads(UInt8)
        /// The chip sees the whole transfer, but each read comes back holding only its first
        /// `count` bytes (an ``I2CBus`` that reports a short read in the operation's byte count).
        case shortRead(Int)
    }

    public var trigger: Trigger
    public var effect: Effect
    /// Fire at most this many times; `nil` means without limit.
    public var count: Int?
    /// Only while the virtual clock is inside this window (nanoseconds); `nil` means always.
    public var window: ClosedRange<UInt64>?

    public init(_ trigger: Trigger, effect: Effect, count: Int? = nil, window: ClosedRange<UInt64>? = nil) {
        self.trigger = trigger; self.effect = effect; self.count = count; self.window = window
    }

    /// Whether the transfer's operations touch `register` (considering auto-increment).
    static func touches(_ operations: [I2COperation], register: UInt8, reads: Bool, writes: Bool) -> Bool {
        var pointer: UInt8?
        for op in operations {
            switch op.direction {
            case .write:
                guard let first = op.bytes.first else { continue }
                pointer = first
                let dataCount = op.bytes.count - 1
                if writes, dataCount > 0, register >= first, Int(register) - Int(first) < dataCount { return true }
                pointer = first &+ UInt8(truncatingIfNeeded: dataCount)
            case .read:
                guard let start = pointer else { continue }
                if reads, register >= start, Int(register) - Int(start) < max(op.bytes.count, 1) { return true }
                pointer = start &+ UInt8(truncatingIfNeeded: op.bytes.count)
            }
        }
        return false
    }
}
