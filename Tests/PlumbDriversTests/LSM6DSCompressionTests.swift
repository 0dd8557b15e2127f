import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// FIFO compression on the tagged FIFO: the byte layouts against hand-computed constants, the
/// decoder against a hand-built word sequence, and the driver + emulator end to end (lossless,
/// cheaper on the bus, overruns and lost edges still handled).
@Suite struct LSM6DSCompressionTests {
    typealias F = LSM6DS.TaggedFIFO

    // MARK: - Layouts

    @Test func threeTimesCompressedWordPacksFiveBitFields() {
        // (1, −1, 2): 00001 | 11111 << 5 | 00010 << 10 = 0x0BE1; (0, 0, −16): 10000 << 10 = 0x4000;
        // (15, 3, −4): 01111 | 00011 << 5 | 11100 << 10 = 0x706F. Little-endian words.
        let b = F.pack3x(SIMD3(1, -1, 2), SIMD3(0, 0, -16), SIMD3(15, 3, -4))
        #expect(b == [0xE1, 0x0B, 0x00, 0x40, 0x6F, 0x70])
        #expect(F.Decompressor.difference(b, at: 0, 0, threex: true) == SIMD3(1, -1, 2))
        #expect(F.Decompressor.difference(b, at: 0, 1, threex: true) == SIMD3(0, 0, -16))
        #expect(F.Decompressor.difference(b, at: 0, 2, threex: true) == SIMD3(15, 3, -4))
    }

    @Test func twoTimesCompressedWordHoldsSignedBytes() {
        let b = F.pack2x(SIMD3(127, -128, 5), SIMD3(-1, 0, 1))
        #expect(b == [0x7F, 0x80, 0x05, 0xFF, 0x00, 0x01])
        #expect(F.Decompressor.difference(b, at: 0, 0, threex: false) == SIMD3(127, -128, 5))
        #expect(F.Decompressor.difference(b, at: 0, 1, threex: false) == SIMD3(-1, 0, 1))
    }

    @Test func fitsChecksTheTwosComplementRange() {
        #expect(F.fits(SIMD3(-16, 15, 0), bits: 5))
        #expect(!F.fits(SIMD3(16, 0, 0), bits: 5))
        #expect(!F.fits(SIMD3(0, -17, 0), bits: 5))
        #expect(F.fits(SIMD3(-128, 127, 0), bits: 8))
        #expect(!F.fits(SIMD3(0, 0, 128), bits: 8))
    }

    // MARK: - Decoder

    /// Slots 0–5 written the way the chip does: timestamp at slot 0; at slot 2 both sensors'
    /// first sample uncompressed (NC_T_2); at slot 3 gyroscope 3xC (slots 1–3) and accelerometer
    /// 2xC (slots 1–2); at slot 5 accelerometer 3xC (3–5); at slot 6 gyroscope 2xC (4–5).
    static let sequence: [UInt8] = [
        0x20, 0xE8, 0x03, 0x00, 0x00, 0x00, 0x00,   // timestamp 1000, TAG_CNT 0
        0x54, 0x64, 0x00, 0x38, 0xFF, 0x2C, 0x01,   // gyro NC_T_2 (0x0A), TAG_CNT 2: (100, −200, 300)
        0x34, 0xE8, 0x03, 0xD0, 0x07, 0x48, 0xF4,   // accel NC_T_2 (0x06), TAG_CNT 2: (1000, 2000, −3000)
        0x6E, 0xE1, 0x0B, 0x00, 0x40, 0x6F, 0x70,   // gyro 3xC (0x0D), TAG_CNT 3
        0x46, 0xFB, 0x06, 0xF9, 0x64, 0x9C, 0x00,   // accel 2xC (0x08), TAG_CNT 3: (−5, 6, −7), (100, −100, 0)
        0x4A, 0xE1, 0x0B, 0x00, 0x40, 0x6F, 0x70,   // accel 3xC (0x09), TAG_CNT 1 (slot 5)
        0x64, 0x7F, 0x80, 0x05, 0xFF, 0x00, 0x01,   // gyro 2xC (0x0C), TAG_CNT 2 (slot 6)
    ]

