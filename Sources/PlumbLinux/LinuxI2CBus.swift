import PlumbHAL
import Glibc
import CI2C

/// An I2C bus reached through the kernel's i2c-dev interface, `/dev/i2c-N`.
///
/// The adapter's functionality is read once with `I2C_FUNCS` and decides how a transfer runs:
///
/// | adapter reports | register read (`writeRead([reg], count:)`) | register write | ``maximumReadLength`` |
/// |---|---|---|---|
/// | `I2C_FUNC_I2C` | one `I2C_RDWR` (write, repeated START, read) | `I2C_RDWR` | 8192 |
/// | SMBus I2C-block (i2c-stub, many SMBus hosts) | `i2c_smbus_read_i2c_block_data`, ≤ 32 bytes; one byte: `read_byte_data` | `write_byte_data`, `write_i2c_block_data` | 32 |
/// | SMBus byte-data only | `i2c_smbus_read_byte_data` | `write_byte_data` | 1 |
///
/// `readRegisters` (PlumbHAL) splits longer reads into reads of ``maximumReadLength``.
/// Transient failures (EIO, EREMOTEIO, ETIMEDOUT, EAGAIN, EPROTO) are retried under ``RetryPolicy``.
/// ENXIO and ENODEV mean nothing answers, and are reported at once:
/// "nothing answers at 0x68 on /dev/i2c-1".
///
/// The address is selected with `I2C_SLAVE` whenever it changes; when a kernel driver has bound
/// the address the kernel refuses with EBUSY, and the error names that driver from sysfs.
/// ``Options/force`` uses `I2C_SLAVE_FORCE` instead.
///
/// Kernel: `Documentation/i2c/dev-interface.rst`; ioctls `I2C_FUNCS`, `I2C_SLAVE`, `I2C_RDWR`.
public final class LinuxI2CBus: I2CBus {
    /// How a transfer reaches the adapter.
    public enum Mode: String, Sendable, Equatable {
        /// `I2C_RDWR` combined transfers.
        case i2c
        /// SMBus I2C-block calls (≤ 32 bytes) and byte-data calls.
        case smbusBlock
        /// SMBus byte-data calls only: one register per transfer.
        case smbusByteData
    }

    /// Bounded retries for transient bus errors.
    public struct RetryPolicy: Sendable, Equatable {
        /// Tries per transfer, including the first (at least 1). Default 3.
        public var attempts: Int
        /// Wait before the first retry, in nanoseconds. Default 1 ms.
        public var initialBackoffNanoseconds: UInt64
        /// Factor applied to the wait before each further retry. Default 2.
        public var backoffMultiplier: UInt64

        public init(attempts: Int = 3, initialBackoffNanoseconds: UInt64 = 1_000_000, backoffMultiplier: UInt64 = 2) {
            precondition(attempts >= 1, "a retry policy needs at least one attempt")
            self.attempts = attempts
            self.initialBackoffNanoseconds = initialBackoffNanoseconds
            self.backoffMultiplier = backoffMultiplier
        }

        /// 3 tries, waiting 1 ms then 2 ms.
        public static let `default` = RetryPolicy()
        /// One try, no retry.
        public static let none = RetryPolicy(attempts: 1)

        /// The wait before retry number `retry` (1-based), in nanoseconds.
        public func backoff(beforeRetry retry: Int) -> UInt64 {
            var wait = initialBackoffNanoseconds
            for _ in 1..<max(1, retry) { wait &*= backoffMultiplier }
            return wait
        }
    }

    /// Settings for opening a bus.
    public struct Options: Sendable {
        /// Use `I2C_SLAVE_FORCE`, talking to an address even when a kernel driver owns it. Default false.
        public var force: Bool
        /// Retries for transient errors. Default ``RetryPolicy/default``.
        public var retry: RetryPolicy
        /// Where sysfs is mounted (for naming the driver that owns an address). Default "/sys".
        public var sysfsRoot: String

        public init(force: Bool = false, retry: RetryPolicy = .default, sysfsRoot: String = "/sys") {
            self.force = force
            self.retry = retry
            self.sysfsRoot = sysfsRoot
        }
    }

    /// Counters since the bus was opened.
    public struct Statistics: Sendable, Equatable {
        /// Transfers requested.
        public var transfers = 0
        /// Extra attempts made after transient errors.
        public var retries = 0
        /// Transfers that succeeded after at least one retry.
        public var recovered = 0
        /// Transfers that failed for good.
        public var failures = 0
    }

    /// "/dev/i2c-1".
    public let path: String
    /// N of /dev/i2c-N, when the path has that form.
    public let adapterNumber: Int?
    /// What `I2C_FUNCS` reported when the bus was opened.
    public let functionality: I2CFunctionality
    /// How transfers run, chosen from ``functionality``.
    public let mode: Mode
    public let options: Options
    /// Counters of transfers, retries and failures.
    public private(set) var statistics = Statistics()

