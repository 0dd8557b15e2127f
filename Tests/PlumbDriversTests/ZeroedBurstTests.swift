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
    /// The bytes of each read zeroed; all of them when nil.
    var zeroedBytes: Range<Int>?
    init(_ inner: EmulatedI2CBus, register: UInt8) { self.inner = inner; self.register = register }
    var path: String { inner.path }
    var maximumReadLength: Int? { inner.maximumReadLength }
    func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
        try inner.transfer(&operations, address: address)
        guard count > 0, operations.first?.bytes.first == register else { return }
        count -= 1
        for i in operations.indices where operations[i].direction == .read {
            let all = operations[i].bytes.indices
            for j in (zeroedBytes ?? all).clamped(to: all) { operations[i].bytes[j] = 0 }
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
        let (rig, bus, imu) = zeroingLSM6DS(variant, compression: compression)
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

/// A watermark read (no status read: the edge said the threshold's words were there) that comes
/// back as all zeros after the chip emptied its FIFO: the words were popped and lost, possibly a
/// multiple of four slots, which the two-bit slot counter cannot see. The samples after it must be
/// timed right (or dropped and counted), not timed by the slot count until the second timestamp
/// word after it (it was 19 ms off at 833 Hz). A stray edge just after a drain reads past the end
/// of a FIFO that holds less than the threshold, and gets zeros too: nothing is lost then.
@Suite struct ZeroedWatermarkReadTests {
    /// Runs 20 rounds, each ending with a watermark read that `disturb` spoils; returns the
    /// samples, the gaps, and how many of the spoiled reads were watermark reads.
    func run(compression: Bool, disturb: (LSM6DSRig, ZeroingBus, LSM6DS, inout [IMUSample]) throws -> Void) throws
        -> (samples: [IMUSample], gaps: [StreamGap], watermarkReads: Int, origin: UInt64) {
        let (rig, bus, imu) = zeroingLSM6DS(.lsm6dso, compression: compression)
        let stream = IMUStream(imu: imu, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: 833, accelerometerRange: 2, fifoWatermark: 16))
        var samples: [IMUSample] = []
        var gaps: [StreamGap] = []
        var watermarkReads = 0
        for round in 0..<20 {
            // A different phase each round against the 32-slot timestamp batch.
            let until = rig.clock.nowNanoseconds + 150_000_000 + UInt64(round) * 1_300_000
            while rig.clock.nowNanoseconds < until || !imu.taggedStateKnown { gaps += stream.step(into: &samples) }
            let drains = imu.watermarkDrains
            try disturb(rig, bus, imu, &samples)
            while bus.count > 0 { gaps += stream.step(into: &samples) }
            if imu.watermarkDrains > drains { watermarkReads += 1 }
        }
        let end = rig.clock.nowNanoseconds + 200_000_000
        while rig.clock.nowNanoseconds < end { gaps += stream.step(into: &samples) }
        return (samples, gaps, watermarkReads, rig.chip.profileStart)
    }

    @Test(arguments: [false, true])
    func samplesAfterAZeroedWatermarkReadAreTimedRight(compression: Bool) throws {
        // The next FIFO read comes back as zeros; the stream left a known state, so it is a
        // watermark read when an edge wakes the reader in time.
        let r = try run(compression: compression) { _, bus, _, _ in bus.count = 1 }
        let label = "lsm6dso, compression \(compression)"
        #expect(r.watermarkReads >= 10, "\(label): only \(r.watermarkReads) of the zeroed reads were watermark reads")
        LSM6DSFaultTests.check(r.samples, origin: r.origin, label: label)
        #expect(r.gaps.filter { $0.reason == .busError }.count >= r.watermarkReads, "\(label): \(r.gaps)")
        if compression {
            // Decoding waits for the next uncompressed word after a loss, which can take longer
            // than the reader's stall threshold.
            for gap in r.gaps where gap.reason != .busError && gap.reason != .stall { Issue.record("\(label): \(gap)") }
        } else {
            // Accelerometer only: the 16 zeroed words held 15 or 16 slots (one may have been a
            // timestamp), counted from the timestamps; the samples after them are all kept.
            for gap in r.gaps where gap.reason != .busError || !(14...17).contains(gap.lostSamples ?? 0) {
                Issue.record("\(label): \(gap)")
            }
        }
    }

    /// A watermark read whose middle came back as zeros after the chip popped those words (SDA
    /// held low for part of the burst), with the words after them intact: the same look as a read
    /// that ran past the end of the FIFO and got the words the chip wrote meanwhile, where nothing
    /// is lost (``LSM6DS/taggedResumption(after:words:configuration:)``). Here slots are lost, 4 of
    /// them (8 words: the two-bit TAG_CNT cannot see it) or 2 and a half: the words after the zeros
    /// must be timed by the next timestamp word, not by the slot count, and the loss reported.
    @Test(arguments: [false, true], [5, 8])
    func samplesAfterZerosInsideAWatermarkReadAreTimedRight(compression: Bool, zeroedWords: Int) throws {
        let r = try run(compression: compression) { _, bus, _, _ in
            bus.zeroedBytes = 3 * 7..<(3 + zeroedWords) * 7
            bus.count = 1
        }
        let label = "lsm6dso, compression \(compression), words 3..<\(3 + zeroedWords) zeroed"
        #expect(r.watermarkReads >= 10, "\(label): only \(r.watermarkReads) of the zeroed reads were watermark reads")
        LSM6DSFaultTests.check(r.samples, origin: r.origin, label: label)
        #expect(r.gaps.filter { $0.reason == .busError }.count >= r.watermarkReads, "\(label): \(r.gaps)")
    }

    /// At 12.5 Hz accelerometer only (the notifier's low-energy mode) the next timestamp word can
    /// be 32 samples, 2.6 s, away: the samples held until then are data, not a stall, and come
    /// out exactly as without the stray edges.
    @Test func aStrayEdgeAtALowRateHoldsSamplesWithoutAStall() throws {
        func run(strays: Bool) throws -> (samples: [IMUSample], gaps: [StreamGap], notices: [String], strays: Int) {
            let rig = LSM6DSRig(.lsm6dso, profile: LSM6DSFaultTests.ramp)
            let stream = IMUStream(imu: rig.imu, line: rig.line, clock: rig.clock)
            try stream.start(IMUConfiguration(outputDataRate: 12.5, accelerometerRange: 2, fifoWatermark: 7, gyroscopeEnabled: false))
            var samples: [IMUSample] = []
            var gaps: [StreamGap] = []
            var count = 0
            for round in 0..<6 {
                let until = rig.clock.nowNanoseconds + 3_000_000_000 + UInt64(round) * 170_000_000
                while rig.clock.nowNanoseconds < until || !rig.imu.taggedStateKnown { gaps += stream.step(into: &samples) }
                guard strays else { continue }
                let drains = rig.imu.watermarkDrains
                _ = try rig.imu.drain(into: &samples, edges: [EdgeEvent(timestampNanoseconds: rig.clock.nowNanoseconds, kind: .rising)])
                if rig.imu.watermarkDrains > drains { count += 1 }
            }
            let end = rig.clock.nowNanoseconds + 3_000_000_000
            while rig.clock.nowNanoseconds < end { gaps += stream.step(into: &samples) }
            return (samples, gaps, stream.takeNotices().map(\.message), count)
        }
        let clean = try run(strays: false)
        let stray = try run(strays: true)
        // So soon after a read the FIFO cannot have reached the threshold: a status read, never a
        // burst past its end (``LSM6DS/fifoFilledToThreshold(now:threshold:configuration:)``).
        #expect(stray.strays == 0)
        #expect(stray.gaps.isEmpty, "\(stray.gaps)")
        #expect(stray.notices.isEmpty, "\(stray.notices)")
        let n = min(clean.samples.count, stray.samples.count)
        // The run with strays may end holding samples until a timestamp word (32 at most).
        #expect(n > 300 && stray.samples.count + 33 >= clean.samples.count, "\(stray.samples.count) and \(clean.samples.count) samples")
        let differing = zip(clean.samples, stray.samples).filter { $0.timestampNanoseconds != $1.timestampNanoseconds || $0.acceleration != $1.acceleration }
        #expect(differing.isEmpty, "\(differing.count) of \(n) samples differ, the first \(differing.first.map { "\($0)" } ?? "")")
    }

    /// A stray edge just after a drain: the FIFO cannot hold the threshold yet, so the drain reads
    /// the status (it ran a watermark read past the end of the FIFO and got zeros, which the
    /// zeros' doubt covered until the chip sampled on during the burst: StrayEdgeTests), and
    /// nothing is lost: no gap, every sample timed right.
    @Test(arguments: [false, true])
    func aStrayEdgeAfterADrainLosesNothing(compression: Bool) throws {
        let r = try run(compression: compression) { rig, _, imu, samples in
            let edge = EdgeEvent(timestampNanoseconds: rig.clock.nowNanoseconds, kind: .rising)
            let result = try imu.drain(into: &samples, edges: [edge])
            #expect(result.sampleCount < 16, "the FIFO held less than the threshold")
        }
        let label = "lsm6dso, compression \(compression), stray edge"
        #expect(r.watermarkReads == 0, "\(label)")
        LSM6DSFaultTests.check(r.samples, origin: r.origin, label: label)
        #expect(r.gaps.isEmpty, "\(label): \(r.gaps)")
    }
}

