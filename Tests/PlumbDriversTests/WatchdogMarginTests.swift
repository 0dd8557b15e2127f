import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

@Suite struct WatchdogMarginTests {
    /// The LSM6DSO's threshold counts a timestamp word (2w + 1 words for w instants: one word per
    /// 32 instants), so after a drain that emptied the FIFO the pin rises after w + 1 instants, not
    /// w: two at watermark 1. A watchdog of 1.5 watermarks (120 ms at 12.5 Hz) then fired before
    /// every other edge, and with the chip's oscillator 9 % slow (FREQ_FINE −60) two in a row:
    /// the healthy stream went to polling ("no interrupt ... for 260 ms") and back, over and over.
    @Test(arguments: [1, 2, 3], [0, -60] as [Int8])
    func aHealthyLowRateStreamIsWokenByItsEdges(watermark: Int, frequencyFine: Int8) throws {
        let rig = LSM6DSRig(.lsm6dso, profile: LSM6DSFaultTests.ramp)
        rig.chip.frequencyFine = frequencyFine
        let config = IMUConfiguration(outputDataRate: 12.5, accelerometerRange: 2, fifoWatermark: watermark)
        var gaps: [StreamGap] = []
        var emitted = 0
        let label = "lsm6dso 12.5 Hz watermark \(watermark) FREQ_FINE \(frequencyFine)"
        let stream = try runLSM6DSStream(rig, seconds: 20, config: config, gaps: &gaps, samples: &emitted, label: label)
        let notices = stream.takeNotices().map(\.message)
        #expect(notices.isEmpty, "\(label): \(notices)")
        #expect(stream.mode == .interrupts, "\(label)")
        #expect(stream.statistics.pollingSteps == 0, "\(label): \(stream.statistics)")
        // Every wake-up but the first few (start-up) came from an edge, none from the watchdog.
        #expect(stream.statistics.edges >= stream.statistics.wakeups - 2, "\(label): \(stream.statistics)")
        #expect(gaps.isEmpty, "\(label): \(gaps)")
        #expect(emitted > 20 * 12 * 9 / 10, "\(label): \(emitted) samples")
    }
}

/// A bus on which one register of the chip reads back with a bit set that was written clear: a
/// clone whose registers read back differently, or a stuck bit.
final class MisreadingBus: I2CBus {
    let inner: EmulatedI2CBus
    let register: UInt8
    let bit: UInt8
    init(_ inner: EmulatedI2CBus, register: UInt8, bit: UInt8) { self.inner = inner; self.register = register; self.bit = bit }
    var path: String { inner.path }
    var maximumReadLength: Int? { inner.maximumReadLength }
    func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
        try inner.transfer(&operations, address: address)
        guard operations.count == 2, operations[0].direction == .write, let first = operations[0].bytes.first,
              operations[1].direction == .read else { return }
        let offset = Int(register) - Int(first)
        if offset >= 0, offset < operations[1].bytes.count { operations[1].bytes[offset] |= bit }
    }
}

@Suite struct UnreadableConfigurationTests {
    /// A chip whose configuration never reads back as written fails every read-back, so it is
    /// re-initialised each time; it must still deliver data between them (it delivered none
    /// once re-initialisation insisted on a read-back), and say why once.
    @Test func aChipThatNeverReadsBackStillStreams() throws {
        let rig = MPURig("mpu6050", profile: .rest())
        // SMPLRT_DIV (0x19) with bit 7 set: 1 kHz / 129 instead of the 100 Hz asked for.
        let bus = MisreadingBus(rig.bus, register: MPU6050.Register.sampleRateDivider, bit: 0x80)
        let driver = try MPU6050(bus: bus, address: I2CAddress(0x68), clock: rig.clock)
        let stream = IMUStream(imu: driver, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: 100, fifoWatermark: 5))
        var samples: [IMUSample] = []
        var gaps: [StreamGap] = []
        let start = rig.clock.nowNanoseconds
        while rig.clock.nowNanoseconds < start + 5_000_000_000 {
            gaps += stream.step(into: &samples)
        }
        let late = samples.filter { $0.timestampNanoseconds > start + 2_000_000_000 }.count
        #expect(late > 150, "\(late) samples in the last 3 s; gaps \(gaps.count)")
        let notices = stream.takeNotices().map(\.message)
        #expect(notices.contains { $0.contains("did not read back as written, twice in a row") }, "\(notices)")
    }
}
