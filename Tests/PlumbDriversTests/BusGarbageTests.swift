import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// A flaky bus that returns garbage instead of an error: short reads, all-0x00 or all-0xFF reads,
/// a chip swapped mid-stream, counters that jump, an interrupt line that never stops. Each case
/// must end in a typed error, a reported gap or a recovery: never a trap, a spin, an unbounded
/// buffer or a wrong sample.

/// Streams an LSM6DS rig through the engine for `seconds` of virtual time, checking every sample
/// against the ramp profile (value and timestamp must agree).
@discardableResult
func runLSM6DSStream(_ rig: LSM6DSRig, seconds: Double, config: IMUConfiguration, gaps: inout [StreamGap],
                     samples emitted: inout Int, stream: IMUStream? = nil, label: String) throws -> IMUStream {
    let gyroscope = config.gyroscopeEnabled
    let given = stream
    let stream = stream ?? IMUStream(imu: rig.imu, line: rig.line, clock: rig.clock)
    if given == nil { try stream.start(config) }
    let end = rig.clock.nowNanoseconds + UInt64(seconds * 1e9)
    var samples: [IMUSample] = []
    var last: UInt64 = 0
    var steps = 0
    while rig.clock.nowNanoseconds < end {
        samples.removeAll(keepingCapacity: true)
        gaps += stream.step(into: &samples)
        LSM6DSFaultTests.check(samples, origin: rig.chip.profileStart, label: label, after: last, gyroscope: gyroscope)
        if let l = samples.last { last = l.timestampNanoseconds }
        emitted += samples.count
        steps += 1
        if steps > Int(seconds * 20_000) + 1000 { Issue.record("\(label): the stream did not advance virtual time"); break }
    }
    return stream
}

@Suite struct ShortReadTests {
    let config = IMUConfiguration(outputDataRate: 1000, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 16)

    /// A register read that comes back shorter than asked (FIFO_COUNT, INT_STATUS, the
    /// configuration read-back) is a bus error, retried, not an index out of range.
    @Test(arguments: [0x72, 0x3A, 0x19, 0x6A] as [UInt8])
    func mpuShortRegisterReadIsRetried(register: UInt8) throws {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig("mpu6050", profile: profile, errorModel: nil)
        rig.bus.faults = [.init(.readOf(register), effect: .shortRead(0), count: 2, window: 2_000_000_000...3_000_000_000),
                          .init(.readOf(register), effect: .shortRead(1), count: 2, window: 2_000_000_000...3_000_000_000)]
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        let stream = try runStream(rig, profile: profile, config: config, seconds: 4, check: &check, gaps: &gaps)
        #expect(check.failures.isEmpty)
        #expect(check.checked > 3900)
        #expect(gaps.allSatisfy { $0.reason != .chipReset })
        #expect(stream.statistics.reinitialisations == 0)
    }

    /// A FIFO burst that comes back short: the records are lost (a `.busError` gap), the FIFO is
    /// reset, and no sample is decoded from a partial record.
    @Test func mpuShortFIFOReadIsAGap() throws {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig("mpu6050", profile: profile, errorModel: nil)
        rig.bus.faults = [.init(.readOf(0x74), effect: .shortRead(17), count: 1, window: 2_000_000_000...3_000_000_000)]
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        try runStream(rig, profile: profile, config: config, seconds: 4, check: &check, gaps: &gaps)
        #expect(gaps.map(\.reason) == [.busError])
        #expect(check.failures.isEmpty)
        #expect(check.checked > 3900)
    }