    @Test func decoderRebuildsEverySlotInOrder() {
        var d = F.Decompressor(gyroscopeEnabled: true)
        var words: [LSM6DS.FIFOWord] = []
        d.decode(Self.sequence, range: 0..<Self.sequence.count, into: &words)
        let g: [SIMD3<Int16>] = [SIMD3(100, -200, 300), SIMD3(101, -201, 302), SIMD3(101, -201, 286),
                                 SIMD3(116, -198, 282), SIMD3(243, -326, 287), SIMD3(242, -326, 288)]
        let a: [SIMD3<Int16>] = [SIMD3(1000, 2000, -3000), SIMD3(995, 2006, -3007), SIMD3(1095, 1906, -3007),
                                 SIMD3(1096, 1905, -3005), SIMD3(1096, 1905, -3021), SIMD3(1111, 1908, -3025)]
        var expected = [LSM6DS.FIFOWord(slot: 0, entry: .timestamp(1000))]
        for i in 0..<6 {
            expected.append(.init(slot: UInt8(i & 3), entry: .gyroscope(g[i])))
            expected.append(.init(slot: UInt8(i & 3), entry: .accelerometer(a[i])))
        }
        #expect(words == expected)
        #expect(d.lostSlots == 0 && d.skippedSamples == 0)
    }

    @Test func aSlotWaitsForItsOtherSensorAcrossDrains() {
        var d = F.Decompressor(gyroscopeEnabled: true)
        var words: [LSM6DS.FIFOWord] = []
        // First drain ends after the gyroscope 3xC: slot 3 has no accelerometer yet.
        d.decode(Self.sequence, range: 0..<35, into: &words)
        #expect(words.count == 1 + 2 * 3)
        words.removeAll()
        d.decode(Self.sequence, range: 35..<Self.sequence.count, into: &words)
        #expect(words.count == 2 * 3)
        #expect(words.first == .init(slot: 3, entry: .gyroscope(SIMD3(116, -198, 282))))
    }

    @Test func afterAResetCompressedWordsWaitForAnUncompressedOne() {
        var d = F.Decompressor(gyroscopeEnabled: false)
        var words: [LSM6DS.FIFOWord] = []
        // An accelerometer 3xC word with no reference: skipped, nothing made up.
        d.decode([0x4A, 0xE1, 0x0B, 0x00, 0x40, 0x6F, 0x70], range: 0..<7, into: &words)
        #expect(words.isEmpty)
        #expect(d.skippedSamples == 3)
        // An NC word (TAG_CNT 2, slot 6 counted from the 3xC's slot 5) restarts decoding; its
        // slot is handed on when a word of a later slot arrives (here a timestamp, TAG_CNT 3).
        d.decode([0x14, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00], range: 0..<7, into: &words)
        #expect(words.isEmpty)
        d.decode([0x26, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00], range: 0..<7, into: &words)
        #expect(words == [.init(slot: 2, entry: .accelerometer(SIMD3(1, 2, 3)))])
        // The three slots the 3xC word covered are losses, reported, not silently dropped.
        #expect(d.takeLostSlots() == 3)
    }

