import Testing
import PlumbHAL
@testable import PlumbLinux
import PlumbDrivers
import PlumbSimulation

/// The whole I2C stack of a Raspberry Pi, minus the wire: the real `LinuxI2CBus` (its
/// `RetryPolicy.default`: 3 tries, 1 ms then 2 ms apart) over a mocked i2c-dev whose `I2C_RDWR`
/// calls reach the chip emulator, which answers an empty address with EREMOTEIO as `i2c-bcm2835`
/// does. Waits are slept on the emulator's virtual clock, and the bus charges no time for its
/// transfers, so the virtual time an identify takes is the time it waits.
final class EmulatedPiStack: @unchecked Sendable {
    let sensor: SimulatedSensor
    let kernel: MockingDriver
    var bus: EmulatedI2CBus { sensor.bus }
    var clock: VirtualClock { sensor.clock }

    init(_ key: String) {
        let sensor = SimulatedSensor(model: SimulatedChips.model(key)!)
        sensor.bus.bitsPerSecond = nil
        self.sensor = sensor
        let bus = sensor.bus
        nonisolated(unsafe) let emulated = bus
        kernel = MockingDriver { call in
            switch call {
            case .open: return .value(3)
            case .close: return .value(0)
            case .i2cFunctionality: return .value(0x0eff_0001) // I2C_FUNC_I2C and the SMBus calls, as i2c-bcm2835
            case .i2cSetAddress: return .value(0)
            case .i2cReadWrite(_, let messages):
                guard let address = messages.first?.address else { return .value(0) }
                var operations = messages.map { $0.isRead ? I2COperation.read(count: $0.length) : .write($0.bytes) }
                do throws(I2CError) {
                    try emulated.transfer(&operations, address: I2CAddress(address))
                } catch {
                    return .fail(errno: error.errno)
                }
                return .reads(operations.filter { $0.direction == .read }.map(\.bytes))
            default: return .fail(errno: Errno.EINVAL)
            }
        }
    }

    /// Runs `body` with a `LinuxI2CBus` at "/dev/i2c-1" on this stack.
    func run<R>(_ body: (LinuxI2CBus) throws -> R) throws -> R {
        try kernel.withMocking { () throws -> R in
            try body(try LinuxI2CBus(path: "/dev/i2c-1", clock: clock))
        }
    }

    /// Transfers the emulated bus saw at `address` (each try of the `LinuxI2CBus` is one).
    func transfers(at address: UInt8) -> Int {
        (bus.trace ?? []).filter { $0.address == I2CAddress(address) }.count
    }
}

/// What looking for a chip costs on a Pi, where an empty address fails with EREMOTEIO and
/// `LinuxI2CBus` tries each such transfer three times itself: a driver that read it three times
/// more on top made nine tries of one address (``IMUFamilies/probeRead(_:_:)`` counts the bus's
/// tries, ``I2CBus/attemptsPerTransfer``). Counts, not wall time.
@Suite struct PiStackProbeCostTests {
    /// One MPU-6050 identify: the MPU-9150 look reads 0x0C once with the bypass off and once
    /// through it; each read is three tries by the bus (1 ms, then 2 ms apart). Before: three
    /// reads each way, 18 transfers at 0x0C and 18 ms of waiting.
    @Test func anMPU6050IdentifyMakesSixTransfersAt0x0CAndWaitsSixMilliseconds() throws {
        let stack = EmulatedPiStack("mpu6050")
        let (id, waited) = try stack.run { linux in
            let driver = try MPU6050(bus: linux, address: I2CAddress(0x68), clock: stack.clock)
            stack.bus.trace = []
            let start = stack.clock.nowNanoseconds
            let id = try driver.identify()
            return (id, stack.clock.nowNanoseconds - start)
        }
        #expect(id.partKey == "mpu6050")
        #expect(id.warnings == [])
        #expect(stack.transfers(at: 0x0C) == 6)
        #expect(waited == 6 * Nanoseconds.perMillisecond)
    }

    /// `plumb probe` (identity registers only) with an MPU-6050 at 0x68: 0x69, 0x6A and 0x6B are
    /// empty, three tries by the bus each. Before: 27 transfers and 27 ms.
    @Test func aProbeMakesThreeTransfersPerEmptyAddress() throws {
        let stack = EmulatedPiStack("mpu6050")
        let (found, waited) = try stack.run { linux in
            stack.bus.trace = []
            let start = stack.clock.nowNanoseconds
            let found = try IMUFamilies.probe(linux)
            return (found, stack.clock.nowNanoseconds - start)
        }
        #expect(found.map(\.partKey) == ["mpu6050"])
        #expect([0x69, 0x6A, 0x6B].map { stack.transfers(at: $0) } == [3, 3, 3])
        #expect(waited == 9 * Nanoseconds.perMillisecond)
    }