    /// ``RetryPolicy/attempts`` of ``Options/retry``: each transfer that fails with a transient
    /// error (EIO, EREMOTEIO, ETIMEDOUT, EAGAIN, EPROTO) is tried that many times in all.
    public var attemptsPerTransfer: Int { options.retry.attempts }

    public var maximumReadLength: Int? {
        switch mode {
        case .i2c: return Self.maximumMessageLength
        case .smbusBlock: return Self.smbusBlockMaximum
        case .smbusByteData: return 1
        }
    }

    /// The kernel's limit for one `I2C_RDWR` message (`drivers/i2c/i2c-dev.c`: 8192 bytes).
    public static let maximumMessageLength = 8192
    /// `I2C_SMBUS_BLOCK_MAX`.
    public static let smbusBlockMaximum = Int(I2C_SMBUS_BLOCK_MAX)
    /// `I2C_RDWR_IOCTL_MAX_MSGS`.
    public static let maximumMessages = Int(I2C_RDWR_IOCTL_MAX_MSGS)

    private let fd: Int32
    private let clock: any MonotonicClock
    private var selectedAddress: UInt8?
    private let messages: UnsafeMutablePointer<i2c_msg>
    private var scratch: UnsafeMutableBufferPointer<UInt8>
    private var claims: [I2CDeviceClaim] = []

    /// Opens `/dev/i2c-<number>`.
    public convenience init(bus number: Int, options: Options = Options(), clock: any MonotonicClock = SystemClock()) throws(I2CError) {
        try self.init(path: "/dev/i2c-\(number)", options: options, clock: clock)
    }

    /// Opens the i2c-dev node at `path` and reads its functionality.
    ///
    /// - Parameter clock: paces retry backoff.
    /// - Throws: ``I2CError`` when the node cannot be opened, is not an i2c-dev node, or the
    ///   adapter supports neither I2C transfers nor SMBus register access.
    public init(path: String, options: Options = Options(), clock: any MonotonicClock = SystemClock()) throws(I2CError) {
        self.path = path
        self.options = options
        self.clock = clock
        adapterNumber = Self.adapterNumber(of: path)
        let fd = Sys.open(path, O_RDWR)
        guard fd >= 0 else {
            let e = -fd
            throw I2CError(errno: e, bus: path, address: nil, kind: .cannotOpen, detail: Self.openFailure(path: path, errno: e))
        }
        var funcs: UInt = 0
        let r = Sys.i2cFunctionality(fd, &funcs)
        guard r >= 0 else {
            Sys.close(fd)
            throw I2CError(errno: -r, bus: path, address: nil, kind: .cannotOpen,
                           detail: "\(path) is not an i2c-dev node: I2C_FUNCS failed (\(Sys.describe(errno: -r)))")
        }
        let functionality = I2CFunctionality(rawValue: UInt32(truncatingIfNeeded: funcs))
        if functionality.contains(.i2c) {
            mode = .i2c
        } else if functionality.contains(.smbusReadI2CBlock) {
            mode = .smbusBlock
        } else if functionality.contains(.smbusReadByteData) {
            mode = .smbusByteData
        } else {
            Sys.close(fd)
            throw I2CError(errno: Errno.EOPNOTSUPP, bus: path, address: nil, kind: .unsupported,
                           detail: "\(path) supports neither I2C transfers nor SMBus register reads (functionality \(functionality.hexString)); use another bus")
        }
        self.functionality = functionality
        self.fd = fd
        messages = .allocate(capacity: Self.maximumMessages)
        scratch = .allocate(capacity: 64)
    }

    /// Claims the chip at `address` for as long as this bus is open (``I2CDeviceClaim``): another
    /// process that claims it meanwhile is refused, and so is this one if another holds it.
    ///
    /// - Throws: ``I2CDeviceInUse`` when another process holds it.
    public func claim(_ address: I2CAddress) throws(I2CDeviceInUse) {
        claims.append(try I2CDeviceClaim.acquire(path: path, address: address))
    }

    deinit {
        Sys.close(fd)
        messages.deallocate()
        scratch.deallocate()
    }

    // MARK: - Transfers

