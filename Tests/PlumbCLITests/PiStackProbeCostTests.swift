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
