import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// Words after zeros inside one tagged-FIFO watermark read (``LSM6DS/taggedResumption(after:words:configuration:)``)
/// beyond ``ZeroedWatermarkReadTests``' 833 Hz, watermark 16: a larger watermark (more words, and
/// timestamp words, after the zeros in the same read), the accelerometer alone, and the low rates
/// where the next timestamp word is seconds away. The samples after the zeros are held until a
/// timestamp word says whether slots were lost among them (a multiple of four the two-bit TAG_CNT
/// cannot see): none may come out mistimed or, with compression, decoded from a lost reference.
@Suite struct ResumedWatermarkReadTests {
    /// 20 rounds on the ramp profile, each ending with a watermark read whose words `zeroed` come
    /// back as zeros after the chip popped them (SDA held low for part of the burst).
    static func run(rate: Double, watermark: Int, compression: Bool, gyroscope: Bool, zeroed: Range<Int>) throws
        -> (samples: [IMUSample], gaps: [StreamGap], watermarkReads: Int, origin: UInt64) {
        let (rig, bus, imu) = zeroingLSM6DS(.lsm6dso, compression: compression)
        let stream = IMUStream(imu: imu, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: rate, accelerometerRange: 2, fifoWatermark: watermark, gyroscopeEnabled: gyroscope))
        let batch = UInt64(Double(watermark) / rate * 1e9)
        var samples: [IMUSample] = []
        var gaps: [StreamGap] = []
        var watermarkReads = 0
        for round in 0..<20 {
            // A different phase each round against the 32-slot timestamp batch.
            let until = rig.clock.nowNanoseconds + max(150_000_000, 2 * batch) + UInt64(round) * UInt64(1.6e9 / rate)
            while rig.clock.nowNanoseconds < until || !imu.taggedStateKnown { gaps += stream.step(into: &samples) }
            let drains = imu.watermarkDrains
            bus.zeroedBytes = zeroed.lowerBound * LSM6DS.TaggedFIFO.wordLength..<zeroed.upperBound * LSM6DS.TaggedFIFO.wordLength
            bus.count = 1
            while bus.count > 0 { gaps += stream.step(into: &samples) }
            if imu.watermarkDrains > drains { watermarkReads += 1 }
        }
        // Long enough for two more timestamp words at any rate.
        let end = rig.clock.nowNanoseconds + max(300_000_000, UInt64(70e9 / rate))
        while rig.clock.nowNanoseconds < end { gaps += stream.step(into: &samples) }
        return (samples, gaps, watermarkReads, rig.chip.profileStart)
    }

    static func expectRight(_ r: (samples: [IMUSample], gaps: [StreamGap], watermarkReads: Int, origin: UInt64), gyroscope: Bool, label: String) {
        #expect(r.watermarkReads >= 10, "\(label): only \(r.watermarkReads) of the zeroed reads were watermark reads")
        LSM6DSFaultTests.check(r.samples, origin: r.origin, label: label, gyroscope: gyroscope)
        #expect(r.gaps.filter { $0.reason == .busError }.count >= r.watermarkReads, "\(label): \(r.gaps)")
    }

    /// Watermark 32 at 833 Hz (65 words): up to 60 words, two or three timestamp words, after the zeros.
    @Test(arguments: [false, true], [(true, 3..<7), (true, 3..<11), (true, 3..<15), (true, 10..<18), (false, 3..<7), (false, 5..<9), (false, 3..<15)])
    func samplesAfterZerosInALargeWatermarkReadAreRight(compression: Bool, zeroed: (gyroscope: Bool, words: Range<Int>)) throws {
        let r = try Self.run(rate: 833, watermark: 32, compression: compression, gyroscope: zeroed.gyroscope, zeroed: zeroed.words)
        Self.expectRight(r, gyroscope: zeroed.gyroscope, label: "lsm6dso 833 Hz watermark 32, gyroscope \(zeroed.gyroscope), compression \(compression), words \(zeroed.words) zeroed")
    }

    /// The notifier's low-energy rates, accelerometer only, watermark 8 (the least that takes
    /// watermark reads): four zeroed words hide four slots from TAG_CNT, and the next timestamp
    /// word is up to 32 slots (2.6 s at 12.5 Hz) away.
    @Test(arguments: [12.5, 26], [1..<5, 2..<7, 0..<4])
    func samplesAfterZerosAtALowRateAreRight(rate: Double, zeroed: Range<Int>) throws {
        let r = try Self.run(rate: rate, watermark: 8, compression: false, gyroscope: false, zeroed: zeroed)
        Self.expectRight(r, gyroscope: false, label: "lsm6dso \(rate) Hz watermark 8, accelerometer only, words \(zeroed) zeroed")
    }
}