    public func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
        statistics.transfers += 1
        var attempt = 1
        while true {
            let r = perform(&operations, address: address)
            if r >= 0 {
                if attempt > 1 { statistics.recovered += 1 }
                return
            }
            let error = -r
            let failure = I2CError(errno: error, bus: path, address: address)
            if failure.isTransient && attempt < options.retry.attempts {
                statistics.retries += 1
                clock.sleep(nanoseconds: options.retry.backoff(beforeRetry: attempt))
                attempt += 1
                continue
            }
            statistics.failures += 1
            throw describe(errno: error, address: address, operations: operations, attempts: attempt)
        }
    }

    /// Runs one attempt. Returns 0 or a negative errno; errors that are not errnos (an
    /// unsupported shape) are returned as -EOPNOTSUPP and described by `describe`.
    private func perform(_ operations: inout [I2COperation], address: I2CAddress) -> Int32 {
        let selected = select(address)
        if selected < 0 { return selected }
        switch mode {
        case .i2c: return performReadWrite(&operations, address: address)
        case .smbusBlock, .smbusByteData: return performSMBus(&operations)
        }
    }

    /// Selects `address` with I2C_SLAVE (or I2C_SLAVE_FORCE) when it changed.
    private func select(_ address: I2CAddress) -> Int32 {
        if selectedAddress == address.rawValue { return 0 }
        let r = Sys.i2cSetAddress(fd, address.rawValue, force: options.force)
        if r < 0 { selectedAddress = nil; return r }
        selectedAddress = address.rawValue
        return 0
    }

    private func performReadWrite(_ operations: inout [I2COperation], address: I2CAddress) -> Int32 {
        guard !operations.isEmpty else { return 0 }
        guard operations.count <= Self.maximumMessages,
              operations.allSatisfy({ $0.bytes.count <= Self.maximumMessageLength }) else { return -Errno.EINVAL }
        let total = operations.reduce(0) { $0 + $1.bytes.count }
        ensureScratch(total)
        var offset = 0
        for (i, op) in operations.enumerated() {
            let buf = scratch.baseAddress! + offset
            if op.direction == .write {
                op.bytes.withUnsafeBufferPointer { src in
                    if let base = src.baseAddress { buf.update(from: base, count: src.count) }
                }
            }
            messages[i] = i2c_msg(addr: UInt16(address.rawValue), flags: op.direction == .read ? UInt16(I2C_M_RD) : 0,
                                  len: UInt16(op.bytes.count), buf: buf)
            offset += op.bytes.count
        }
        let r = Sys.i2cReadWrite(fd, messages, operations.count)
        if r < 0 { return r }
        // Fewer messages than given: the reads after the last one done hold no data from the
        // chip (the kernel returns the count of messages transferred). A bus error, retried.
        if Int(r) < operations.count { return -Errno.EIO }
        offset = 0
        for i in operations.indices {
            let n = operations[i].bytes.count
            if operations[i].direction == .read {
                let src = scratch.baseAddress! + offset
                operations[i].bytes.withUnsafeMutableBufferPointer { dst in
                    if let base = dst.baseAddress { base.update(from: src, count: n) }
                }
            }
            offset += n
        }
        return 0
    }

    /// Maps a transfer onto SMBus calls: [write reg, read n] → register read; [write reg, data…] →
    /// register write; [write reg] → set the register pointer; [read 1] → receive byte.
    private func performSMBus(_ operations: inout [I2COperation]) -> Int32 {
        switch (operations.count, operations.first?.direction, operations.last?.direction) {
        case (0, _, _):
            return 0
        case (2, .write, .read) where operations[0].bytes.count == 1:
            let register = operations[0].bytes[0]
            let count = operations[1].bytes.count
            if count == 0 { return 0 }
            if count == 1, functionality.contains(.smbusReadByteData) {
                let r = Sys.smbusReadByteData(fd, register)
                if r < 0 { return r }
                operations[1].bytes[0] = UInt8(truncatingIfNeeded: r)
                return 0
            }
            guard mode == .smbusBlock, count <= Self.smbusBlockMaximum else { return -Errno.EOPNOTSUPP }
            ensureScratch(count)
            let r = Sys.smbusReadI2CBlock(fd, register, UnsafeMutableBufferPointer(rebasing: scratch[0..<count]))
            if r < 0 { return r }
            if Int(r) != count { return -Errno.EIO }
            for i in 0..<count { operations[1].bytes[i] = scratch[i] }
            return 0
        case (1, .write, _):
            let bytes = operations[0].bytes
            switch bytes.count {
            case 1:
                guard functionality.contains(.smbusWriteByte) else { return -Errno.EOPNOTSUPP }
                return Sys.smbusWriteByte(fd, bytes[0])
            case 2 where functionality.contains(.smbusWriteByteData):
                return Sys.smbusWriteByteData(fd, bytes[0], bytes[1])
            default:
                guard functionality.contains(.smbusWriteI2CBlock), bytes.count - 1 <= Self.smbusBlockMaximum else {
                    return -Errno.EOPNOTSUPP
                }
                return bytes.withUnsafeBufferPointer { all in
                    Sys.smbusWriteI2CBlock(fd, all[0], UnsafeBufferPointer(rebasing: all[1...]))
                }
            }
        case (1, .read, _) where operations[0].bytes.count == 1:
            guard functionality.contains(.smbusReadByte) else { return -Errno.EOPNOTSUPP }
            let r = Sys.smbusReadByte(fd)
            if r < 0 { return r }
            operations[0].bytes[0] = UInt8(truncatingIfNeeded: r)
            return 0
        default:
            return -Errno.EOPNOTSUPP
        }
    }

    private func ensureScratch(_ count: Int) {
        guard scratch.count < count else { return }
        scratch.deallocate()
        scratch = .allocate(capacity: max(count, scratch.count * 2))
    }

    // MARK: - Errors

    private func describe(errno: Int32, address: I2CAddress, operations: [I2COperation], attempts: Int) -> I2CError {
        switch errno {
        case Errno.EBUSY:
            return I2CError(errno: errno, bus: path, address: address, kind: .addressBusy, detail: busyMessage(address))
        case Errno.EOPNOTSUPP where mode != .i2c:
            return I2CError(errno: errno, bus: path, address: address, kind: .unsupported,
                            detail: "\(path) only speaks SMBus (\(mode == .smbusBlock ? "I2C-block and byte-data" : "byte-data")); "
                                + "a transfer of \(Self.shape(operations)) at \(address) has no SMBus equivalent"
                                + (mode == .smbusByteData ? "; read one register at a time (readRegisters does)" : "; read at most 32 bytes per transfer (readRegisters does)"))
        case Errno.EOPNOTSUPP:
            return I2CError(errno: errno, bus: path, address: address, kind: .unsupported,
                            detail: "\(path) refused a transfer of \(Self.shape(operations)) at \(address) (EOPNOTSUPP)")
        case Errno.EINVAL where mode == .i2c:
            return I2CError(errno: errno, bus: path, address: address, kind: .other,
                            detail: "\(path) rejected a transfer of \(Self.shape(operations)) at \(address): at most \(Self.maximumMessages) parts of at most \(Self.maximumMessageLength) bytes")
        default:
            var error = I2CError(errno: errno, bus: path, address: address)
            if error.isTransient && attempts > 1 {
                error.detail = "\(error.meaning) at \(address) on \(path) (errno \(errno)), after \(attempts) tries"
            }
            return error
        }
    }

    /// "a kernel driver (mpu6050) owns 0x68 on /dev/i2c-1: …", naming the driver from
    /// /sys/bus/i2c/devices/N-00XX/driver.
    private func busyMessage(_ address: I2CAddress) -> String {
        guard let number = adapterNumber else {
            return "a kernel driver owns \(address) on \(path); unbind it, or open the bus with force: true (I2C_SLAVE_FORCE)"
        }
        let device = "\(number)-00\(hex(address.rawValue))"
        var error: Int32 = 0
        let link = Sys.readLink("\(options.sysfsRoot)/bus/i2c/devices/\(device)/driver", error: &error)
        guard let driver = link?.split(separator: "/").last.map(String.init) else {
            return "a kernel driver owns \(address) on \(path) (device \(device)); unbind it, or open the bus with force: true (I2C_SLAVE_FORCE)"
        }
        return "a kernel driver (\(driver)) owns \(address) on \(path): unbind it with "
            + "`echo \(device) > /sys/bus/i2c/drivers/\(driver)/unbind`, or open the bus with force: true (I2C_SLAVE_FORCE)"
    }

    private static func openFailure(path: String, errno: Int32) -> String {
        switch errno {
        case Errno.ENOENT where !path.hasPrefix("/dev/i2c-"):
            return "no such device \(path): an I2C bus is /dev/i2c-N ('plumb probe' or `i2cdetect -l` lists them)"
        case Errno.ENOENT:
            return "no \(path): enable I2C (dtparam=i2c_arm=on in config.txt) and load i2c-dev (`modprobe i2c-dev`)"
        case Errno.EACCES, Errno.EPERM:
            return "permission denied on \(path): add the user to group i2c (`sudo usermod -aG i2c $USER`, then log in again) or run as root"
        default:
            return "cannot open \(path): \(Sys.describe(errno: errno)) (errno \(errno))"
        }
    }

    /// "write 1 byte + read 14 bytes".
    static func shape(_ operations: [I2COperation]) -> String {
        operations.map { op in
            let n = op.bytes.count
            return "\(op.direction == .write ? "write" : "read") \(n) byte\(n == 1 ? "" : "s")"
        }.joined(separator: " + ")
    }

    /// N of "/dev/i2c-N".
    static func adapterNumber(of path: String) -> Int? {
        guard let name = path.split(separator: "/").last, name.hasPrefix("i2c-") else { return nil }
        return Int(name.dropFirst(4))
    }
}
