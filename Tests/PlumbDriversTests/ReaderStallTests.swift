import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// A data-ready line whose reader is stalled now and then: before a wait (the thread was not
/// scheduled after its last drain) or after a wait returned (woken, then preempted before the
/// drain), for 10–40 ms at seeded random points, as a loaded Raspberry Pi Zero 2 W does. The
/// kernel keeps the edges meanwhile (they queue on the line), and the chip keeps sampling.
final class StallingLine: InterruptLine {
    let inner: SimulatedInterruptLine
    let clock: VirtualClock
    private var random: SeededRandom
    private var nextStall: UInt64
    /// The stalls suffered: when, and how long (nanoseconds).
    private(set) var stalls: [(at: UInt64, nanoseconds: UInt64)] = []
    var name: String { inner.name }

    init(_ inner: SimulatedInterruptLine, seed: UInt64) {
        self.inner = inner
        clock = inner.clock
        random = SeededRandom(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 11)
        nextStall = inner.clock.nowNanoseconds + 200_000_000
    }

    /// Stalls the reader when one is due: 10–40 ms, the next one 80–400 ms later.
    private func maybeStall() {
        let now = clock.nowNanoseconds
        guard now >= nextStall else { return }
        let length = UInt64((10 + 30 * random.unit()) * 1e6)
        stalls.append((now, length))
        clock.advance(by: length)
        nextStall = clock.nowNanoseconds + UInt64((80 + 320 * random.unit()) * 1e6)
    }

    func waitForEdge(timeoutNanoseconds: UInt64) throws(GPIOError) -> EdgeEvent? {
        let before = random.next() % 2 == 0
        if before { maybeStall() }
        let edge = try inner.waitForEdge(timeoutNanoseconds: timeoutNanoseconds)
        if !before { maybeStall() }
        return edge
    }

    /// The MPU family's reader sleeps and then collects the edges queued meanwhile: a stall there
    /// is a sleep that overran.
    func readQueuedEdges() throws(GPIOError) -> [EdgeEvent] {
        maybeStall()
        return try inner.readQueuedEdges()
    }
}

/// A reader stalled for up to 40 ms at a high rate: the drain after the stall finds a FIFO far
/// past its threshold, and the words that arrive while that long burst is read can hold the
/// level at the threshold. The watermark pin is a level (LSM6DSO DS12140, FIFO_STATUS2
/// FIFO_WTM_IA: 1 while the FIFO holds at least the threshold), so no new rising edge comes; the
/// stream must not take that for a dead line (a notice, polling, a notice back, latency), and it
/// must lose, repeat or mistime no sample. The MPU family's DATA_RDY pin gives an edge per sample
/// (latched until INT_STATUS is read, or a 50 µs pulse) and its reader sleeps instead of waiting,
/// so it is checked for the same losses. The MPU-6500's 512-byte FIFO holds 42 ms at 1 kHz, less
/// than a 40 ms stall plus a watermark's sleep: it overflows (a reported gap), so it is not here.
@Suite struct ReaderStallTests {
    struct Setup: Sendable, CustomTestStringConvertible {
        var chip: String
        var rate: Double
        var watermark = 16
        var compression = false
        /// The MPU's 50 µs data-ready pulse instead of its latched pin (INT_PIN_CFG.LATCH_INT_EN).
        var pulsed = false
        var testDescription: String { "\(chip) \(rate) Hz watermark \(watermark)" + (compression ? " compressed" : "") + (pulsed ? " pulsed" : "") }
    }

    static let seconds = 6.0

    static let setups: [Setup] = [
        Setup(chip: "lsm6dso", rate: 833),
        Setup(chip: "lsm6dso", rate: 1666),
        Setup(chip: "lsm6dso", rate: 833, compression: true),
        Setup(chip: "lsm6dso", rate: 1666, compression: true),
        Setup(chip: "lsm6dso", rate: 1666, watermark: 32),
        Setup(chip: "lsm6ds3", rate: 833),
        Setup(chip: "lsm6ds3", rate: 1666),
        Setup(chip: "lsm6dsl", rate: 833),
        Setup(chip: "lsm6dsl", rate: 1666),
        Setup(chip: "mpu6050", rate: 1000),
        Setup(chip: "mpu6050", rate: 1000, pulsed: true),
    ]

    struct Case: Sendable, CustomTestStringConvertible {
        var setup: Setup
        var seed: UInt64
        var testDescription: String { "\(setup.testDescription), seed \(seed)" }
    }

    static let cases: [Case] = setups.flatMap { s in (1...2).map { Case(setup: s, seed: UInt64($0)) } }