/// Notes when each read of one register began and ended (virtual time).
final class ReadTimingBus: I2CBus {
    let inner: EmulatedI2CBus
    let register: UInt8
    let clock: VirtualClock
    var reads: [ClosedRange<UInt64>] = []
    init(_ inner: EmulatedI2CBus, register: UInt8, clock: VirtualClock) { self.inner = inner; self.register = register; self.clock = clock }
    var path: String { inner.path }
    var maximumReadLength: Int? { inner.maximumReadLength }
    func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
        let start = clock.nowNanoseconds
        try inner.transfer(&operations, address: address)
        if operations.first?.bytes.first == register { reads.append(start...clock.nowNanoseconds) }
    }
}

/// A brown-out (``LSM6DSEmulator/powerOnReset()``) while the tagged FIFO is being read: the FIFO
/// is gone, the rest of the burst reads zeros, and the reset chip (sensors off, FIFO in bypass)
/// writes no word after them, so no read goes on past the zeros with words from it. Every
/// sample emitted matches the ramp at its timestamp, and the reset is a gap.
@Suite struct TaggedBrownOutMidBurstTests {
    @Test(arguments: [false, true], [false, true])
    func theZeroedTailOfABurstIsNotSamples(compression: Bool, gyroscope: Bool) throws {
        let config = IMUConfiguration(outputDataRate: 833, accelerometerRange: 2, fifoWatermark: 16, gyroscopeEnabled: gyroscope)
        var inside = 0
        // Resets every 0.75 ms over 75 ms (a drain cycle is 19 ms at watermark 16, about three
        // times as long compressed), so several fall inside a burst (33 words of 7 bytes: 5.2 ms
        // at 400 kHz; 17 words with the accelerometer alone).
        for k in 0..<100 {
            let rig = LSM6DSRig(.lsm6dso, profile: LSM6DSFaultTests.ramp)
            let bus = ReadTimingBus(rig.bus, register: LSM6DS.TaggedFIFO.dataRegister, clock: rig.clock)
            let imu = LSM6DS(bus: bus, address: I2CAddress(UInt8(0x6A)), clock: rig.clock)
            imu.fifoCompression = compression
            let stream = IMUStream(imu: imu, line: rig.line, clock: rig.clock)
            try stream.start(config)
            let reset = rig.clock.nowNanoseconds + 1_000_000_000 + UInt64(k) * 750_000
            rig.chip.scheduledResets = [reset]
            var gaps: [StreamGap] = []
            var emitted = 0
            let label = "lsm6dso gyroscope \(gyroscope) compression \(compression), reset at +\(Double(k) * 0.75) ms"
            _ = try runLSM6DSStream(rig, seconds: 1.6, config: config, gaps: &gaps, samples: &emitted, stream: stream, label: label)
            #expect(gaps.contains { $0.reason == .chipReset }, "\(label): \(gaps)")
            if bus.reads.contains(where: { $0.contains(reset) && $0.upperBound > reset }) { inside += 1 }
            #expect(emitted > 800, "\(label): \(emitted) samples")
        }
        // Some resets fell inside a FIFO read, or the sweep tested nothing.
        #expect(inside > 3, "\(inside) resets fell inside a FIFO read")
    }
}