    /// The same on both LSM6DS FIFO formats: a short status read is retried, a short FIFO burst
    /// is a reported gap, and every sample still matches its timestamp.
    @Test(arguments: [LSM6DS.Variant.lsm6dso, .lsm6ds3])
    func lsm6dsShortReadsAreGapsNotTraps(variant: LSM6DS.Variant) throws {
        let data: UInt8 = variant.generation == .dso ? 0x78 : 0x3E
        for (register, count) in [(data, 9), (data, 0), (UInt8(0x3A), 1)] {
            let rig = LSM6DSRig(variant, profile: LSM6DSFaultTests.ramp)
            rig.bus.faults = [.init(.readOf(register), effect: .shortRead(count), count: 1, window: 2_000_000_000...3_000_000_000)]
            var gaps: [StreamGap] = []
            var emitted = 0
            let label = "\(variant.name) short read of 0x\(hex(register)) (\(count) bytes)"
            let stream = try runLSM6DSStream(rig, seconds: 4, config: IMUConfiguration(outputDataRate: 208, accelerometerRange: 2, fifoWatermark: 16),
                                             gaps: &gaps, samples: &emitted, label: label)
            #expect(emitted > 700, "\(label)")
            #expect(gaps.allSatisfy { $0.reason == .busError }, "\(label): \(gaps)")
            if register == data { #expect(!gaps.isEmpty, "\(label): the lost read is reported") }
            #expect(stream.statistics.reinitialisations == 0, "\(label)")
        }
    }

    /// The HAL's register helpers refuse a short read with EIO, naming the bus and address.
    @Test func halRefusesAShortRead() throws {
        let clock = VirtualClock()
        let bus = EmulatedI2CBus(clock: clock)
        bus.attach(RegisterAccessTests.Register(), at: I2CAddress(UInt8(0x6A)))
        bus.faults = [.init(.always, effect: .shortRead(3))]
        do {
            _ = try bus.readRegisters(0x22, count: 12, address: I2CAddress(UInt8(0x6A)))
            Issue.record("a 3-byte answer to a 12-byte read went unnoticed")
        } catch {
            #expect(error.errno == Errno.EIO)
            #expect(error.description == "short read at 0x6a on simulated bus: 3 of 12 bytes from register 0x22")
        }
    }
}

@Suite struct TimestampJumpTests {
    typealias W = LSM6DS.FIFOWord
    /// 104 Hz: 384.6 ticks of 25 µs per slot.
    static let period = 1e9 / 104 / 25_000

    func assembler(bits: Int = 32) -> LSM6DS.SampleAssembler {
        LSM6DS.SampleAssembler(accelerometerScale: 0.122e-3 * 9.80665, gyroscopeScale: 17.5e-3 * .pi / 180,
                               gyroscopeEnabled: true, temperatureLSBPerDegree: 256,
                               timebase: .init(bits: bits, originNanoseconds: 1_000_000_000),
                               nominalPeriodTicks: Self.period)
    }

    /// Slots `first..<first + count`, a timestamp word every fourth slot giving `ticks(slot)`.
    func slots(_ first: Int, _ count: Int, ticks: (Int) -> UInt32) -> [W] {
        var words: [W] = []
        for k in first..<(first + count) {
            let s = UInt8(k & 3)
            if k % 4 == 0 { words.append(W(slot: s, entry: .timestamp(ticks(k)))) }
            words += [W(slot: s, entry: .gyroscope(.zero)), W(slot: s, entry: .accelerometer(SIMD3(0, 0, 8197)))]
        }
        return words
    }

    func expectEvenlySpaced(_ out: [IMUSample], count: Int, _ comment: Comment) {
        #expect(out.count == count, comment)
        // Each timestamp word anchors its slot to the whole tick: ±25 µs.
        let spacing = Self.period * 25_000
        for (a, b) in zip(out, out.dropFirst()) {
            let d = Double(b.timestampNanoseconds) - Double(a.timestampNanoseconds)
            #expect(abs(d - spacing) < 30_000, "\(comment): \(a.timestampNanoseconds) → \(b.timestampNanoseconds)")
        }
    }

    /// The counter restarts from zero mid-stream (a stray TIMESTAMP2 = 0xAA, a glitch): it is not
    /// a wrap of the 32-bit counter (29.8 h) or the 24-bit one (419 s); the samples continue at
    /// the slot period.
    @Test(arguments: [32, 24])
    func counterRestartIsNotAWrap(bits: Int) {
        var asm = assembler(bits: bits)
        var out: [IMUSample] = []
        asm.consume(slots(0, 40) { UInt32(100_000 + Double($0) * Self.period) }, into: &out)
        asm.consume(slots(40, 40) { UInt32(Double($0 - 40) * Self.period + 7) }, into: &out)
        expectEvenlySpaced(out, count: 80, "\(bits)-bit counter restarted")
        #expect(asm.timestampJumps == 1)
    }