/// FIFO reads that come back as zeros at seeded random times (one to three in a row, every 0.3 to
/// 1.8 s), with a slow storm in half the runs: every sample that comes out holds the value its
/// timestamp says, in order. Samples held in doubt after a zeroed read were stamped at the
/// timeline's origin (seconds back) when the slot counter had also shown a jump
/// (`UInt64?.map(Double.init)` is `Double(bitPattern:)`), and four slots lost before a timestamp
/// word 28 slots on went unseen (the word check's tolerance was 9 periods there), leaving the
/// held samples 4 periods off; and when a second zeroed read came while samples were held, slots
/// lost after the first of them were taken as lost before them (4 and 16 periods off).
@Suite struct ZeroedReadFuzzTests {
    /// Seeds 6, 8, 14 and 33 at 833 Hz, watermark 16: with compression a timestamp word read
    /// before a zeroed read waited in the decompressor for its slot's later words, was handed on
    /// after the doubt was raised and settled it as "nothing lost"; the 44 slots lost after it
    /// (a multiple of four: TAG_CNT cannot show it) put the samples after them 52 ms early.
    @Test(arguments: [(104.0, UInt64(1), 4), (104.0, UInt64(2), 48), (833.0, UInt64(5), 16), (833.0, UInt64(5), 48), (12.5, UInt64(2), 4), (104.0, UInt64(5), 16),
                      (833.0, UInt64(6), 16), (833.0, UInt64(8), 16), (833.0, UInt64(14), 16), (833.0, UInt64(33), 16)], [false, true])
    func samplesAfterZeroedReadsAreTimedRight(run: (rate: Double, seed: UInt64, watermark: Int), compression: Bool) throws {
        let (rig, bus, imu) = zeroingLSM6DS(.lsm6dso, compression: compression)
        if run.seed % 2 == 1 {
            rig.line.storms = [SimulatedInterruptLine.Storm(window: 1_000_000_000...12_000_000_000, periodNanoseconds: 13_000_000 + run.seed * 7_000_000)]
        }
        let stream = IMUStream(imu: imu, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: run.rate, accelerometerRange: 2, fifoWatermark: run.watermark))
        var samples: [IMUSample] = []
        var zeroed = 0
        var state = run.seed &* 0x9E37_79B9_7F4A_7C15 &+ 1
        var nextZero = rig.clock.nowNanoseconds + 500_000_000
        while rig.clock.nowNanoseconds < 20_000_000_000 {
            if rig.clock.nowNanoseconds >= nextZero {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                bus.count = Int((state >> 33) % 3) + 1
                zeroed += bus.count
                nextZero = rig.clock.nowNanoseconds + 300_000_000 + (state >> 20) % 1_500_000_000
            }
            _ = stream.step(into: &samples)
        }
        let label = "\(run.rate) Hz, watermark \(run.watermark), seed \(run.seed), compression \(compression)"
        #expect(zeroed > 20, "\(label)")
        // At 12.5 Hz most watermark reads are zeroed: few samples are left, but none mistimed.
        #expect(samples.count > Int(run.rate * 19) / (run.rate < 20 ? 10 : 3), "\(label): \(samples.count) samples")
        LSM6DSFaultTests.check(samples, origin: rig.chip.profileStart, label: label)
    }
}

/// An LSM6DS on the ramp profile behind a bus that can zero its FIFO data reads (FIFO_DATA_OUT_TAG
/// 0x78 on the DSO generation, FIFO_DATA_OUT_L 0x3E on the DS3 generation).
func zeroingLSM6DS(_ variant: LSM6DS.Variant, compression: Bool) -> (LSM6DSRig, ZeroingBus, LSM6DS) {
    let rig = LSM6DSRig(variant, profile: LSM6DSFaultTests.ramp)
    let bus = ZeroingBus(rig.bus, register: variant.generation == .dso ? 0x78 : 0x3E)
    let imu = LSM6DS(bus: bus, address: I2CAddress(UInt8(0x6A)), clock: rig.clock)
    imu.fifoCompression = compression
    return (rig, bus, imu)
}
