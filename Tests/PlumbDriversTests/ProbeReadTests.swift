import Testing
import PlumbHAL
@testable import PlumbDrivers
import PlumbSimulation

/// ``IMUFamilies/probeRead(_:_:)``, the one read both the probe's identity reads and the MPU-9150
/// look at 0x0C go through: which errno means "nothing answers", which is tried again, which is
/// a failure, and how many tries it leaves to the bus.
@Suite struct ProbeReadTests {
    static let empty: I2CAddress = I2CAddress(0x69)

    /// A bus with nothing at 0x69 that fails every transfer there with `errno`.
    static func bus(failingWith errno: Int32) -> EmulatedI2CBus {
        let bus = EmulatedI2CBus(path: "/dev/i2c-1", clock: VirtualClock())
        bus.attach(MPU6050Emulator(variant: MPU6050.variant(named: "mpu6050")!), at: empty)
        bus.faults = [FaultRule(.address(empty), effect: .errno(errno))]
        return bus
    }

    /// (errno, nothing answers, reads made on a bus that does not retry).
    static let table: [(Int32, Bool, Int)] = [
        (Errno.ENXIO, true, 1), (Errno.ENODEV, true, 1), (Errno.EREMOTEIO, true, 3),
        (Errno.EIO, false, 3), (Errno.EPROTO, false, 3),
        (Errno.ETIMEDOUT, false, 1), (Errno.EAGAIN, false, 1), (Errno.EBUSY, false, 1), (Errno.EOPNOTSUPP, false, 1),
    ]

    @Test(arguments: table)
    func eachErrnoIsClassifiedOnce(errno: Int32, nothingAnswers: Bool, reads: Int) {
        let bus = Self.bus(failingWith: errno)
        let outcome = IMUFamilies.probeRead(bus) { () throws(I2CError) -> UInt8 in try bus.readRegister(0x75, address: Self.empty) }
        #expect(outcome == (nothingAnswers ? .nothingAnswers : .failed(I2CError(errno: errno, bus: "/dev/i2c-1", address: Self.empty))))
        #expect(bus.counters.transactions == reads)
    }

    /// The identity read of `plumb probe` draws the same line: `nil` where the look says nothing
    /// answers, the bus error where the look cannot tell.
    @Test(arguments: table)
    func theIdentityReadAgrees(errno: Int32, nothingAnswers: Bool, reads: Int) throws {
        let bus = Self.bus(failingWith: errno)
        let result = Result { () throws(IMUError) -> UInt8? in try IMUFamilies.readIdentity(bus, register: 0x75, address: Self.empty) }
        if nothingAnswers {
            #expect(try result.get() == nil)
        } else {
            #expect(throws: IMUError.bus(I2CError(errno: errno, bus: "/dev/i2c-1", address: Self.empty))) { try result.get() }
        }
        #expect(bus.counters.transactions == reads)
    }

    /// A passing fault is read again, on a bus that does not retry: EREMOTEIO twice, then the chip.
    @Test(arguments: [Errno.EREMOTEIO, Errno.EIO, Errno.EPROTO])
    func aPassingFaultIsReadAgain(errno: Int32) {
        let bus = Self.bus(failingWith: errno)
        bus.faults[0].count = IMUFamilies.probeAttempts - 1
        let outcome = IMUFamilies.probeRead(bus) { () throws(I2CError) -> UInt8 in try bus.readRegister(0x75, address: Self.empty) }
        #expect(outcome == .answered(0x68))
    }

    /// A bus that tries each transfer itself (as `LinuxI2CBus` does, three times) is not asked
    /// again: its tries are the probe's.
    final class SelfRetryingBus: I2CBus {
        let inner: EmulatedI2CBus
        let attemptsPerTransfer: Int
        var path: String { inner.path }
        init(_ inner: EmulatedI2CBus, attempts: Int) { self.inner = inner; attemptsPerTransfer = attempts }
        func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
            var tries = 1
            while true {
                do { return try inner.transfer(&operations, address: address) } catch {
                    guard error.isTransient, tries < attemptsPerTransfer else { throw error }
                    tries += 1
                }
            }
        }
    }

    @Test(arguments: [(1, 3), (2, 4), (3, 3), (5, 5)])
    func theBusTriesAreCounted(busAttempts: Int, transfers: Int) {
        let emulated = Self.bus(failingWith: Errno.EREMOTEIO)
        let bus = SelfRetryingBus(emulated, attempts: busAttempts)
        let outcome = IMUFamilies.probeRead(bus) { () throws(I2CError) -> UInt8 in try bus.readRegister(0x75, address: Self.empty) }
        #expect(outcome == .nothingAnswers)
        #expect(emulated.counters.transactions == transfers)
    }
}