    /// The same restart with the host's read times known (as the driver gives them): the host's
    /// clock moved by a drain's time, not by the counter's backwards step, so it is still a restart.
    @Test(arguments: [32, 24])
    func counterRestartIsNotAWrapWithTheHostClockKnown(bits: Int) {
        var asm = assembler(bits: bits)
        var out: [IMUSample] = []
        asm.readNanoseconds = 5_000_000_000
        asm.consume(slots(0, 40) { UInt32(100_000 + Double($0) * Self.period) }, into: &out)
        asm.readNanoseconds = 5_400_000_000
        asm.consume(slots(40, 40) { UInt32(Double($0 - 40) * Self.period + 7) }, into: &out)
        expectEvenlySpaced(out, count: 80, "\(bits)-bit counter restarted")
        #expect(asm.timestampJumps == 1)
    }

    /// The reader paused for `seconds` (a stopped process) while the 24-bit counter (419 s range)
    /// ran on; the FIFO overran, so the timeline re-anchors on the next word. Its step from the last
    /// word is more than half the range (or the range passed whole): the host's clock, which moved
    /// on as much, says the counter ran on, so the samples keep their counter times (a pause of
    /// 300 s was taken for a restart, and every later sample was stamped 300 s early).
    @Test(arguments: [300.0, 1000.0])
    func aLongPauseIsNotARestart(seconds: Double) {
        var asm = assembler(bits: 24)
        var out: [IMUSample] = []
        let time = { (k: Int) in UInt32(truncatingIfNeeded: Int((100_000 + Double(k) * Self.period).rounded(.down))) & 0xFF_FFFF }
        let origin = 1_000_000_000.0
        let read = { (k: Int) in UInt64(origin + (100_000 + Double(k) * Self.period) * 25_000) + 50_000_000 }
        asm.readNanoseconds = read(40)
        asm.consume(slots(0, 40, ticks: time), into: &out)
        asm.markDiscontinuity()
        let resume = 40 + Int((seconds * 104).rounded())
        asm.readNanoseconds = read(resume + 40)
        out.removeAll()
        asm.consume(slots(resume, 40, ticks: time), into: &out)
        #expect(out.count == 40)
        let expected = origin + (100_000 + Double(resume) * Self.period) * 25_000
        let error = (Double(out.first?.timestampNanoseconds ?? 0) - expected) / 1e9
        #expect(abs(error) < 30e-6, "first sample after a \(seconds) s pause is \(error) s off")
        #expect(asm.timestampJumps == 0)
    }

    /// One corrupted timestamp word (a flipped high bit) moves neither its own slot nor any later one.
    @Test(arguments: [0x0100_0000, 0x8000_0000, 0x0000_4000] as [UInt32])
    func oneCorruptedTimestampIsIgnored(flip: UInt32) {
        var asm = assembler()
        var out: [IMUSample] = []
        asm.consume(slots(0, 80) { k in
            let t = UInt32(100_000 + Double(k) * Self.period)
            return k == 40 ? t ^ flip : t
        }, into: &out)
        expectEvenlySpaced(out, count: 80, "bit flip 0x\(String(flip, radix: 16))")
        #expect(asm.timestampJumps == 1) // held, then dropped when the next word agreed with the one before
    }

    /// Eight slots lost where the two-bit slot counter cannot see it (words popped and lost, a
    /// multiple of four): the next word is ahead of the slot count, the one after agrees with it,
    /// so the counter is right and the slots are counted lost; the timeline follows the counter
    /// (it used to stay eight slots behind for good once a word ahead was taken for corruption).
    @Test func slotsLostUnseenFollowTheCounter() {
        var asm = assembler()
        var out: [IMUSample] = []
        let time = { (k: Int) in UInt32(100_000 + Double(k) * Self.period) }
        asm.consume(slots(0, 40, ticks: time), into: &out)
        asm.consume(slots(48, 40, ticks: time), into: &out)
        #expect(asm.lostSlots == 8)
        #expect(out.count == 80)
        // From the confirming word (slot 52) on, every sample sits at its counter time.
        for (i, s) in out.enumerated().dropFirst(44) {
            let k = i + 8
            let expected = 1e9 + (100_000 + Double(k) * Self.period) * 25_000
            #expect(abs(Double(s.timestampNanoseconds) - expected) < 30_000, "slot \(k)")
        }
    }

