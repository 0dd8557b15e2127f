/// A failed I2C transfer, with the kernel's errno, what it means on an I2C bus, and where.
///
/// Meanings follow the kernel's `Documentation/i2c/fault-codes.rst`: ENXIO is "no ACK for the
/// address" (nothing answers there), ENODEV is "no ACK for data" from some drivers (or an absent
/// address on i2c-stub), EAGAIN is lost arbitration, ETIMEDOUT a bus timeout, EIO and EREMOTEIO a
/// bus error (EREMOTEIO is the Raspberry Pi's "Errno 121", usually a NACK mid-transfer).
public struct I2CError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure the errno stands for.
    public enum Kind: String, Sendable, Equatable {
        /// Nothing acknowledged the address (ENXIO; ENODEV on i2c-stub).
        case noAcknowledge
        /// The bus failed mid-transfer (EIO, EREMOTEIO, EPROTO).
        case bus
        /// Another controller won arbitration (EAGAIN).
        case arbitrationLost
        /// The bus or the target held SCL too long (ETIMEDOUT).
        case timeout
        /// A kernel driver owns the address (EBUSY from I2C_SLAVE).
        case addressBusy
        /// The adapter cannot perform the requested kind of transfer (EOPNOTSUPP).
        case unsupported
        /// The device node cannot be opened (ENOENT, EACCES, EPERM).
        case cannotOpen
        /// Another plumb process claims the chip (PlumbLinux's `I2CDeviceClaim`, an OFD lock on the
        /// adapter's node): nothing was sent to it. Never from an errno (``kind(forErrno:)``).
        case claimedByAnotherProcess
        /// Anything else.
        case other
    }

    /// The errno value, or 0 when the error did not come from the kernel.
    public var errno: Int32
    public var kind: Kind
    /// The bus, such as "/dev/i2c-1".
    public var bus: String
    /// The target, when the error concerns one.
    public var address: I2CAddress?
    /// A human sentence with the specifics, e.g. "a kernel driver (mpu6050) owns 0x68 on /dev/i2c-1".
    public var detail: String?

    public init(errno: Int32, bus: String, address: I2CAddress?, kind: Kind? = nil, detail: String? = nil) {
        self.errno = errno
        self.kind = kind ?? Self.kind(forErrno: errno)
        self.bus = bus
        self.address = address
        self.detail = detail
    }

    /// True when the error may mean that nothing acknowledged the address: ENXIO or ENODEV
    /// (``Kind/noAcknowledge``), and EREMOTEIO, which is how the Raspberry Pi's adapters report
    /// an address nobody acknowledged. Linux's `i2c-bcm2835` (Pi Zero to Pi 4) ends a transfer whose
    /// status shows BCM2835_I2C_S_ERR (no acknowledge) with -EREMOTEIO, and `i2c-designware` (the
    /// Pi 5's RP1) returns -EREMOTEIO for an abort with DW_IC_TX_ABRT_NOACK; Python's
    /// "[Errno 121] Remote I/O error" on a Pi with nothing at the address is that. EREMOTEIO is
    /// also a NACK in the middle of a transfer, so on a chip that answered before it stays a
    /// bus error; where no chip has answered yet (probing an address) it means "nothing here",
    /// as `i2cdetect` counts any failed read.
    public var mayMeanNothingAnswers: Bool {
        kind == .noAcknowledge || errno == Errno.EREMOTEIO
    }

    /// True when another plumb process claims the chip (``Kind/claimedByAnotherProcess``): it
    /// answers, but this process may not touch it until that one lets go.
    public var isClaimedByAnotherProcess: Bool { kind == .claimedByAnotherProcess }

    /// True when retrying the same transfer may succeed (EIO, EREMOTEIO, ETIMEDOUT, EAGAIN).
    public var isTransient: Bool {
        [Errno.EIO, Errno.EREMOTEIO, Errno.ETIMEDOUT, Errno.EAGAIN, Errno.EPROTO].contains(errno)
    }

    public static func kind(forErrno errno: Int32) -> Kind {
        switch errno {
        case Errno.ENXIO, Errno.ENODEV: return .noAcknowledge
        case Errno.EIO, Errno.EREMOTEIO, Errno.EPROTO: return .bus
        case Errno.EAGAIN: return .arbitrationLost
        case Errno.ETIMEDOUT: return .timeout
        case Errno.EBUSY: return .addressBusy
        case Errno.EOPNOTSUPP: return .unsupported
        case Errno.ENOENT, Errno.EACCES, Errno.EPERM: return .cannotOpen
        default: return .other
        }
    }

    /// The meaning of the errno on an I2C bus.
    public var meaning: String {
        switch errno {
        case Errno.ENXIO: return "no acknowledge for the address"
        case Errno.ENODEV: return "no acknowledge (no device at the address)"
        case Errno.EIO: return "bus error"
        case Errno.EREMOTEIO:
            // A Raspberry Pi's adapter says so for an empty address too (``mayMeanNothingAnswers``):
            // the wiring is the first thing to check when it is the first read of a chip.
            return "remote I/O error (no acknowledge: nothing at the address, or a NACK or bus fault during the transfer)"
        case Errno.EPROTO: return "protocol error"
        case Errno.EAGAIN: return "arbitration lost"
        case Errno.ETIMEDOUT: return "bus timeout"
        case Errno.EBUSY: return "address in use by a kernel driver"
        case Errno.EOPNOTSUPP: return "transfer not supported by the adapter"
        case Errno.ENOENT: return "no such device node"
        case Errno.EACCES, Errno.EPERM: return "permission denied"
        case 0: return kind.rawValue
        default: return "errno \(errno)"
        }
    }

    public var description: String {
        if let detail { return detail }
        switch kind {
        case .noAcknowledge:
            if let address { return "nothing answers at \(address) on \(bus)" }
            return "nothing answers on \(bus)"
        default:
            let at = address.map { " at \($0)" } ?? ""
            let code = errno != 0 ? " (errno \(errno))" : ""
            return "\(meaning)\(at) on \(bus)\(code)"
        }
    }
}

/// Linux errno values used by the HAL (asm-generic/errno-base.h and errno.h; the same on
/// x86_64 and aarch64). PlumbHAL imports no libc, so they are spelled out here.
public enum Errno {
    public static let EPERM: Int32 = 1
    public static let ENOENT: Int32 = 2
    public static let EINTR: Int32 = 4
    public static let EIO: Int32 = 5
    public static let ENXIO: Int32 = 6
    public static let EAGAIN: Int32 = 11
    public static let EACCES: Int32 = 13
    public static let EBUSY: Int32 = 16
    public static let ENODEV: Int32 = 19
    public static let EINVAL: Int32 = 22
    public static let EPROTO: Int32 = 71
    public static let EOPNOTSUPP: Int32 = 95
    public static let ETIMEDOUT: Int32 = 110
    public static let EREMOTEIO: Int32 = 121
}
