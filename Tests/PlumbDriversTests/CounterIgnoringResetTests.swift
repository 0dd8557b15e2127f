import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// i2c-stub as the VM test uses it: a plain register file, no side effects.
final class PlainRegisters: RegisterTarget {
    var registerPointer: UInt8 = 0
    var file = [UInt8](repeating: 0, count: 256)
    func readRegister(_ address: UInt8) -> UInt8 { file[Int(address)] }
    func writeRegister(_ address: UInt8, _ value: UInt8) { file[Int(address)] = value }
    func advance(to nanoseconds: UInt64) {}
}

/// The host-clock check on timestamp words has no lower bound: a counter that ignores its reset
/// (the VM test's i2c-stub keeps TIMESTAMP2 = 0xAA, so the counter reads 278 s at start) gives
/// old-looking times that are still the chip's, and the VM check's one sample must come out.
@Suite struct CounterIgnoringResetTests {
    @Test func theVMCheckImageGivesItsSample() throws {
        let clock = VirtualClock(startNanoseconds: 50_000_000_000)
        let bus = EmulatedI2CBus(clock: clock, maximumReadLength: 32)
        let stub = PlainRegisters()
        let a = I2CAddress(UInt8(0x6B))
        bus.attach(stub, at: a)
        try bus.writeRegister(0x0F, 0x6C, address: a)
        try bus.writeRegister(0x12, 0x04, address: a)
        try bus.writeRegister(0x18, 0xE0, address: a)
        try bus.writeRegister(0x63, 0x00, address: a)
        try bus.write([0x3A, 0x00, 0x00], to: a)
        try bus.write([0x40, 0x00, 0x00, 0x00, 0x00], to: a)
        let imu = LSM6DS(bus: bus, address: a, clock: clock)
        _ = try imu.identify()
        imu.pollAttempts = 1
        _ = try imu.apply(IMUConfiguration(outputDataRate: 104, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 1))
        try imu.startStreaming()
        let words: [UInt8] = [
            0x21, 0xE8, 0x03, 0x00, 0x00, 0x00, 0x00,
            0x09, 0x64, 0x00, 0x38, 0xFF, 0x2C, 0x01,
            0x11, 0xE8, 0x03, 0xD0, 0x07, 0x05, 0x20,
            0x0A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        ]
        try bus.write([0x78] + Array(words[0..<28]), to: a)
        try bus.write([0x3A, 0x04, 0x80], to: a)
        clock.advance(by: 1_000_000)
        var samples: [IMUSample] = []
        let result = try imu.drain(into: &samples, edges: [EdgeEvent(timestampNanoseconds: clock.nowNanoseconds, kind: .rising)])
        #expect(result.sampleCount == 1 && samples.count == 1 && result.gaps.isEmpty, "\(samples) \(result.gaps)")
    }
}