    /// Garbage timestamps for a long time (every word random): the unwrapped count never runs away
    /// (each backwards step used to add a whole counter period, until the conversion to UInt64 trapped).
    @Test func garbageTimestampsStayBounded() {
        var asm = assembler()
        var out: [IMUSample] = []
        var random = SeededRandom(seed: 7)
        for block in 0..<1000 {
            asm.consume(slots(block * 40, 40) { _ in UInt32(truncatingIfNeeded: random.next()) }, into: &out)
            out.removeAll(keepingCapacity: true)
        }
        asm.consume(slots(40_000, 8) { UInt32(Double($0) * Self.period) }, into: &out)
        // Without the host's window (the driver gives one) the first word anchors wherever it
        // says, and two garbage words that happen to agree may move the timeline by up to half
        // the counter's range each time: bounded, where every backwards step used to add a whole
        // counter period (107 374 s).
        let seconds = (Double(out.last?.timestampNanoseconds ?? 0) - 1e9) / 1e9
        #expect(seconds < 10 * 107_374, "\(seconds) s")
    }
}

@Suite struct TimestampRestartStreamTests {
    /// A stray write restarts the chip's counter mid-stream; the stream's samples keep their true
    /// times (the ramp profile checks every one).
    @Test(arguments: [LSM6DS.Variant.lsm6dso, .lsm6ds3])
    func counterRestartMidStreamKeepsTheTimes(variant: LSM6DS.Variant) throws {
        let rig = LSM6DSRig(variant, profile: LSM6DSFaultTests.ramp)
        let config = IMUConfiguration(outputDataRate: 208, accelerometerRange: 2, fifoWatermark: 16)
        var gaps: [StreamGap] = []
        var emitted = 0
        let label = "\(variant.name) counter restart"
        let stream = try runLSM6DSStream(rig, seconds: 2, config: config, gaps: &gaps, samples: &emitted, label: label)
        try rig.bus.writeRegister(LSM6DS.Register.timestamp2, LSM6DS.timestampResetValue, address: I2CAddress(UInt8(0x6A)))
        try runLSM6DSStream(rig, seconds: 2, config: config, gaps: &gaps, samples: &emitted, stream: stream, label: label)
        #expect(emitted > 780)
        #expect(gaps.isEmpty)
    }
}

@Suite struct ChipSwapTests {
    let config = IMUConfiguration(outputDataRate: 1000, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 16)

    /// Another chip answers at the address mid-stream (a board swapped hot, or a clone that comes
    /// back from a reset with another WHO_AM_I): re-initialising identifies it again, says so, and
    /// drives it with its own row of the table (here its temperature formula: driven as an
    /// MPU-6050 an MPU-6500 would read 15 °C off).
    @Test func mpuSwappedForAnotherPartIsIdentifiedAgain() throws {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig("mpu6050", profile: profile, errorModel: nil)
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        let stream = try runStream(rig, profile: profile, config: config, seconds: 2, check: &check, gaps: &gaps)
        let other = MPU6050Emulator(variant: MPU6050.variant(named: "mpu6500")!, profile: profile)
        other.temperature = 40
        other.profileStart = rig.chip.profileStart
        other.interruptLine = rig.line
        other.advance(to: rig.clock.nowNanoseconds)
        rig.bus.attach(other, at: I2CAddress(0x68))
        rig.line.source = other
        var after: [IMUSample] = []
        for _ in 0..<400 { _ = stream.step(into: &after) }
        #expect(stream.statistics.reinitialisations == 1)
        #expect(rig.driver.variant?.key == "mpu6500")
        #expect(stream.takeNotices().map(\.message).contains(
            "WHO_AM_I at 0x68 on simulated bus changed from 0x68 (MPU-6050) to 0x70 (MPU-6500): another chip answers; driving it as MPU-6500"))
        #expect(after.count > 1000)
        if let t = after.last?.temperature { #expect(abs(t - 40) < 0.5, "\(t) °C") } else { Issue.record("no temperature") }
    }