    /// A passing EREMOTEIO at the AK8975 is still retried (by the bus now): an MPU-9150 whose
    /// WIA read fails twice is named at once.
    @Test func aPassingFaultAtTheDieIsCoveredByTheBusRetries() throws {
        let stack = EmulatedPiStack("mpu9150")
        stack.bus.faults = [FaultRule(.readOf(0x00), effect: .errno(Errno.EREMOTEIO), count: 2)]
        let id = try stack.run { linux in
            try MPU6050(bus: linux, address: I2CAddress(0x68), clock: stack.clock).identify()
        }
        #expect(stack.bus.faults.map(\.count) == [0])
        #expect(id.partKey == "mpu9150")
        #expect(id.warnings == [])
    }
}

/// A register read that keeps failing, on a Pi: `RegisterAccess` tried it three times on top of
/// `LinuxI2CBus`'s three tries, nine transfers and 11 ms of waits; it now counts the bus's tries
/// (``I2CBus/attemptsPerTransfer``) as ``IMUFamilies/probeRead(_:_:)`` does. The address NACK
/// the bus does not retry (ENXIO) is still retried by it, and a chip that NACKs for a while
/// during DEVICE_RESET is waited for by the reset's polling, longer than before.
@Suite struct PiStackRegisterRetryTests {
    static func read(_ stack: EmulatedPiStack) throws -> (Result<UInt8, IMUError>, waited: UInt64) {
        try stack.run { linux in
            let registers = RegisterAccess(bus: linux, address: I2CAddress(0x68), clock: stack.clock)
            stack.bus.trace = []
            let start = stack.clock.nowNanoseconds
            let result = Result { () throws(IMUError) -> UInt8 in try registers.readRegister(MPU6050.Register.whoAmI) }
            return (result, stack.clock.nowNanoseconds - start)
        }
    }

    @Test func aReadThatKeepsFailingWithEREMOTEIOIsThreeTransfers() throws {
        let stack = EmulatedPiStack("mpu6050")
        stack.bus.faults = [FaultRule(.address(I2CAddress(0x68)), effect: .errno(Errno.EREMOTEIO))]
        let (result, waited) = try Self.read(stack)
        #expect(throws: IMUError.self) { try result.get() }
        #expect(stack.transfers(at: 0x68) == 3)
        #expect(waited == 3 * Nanoseconds.perMillisecond) // the bus's 1 ms and 2 ms
    }

    /// ENXIO the bus does not retry: three calls, 1 ms apart, as on the emulator.
    @Test func aReadThatKeepsFailingWithENXIOIsStillThreeTransfers() throws {
        let stack = EmulatedPiStack("mpu6050")
        stack.bus.faults = [FaultRule(.address(I2CAddress(0x68)), effect: .errno(Errno.ENXIO))]
        let (result, waited) = try Self.read(stack)
        #expect(throws: IMUError.self) { try result.get() }
        #expect(stack.transfers(at: 0x68) == 3)
        #expect(waited == 2 * Nanoseconds.perMillisecond)
    }

    /// A passing fault is still covered: two failures, then the answer, within the bus's tries.
    @Test func aPassingFaultIsCoveredByTheBus() throws {
        let stack = EmulatedPiStack("mpu6050")
        stack.bus.faults = [FaultRule(.address(I2CAddress(0x68)), effect: .errno(Errno.EREMOTEIO), count: 2)]
        let (result, _) = try Self.read(stack)
        #expect(try result.get() == 0x68)
        #expect(stack.transfers(at: 0x68) == 3)
    }

    /// An MPU-6050 that does not acknowledge its first twelve reads of PWR_MGMT_1 after
    /// DEVICE_RESET (a chip slow to come back; EREMOTEIO as a Pi reports it): before, the reset
    /// gave up after nine (11 ms); now the reset's own poll (10 × 10 ms) waits for it.
    @Test func aChipThatNACKsDuringItsResetIsWaitedFor() throws {
        let stack = EmulatedPiStack("mpu6050")
        try stack.run { linux in
            let driver = try MPU6050(bus: linux, address: I2CAddress(0x68), clock: stack.clock)
            _ = try driver.identify()
            stack.bus.faults = [FaultRule(.readOf(MPU6050.Register.powerManagement1), effect: .errno(Errno.EREMOTEIO), count: 12)]
            try driver.reset()
        }
        #expect(stack.bus.faults.map(\.count) == [0])
    }

    /// One that never answers again still fails, with the bus's error, within the poll's bound.
    @Test func aChipGoneDuringItsResetFailsWithTheBusError() throws {
        let stack = EmulatedPiStack("mpu6050")
        let outcome = try stack.run { linux in
            let driver = try MPU6050(bus: linux, address: I2CAddress(0x68), clock: stack.clock)
            _ = try driver.identify()
            stack.bus.faults = [FaultRule(.readOf(MPU6050.Register.powerManagement1), effect: .errno(Errno.EREMOTEIO))]
            stack.bus.trace = []
            return Result { () throws(IMUError) in try driver.reset() }
        }
        #expect(throws: IMUError.self) { try outcome.get() }
        if case .failure(.bus(let error)) = outcome { #expect(error.errno == Errno.EREMOTEIO) } else { Issue.record("\(outcome)") }
        #expect(stack.transfers(at: 0x68) == 1 + 10 * 3) // the DEVICE_RESET write, then ten polls of three tries
    }
}
