import PlumbHAL

/// An I2C bus whose targets are emulated chips, running in virtual time.
///
/// It routes each transfer by address to an attached ``I2CTarget``, or else to a chip that an
/// attached ``I2CBypassBridge`` joins to the bus at that moment (the MPU-9150's AK8975 at 0x0C
/// while I2C_BYPASS_EN is set); nothing there gives ENXIO, as the kernel reports an
/// unacknowledged address (or EREMOTEIO, as a Raspberry Pi does: ``nothingAnswersErrno``). It brings every target up to the current virtual
/// time first, charges the transfer's duration on the bus to the ``VirtualClock`` (9 bit-times a
/// byte plus START/STOP at `bitsPerSecond`), applies ``FaultRule``s, and counts transactions
/// and bytes so a benchmark can compare what drivers put on the wire. With ``timesEachByte`` a
/// ``RegisterTarget`` sees each byte at its time on the wire (``I2CByteTiming``): it samples on
/// between the bytes of a long burst, as the chip does.
///
/// It does not retry a failed transfer (``I2CBus/attemptsPerTransfer`` is 1): each try a driver
/// makes is one transfer here, which a ``FaultRule`` count sees.
///
/// Set ``maximumReadLength`` to 32 to behave like an SMBus-only adapter such as `i2c-stub`:
/// longer reads are refused with EOPNOTSUPP, as `LinuxI2CBus` would, so the driver must chunk.
public final class EmulatedI2CBus: I2CBus {
    /// Counts of what crossed the bus.
    public struct Counters: Sendable, Equatable {
        /// Combined transfers attempted (each START … STOP).
        public var transactions = 0
        /// Transfers that failed (injected faults and NACKs).
        public var failures = 0
        /// Data bytes written, register-pointer bytes included (address bytes excluded).
        public var bytesWritten = 0
        /// Data bytes read.
        public var bytesRead = 0
        /// Address bytes (one per START or repeated START).
        public var addressBytes = 0
        /// Data bytes in both directions.
        public var bytes: Int { bytesWritten + bytesRead }
        public init() {}
    }

    public let path: String
    public let clock: VirtualClock
    /// The longest read the bus does in one transfer (32 for SMBus-only), or `nil`.
    public var maximumReadLength: Int?
    /// The bus clock in bits per second used to charge transfer time, or `nil` for instant
    /// transfers. Default 400 kHz (the Raspberry Pi's `i2c_arm_baudrate=400000`).
    public var bitsPerSecond: Double?
    /// Run each byte of a transfer at its time on the wire (``I2CByteTiming``) instead of the
    /// whole transfer at its start. Default false.
    ///
    /// On the chip a burst pops its FIFO word by word while new samples keep arriving, so a
    /// level-triggered watermark pin that stays above its threshold through a long catch-up read
    /// never falls and gives no new edge. Handled at its start, the same burst empties the FIFO
    /// at once and the pin rises again during it: a fresh edge the real chip does not give
    /// (ReaderStallTests), and a watermark read past the end of the FIFO gets the words written
    /// during it behind the zeros (StrayEdgeTests). Off by default, for tests that build a bus of
    /// their own and count on each transfer happening at its start; ``SimulatedSensor`` (every
    /// test rig, `--simulate`, `plumb bench`, the evaluations and soaks) turns it on.
    public var timesEachByte = false
    /// How long a stuck bus holds a transfer before the adapter gives up, in nanoseconds.
    /// Default 25 ms.
    public var stuckTimeoutNanoseconds: UInt64 = 25 * Nanoseconds.perMillisecond
    /// The errno of a transfer to an address nothing acknowledges (no target there, or a
    /// `.noAcknowledge` fault). Default ENXIO, as the kernel's `Documentation/i2c/fault-codes.rst`
    /// asks and i2c-stub (ENODEV) and most PC adapters do; EREMOTEIO is what a Raspberry Pi's
    /// adapter gives (`i2c-bcm2835`, and `i2c-designware` on the Pi 5's RP1:
    /// ``I2CError/mayMeanNothingAnswers``).
    public var nothingAnswersErrno: Int32 = Errno.ENXIO
    /// Fault rules, tried in order; the first that matches decides.
    public var faults: [FaultRule] = []
    public private(set) var counters = Counters()
    /// When non-nil, every transfer is appended here (for exact-order tests such as the reset
    /// sequence). Set it to `[]` to start recording.
    public var trace: [I2CEvent]?
    private var targets: [UInt8: any I2CTarget] = [:]
    private var random: SeededRandom