    @Test(arguments: cases)
    func aStalledReaderStaysOnItsEdgesAndLosesNothing(_ c: Case) throws {
        let setup = c.setup
        let model = try #require(SimulatedChips.model(setup.chip))
        let sensor = SimulatedSensor(model: model, profile: BroadSlice.profile, seed: c.seed)
        // The FIFO pops word by word while the chip samples on: what keeps the pin up.
        sensor.bus.timesEachByte = true
        let log = FIFOTruthLog(reservingCapacity: Int(setup.rate * (Self.seconds + 1)))
        sensor.chip.fifoTruth = log
        let imu: any IMU
        if let v = LSM6DS.Variant.all.first(where: { $0.key == setup.chip }) {
            let needsPart = LSM6DS.Variant.matching(whoAmI: v.whoAmI).first != v
            let driver = LSM6DS(bus: sensor.bus, address: model.address, clock: sensor.clock, part: needsPart ? v : nil)
            driver.fifoCompression = setup.compression
            imu = driver
        } else {
            imu = try MPU6050(bus: sensor.bus, address: model.address, clock: sensor.clock)
        }
        let line = StallingLine(sensor.line, seed: c.seed)
        let stream = IMUStream(imu: imu, line: line, clock: sensor.clock)
        let effective = try stream.start(IMUConfiguration(outputDataRate: setup.rate, accelerometerRange: 8, gyroscopeRange: 1000,
                                                          fifoWatermark: setup.watermark,
                                                          interrupt: InterruptPinConfiguration(mode: setup.pulsed ? .pulsed : .latched)))
        let label = "\(c.testDescription) (\(effective.outputDataRate) Hz)"
        var samples: [IMUSample] = []
        var gaps: [StreamGap] = []
        var leftEdges = 0
        let end = sensor.clock.nowNanoseconds + UInt64(Self.seconds * 1e9)
        var steps = 0
        while sensor.clock.nowNanoseconds < end {
            gaps += stream.step(into: &samples)
            if stream.mode != .interrupts { leftEdges += 1 }
            steps += 1
            if steps > 100_000 { Issue.record("\(label): the stream did not advance virtual time"); break }
        }
        let entries = log.entries
        var period = 1e9 / effective.outputDataRate
        if entries.count > 100 {
            period = Double(entries[entries.count - 1].nanoseconds - entries[entries.count - 101].nanoseconds) / 100
        }
        // The tolerances of the differential tests: the LSM6DS's own counter (125 µs), the MPU's
        // edges and period (1.5 periods).
        let tolerance = setup.chip.hasPrefix("mpu") ? 1.5 * period : 125_000
        let check = DifferentialCheck(samples: samples, gaps: gaps, truth: entries, period: period, tolerance: tolerance)
        for f in check.failures { Issue.record("\(label): \(f)") }
        let stalls = line.stalls.count
        #expect(stalls > Int(Self.seconds * 2), "\(label): only \(stalls) stalls")
        let notices = stream.takeNotices().map(\.message)
        #expect(notices.isEmpty, "\(label): \(stalls) stalls, notices \(notices)")
        #expect(leftEdges == 0 && stream.statistics.pollingSteps == 0, "\(label): \(leftEdges) steps off edges, \(stream.statistics)")
        #expect(gaps.isEmpty, "\(label): \(gaps.count) gaps, the first \(gaps.prefix(3))")
        #expect(check.missing == 0, "\(label): \(check.missing) samples missing")
        // Every instant the chip wrote after the filters settled reached the reader (the last
        // watermark's worth may still wait in the FIFO).
        #expect(check.emitted >= entries.count - 2 * setup.watermark - 64, "\(label): \(check.emitted) of \(entries.count)")
        // At 1666 Hz the catch-up reads were needed (at 833 Hz a 40 ms backlog read leaves less
        // than a threshold behind, so none may be).
        if let driver = imu as? LSM6DS, setup.rate > 1000 {
            #expect(driver.catchUpReads > 0, "\(label): no catch-up read")
        }
    }
}

/// The catch-up reads cost nothing in steady state: with a reader that keeps up, no drain's
/// estimate reaches the threshold (a 16-sample burst at 1666 Hz leaves about 20 words of 33), so
/// the bus carries what it carried before them, at every rate up to 1666 Hz.
@Suite struct CatchUpSteadyStateTests {
    /// 4 s of `chip` at `rate` and `watermark`, read by a reader that keeps up, the bus timing each byte.
    static func run(_ chip: String, rate: Double, watermark: Int) throws -> (LSM6DS, IMUStream, [IMUSample], [StreamGap]) {
        let model = try #require(SimulatedChips.model(chip))
        let sensor = SimulatedSensor(model: model, profile: .slowRotation(), seed: 5)
        sensor.bus.timesEachByte = true
        let v = try #require(LSM6DS.Variant.all.first { $0.key == chip })
        let needsPart = LSM6DS.Variant.matching(whoAmI: v.whoAmI).first != v
        let driver = LSM6DS(bus: sensor.bus, address: model.address, clock: sensor.clock, part: needsPart ? v : nil)
        let stream = IMUStream(imu: driver, line: sensor.line, clock: sensor.clock)
        try stream.start(IMUConfiguration(outputDataRate: rate, fifoWatermark: watermark))
        var samples: [IMUSample] = []
        let gaps = stream.run(seconds: 4, clock: sensor.clock, into: &samples)
        return (driver, stream, samples, gaps)
    }