    /// An LSM6DSO replaced by an LSM6DS3 at the same address: with the old row the stream would
    /// re-initialise for ever with the wrong register map; identified again, it streams on.
    @Test func lsm6dsSwappedForAnotherGenerationStreamsOn() throws {
        let rig = LSM6DSRig(.lsm6dso, profile: LSM6DSFaultTests.ramp)
        let config = IMUConfiguration(outputDataRate: 208, accelerometerRange: 2, fifoWatermark: 16)
        var gaps: [StreamGap] = []
        var emitted = 0
        let stream = try runLSM6DSStream(rig, seconds: 2, config: config, gaps: &gaps, samples: &emitted, label: "before the swap")
        let other = LSM6DSEmulator(variant: .lsm6ds3, clock: rig.clock, profile: LSM6DSFaultTests.ramp, errorModel: .ideal)
        other.profileStart = rig.chip.profileStart
        other.interruptLine = rig.line
        rig.bus.attach(other, at: I2CAddress(UInt8(0x6A)))
        rig.line.source = other
        emitted = 0
        try runLSM6DSStream(rig, seconds: 3, config: config, gaps: &gaps, samples: &emitted, stream: stream, label: "after the swap")
        #expect(stream.statistics.reinitialisations == 1)
        #expect(rig.imu.variant == .lsm6ds3)
        #expect(emitted > 500)
        #expect(stream.takeNotices().map(\.message).contains {
            $0.hasPrefix("WHO_AM_I at 0x6a on simulated bus changed from 0x6c (LSM6DSO") && $0.hasSuffix("driving it as LSM6DS3/LSM6DS3H/LSM6DS33")
        })
    }
}

@Suite struct PatternMidInstantTests {
    /// A read that starts inside an instant holding the timestamp set (after an overrun dropped the
    /// instant's first sets, after a failed read was skipped to a set boundary, or when FIFO_STATUS3/4
    /// read as garbage): the timestamp goes before the sets of its instant read here, never before
    /// the start of the read (a negative index trapped).
    @Test(arguments: [3, 6])
    func readStartingInsideAnInstantWithItsTimestamp(position: Int) throws {
        let pattern = LSM6DS.PatternFIFO(gyroscopeDecimation: 1, accelerometerDecimation: 1, timestampDecimation: 8)
        var bytes: [UInt8] = []
        if position == 3 { bytes += [0x0B, 0, 0, 0, 0, 0] }  // instant 0 accelerometer
        bytes += [0x00, 0x01, 0, 0xFF, 0, 0]                 // instant 0 timestamp 0x0100FF
        bytes += [0x0C, 0, 0, 0, 0, 0]                       // instant 1 gyroscope
        bytes += [0x0D, 0, 0, 0, 0, 0]                       // instant 1 accelerometer
        var words: [LSM6DS.FIFOWord] = [LSM6DS.FIFOWord(slot: 3, entry: .other(tag: 0))] // earlier content stays first
        let next = try pattern.decode(bytes, position: position, slot: 2, into: &words)
        var expected: [LSM6DS.FIFOWord] = [.init(slot: 3, entry: .other(tag: 0)), .init(slot: 2, entry: .timestamp(0x0100FF))]
        if position == 3 { expected.append(.init(slot: 2, entry: .accelerometer(SIMD3(0x0B, 0, 0)))) }
        expected += [.init(slot: 3, entry: .gyroscope(SIMD3(0x0C, 0, 0))), .init(slot: 3, entry: .accelerometer(SIMD3(0x0D, 0, 0)))]
        #expect(words == expected)
        #expect(next.position == 15)
    }
}

@Suite struct FIFOCountGarbageTests {
    let config = IMUConfiguration(outputDataRate: 1000, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 16)

    /// FIFO_COUNT reads 0xFFFF once (13 bits: 8191 bytes) although the FIFO holds 1024 at most:
    /// a corrupted read, not an overflow. The FIFO is not thrown away and no gap of 682 samples
    /// is invented; the next drain reads the count again.
    @Test(arguments: ["mpu6050", "mpu6500", "icm20602", "icm20689"])
    func mpuImpossibleFIFOCountIsRereadNotAnOverflow(key: String) throws {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig(key, profile: profile, errorModel: nil)
        rig.bus.faults = [.init(.readOf(MPU6050.Register.fifoCountH), effect: .reads(0xFF), count: 1, window: 2_000_000_000...3_000_000_000)]
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        let stream = try runStream(rig, profile: profile, config: config, seconds: 4, check: &check, gaps: &gaps)
        #expect(gaps.isEmpty, "\(gaps)")
        #expect(check.failures.isEmpty)
        #expect(abs(check.checked - 4000) <= 20)
        #expect(stream.statistics.failedDrains == 1)
    }
}