    /// - Parameters:
    ///   - path: the name in messages. Default "simulated bus".
    ///   - clock: the virtual clock every target and the interrupt line share.
    ///   - seed: seeds the generator used by `.rate` fault rules.
    public init(path: String = "simulated bus", clock: VirtualClock, bitsPerSecond: Double? = 400_000,
                maximumReadLength: Int? = nil, seed: UInt64 = 1) {
        self.path = path
        self.clock = clock
        self.bitsPerSecond = bitsPerSecond
        self.maximumReadLength = maximumReadLength
        self.random = SeededRandom(seed: seed)
    }

    /// Puts `target` on the bus at `address` (replacing whatever was there).
    public func attach(_ target: any I2CTarget, at address: I2CAddress) {
        targets[address.rawValue] = target
    }

    /// Removes the target at `address` (a chip that lost power).
    public func detach(at address: I2CAddress) {
        targets[address.rawValue] = nil
    }

    /// The attached addresses, in order.
    public var addresses: [I2CAddress] { targets.keys.sorted().map { I2CAddress($0) } }

    /// The target attached at `address`, if any (a chip reached only through a bypass is not).
    public func target(at address: I2CAddress) -> (any I2CTarget)? { targets[address.rawValue] }

    /// The target that answers at `address` now: the one attached there, else one an attached
    /// ``I2CBypassBridge`` joins to the bus (in address order of the bridges).
    private func route(_ address: I2CAddress) -> (any I2CTarget)? {
        if let target = targets[address.rawValue] { return target }
        for key in targets.keys.sorted() {
            if let bridge = targets[key] as? any I2CBypassBridge, let behind = bridge.bypassTargets[address.rawValue] { return behind }
        }
        return nil
    }

    public func resetCounters() { counters = Counters() }