    @Test(arguments: ["lsm6dso", "lsm6ds3", "lsm6dsl"], [104.0, 833, 1666])
    func aReaderThatKeepsUpAddsNoRead(chip: String, rate: Double) throws {
        for watermark in [4, 16, 32] {
            let (driver, stream, samples, gaps) = try Self.run(chip, rate: rate, watermark: watermark)
            let label = "\(chip) \(rate) Hz watermark \(watermark)"
            #expect(driver.catchUpReads == 0, "\(label): \(driver.catchUpReads) catch-up reads")
            #expect(gaps.isEmpty && stream.takeNotices().isEmpty && stream.statistics.pollingSteps == 0, "\(label): \(gaps) \(stream.statistics)")
            #expect(samples.count > Int(rate * 3.9) - 64, "\(label): \(samples.count) samples")
        }
    }
}

/// The catch-up reads at a small watermark (1–3 samples: `plumb read --watermark 1`, `plumb
/// level` at a high frame rate) and a high rate: one instant more than the words known left
/// reaches such a threshold, so an estimate that always allowed for one (its phase unknown) added
/// a status read to every drain at 833 and 1666 Hz (+50 % of the transactions). By the chip's own
/// timeline (the last sample read and the period) an instant that has not come yet is not
/// counted; the reads left (at most one drain in five) are the drains after which the next
/// instant had come, or may have by the estimate, which counts a word per sensor where the
/// LSM6DSO compresses. Known and left: the LSM6DSO at 1666 Hz with a watermark of 1 still reads
/// the status again after almost every drain (each drain lasts past the next instant), +49 % of
/// its transactions.
@Suite struct CatchUpSmallWatermarkTests {
    @Test(arguments: ["lsm6dso", "lsm6ds3", "lsm6dsl"], [833.0, 1666])
    func aReaderThatKeepsUpAtASmallWatermarkAddsFewReads(chip: String, rate: Double) throws {
        for watermark in [1, 2, 3] where !(chip == "lsm6dso" && rate > 1000 && watermark == 1) {
            let (driver, stream, samples, gaps) = try CatchUpSteadyStateTests.run(chip, rate: rate, watermark: watermark)
            let label = "\(chip) \(rate) Hz watermark \(watermark)"
            let drains = stream.statistics.drains
            #expect(drains > 100, "\(label): \(drains) drains")
            #expect(driver.catchUpReads * 5 <= drains, "\(label): \(driver.catchUpReads) catch-up reads, \(drains) drains")
            #expect(gaps.isEmpty && stream.takeNotices().isEmpty && stream.statistics.pollingSteps == 0, "\(label): \(gaps) \(stream.statistics)")
            #expect(samples.count > Int(rate * 3.9) - 64, "\(label): \(samples.count) samples")
        }
    }
}

/// A brown-out in the middle of an MPU FIFO burst (the bus popping the FIFO byte by byte): the
/// emptied FIFO repeats its last byte for the rest of the burst, so the record it emptied in is
/// part data, part repeat. Followed by a record wholly of that byte, it is a gap, never a sample
/// (one came out 15 m/s² off when only the records made wholly of one byte were dropped). When
/// the FIFO empties inside the burst's last record nothing follows it and its bytes cannot tell
/// (an ideal chip at rest reads 0x00 0x00 …), but it ends in two equal bytes: then USER_CTRL is
/// read after the burst, and FIFO_EN cleared by the brown-out drops it. Before that, of these 160 resets 2 emitted such a sample on the
/// MPU-6050 and 3 on the MPU-6500 (one 39 m/s² off), and the differential test (MPU-6050 at
/// 1 kHz with early wake-ups, seed 3) one of (3256, −18248, −18248) LSB; before the
/// repeated-byte rule, 7 of 8 resets inside a burst emitted one, up to 34 m/s² off.
@Suite struct BrownOutMidBurstTests {
    @Test(arguments: ["mpu6050", "mpu6500"])
    func theRecordTheFIFOEmptiedInIsNotASample(key: String) throws {
        let config = IMUConfiguration(outputDataRate: 1000, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 16)
        var partial = 0
        var wrong: [String] = []
        // Resets every 0.1 ms over a drain cycle (16 ms), so many fall inside a burst (4.4 ms),
        // some inside its last record (0.27 ms).
        for k in 0..<160 {
            let profile = MotionProfile.slowRotation()
            let rig = MPURig(key, profile: profile, errorModel: nil)
            rig.chip.scheduledResets = [2_000_000_000 + UInt64(k) * 100_000]
            var check = TruthCheck(rig: rig, profile: profile, config: config)
            var gaps: [StreamGap] = []
            try runStream(rig, profile: profile, config: config, seconds: 1.6, check: &check, gaps: &gaps)
            if !check.failures.isEmpty { wrong.append("reset at +\(Double(k) * 0.1) ms: \(check.failures)") }
            #expect(gaps.contains { $0.reason == .chipReset }, "\(key) reset at +\(Double(k) * 0.1) ms: \(gaps)")
            if gaps.contains(where: { $0.reason == .busError }) { partial += 1 }
        }
        // Some resets fell inside a burst (the repeated bytes' gap), or the sweep tested nothing.
        #expect(partial > 0, "\(key): no reset fell inside a burst")
        #expect(wrong.isEmpty, "\(key): \(wrong.count) resets emitted a wrong sample: \(wrong.prefix(3))")
    }
}

