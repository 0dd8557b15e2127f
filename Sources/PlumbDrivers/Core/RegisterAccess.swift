import PlumbHAL

/// Register reads and writes to one chip, with the drivers' single retry policy.
///
/// Both IMU drivers reach their chip's registers through this type, so a bus fault is handled the
/// same way everywhere: a transient error is retried a bounded number of times, a permanent one is
/// reported at once, and the error that is finally thrown is the bus's own (errno, meaning, bus
/// path and address), wrapped in ``IMUError/bus(_:)``.
///
/// FIFO data reads do not go through here: the chip may have popped the words of a failed read, so
/// a driver reports that loss as a gap instead of reading again.
public struct RegisterAccess {
    /// When a failed transfer is tried again.
    ///
    /// Retried, as faults that pass (Linux `Documentation/i2c/fault-codes.rst`):
    /// - EIO, EREMOTEIO, EPROTO: a bus error mid-transfer (the Raspberry Pi's "Errno 121" is a
    ///   data NACK or a glitch on the wire);
    /// - ENXIO: the address was not acknowledged; on a chip that answered before this is a part
    ///   busy for a moment (the MPU-6050 during DEVICE_RESET) or a glitch. An absent chip still
    ///   fails after ``attempts``, within a few milliseconds;
    /// - ETIMEDOUT: SCL held low past the adapter's timeout (a target stretching the clock);
    /// - EAGAIN: arbitration lost to another controller.
    ///
    /// Never retried, as another attempt cannot succeed: ENODEV (the adapter or device is gone; on
    /// i2c-stub, nothing at the address), ENOENT, EACCES, EPERM (the device node cannot be used),
    /// EBUSY (a kernel driver owns the address), EOPNOTSUPP (the adapter cannot do this kind of
    /// transfer), EINVAL (a malformed request), and any error without an errno.
    public struct RetryPolicy: Sendable, Equatable {
        /// Tries in all, at least 1, counting the bus's own (``I2CBus/attemptsPerTransfer``) for an
        /// error it retries. Default 3.
        public var attempts: Int
        /// Nanoseconds between attempts. Default 1 ms.
        public var delayNanoseconds: UInt64

        /// - Precondition: `attempts >= 1`.
        public init(attempts: Int = 3, delayNanoseconds: UInt64 = Nanoseconds.perMillisecond) {
            precondition(attempts >= 1, "a retry policy needs at least one attempt")
            self.attempts = attempts
            self.delayNanoseconds = delayNanoseconds
        }

        /// Three attempts, 1 ms apart.
        public static let standard = RetryPolicy()
        /// One attempt.
        public static let none = RetryPolicy(attempts: 1, delayNanoseconds: 0)

        /// The errno values retried (see the type's discussion).
        public static let retriedErrnos: [Int32] = [Errno.EIO, Errno.EREMOTEIO, Errno.EPROTO, Errno.ENXIO,
                                                     Errno.ETIMEDOUT, Errno.EAGAIN]

        /// True when another attempt of the same transfer may succeed.
        public static func shouldRetry(_ error: I2CError) -> Bool {
            retriedErrnos.contains(error.errno)
        }
    }

    /// The bus the chip is on.
    public let bus: any I2CBus
    public let address: I2CAddress
    /// The clock the pause between attempts is slept on.
    public let clock: any MonotonicClock
    public var retry: RetryPolicy

    public init(bus: any I2CBus, address: I2CAddress, clock: any MonotonicClock, retry: RetryPolicy = .standard) {
        self.bus = bus
        self.address = address
        self.clock = clock
        self.retry = retry
    }

    /// Runs `body`, trying again after ``RetryPolicy/delayNanoseconds`` while it fails with a
    /// retried error, until ``RetryPolicy/attempts`` tries in all have been made, counting the
    /// bus's own.
    ///
    /// A bus may already try a transfer several times (``I2CBus/attemptsPerTransfer``; three on
    /// `LinuxI2CBus`, 1 ms then 2 ms apart) for an error it takes as transient
    /// (``I2CError/isTransient``: EIO, EREMOTEIO, EPROTO, ETIMEDOUT, EAGAIN). A failed call of
    /// `body` with such an error counts as that many tries, so a register that keeps failing
    /// costs ⌈attempts / attemptsPerTransfer⌉ calls: on a Raspberry Pi one call and three
    /// transfers, where it cost nine (three calls of three tries, 11 ms of waits). An error the bus
    /// does not retry (ENXIO) counts as one try, so on a PC's adapter, which reports the address
    /// NACK of a chip busy for a moment as ENXIO, the chip still gets three calls 1 ms apart.
    /// Either way the last try comes at least (attempts − 1) × ``RetryPolicy/delayNanoseconds``
    /// after the first (2 ms by default; 3 ms on a Pi, where the bus's own waits are longer). A
    /// chip that NACKs for longer, during its reset, is waited for by the reset's own polling
    /// (``MPU6050/reset()``).
    ///
    /// - Throws: ``IMUError/bus(_:)`` with the last error.
    public func run<T>(_ body: () throws(I2CError) -> T) throws(IMUError) -> T {
        let triesPerCall = max(1, bus.attemptsPerTransfer)
        var tries = 0
        while true {
            do { return try body() } catch {
                tries += error.isTransient ? triesPerCall : 1
                if tries >= retry.attempts || !RetryPolicy.shouldRetry(error) { throw .bus(error) }
                clock.sleep(nanoseconds: retry.delayNanoseconds)
            }
        }
    }

    /// One register.
    public func readRegister(_ register: UInt8) throws(IMUError) -> UInt8 {
        try run { () throws(I2CError) in try bus.readRegister(register, address: address) }
    }

    /// `count` registers from `register`, in one transfer (the chip's auto-increment).
    public func readRegisters(_ register: UInt8, count: Int) throws(IMUError) -> [UInt8] {
        try run { () throws(I2CError) in try bus.readRegisters(register, count: count, address: address) }
    }

    /// One register.
    public func writeRegister(_ register: UInt8, _ value: UInt8) throws(IMUError) {
        try run { () throws(I2CError) in try bus.writeRegister(register, value, address: address) }
    }

    /// Raw bytes: a register address followed by the values for it and the registers after it.
    public func write(_ bytes: [UInt8]) throws(IMUError) {
        try run { () throws(I2CError) in try bus.write(bytes, to: address) }
    }
}