    public func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
        counters.transactions += 1
        let start = clock.nowNanoseconds
        do {
            try perform(&operations, address: address)
            trace?.append(I2CEvent(timeNanoseconds: start, address: address, operations: operations, errno: nil))
        } catch {
            trace?.append(I2CEvent(timeNanoseconds: start, address: address, operations: operations, errno: error.errno))
            throw error
        }
    }

    private func perform(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
        for target in targets.values { target.advance(to: clock.nowNanoseconds) }

        if let limit = maximumReadLength, operations.contains(where: { $0.direction == .read && $0.bytes.count > limit }) {
            counters.failures += 1
            throw I2CError(errno: Errno.EOPNOTSUPP, bus: path, address: address,
                           detail: "\(path) reads at most \(limit) bytes per transfer (SMBus I2C block)")
        }
        if let effect = matchFault(operations, address: address) {
            switch effect {
            case .reads(let value):
                for i in operations.indices where operations[i].direction == .read {
                    for j in operations[i].bytes.indices { operations[i].bytes[j] = value }
                }
                chargeTime(for: operations, completed: true)
                return
            case .shortRead(let count):
                try deliver(&operations, address: address)
                for i in operations.indices where operations[i].direction == .read && operations[i].bytes.count > count {
                    operations[i].bytes.removeLast(operations[i].bytes.count - max(0, count))
                }
                return
            default: break
            }
            counters.failures += 1
            chargeTime(for: operations, completed: false)
            switch effect {
            case .errno(let e):
                // A failure mid-transfer: the chip saw the bytes (a write may have landed, a read
                // may have popped a FIFO), the caller gets none of the data.
                if let target = route(address) {
                    do { try target.handle(&operations) } catch {}
                    for i in operations.indices where operations[i].direction == .read {
                        for j in operations[i].bytes.indices { operations[i].bytes[j] = 0 }
                    }
                }
                throw I2CError(errno: e, bus: path, address: address)
            case .noAcknowledge: throw I2CError(errno: nothingAnswersErrno, bus: path, address: address)
            case .stuck:
                clock.advance(by: stuckTimeoutNanoseconds)
                throw I2CError(errno: Errno.ETIMEDOUT, bus: path, address: address)
            case .reads, .shortRead: break
            }
        }
        try deliver(&operations, address: address)
    }

    /// Hands the transfer to the target at `address` and charges its time.
    private func deliver(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
        guard let target = route(address) else {
            counters.failures += 1
            counters.addressBytes += 1
            chargeBits(9 + 2)
            throw I2CError(errno: nothingAnswersErrno, bus: path, address: address)
        }
        do {
            // Byte by byte in time when transfers take time: a chip sampling during a long FIFO
            // burst pushes words (and moves its pins) between the bytes read (``I2CByteTiming``).
            if timesEachByte, let rate = bitsPerSecond, rate > 0, let registers = target as? any RegisterTarget {
                try registers.handle(&operations, timing: I2CByteTiming(startNanoseconds: clock.nowNanoseconds, bitsPerSecond: rate))
            } else {
                try target.handle(&operations)
            }
        } catch {
            counters.failures += 1
            var e = error
            e.bus = path
            e.address = address
            throw e
        }
        chargeTime(for: operations, completed: true)
    }

    private func matchFault(_ operations: [I2COperation], address: I2CAddress) -> FaultRule.Effect? {
        for i in faults.indices {
            if let c = faults[i].count, c <= 0 { continue }
            if let w = faults[i].window, !w.contains(clock.nowNanoseconds) { continue }
            let matched: Bool
            switch faults[i].trigger {
            case .always: matched = true
            case .rate(let p): matched = random.chance(p)
            case .register(let r): matched = FaultRule.touches(operations, register: r, reads: true, writes: true)
            case .readOf(let r): matched = FaultRule.touches(operations, register: r, reads: true, writes: false)
            case .writeOf(let r): matched = FaultRule.touches(operations, register: r, reads: false, writes: true)
            case .address(let a): matched = a == address
            case .during(let window): matched = window.contains(clock.nowNanoseconds)
            case .transaction(let n): matched = counters.transactions == n
            }
            if matched {
                if let c = faults[i].count { faults[i].count = c - 1 }
                return faults[i].effect
            }
        }
        return nil
    }

    private func chargeTime(for operations: [I2COperation], completed: Bool) {
        var bits = 2 // START and STOP
        for op in operations {
            counters.addressBytes += 1
            bits += 9 + 1
            if completed {
                if op.direction == .write { counters.bytesWritten += op.bytes.count } else { counters.bytesRead += op.bytes.count }
                bits += 9 * op.bytes.count
            }
        }
        chargeBits(bits)
    }

    private func chargeBits(_ bits: Int) {
        guard let rate = bitsPerSecond, rate > 0 else { return }
        clock.advance(by: UInt64((Double(bits) / rate * 1e9).rounded()))
    }
}

/// One recorded transfer on an ``EmulatedI2CBus``.
public struct I2CEvent: Sendable, Equatable, CustomStringConvertible {
    /// When the transfer started, virtual nanoseconds.
    public var timeNanoseconds: UInt64
    public var address: I2CAddress
    /// The operations, reads holding what was returned.
    public var operations: [I2COperation]
    /// The errno when the transfer failed.
    public var errno: Int32?

    /// "w 6b 80" for a write, "w 75 r 1" for a register read (bytes written, byte count read).
    public var description: String {
        var parts: [String] = []
        for op in operations {
            switch op.direction {
            case .write: parts.append("w " + op.bytes.map { hex($0) }.joined(separator: " "))
            case .read: parts.append("r \(op.bytes.count)")
            }
        }
        return parts.joined(separator: " ") + (errno.map { " !\($0)" } ?? "")
    }
}