@Suite struct OutOfOrderTagTests {
    /// Valid tags in the wrong order (two words of the tagged FIFO swapped): every sample emitted
    /// still matches its timestamp, and what cannot be placed is a reported gap, with and without
    /// compression.
    @Test(arguments: [false, true], [(0, 1), (0, 2), (1, 3), (2, 6), (0, 9)])
    func swappedWordsNeverGiveAWrongSample(compression: Bool, pair: (Int, Int)) throws {
        let rig = LSM6DSRig(.lsm6dso, profile: LSM6DSFaultTests.ramp)
        rig.imu.fifoCompression = compression
        let config = IMUConfiguration(outputDataRate: 833, accelerometerRange: 2, fifoWatermark: 16)
        var gaps: [StreamGap] = []
        var emitted = 0
        let label = "compression \(compression), words \(pair) swapped"
        let stream = try runLSM6DSStream(rig, seconds: 1, config: config, gaps: &gaps, samples: &emitted, label: label)
        #expect(rig.imu.isCompressingFIFO == compression, "\(label)")
        for _ in 0..<5 {
            // Let some words gather, then swap two of them.
            var swapped = false
            for _ in 0..<40 where !swapped {
                rig.clock.advance(by: 1_000_000)
                swapped = rig.chip.swapWaitingWords(pair.0, pair.1)
            }
            #expect(swapped, "\(label)")
            try runLSM6DSStream(rig, seconds: 0.2, config: config, gaps: &gaps, samples: &emitted, stream: stream, label: label)
        }
        try runLSM6DSStream(rig, seconds: 1, config: config, gaps: &gaps, samples: &emitted, stream: stream, label: label)
        #expect(emitted > 2 * 833 - 200, "\(label)")
        #expect(stream.statistics.reinitialisations == 0, "\(label)")
        #expect(gaps.allSatisfy { $0.reason == .busError }, "\(label): \(gaps.map(\.reason))")
        // Swapping the first two words may only exchange a slot's own words (harmless); any other
        // pair moves a word to another slot, and what it costs is reported.
        if pair != (0, 1) { #expect(!gaps.isEmpty, "\(label)") }
    }
}

@Suite struct CorruptFirstTimestampTests {
    /// The first timestamp word after the FIFO starts (nothing yet to check it against) arrives
    /// with its top byte corrupted: hours in the future. The host clock rules it out, the next
    /// word anchors the timeline, and a polling reader is not put to sleep until then.
    @Test(arguments: [true, false])
    func corruptedFirstTimestampIsRuledOutByTheHostClock(withLine: Bool) throws {
        let rig = LSM6DSRig(.lsm6dso, profile: LSM6DSFaultTests.ramp)
        let stream = IMUStream(imu: rig.imu, line: withLine ? rig.line : nil, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: 208, accelerometerRange: 2, fifoWatermark: 16))
        var corrupted = false
        for _ in 0..<50 where !corrupted {
            rig.clock.advance(by: 1_000_000)
            corrupted = rig.chip.corruptData(ofWaitingWord: 0, byte: 3, mask: 0x40)
        }
        #expect(corrupted)
        var gaps: [StreamGap] = []
        var emitted = 0
        try runLSM6DSStream(rig, seconds: 3, config: .default, gaps: &gaps, samples: &emitted, stream: stream, label: "line \(withLine)")
        #expect(emitted > 3 * 208 - 60, "line \(withLine)")
    }

    /// The assembler, given the host's window of possible sample times, ignores a timestamp word
    /// outside it instead of anchoring the timeline there.
    @Test func assemblerIgnoresATimestampTheHostClockRulesOut() {
        var asm = TimestampJumpTests().assembler()
        asm.plausibleWindow = 1_000_000_000...1_000_000_000 + 60_000_000_000
        var out: [IMUSample] = []
        asm.consume(TimestampJumpTests().slots(0, 40) { k in
            let t = UInt32(100_000 + Double(k) * TimestampJumpTests.period)
            return k == 0 ? t | 0x4000_0000 : t
        }, into: &out)
        // Slots 0–3 wait for the word at slot 4; the rest are timed from it.
        #expect(out.count == 36)
        #expect(out.first?.timestampNanoseconds == 1_000_000_000 + UInt64((100_000 + 4 * TimestampJumpTests.period).rounded(.down)) * 25_000)
        #expect(asm.timestampJumps == 1)
    }
}
