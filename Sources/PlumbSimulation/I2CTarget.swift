import PlumbHAL

/// Something that changes state on its own as virtual time passes: a chip that samples, a pin
/// that pulses.
///
/// The simulator never runs a thread per chip. Instead whoever needs the world to be current
/// (the bus before a transfer, the interrupt line while it waits) calls ``advance(to:)``, and the
/// interrupt line asks ``nextEventNanoseconds(after:)`` to jump the ``VirtualClock`` straight to
/// the next thing that happens.
public protocol VirtualTimeDriven: AnyObject {
    /// Brings the state up to `nanoseconds` (never moves backwards).
    func advance(to nanoseconds: UInt64)
    /// The next instant after `nanoseconds` at which the state changes by itself (the next
    /// sample), or `nil` when nothing is scheduled.
    func nextEventNanoseconds(after nanoseconds: UInt64) -> UInt64?
}

/// An emulated chip on an ``EmulatedI2CBus``: it handles one combined transfer at a time.
///
/// ## How a chip emulator plugs in
///
/// 1. Describe the chip's registers once as a `RegisterMap` in PlumbDrivers (the driver takes
///    its fields from the same table), and keep a ``RegisterFile`` built from it: it gives the
///    power-on reset values, ignores writes to read-only registers and clears read-to-clear ones.
/// 2. Conform to ``RegisterTarget``: implement `readRegister(_:)` / `writeRegister(_:_:)` with
///    the chip's side effects (a reset bit that reloads the file, a FIFO data register that pops,
///    a status register that clears) and `autoIncrements(after:)`. The default ``handle(_:)``
///    then does the pointer protocol of almost every sensor: the first written byte sets the
///    register pointer, further written bytes and every read byte move it on.
/// 3. Conform to ``VirtualTimeDriven``: in `advance(to:)` produce every sample due up to that
///    time from a ``MotionProfile`` through a ``SensorErrorModel``, quantised by the full-scale
///    range in the register file, push them into the FIFO, and raise the data-ready pin on a
///    ``SimulatedInterruptLine`` at the configured rate.
/// 4. Attach it: `bus.attach(chip, at: I2CAddress(0x68))`, `line.source = chip`. The driver under
///    test sees only `I2CBus` and `InterruptLine`, exactly as on a board.
///
/// Faults (errno, NACK, a stuck bus) are the bus's business (``FaultRule``); a chip-level fault
/// such as a reset mid-stream is a method on the emulator.
public protocol I2CTarget: VirtualTimeDriven {
    /// Runs `operations` (writes and reads, in order, one START … STOP) against this chip,
    /// filling each read operation's bytes.
    ///
    /// - Throws: an ``I2CError`` when the chip NACKs (``EmulatedI2CBus`` fills in bus and address).
    func handle(_ operations: inout [I2COperation]) throws(I2CError)
}

/// A chip that can join its auxiliary I2C bus to the host's bus (the MPU family's
/// INT_PIN_CFG.I2C_BYPASS_EN, an analog switch): while it does, the chips on that bus answer
/// the host at their own addresses.
///
/// ``EmulatedI2CBus`` routes a transfer to an address that no attached target holds to the
/// bridged targets of its attached chips. A target attached at the same address wins (on a real
/// bus both would acknowledge and their data would collide; the tests that need both keep them
/// apart in time by turning the bypass off).
public protocol I2CBypassBridge: AnyObject {
    /// The targets on the auxiliary bus the host reaches now, by 7-bit address: empty while the
    /// bypass is off.
    var bypassTargets: [UInt8: any I2CTarget] { get }
}

extension VirtualTimeDriven {
    public func nextEventNanoseconds(after nanoseconds: UInt64) -> UInt64? { nil }
}

/// A chip with an 8-bit register pointer: the common I2C register protocol.
///
/// Write `[reg, d0, d1, …]` stores d0 at reg, d1 at the next register, and so on; a read after a
/// write (repeated START) returns bytes from the pointer on. The pointer survives between
/// transfers, as on the real parts.
public protocol RegisterTarget: I2CTarget {
    /// The register pointer, kept between transfers.
    var registerPointer: UInt8 { get set }
    /// A host read of one byte at `address`, with its side effects (pop a FIFO, clear status).
    func readRegister(_ address: UInt8) -> UInt8
    /// A host write of one byte at `address`, with its side effects.
    func writeRegister(_ address: UInt8, _ value: UInt8)
    /// Where the pointer goes after an access at `address` (`address + 1`, or `address` for a FIFO
    /// data register that does not increment).
    func pointer(after address: UInt8) -> UInt8
}

/// When each byte of a transfer crosses the wire: the transfer's start and the bus clock.
///
/// A byte the chip sends is taken from its register when the master starts clocking it out, a
/// byte the host writes takes effect once its ninth clock (the acknowledge) has passed; between
/// them the chip runs on. A 1 KB FIFO burst lasts 23 ms at 400 kHz, and a chip sampling at 1666 Hz
/// writes some 80 words into its FIFO meanwhile, so the level a pin follows is never the one
/// the burst started from, nor zero at its end.
public struct I2CByteTiming: Sendable, Equatable {
    /// When the START condition began, virtual nanoseconds.
    public var startNanoseconds: UInt64
    /// The SCL clock, bits per second.
    public var bitsPerSecond: Double

    public init(startNanoseconds: UInt64, bitsPerSecond: Double) {
        self.startNanoseconds = startNanoseconds; self.bitsPerSecond = bitsPerSecond
    }

    /// The time `bits` bit-times after the START, nanoseconds.
    public func time(afterBits bits: Int) -> UInt64 {
        startNanoseconds &+ UInt64((Double(bits) / bitsPerSecond * 1e9).rounded())
    }
}

extension RegisterTarget {
    public func pointer(after address: UInt8) -> UInt8 { address &+ 1 }

    public func handle(_ operations: inout [I2COperation]) throws(I2CError) {
        try handle(&operations, timing: nil)
    }

    /// Runs `operations` with each byte at its time on the wire (``I2CByteTiming``; what
    /// ``EmulatedI2CBus/timesEachByte`` asks for): the chip is
    /// brought up to that time first, so samples it takes during a long burst enter its FIFO
    /// (and move its pins) between the bytes read, as on the part. `nil` runs every byte at the
    /// chip's present time. The bit count follows ``EmulatedI2CBus``: a START, then per operation
    /// 10 bits of (repeated) START and address and 9 per byte; the STOP ends it.
    public func handle(_ operations: inout [I2COperation], timing: I2CByteTiming?) throws(I2CError) {
        var bits = 1
        for i in operations.indices {
            bits += 10
            switch operations[i].direction {
            case .write:
                let bytes = operations[i].bytes
                guard let first = bytes.first else { continue }
                registerPointer = first
                bits += 9
                for value in bytes.dropFirst() {
                    bits += 9
                    if let timing { advance(to: timing.time(afterBits: bits)) }
                    let address = registerPointer
                    writeRegister(address, value)
                    registerPointer = pointer(after: address)
                }
            case .read:
                for j in operations[i].bytes.indices {
                    if let timing { advance(to: timing.time(afterBits: bits)) }
                    bits += 9
                    let address = registerPointer
                    operations[i].bytes[j] = readRegister(address)
                    registerPointer = pointer(after: address)
                }
            }
        }
    }
}
