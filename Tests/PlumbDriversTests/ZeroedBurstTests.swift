import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// A bus that lets the chip see every transfer but hands back all zeros for the next `count`
/// reads from `register`: the FIFO words were popped and lost on the way (SDA held low for a
/// moment), with no error to say so.
final class ZeroingBus: I2CBus {
    let inner: EmulatedI2CBus
    let register: UInt8
    var count = 0
    init(_ inner: EmulatedI2CBus, register: UInt8) { self.inner = inner; self.register = register }
    var path: String { inner.path }
    var maximumReadLength: Int? { inner.maximumReadLength }
    func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
        try inner.transfer(&operations, address: address)
        guard count > 0, operations.first?.bytes.first == register else { return }
        count -= 1
        for i in operations.indices where operations[i].direction == .read {
            for j in operations[i].bytes.indices { operations[i].bytes[j] = 0 }
        }
    }
}

/// FIFO bursts that come back as nothing but zeros after the chip popped them: never samples of
/// 0 LSB, never a timeline off by the slots lost, always a gap.
@Suite struct ZeroedBurstTests {
    @Test func mpuZeroedBurstIsAGapNotZeroSamples() throws {
        let profile = MotionProfile.slowRotation()
        let config = IMUConfiguration(outputDataRate: 1000, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 16)
        func run(zeroed: Int) throws -> (samples: [IMUSample], gaps: [StreamGap], failures: [String]) {
            let rig = MPURig("mpu6050", profile: profile, errorModel: nil)
            let bus = ZeroingBus(rig.bus, register: MPU6050.Register.fifoData)
            let driver = try MPU6050(bus: bus, address: I2CAddress(0x68), clock: rig.clock)
            var check = TruthCheck(rig: rig, profile: profile, config: config)
            let stream = IMUStream(imu: driver, line: rig.line, clock: rig.clock)
            try stream.start(config)
            var samples: [IMUSample] = []
            var gaps: [StreamGap] = []
            while rig.clock.nowNanoseconds < 3_000_000_000 { gaps += stream.step(into: &samples) }
            bus.count = zeroed
            while rig.clock.nowNanoseconds < 5_000_000_000 { gaps += stream.step(into: &samples) }
            check.check(samples[...])
            return (samples, gaps, check.failures)
        }
        let clean = try run(zeroed: 0)
        let zeroed = try run(zeroed: 3)
        #expect(zeroed.failures.isEmpty)
        #expect(zeroed.gaps.count == 3 && zeroed.gaps.allSatisfy { $0.reason == .busError && ($0.lostSamples ?? 0) >= 16 }, "\(zeroed.gaps)")
        // Every sample of the clean run is either delivered or counted lost.
        let lost = zeroed.gaps.reduce(0) { $0 + ($1.lostSamples ?? 0) }
        #expect(clean.gaps.isEmpty)
        #expect(abs(zeroed.samples.count + lost - clean.samples.count) <= 2)
    }

    /// The tagged FIFO: zero tags are not words, and the slots they held may be a multiple of
    /// four, which the two-bit slot counter cannot see; the timeline must re-anchor (it was
    /// 57 ms off for good). The pattern FIFO: zero sets are not samples.
    @Test(arguments: [LSM6DS.Variant.lsm6dso, .lsm6ds3], [false, true])
    func lsm6dsZeroedBurstIsAGapNotZeroSamples(variant: LSM6DS.Variant, compression: Bool) throws {
        let rig = LSM6DSRig(variant, profile: LSM6DSFaultTests.ramp)
        let bus = ZeroingBus(rig.bus, register: variant.generation == .dso ? 0x78 : 0x3E)
        let imu = LSM6DS(bus: bus, address: I2CAddress(UInt8(0x6A)), clock: rig.clock)
        imu.fifoCompression = compression
        let stream = IMUStream(imu: imu, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: 833, accelerometerRange: 2, fifoWatermark: 16))
        var samples: [IMUSample] = []
        var gaps: [StreamGap] = []
        while rig.clock.nowNanoseconds < 3_000_000_000 { gaps += stream.step(into: &samples) }
        bus.count = 3
        while rig.clock.nowNanoseconds < 5_000_000_000 { gaps += stream.step(into: &samples) }
        let label = "\(variant.name), compression \(compression)"
        LSM6DSFaultTests.check(samples, origin: rig.chip.profileStart, label: label)
        #expect(gaps.contains { $0.reason == .busError }, "\(label): \(gaps)")
        #expect(gaps.allSatisfy { $0.reason == .busError || $0.reason == .stall }, "\(label): \(gaps)")
        #expect(samples.count > 4 * 833 - 250, "\(label)")
    }
}
