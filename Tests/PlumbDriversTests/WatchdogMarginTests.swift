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

/// An emulated chip read through a ``MisreadingBus``: MPU-6050 SMPLRT_DIV (0x19) with bit 7, or LSM6DSO
/// CTRL1_XL (0x10) with its reserved bit 0 read back set.
struct MisreadingRig {
    let sensor: SimulatedSensor
    let driver: any IMU
    init(_ key: String) throws {
        let model = try #require(SimulatedChips.model(key))
        sensor = SimulatedSensor(model: model, profile: .rest(), seed: 3)
        if key == "mpu6050" {
            let bus = MisreadingBus(sensor.bus, register: MPU6050.Register.sampleRateDivider, bit: 0x80)
            driver = try MPU6050(bus: bus, address: model.address, clock: sensor.clock)
        } else {
            let bus = MisreadingBus(sensor.bus, register: LSM6DS.Register.control1XL, bit: 0x01)
            driver = LSM6DS(bus: bus, address: model.address, clock: sensor.clock)
        }
    }
}

/// A bus on which one register of the chip reads back with a bit set that was written clear: a
/// clone whose registers read back differently, or a stuck bit.
final class MisreadingBus: I2CBus {
    let inner: EmulatedI2CBus
    let register: UInt8
    let bit: UInt8
    /// Reads the bit clear instead of set.
    let clearing: Bool
    init(_ inner: EmulatedI2CBus, register: UInt8, bit: UInt8, clearing: Bool = false) {
        self.inner = inner; self.register = register; self.bit = bit; self.clearing = clearing
    }
    var path: String { inner.path }
    var maximumReadLength: Int? { inner.maximumReadLength }
    func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
        try inner.transfer(&operations, address: address)
        guard operations.count == 2, operations[0].direction == .write, let first = operations[0].bytes.first,
              operations[1].direction == .read else { return }
        let offset = Int(register) - Int(first)
        if offset >= 0, offset < operations[1].bytes.count {
            if clearing { operations[1].bytes[offset] &= ~bit } else { operations[1].bytes[offset] |= bit }
        }
    }
}

@Suite struct UnreadableConfigurationTests {
    /// A chip whose configuration never reads back as written fails every read-back. Once it
    /// insisted on a read-back, re-initialisation left it with no data at all; then it streamed
    /// but was re-initialised every second (a notice and a gap each time). Now it is said once,
    /// at the start, and what it reads back is what later read-backs compare with.
    @Test(arguments: ["mpu6050", "lsm6dso"])
    func aChipThatNeverReadsBackStreamsWithoutGaps(key: String) throws {
        let rig = try MisreadingRig(key)
        let stream = IMUStream(imu: rig.driver, line: rig.sensor.line, clock: rig.sensor.clock)
        try stream.start(IMUConfiguration(outputDataRate: 104, fifoWatermark: 5))
        var samples: [IMUSample] = []
        var gaps: [StreamGap] = []
        let start = rig.sensor.clock.nowNanoseconds
        while rig.sensor.clock.nowNanoseconds < start + 10_000_000_000 {
            gaps += stream.step(into: &samples)
        }
        #expect(gaps.isEmpty, "\(key): \(gaps)")
        #expect(stream.statistics.reinitialisations == 0, "\(key): \(stream.statistics)")
        let period = 1e9 / stream.configuration.outputDataRate
        #expect(Double(samples.count) > 9.5e9 / period, "\(key): \(samples.count) samples in 10 s")
        let notices = stream.takeNotices().map(\.message)
        #expect(notices.count == 1, "\(key): \(notices)")
        #expect(notices.first?.contains("did not read back as written, twice in a row") == true, "\(key): \(notices)")
    }

    /// A chip whose USER_CTRL reads FIFO_EN clear while its FIFO runs (a clone, a stuck bit): it
    /// streams on what it reads back, as above. The drain's brown-out check after a burst whose
    /// last record ends in two equal bytes (``MPU6050/fifoKeptThroughBurst()``) took that clear
    /// bit for a FIFO lost inside the burst: a good record dropped, a bus-error gap and a FIFO
    /// reset each time (gyro z at 0 or −1 LSB, common at rest, ends a record in 0x00 0x00 or
    /// 0xFF 0xFF). Such a chip cannot tell by USER_CTRL, so its last record is kept.
    @Test func aChipWhoseUserControlHidesFIFOEnableLosesNoRecords() throws {
        // An ideal chip at rest: gyro z reads 0, so every record ends in 0x00 0x00.
        let sensor = MPURig("mpu6050").sensor
        let bus = MisreadingBus(sensor.bus, register: MPU6050.Register.userControl, bit: MPU6050.Bits.userFIFOEnable, clearing: true)
        let driver = try MPU6050(bus: bus, address: I2CAddress(0x68), clock: sensor.clock)
        let stream = IMUStream(imu: driver, line: sensor.line, clock: sensor.clock)
        try stream.start(IMUConfiguration(outputDataRate: 200, fifoWatermark: 4))
        var samples: [IMUSample] = []
        var gaps: [StreamGap] = []
        var endsInEqualBytes = 0
        let start = sensor.clock.nowNanoseconds
        while sensor.clock.nowNanoseconds < start + 5_000_000_000 {
            gaps += stream.step(into: &samples)
            let last = driver.fifoBuffer.suffix(2)
            if last.count == 2, last.first == last.last { endsInEqualBytes += 1 }
        }
        // The case was met, or the test tests nothing.
        #expect(endsInEqualBytes > 0, "\(endsInEqualBytes) bursts ended in two equal bytes")
        let gapCount = gaps.count
        #expect(gapCount == 0, "\(gaps.prefix(3))")
        #expect(samples.count > 5 * 200 - 20, "\(samples.count) samples in 5 s")
        #expect(stream.statistics.reinitialisations == 0, "\(stream.statistics)")
    }

    /// The same chip browning out: the registers go back to their defaults, which differ from
    /// what it read back, so the brown-out is still found and the stream recovers.
    @Test(arguments: ["mpu6050", "lsm6dso"])
    func aChipThatNeverReadsBackStillShowsABrownOut(key: String) throws {
        let rig = try MisreadingRig(key)
        let stream = IMUStream(imu: rig.driver, line: rig.sensor.line, clock: rig.sensor.clock)
        try stream.start(IMUConfiguration(outputDataRate: 104, fifoWatermark: 5))
        try FaultPlan(parsing: "reset@3s").install(on: rig.sensor)
        var samples: [IMUSample] = []
        var gaps: [StreamGap] = []
        let start = rig.sensor.clock.nowNanoseconds
        while rig.sensor.clock.nowNanoseconds < start + 8_000_000_000 {
            gaps += stream.step(into: &samples)
        }
        #expect(gaps.contains { $0.reason == .chipReset }, "\(key): \(gaps)")
        #expect(stream.statistics.reinitialisations == 1, "\(key): \(stream.statistics)")
        let late = samples.filter { $0.timestampNanoseconds > start + 5_000_000_000 }.count
        #expect(Double(late) > 2.9e9 * stream.configuration.outputDataRate / 1e9, "\(key): \(late) samples in the last 3 s")
    }
}