/// The first watermark after a start comes late when the chip's first sample does (a turn-on
/// time: ``LSM6DSEmulator/turnOnNanoseconds``, up to the 100 ms Linux gives the slowest MPU-family
/// gyroscope). That is the chip starting, not a dead line: no notice, no polling.
@Suite struct StartUpTurnOnTests {
    @Test(arguments: [12.5, 104, 833, 1666], [35, 70, 100] as [UInt64])
    func aSlowFirstSampleCostsNoNotice(rate: Double, milliseconds: UInt64) throws {
        let model = try #require(SimulatedChips.model("lsm6dso"))
        let sensor = SimulatedSensor(model: model, profile: .slowRotation(), seed: 2)
        let chip = try #require(sensor.chip as? LSM6DSEmulator)
        chip.turnOnNanoseconds = milliseconds * 1_000_000
        let driver = LSM6DS(bus: sensor.bus, address: model.address, clock: sensor.clock)
        let stream = IMUStream(imu: driver, line: sensor.line, clock: sensor.clock)
        let watermark = rate < 50 ? 7 : 16
        try stream.start(IMUConfiguration(outputDataRate: rate, fifoWatermark: watermark, gyroscopeEnabled: rate >= 50))
        var samples: [IMUSample] = []
        let gaps = stream.run(seconds: 3, clock: sensor.clock, into: &samples)
        let label = "lsm6dso \(rate) Hz, turn-on \(milliseconds) ms"
        #expect(stream.takeNotices().isEmpty && stream.statistics.pollingSteps == 0, "\(label): \(stream.statistics)")
        #expect(gaps.isEmpty, "\(label): \(gaps)")
        #expect(samples.count > Int(rate * 2.5), "\(label): \(samples.count) samples")
    }
}

/// A brown-out during a burst from the LSM6DS3/DSL pattern FIFO: the chip's FIFO is gone and the
/// rest of the burst reads 0x00. Those bytes are not samples of 0 LSB (the one-hour release soak
/// emitted 9 of them at the LSM6DS3TR-C's second brown-out once its bus ran byte by byte): every
/// sample emitted matches the ramp at its timestamp, and the reset is a gap.
@Suite struct PatternBrownOutMidBurstTests {
    @Test(arguments: [LSM6DS.Variant.lsm6ds3trc, .lsm6dsl])
    func theZeroedTailOfABurstIsNotSamples(variant: LSM6DS.Variant) throws {
        let config = IMUConfiguration(outputDataRate: 833, accelerometerRange: 2, fifoWatermark: 32)
        var inside = 0
        // Resets every 1 ms over two drain cycles (38 ms each at watermark 32), so several fall
        // inside a burst (32 instants of 12 bytes: about 9 ms at 400 kHz).
        for k in 0..<80 {
            let rig = LSM6DSRig(variant, profile: LSM6DSFaultTests.ramp)
            rig.chip.scheduledResets = [rig.clock.nowNanoseconds + 1_000_000_000 + UInt64(k) * 1_000_000]
            var gaps: [StreamGap] = []
            var emitted = 0
            let label = "\(variant.name) reset at +\(k) ms"
            try runLSM6DSStream(rig, seconds: 1.6, config: config, gaps: &gaps, samples: &emitted, label: label)
            #expect(gaps.contains { $0.reason == .chipReset }, "\(label): \(gaps)")
            if gaps.contains(where: { $0.reason != .chipReset }) { inside += 1 }
            #expect(emitted > 800, "\(label): \(emitted) samples")
        }
        // Some resets fell inside a burst (a loss besides the reset's gap), or the sweep tested nothing.
        #expect(inside > 0, "\(variant.name): no reset fell inside a burst")
    }
}
