import Testing
@testable import PlumbCLI
import PlumbDrivers
import PlumbHAL
import PlumbLinux
import PlumbSimulation

/// `SensorOptions.open` claims the chip (`I2CDeviceClaim`) before anything is written to it.
/// The claim was taken after `identify`, whose MPU-6050 driver looks for an MPU-9150's
/// magnetometer through the I2C bypass (INT_PIN_CFG written twice): a `plumb read` typed while
/// `plumb run` streamed from a polled MPU-6050 wrote to the service's chip before it was refused.
@Suite struct ChipClaimOrderTests {
    /// Counts the register writes (a write of two bytes or more) made through it.
    final class WriteCountingBus: I2CBus {
        let inner: any I2CBus
        private(set) var writes = 0
        init(_ inner: any I2CBus) { self.inner = inner }
        var path: String { inner.path }
        var maximumReadLength: Int? { inner.maximumReadLength }
        var attemptsPerTransfer: Int { inner.attemptsPerTransfer }
        func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
            writes += operations.filter { $0.direction == .write && $0.bytes.count >= 2 }.count
            try inner.transfer(&operations, address: address)
        }
    }

    /// Without a claim refused, identify writes to an MPU-6050: the reason the claim must come first.
    @Test func identifyingAnMPU6050WritesToIt() throws {
        let sensor = PlumbSimulation.SimulatedSensor(model: try #require(SimulatedChips.model("mpu6050")), seed: 1)
        let bus = WriteCountingBus(sensor.bus)
        let (_, identity) = try SensorOptions.identify(bus: bus, address: nil, part: nil, clock: sensor.clock)
        #expect(identity.address == I2CAddress(0x68))
        #expect(bus.writes > 0)
    }

    /// A claim refused (another plumb holds the chip) stops identify before any write, with the
    /// address the probe found.
    @Test(arguments: [I2CAddress?.none, I2CAddress(0x68)])
    func aRefusedClaimLeavesTheChipUntouched(address: I2CAddress?) throws {
        let sensor = PlumbSimulation.SimulatedSensor(model: try #require(SimulatedChips.model("mpu6050")), seed: 1)
        let bus = WriteCountingBus(sensor.bus)
        var claimed: [I2CAddress] = []
        let refusal = I2CHelp.inUse(I2CDeviceInUse(path: bus.path, address: I2CAddress(0x68)))
        #expect(throws: refusal) {
            _ = try SensorOptions.identify(bus: bus, address: address, part: nil, clock: sensor.clock,
                                           claim: { at throws(CLIError) in claimed.append(at); throw refusal })
        }
        #expect(claimed == [I2CAddress(0x68)])
        #expect(bus.writes == 0)
    }
}