/// As ``ZeroedReadFuzzTests``, but each spoiled read comes back with a seeded run of whole words
/// zeroed somewhere inside it (the chip popped them), the words around it intact: zeros then
/// words in one read, as a read past the end of the FIFO also looks
/// (``LSM6DS/taggedResumption(after:words:configuration:)``). A slow storm in half the runs
/// brings such reads past the end as well. Every sample that comes out holds the value its
/// timestamp says, in order.
@Suite struct ZeroedRunFuzzTests {
    @Test(arguments: [(833.0, UInt64(1), 16, true), (833.0, UInt64(2), 32, true), (833.0, UInt64(3), 16, false), (416.0, UInt64(4), 16, true),
                      (104.0, UInt64(5), 16, true), (104.0, UInt64(6), 8, false), (26.0, UInt64(7), 8, false), (12.5, UInt64(9), 8, false),
                      (833.0, UInt64(11), 35, false), (208.0, UInt64(13), 24, true)], [false, true])
    func samplesAfterZeroedRunsAreRight(run: (rate: Double, seed: UInt64, watermark: Int, gyroscope: Bool), compression: Bool) throws {
        let (rig, bus, imu) = zeroingLSM6DS(.lsm6dso, compression: compression)
        if run.seed % 2 == 1 {
            rig.line.storms = [SimulatedInterruptLine.Storm(window: 1_000_000_000...20_000_000_000, periodNanoseconds: 11_000_000 + run.seed * 5_000_000)]
        }
        let stream = IMUStream(imu: imu, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: run.rate, accelerometerRange: 2, fifoWatermark: run.watermark, gyroscopeEnabled: run.gyroscope))
        var samples: [IMUSample] = []
        var gaps: [StreamGap] = []
        var spoiled = 0
        var state = run.seed &* 0x9E37_79B9_7F4A_7C15 &+ 3
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 33 }
        let seconds: UInt64 = run.rate < 50 ? 60 : 20
        var nextSpoil = rig.clock.nowNanoseconds + 500_000_000
        let words = run.watermark * (run.gyroscope ? 2 : 1) + 2
        while rig.clock.nowNanoseconds < seconds * 1_000_000_000 {
            if bus.count == 0, rig.clock.nowNanoseconds >= nextSpoil {
                let first = Int(next() % UInt64(words))
                let length = Int(next() % 12) + 1
                bus.zeroedBytes = first * 7..<(first + length) * 7
                bus.count = 1
                spoiled += 1
                nextSpoil = rig.clock.nowNanoseconds + 200_000_000 + next() % 1_200_000_000 + (run.rate < 50 ? 1_000_000_000 : 0)
            }
            gaps += stream.step(into: &samples)
        }
        let label = "\(run.rate) Hz, watermark \(run.watermark), gyroscope \(run.gyroscope), seed \(run.seed), compression \(compression)"
        #expect(spoiled > 15, "\(label)")
        #expect(samples.count > Int(run.rate * Double(seconds)) / 4, "\(label): \(samples.count) samples")
        LSM6DSFaultTests.check(samples, origin: rig.chip.profileStart, label: label, gyroscope: run.gyroscope)
    }
}

/// The loss a zeroed run inside a watermark read hides is counted in full: six slots (12 words,
/// gyroscope and accelerometer) show in TAG_CNT as a jump of two, and the next timestamp word
/// shows the other four.
@Suite struct ZeroedRunLossCountTests {
    @Test(arguments: [3..<11, 3..<15, 10..<18, 4..<24])
    func theSlotsAZeroedRunHidAreCountedLost(zeroed: Range<Int>) throws {
        let r = try ResumedWatermarkReadTests.run(rate: 833, watermark: 32, compression: false, gyroscope: true, zeroed: zeroed)
        let label = "lsm6dso 833 Hz watermark 32, words \(zeroed) zeroed"
        LSM6DSFaultTests.check(r.samples, origin: r.origin, label: label)
        // Slots missing between consecutive samples, from their timestamps.
        let period = 1e9 / 833
        var missing = 0
        for (a, b) in zip(r.samples, r.samples.dropFirst()) {
            missing += max(0, Int((Double(b.timestampNanoseconds - a.timestampNanoseconds) / period).rounded()) - 1)
        }
        let reported = r.gaps.reduce(0) { $0 + ($1.lostSamples ?? 0) }
        #expect(r.gaps.allSatisfy { $0.lostSamples != nil }, "\(label): \(r.gaps)")
        #expect(abs(reported - missing) <= r.watermarkReads / 4, "\(label): \(missing) slots missing, \(reported) reported lost in \(r.gaps.count) gaps")
    }
}
