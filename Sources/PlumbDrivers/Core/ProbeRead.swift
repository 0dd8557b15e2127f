import PlumbHAL

/// The outcome of one read at an address where no chip has answered yet: ``IMUFamilies``' identity
/// reads (`plumb probe`, `--address` with `--part`) and the MPU-9150 look at 0x0C
/// (``MPU6050/detectCompanion(_:registers:)``) both read through ``IMUFamilies/probeRead(_:_:)``.
public enum ProbeRead: Sendable, Equatable {
    /// Something acknowledged and sent this byte.
    case answered(UInt8)
    /// Nothing acknowledges at the address.
    case nothingAnswers
    /// The read failed in a way that says neither: the bus's error.
    case failed(I2CError)
}

extension IMUFamilies {
    /// Tries of a probe read that fails with EREMOTEIO, EIO or EPROTO, counting the bus's own
    /// (``I2CBus/attemptsPerTransfer``), before the failure stands: on a Raspberry Pi EREMOTEIO
    /// is both an empty address and a passing fault, and one passing fault must not be taken for
    /// an empty address.
    public static let probeAttempts = 3

    /// Reads with `body` at an address no chip has answered at yet, and says whether anything
    /// answers there.
    ///
    /// | errno (Linux `Documentation/i2c/fault-codes.rst`) | tried again | outcome |
    /// |---|---|---|
    /// | ENXIO: no ACK for the address; ENODEV (i2c-stub) | no | ``ProbeRead/nothingAnswers`` |
    /// | EREMOTEIO: the Raspberry Pi's address NACK (`i2c-bcm2835`, `i2c-designware`), or a NACK or glitch mid-transfer (``I2CError/mayMeanNothingAnswers``) | yes | ``ProbeRead/nothingAnswers`` when every try says so |
    /// | EIO: "something went wrong" (on `i2c-bcm2835`, a clock-stretch timeout: something held SCL) | yes | ``ProbeRead/failed(_:)`` |
    /// | EPROTO: the target "does not conform to the relevant I2C or SMBus (or chip-specific) protocol": something answered | yes | ``ProbeRead/failed(_:)`` |
    /// | anything else (ETIMEDOUT: the adapter already waited its timeout; EAGAIN, EBUSY, EOPNOTSUPP, …) | no | ``ProbeRead/failed(_:)`` |
    ///
    /// Only a failure that may mean "nothing here" can become ``ProbeRead/nothingAnswers``; a
    /// device that answered off protocol (EPROTO) or held the bus (EIO) is there, and the caller
    /// says it could not tell instead of calling the address empty.
    ///
    /// Where the retries live: a bus retries a transfer on transient errors (`LinuxI2CBus`: three
    /// tries, 1 ms then 2 ms apart). This read repeats `body` only as far as the bus has not
    /// already: ``probeAttempts`` tries in all, so ⌈3 / ``I2CBus/attemptsPerTransfer``⌉ calls of
    /// `body` (one on `LinuxI2CBus`, three on a bus that does not retry, such as the emulator).
    /// Repeating a transfer the bus has given up on three times would only multiply its tries
    /// and waits: on a Pi, nine tries and 9 ms per empty address instead of three and 3 ms.
    /// ``RegisterAccess`` counts the bus's tries the same way, and retries on top of it only the
    /// address NACK the bus does not retry (ENXIO: a chip that answered before and is busy for a
    /// moment).
    /// - Parameters:
    ///   - bus: the bus `body` reads on (for ``I2CBus/attemptsPerTransfer``).
    ///   - body: one read at the address.
    public static func probeRead(_ bus: any I2CBus, _ body: () throws(I2CError) -> UInt8) -> ProbeRead {
        let perCall = max(1, bus.attemptsPerTransfer)
        let calls = max(1, (probeAttempts + perCall - 1) / perCall)
        var call = 1
        while true {
            do {
                return .answered(try body())
            } catch {
                if error.kind == .noAcknowledge { return .nothingAnswers }
                // ENXIO/ENODEV returned above; what is left of "may mean nothing answers" is EREMOTEIO.
                let ambiguous = error.mayMeanNothingAnswers
                guard ambiguous || error.errno == Errno.EIO || error.errno == Errno.EPROTO else { return .failed(error) }
                if call >= calls { return ambiguous ? .nothingAnswers : .failed(error) }
                call += 1
            }
        }
    }
}