    /// Every uncompressed tag of a compressed stream in its slot, as ST's `fifo_utility.c`
    /// (`st_fifo_decompress`) and Arduino_LSM6DSOX `LSM6DSOXFIFO.cpp` (`decodeWord`) place them:
    /// NC_T_2 at T − 2, NC_T_1 at T − 1, NC at T (T = the word's TAG_CNT slot); a 2xC word's
    /// bytes 0–2 are the T − 2 difference to the sensor's previous sample, bytes 3–5 the T − 1
    /// difference to that. Tag bytes with TAG_PARITY, written out by hand.
    @Test func everyUncompressedTagLandsInItsSlot() {
        let bytes: [UInt8] = [
            0x21, 0xE8, 0x03, 0x00, 0x00, 0x00, 0x00,   // timestamp 1000, TAG_CNT 0
            0x35, 0x0A, 0x00, 0x14, 0x00, 0x1E, 0x00,   // accel NC_T_2 (0x06), TAG_CNT 2: slot 0 (10, 20, 30)
            0x3C, 0x0B, 0x00, 0x15, 0x00, 0x1F, 0x00,   // accel NC_T_1 (0x07), TAG_CNT 2: slot 1 (11, 21, 31)
            0x14, 0x0C, 0x00, 0x16, 0x00, 0x20, 0x00,   // accel NC (0x02), TAG_CNT 2: slot 2 (12, 22, 32)
            0x42, 0x01, 0x01, 0x01, 0xFE, 0x00, 0x05,   // accel 2xC (0x08), TAG_CNT 1 (slot 5): slots 3, 4
            0x12, 0xFF, 0xFF, 0xFE, 0xFF, 0x2C, 0x01,   // accel NC (0x02), TAG_CNT 1: slot 5 (−1, −2, 300)
            0x24, 0xD0, 0x07, 0x00, 0x00, 0x00, 0x00,   // timestamp 2000, TAG_CNT 2 (slot 6)
        ]
        for i in stride(from: 0, to: bytes.count, by: 7) { #expect(F.hasValidParity(bytes[i])) }
        var d = F.Decompressor(gyroscopeEnabled: false)
        var words: [LSM6DS.FIFOWord] = []
        d.decode(bytes, range: 0..<bytes.count, into: &words)
        #expect(words == [
            .init(slot: 0, entry: .timestamp(1000)),
            .init(slot: 0, entry: .accelerometer(SIMD3(10, 20, 30))),
            .init(slot: 1, entry: .accelerometer(SIMD3(11, 21, 31))),
            .init(slot: 2, entry: .accelerometer(SIMD3(12, 22, 32))),
            .init(slot: 3, entry: .accelerometer(SIMD3(13, 23, 33))),
            .init(slot: 0, entry: .accelerometer(SIMD3(11, 23, 38))),
            .init(slot: 1, entry: .accelerometer(SIMD3(-1, -2, 300))),
        ])
        #expect(d.lostSlots == 0 && d.skippedSamples == 0)
    }

    /// The chip's order of a slot's words does not matter: a timestamp written after the sensor
    /// words of its slot still anchors that slot.
    @Test func aTimestampAfterItsSlotsSensorWordsStillAnchorsIt() {
        var d = F.Decompressor(gyroscopeEnabled: false)
        var words: [LSM6DS.FIFOWord] = []
        let bytes: [UInt8] = [
            0x14, 0x01, 0x00, 0x02, 0x00, 0x03, 0x00,   // accel NC, TAG_CNT 2: (1, 2, 3)
            0x24, 0xE8, 0x03, 0x00, 0x00, 0x00, 0x00,   // timestamp 1000, TAG_CNT 2
            0x16, 0x02, 0x00, 0x02, 0x00, 0x03, 0x00,   // accel NC, TAG_CNT 3: (2, 2, 3)
        ]
        d.decode(bytes, range: 0..<bytes.count, into: &words)
        #expect(words == [.init(slot: 2, entry: .timestamp(1000)), .init(slot: 2, entry: .accelerometer(SIMD3(1, 2, 3)))])
    }

    // MARK: - Driver and emulator

    /// A stream from an emulated LSM6DSO with the driver's compression on; `chipCompresses: false`
    /// makes the chip ignore the enable bits, so the two runs differ only in the FIFO's format.
    static func stream(chipCompresses: Bool, profile: MotionProfile, seconds: Double, watermark: Int = 16,
                       seed: UInt64 = 5) throws -> (samples: [IMUSample], gaps: [StreamGap], bytes: Int, sensor: SimulatedSensor, stream: IMUStream) {
        let model = SimulatedChips.model("lsm6dso")!
        let sensor = SimulatedSensor(model: model, profile: profile, seed: seed)
        (sensor.chip as? LSM6DSEmulator)?.ignoresCompression = !chipCompresses
        let imu = LSM6DS(bus: sensor.bus, address: model.address, clock: sensor.clock)
        let stream = IMUStream(imu: imu, line: sensor.line, clock: sensor.clock)
        _ = try stream.start(IMUConfiguration(outputDataRate: 833, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: watermark))
        var samples: [IMUSample] = [], gaps: [StreamGap] = []
        let end = sensor.clock.nowNanoseconds + UInt64(seconds * 1e9)
        while sensor.clock.nowNanoseconds < end { gaps += stream.step(into: &samples) }
        let c = sensor.bus.counters
        return (samples, gaps, c.bytes + c.addressBytes, sensor, stream)
    }

    /// The same chip (same noise seed) read with and without compression gives the same samples,
    /// bit for bit and at the same timestamps, whether the signal compresses well or not.
    @Test(arguments: ["rotation", "shaking", "tapping"])
    func compressionIsLossless(profileName: String) throws {
        let profile = MotionProfile.named(profileName)!
        let plain = try Self.stream(chipCompresses: false, profile: profile, seconds: 3)
        let packed = try Self.stream(chipCompresses: true, profile: profile, seconds: 3)
        #expect(plain.gaps.isEmpty && packed.gaps.isEmpty)
        // Compare over the time both runs covered (their last drains fall at different times).
        let common = min(plain.samples.last?.timestampNanoseconds ?? 0, packed.samples.last?.timestampNanoseconds ?? 0)
        let a = plain.samples.filter { $0.timestampNanoseconds <= common }
        let b = packed.samples.filter { $0.timestampNanoseconds <= common }
        #expect(a.count == b.count)
        #expect(a.count > 2400)
        for (p, s) in zip(a, b) {
            #expect(p.timestampNanoseconds == s.timestampNanoseconds && p.acceleration == s.acceleration
                    && p.angularRate == s.angularRate, "\(profileName) at \(s.timestampNanoseconds)")
        }
        #expect(packed.bytes <= plain.bytes)
        let c = (packed.sensor.chip as? LSM6DSEmulator)?.counters ?? .init()
        // Every word kind occurs: the forced uncompressed word alone is 1 in 32 batches.
        #expect(c.uncompressedWords > 2 * 3 * 833 / 32 * 9 / 10 && c.twoSampleWords > 0 && c.threeSampleWords > 0,
                "\(profileName): \(c.uncompressedWords) NC_T_2, \(c.twoSampleWords) 2xC, \(c.threeSampleWords) 3xC")
    }

    /// The target at a watermark of 16: at most 1.2 × the 12-byte payload on the wire
    /// (address bytes included) and at most ODR/16 wakeups.
    @Test func watermark16MeetsTheBusTarget() throws {
        let r = try Self.stream(chipCompresses: true, profile: .slowRotation(), seconds: 5)
        #expect(r.gaps.isEmpty)
        let perSample = Double(r.bytes) / Double(r.samples.count)
        #expect(perSample <= 1.2 * 12, "\(perSample) bytes/sample")
        let wakeups = Double(r.stream.statistics.wakeups) / 5
        #expect(wakeups <= 833.0 * 1.0045 / 16, "\(wakeups) wakeups/s")
        #expect(r.stream.mode == .interrupts)
    }

    /// A reader stalled past the FIFO's capacity: the overrun is reported as a gap, decoding
    /// restarts at the next uncompressed word, and every later sample matches the truth.
    @Test func stalledReaderReportsTheOverrunAndResynchronises() throws {
        let rig = LSM6DSRig(.lsm6dso, profile: LSM6DSFaultTests.ramp)
        let stream = IMUStream(imu: rig.imu, line: rig.line, clock: rig.clock)
        _ = try stream.start(IMUConfiguration(outputDataRate: 833, accelerometerRange: 2, fifoWatermark: 16))
        var samples: [IMUSample] = [], gaps: [StreamGap] = []
        let run = { (seconds: Double) in gaps += stream.run(seconds: seconds, clock: rig.clock, into: &samples) }
        run(1)
        #expect(gaps.isEmpty)
        // 512 words hold at most ~730 compressed samples (0.9 s): stall for 3 s.
        rig.clock.sleep(nanoseconds: 3_000_000_000)
        let before = samples.count
        run(1)
        #expect(gaps.contains { $0.reason == .fifoOverflow })
        #expect(samples.count - before > 700)
        #expect(rig.chip.counters.fifoWordsLost > 0)
        LSM6DSFaultTests.check(samples, origin: rig.chip.profileStart, label: "after overrun")
    }

    /// One corrupted tag byte in the middle of a burst, on the compressed and the plain tagged
    /// FIFO: `mask` 0xF0 keeps the parity and gives an unknown TAG_SENSOR; 0x40 and 0x10 flip one
    /// bit, which can make another valid tag (a gyroscope word read as an accelerometer 3xC
    /// one) that only TAG_PARITY catches. The rest of the burst is dropped, the loss is reported
    /// as a gap, and every later sample matches the truth (nothing rebuilt from a stale DPCM
    /// reference or a miscounted slot).
    @Test(arguments: [(true, UInt8(0xF0)), (true, 0x40), (true, 0x01), (false, 0x40), (false, 0x10), (false, 0x08)])
    func aCorruptedTagIsAGapAndLaterSamplesAreRight(compressed: Bool, mask: UInt8) throws {
        let rig = LSM6DSRig(.lsm6dso, profile: LSM6DSFaultTests.ramp)
        rig.imu.fifoCompression = compressed
        let stream = IMUStream(imu: rig.imu, line: rig.line, clock: rig.clock)
        _ = try stream.start(IMUConfiguration(outputDataRate: 833, accelerometerRange: 2, fifoWatermark: 16))
        #expect(rig.imu.isCompressingFIFO == compressed)
        var samples: [IMUSample] = [], gaps: [StreamGap] = []
        let run = { (seconds: Double) in gaps += stream.run(seconds: seconds, clock: rig.clock, into: &samples) }
        run(1)
        #expect(gaps.isEmpty)
        var corrupted = 0
        for k in 0..<5 {
            // Let a few words gather, then spoil one in the middle of what the next read takes.
            rig.clock.sleep(nanoseconds: 6_000_000)
            let level = rig.chip.fifoLevel
            if level >= 4, rig.chip.corruptTag(ofWaitingWord: level / 2 + k % 2, mask: mask) { corrupted += 1 }
            let before = samples.count
            let gapsBefore = gaps.count
            run(0.5)
            #expect(gaps.count > gapsBefore, "corruption \(k) not reported")
            #expect(samples.count - before > 350)
        }
        #expect(corrupted == 5)
        #expect(gaps.allSatisfy { $0.reason == .busError })
        LSM6DSFaultTests.check(samples, origin: rig.chip.profileStart, label: "corrupted tag \(compressed) \(mask)")
        // A sensor word taken for a temperature word would show here.
        #expect(samples.allSatisfy { s in s.temperature.map { abs($0 - rig.chip.temperature) < 0.5 } ?? true })
    }

    /// A stream stopped and started again: FIFO_COMPR_INIT restarts the chip's compressor (the
    /// emulator keeps its reference across the flush without it), so the new stream's first
    /// word is uncompressed and nothing is skipped or reported lost.
    @Test func restartingTheStreamRestartsTheCompressor() throws {
        let rig = LSM6DSRig(.lsm6dso, profile: LSM6DSFaultTests.ramp)
        let stream = IMUStream(imu: rig.imu, line: rig.line, clock: rig.clock)
        let configuration = IMUConfiguration(outputDataRate: 833, accelerometerRange: 2, fifoWatermark: 16)
        var samples: [IMUSample] = [], gaps: [StreamGap] = []
        _ = try stream.start(configuration)
        for round in 0..<3 {
            // The driver's own stop and start (no chip reset between them, unlike IMUStream.start).
            if round > 0 { try rig.imu.startStreaming() }
            #expect(rig.chip.counters.compressorInits == round + 1)
            let end = rig.clock.nowNanoseconds + 500_000_000
            while rig.clock.nowNanoseconds < end { gaps += stream.step(into: &samples) }
            try rig.imu.stopStreaming()
            rig.clock.sleep(nanoseconds: 20_000_000)
        }
        #expect(gaps.isEmpty)
        #expect(rig.imu.isCompressingFIFO)
        #expect(samples.count > 3 * 400)
        LSM6DSFaultTests.check(samples, origin: rig.chip.profileStart, label: "restarted")
    }

    /// Edges stop for two seconds (a line stuck at one level, or lost edges): the watchdog polls
    /// through the status read, nothing is lost or misaligned, and the stream returns to edges.
    @Test func lostEdgesFallBackToPollingAndBack() throws {
        let rig = LSM6DSRig(.lsm6dso, profile: LSM6DSFaultTests.ramp)
        let stream = IMUStream(imu: rig.imu, line: rig.line, clock: rig.clock)
        _ = try stream.start(IMUConfiguration(outputDataRate: 833, accelerometerRange: 2, fifoWatermark: 16))
        let t0 = rig.clock.nowNanoseconds
        rig.line.silentWindows = [(t0 + 1_000_000_000)...(t0 + 3_000_000_000)]
        var samples: [IMUSample] = [], gaps: [StreamGap] = []
        var polled = false
        while rig.clock.nowNanoseconds < t0 + 6_000_000_000 {
            gaps += stream.step(into: &samples)
            if stream.mode == .polling { polled = true }
        }
        #expect(polled)
        #expect(stream.mode == .interrupts)
        #expect(gaps.allSatisfy { $0.reason != .fifoOverflow })
        let expected = 6 * 833 * 1.0
        #expect(Double(samples.count) > expected * 0.97)
        LSM6DSFaultTests.check(samples, origin: rig.chip.profileStart, label: "lost edges")
    }
}
