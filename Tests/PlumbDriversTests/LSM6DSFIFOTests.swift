import Testing
import PlumbHAL
@testable import PlumbDrivers

/// FIFO decoding of hand-built byte sequences for both generations, and sample assembly with
/// hardware timestamps, overflow and gaps.
@Suite struct LSM6DSFIFOTests {
    typealias W = LSM6DS.FIFOWord

    // MARK: Tagged (DSO generation)

    @Test func taggedWordsDecode() throws {
        let bytes: [UInt8] = [
            0x20, 0xE8, 0x03, 0x00, 0x00, 0x00, 0x00, // slot 0: timestamp 1000
            0x08, 0x01, 0x00, 0xFE, 0xFF, 0x2C, 0x01, // slot 0: gyroscope (1, -2, 300)
            0x10, 0x00, 0xC0, 0x00, 0x00, 0x00, 0x40, // slot 0: accelerometer (-16384, 0, 16384)
            0x1A, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, // slot 1: temperature 256
            0x0A, 0xFF, 0x7F, 0x00, 0x80, 0x00, 0x00, // slot 1: gyroscope (32767, -32768, 0)
            0x2B, 0, 0, 0, 0, 0, 0,                   // slot 1: configuration change (tag 5), parity set
        ]
        var words: [W] = []
        try LSM6DS.TaggedFIFO.decode(bytes, into: &words)
        #expect(words == [
            W(slot: 0, entry: .timestamp(1000)),
            W(slot: 0, entry: .gyroscope(SIMD3(1, -2, 300))),
            W(slot: 0, entry: .accelerometer(SIMD3(-16384, 0, 16384))),
            W(slot: 1, entry: .temperature(256)),
            W(slot: 1, entry: .gyroscope(SIMD3(32767, -32768, 0))),
            W(slot: 1, entry: .other(tag: 5)),
        ])
    }

    @Test func taggedTimestampIsLittleEndian32() throws {
        var words: [W] = []
        try LSM6DS.TaggedFIFO.decode([0x26, 0x78, 0x56, 0x34, 0x12, 0xAA, 0xBB], into: &words)
        #expect(words == [W(slot: 3, entry: .timestamp(0x1234_5678))])
        #expect(LSM6DS.TaggedFIFO.tagByte(.accelerometer, slot: 2) == 0x14)
    }

    /// TAG_PARITY (bit 0) makes every tag byte's ones even (DS12140 FIFO_DATA_OUT_TAG).
    @Test func tagBytesCarryEvenParity() {
        #expect(LSM6DS.TaggedFIFO.tagByte(.gyroscope, slot: 0) == 0x09)      // 0000 1000 + parity
        #expect(LSM6DS.TaggedFIFO.tagByte(.timestamp, slot: 0) == 0x21)      // 0010 0000 + parity
        #expect(LSM6DS.TaggedFIFO.tagByte(.gyroscope, slot: 1) == 0x0A)      // already even
        #expect(LSM6DS.TaggedFIFO.tagByte(.accelerometer3x, slot: 1) == 0x4B)
        for raw in 1...0x0D {
            for slot in UInt8(0)...3 {
                let b = LSM6DS.TaggedFIFO.tagByte(LSM6DS.TaggedFIFO.Tag(rawValue: UInt8(raw))!, slot: slot)
                #expect(LSM6DS.TaggedFIFO.hasValidParity(b))
                for bit in 0..<8 { #expect(!LSM6DS.TaggedFIFO.hasValidParity(b ^ UInt8(1 << bit))) }
            }
        }
        #expect(LSM6DS.TaggedFIFO.hasValidParity(0x00))
    }

    @Test func taggedRefusesPartialWords() {
        var words: [W] = []
        #expect(throws: LSM6DS.FIFODecodingError.partialWord(bytes: 8, wordLength: 7)) {
            try LSM6DS.TaggedFIFO.decode([UInt8](repeating: 0x08, count: 8), into: &words)
        }
        #expect(words.isEmpty)
    }

    // MARK: Pattern (DS3 generation)

    /// Gyroscope and accelerometer every instant, timestamp every 8th: 9 + 7 × 6 = 51 words.
    let pattern = LSM6DS.PatternFIFO(gyroscopeDecimation: 1, accelerometerDecimation: 1, timestampDecimation: 8)

    @Test func patternShape() {
        #expect(pattern.wordsPerPattern == 51)
        #expect(pattern.instants.count == 8)
        #expect(pattern.instants[0] == [.gyroscope, .accelerometer, .timestamp])
        #expect(pattern.instants[1] == [.gyroscope, .accelerometer])
        let accelOnly = LSM6DS.PatternFIFO(gyroscopeDecimation: 0, accelerometerDecimation: 1, timestampDecimation: 8)
        #expect(accelOnly.wordsPerPattern == 6 + 7 * 3)
        #expect(LSM6DS.PatternFIFO.decimationCode(8) == 5)
        #expect(LSM6DS.PatternFIFO.decimationCode(5) == nil)
    }

    @Test func patternDecodesFromTheStart() throws {
        let bytes: [UInt8] = [
            0x01, 0x00, 0x02, 0x00, 0x03, 0x00, // instant 0 gyroscope (1, 2, 3)
            0x00, 0x40, 0x00, 0x00, 0x00, 0xC0, // instant 0 accelerometer (16384, 0, -16384)
            0x34, 0x12, 0x00, 0x56, 0x07, 0x00, // instant 0 timestamp 0x123456 (B0 15:8, B1 23:16, B3 7:0), steps 7
            0x04, 0x00, 0x05, 0x00, 0x06, 0x00, // instant 1 gyroscope
            0x07, 0x00, 0x08, 0x00, 0x09, 0x00, // instant 1 accelerometer
        ]
        var words: [W] = []
        let next = try pattern.decode(bytes, position: 0, slot: 2, into: &words)
        #expect(words == [
            W(slot: 2, entry: .timestamp(0x123456)),
            W(slot: 2, entry: .gyroscope(SIMD3(1, 2, 3))),
            W(slot: 2, entry: .accelerometer(SIMD3(16384, 0, -16384))),
            W(slot: 3, entry: .gyroscope(SIMD3(4, 5, 6))),
            W(slot: 3, entry: .accelerometer(SIMD3(7, 8, 9))),
        ])
        #expect(next.position == 15)
        #expect(next.slot == 0)
    }

    @Test func patternDecodesAcrossTheWrap() throws {
        // Position 45 is instant 7 (9 + 6 × 6); then the pattern starts again with a timestamp.
        var bytes: [UInt8] = []
        bytes += [0x0A, 0, 0, 0, 0, 0]        // instant 7 gyroscope
        bytes += [0x0B, 0, 0, 0, 0, 0]        // instant 7 accelerometer
        bytes += [0x0C, 0, 0, 0, 0, 0]        // instant 0 gyroscope
        bytes += [0x0D, 0, 0, 0, 0, 0]        // instant 0 accelerometer
        bytes += [0x00, 0x01, 0, 0xFF, 0, 0]  // instant 0 timestamp 0x0100FF
        var words: [W] = []
        let next = try pattern.decode(bytes, position: 45, slot: 1, into: &words)
        #expect(words.map(\.slot) == [1, 1, 2, 2, 2])
        #expect(words[2] == W(slot: 2, entry: .timestamp(0x0100FF)))
        #expect(words[3] == W(slot: 2, entry: .gyroscope(SIMD3(0x0C, 0, 0))))
        #expect(next.position == 9)
    }

    @Test func patternReadsOnlyCompleteInstants() {
        #expect(pattern.completeWords(from: 0, available: 8) == 0)
        #expect(pattern.completeWords(from: 0, available: 14) == 9)
        #expect(pattern.completeWords(from: 0, available: 15) == 15)
        #expect(pattern.completeWords(from: 3, available: 6) == 6)   // accelerometer + timestamp of instant 0
        #expect(pattern.completeWords(from: 45, available: 100) == 96)
    }

    @Test func patternRefusesMisalignment() {
        var words: [W] = []
        #expect(throws: LSM6DS.FIFODecodingError.misalignedPattern(position: 1)) {
            _ = try pattern.decode([UInt8](repeating: 0, count: 6), position: 1, slot: 0, into: &words)
        }
        #expect(throws: LSM6DS.FIFODecodingError.partialWord(bytes: 4, wordLength: 6)) {
            _ = try pattern.decode([0, 0, 0, 0], position: 0, slot: 0, into: &words)
        }
    }

    // MARK: Assembly and timing

    /// 104 Hz, 25 µs ticks: 384.615… ticks per sample. Origin 1 s. ±4 g (0.122 mg/LSB), ±500 dps (17.5 mdps/LSB).
    func assembler(bits: Int = 32, gyroscope: Bool = true) -> LSM6DS.SampleAssembler {
        LSM6DS.SampleAssembler(accelerometerScale: 0.122e-3 * 9.80665, gyroscopeScale: 17.5e-3 * .pi / 180,
                               gyroscopeEnabled: gyroscope, temperatureLSBPerDegree: 256,
                               timebase: .init(bits: bits, originNanoseconds: 1_000_000_000),
                               nominalPeriodTicks: 1e9 / 104 / 25_000)
    }

    func slot(_ s: UInt8, timestamp: UInt32? = nil, g: SIMD3<Int16> = SIMD3(0, 0, 0), a: SIMD3<Int16> = SIMD3(0, 0, 8197)) -> [W] {
        (timestamp.map { [W(slot: s, entry: .timestamp($0))] } ?? []) + [W(slot: s, entry: .gyroscope(g)), W(slot: s, entry: .accelerometer(a))]
    }

    @Test func samplesAreTimedFromTheTimestampAndConverted() {
        var asm = assembler()
        asm.temperatureRaw = 512
        var out: [IMUSample] = []
        let lost = asm.consume(slot(0, timestamp: 1000, g: SIMD3(1000, -1000, 0)) + slot(1) + slot(2), into: &out)
        #expect(lost == 0)
        #expect(out.map(\.timestampNanoseconds) == [1_025_000_000, 1_034_615_385, 1_044_230_769])
        #expect(abs(out[0].angularRate.x - 17.5 * .pi / 180) < 1e-12)
        #expect(abs(out[0].acceleration.z - 8197 * 0.122e-3 * 9.80665) < 1e-12)
        #expect(out[0].temperature == 27)
    }

    @Test func periodIsMeasuredBetweenTimestamps() {
        var asm = assembler()
        var out: [IMUSample] = []
        var words = slot(0, timestamp: 1000)
        for s in 1..<4 { words += slot(UInt8(s)) }
        words += slot(0, timestamp: 1000 + 4 * 380) + slot(1)
        asm.consume(words, into: &out)
        #expect(asm.periodTicks == 380)
        let expected: UInt64 = 1_000_000_000 + (1000 + 5 * 380) * 25_000
        #expect(out.last?.timestampNanoseconds == expected)
    }

    @Test func trimmedTick() {
        let t = LSM6DS.Timebase(bits: 32, frequencyFine: -4, originNanoseconds: 0)
        #expect(t.tickNanoseconds == 25_150)
        #expect(t.nanoseconds(ticks: 1000) == 25_150_000)
    }

    @Test func twentyFourBitCounterUnwraps() {
        var asm = assembler(bits: 24)
        var out: [IMUSample] = []
        asm.consume(slot(0, timestamp: 0xFF_FF00) + slot(1, timestamp: 0x00_0081), into: &out)
        // 0xFFFF00 + 385 ticks = 0x1000081 after the wrap.
        let first: UInt64 = 1_000_000_000 + 0xFF_FF00 * 25_000
        let second: UInt64 = 1_000_000_000 + 0x100_0081 * 25_000
        #expect(out.map(\.timestampNanoseconds) == [first, second])
    }

    @Test func overflowDropsUntilReanchored() {
        var asm = assembler()
        var out: [IMUSample] = []
        asm.consume(slot(0, timestamp: 1000) + slot(1), into: &out)
        asm.markDiscontinuity()
        let lost = asm.consume(slot(3) + slot(0) + slot(1, timestamp: 1000 + 40 * 385) + slot(2), into: &out)
        #expect(lost == 0)
        #expect(asm.takeUnanchoredDrops() == 2)
        #expect(out.count == 4)
        let expected: UInt64 = 1_000_000_000 + (1000 + 40 * 385) * 25_000
        #expect(out[2].timestampNanoseconds == expected)
    }

    @Test func skippedSlotsAreCountedAndInvalidateTheAnchor() {
        var asm = assembler()
        var out: [IMUSample] = []
        let lost = asm.consume(slot(0, timestamp: 1000) + slot(2) + [W(slot: 3, entry: .accelerometer(.zero))] + slot(0), into: &out)
        // Slot 1 missing; slot 3 lacked its gyroscope word.
        #expect(lost == 2)
        #expect(out.count == 1)
        #expect(asm.takeUnanchoredDrops() == 2)
    }

    @Test func aCounterThatWrappedOverLostSlotsIsNotMistakenForTheSameSlot() {
        var asm = assembler()
        var out: [IMUSample] = []
        // Slot 1 complete, then slot "1" again: four slots later, three lost between.
        let lost = asm.consume(slot(0, timestamp: 1000) + slot(1) + slot(1) + slot(2, timestamp: 1000 + 6 * 385) + slot(3), into: &out)
        #expect(lost == 3)
        #expect(asm.takeUnanchoredDrops() == 1)
        #expect(out.count == 4)
        let expected: UInt64 = 1_000_000_000 + (1000 + 6 * 385) * 25_000
        #expect(out[2].timestampNanoseconds == expected)
    }

    @Test func accelerometerOnlySlots() {
        var asm = assembler(gyroscope: false)
        var out: [IMUSample] = []
        asm.consume([W(slot: 0, entry: .timestamp(10)), W(slot: 0, entry: .accelerometer(SIMD3(0, 0, 8197))),
                     W(slot: 1, entry: .accelerometer(SIMD3(0, 0, 8197)))], into: &out)
        #expect(out.count == 2)
        #expect(out[0].angularRate == .zero)
    }

    @Test func saturationIsFlagged() {
        var asm = assembler()
        var out: [IMUSample] = []
        asm.consume(slot(0, timestamp: 1, g: SIMD3(32767, 0, -32768), a: SIMD3(0, -32768, 0)), into: &out)
        #expect(out[0].saturation == [.gyroscopeX, .gyroscopeZ, .accelerometerY])
    }
}
