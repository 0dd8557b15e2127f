import Testing
import PlumbHAL
import PlumbDrivers
@testable import PlumbSimulation

/// The LSM6DS emulator at register level, without the driver: the behaviour the datasheets give.
@Suite struct LSM6DSEmulatorTests {
    let clock = VirtualClock(startNanoseconds: 1_000_000_000)
    let a = I2CAddress(UInt8(0x6A))

    func chip(_ v: LSM6DS.Variant) -> (EmulatedI2CBus, LSM6DSEmulator, SimulatedInterruptLine) {
        let bus = EmulatedI2CBus(clock: clock, bitsPerSecond: nil)
        let chip = LSM6DSEmulator(variant: v, clock: clock, errorModel: .ideal)
        bus.attach(chip, at: a)
        let line = SimulatedInterruptLine(clock: clock, edges: .both)
        line.source = chip
        chip.interruptLine = line
        return (bus, chip, line)
    }

    @Test func powerOnValuesAndReadOnlyIdentity() throws {
        let (bus, _, _) = chip(.lsm6dso)
        #expect(try bus.readRegister(0x0F, address: a) == 0x6C)
        #expect(try bus.readRegister(0x12, address: a) == 0x04)
        #expect(try bus.readRegister(0x18, address: a) == 0xE0)
        try bus.writeRegister(0x0F, 0x00, address: a)
        #expect(try bus.readRegister(0x0F, address: a) == 0x6C)
        let (ds3, _, _) = chip(.lsm6ds3)
        #expect(try ds3.readRegisters(0x18, count: 2, address: a) == [0x38, 0x38])
    }

    @Test func softwareResetClearsItselfAfter50Microseconds() throws {
        let (bus, _, _) = chip(.lsm6dso)
        try bus.writeRegister(0x10, 0x40, address: a)
        try bus.writeRegister(0x12, 0x05, address: a)
        #expect(try bus.readRegister(0x12, address: a) == 0x05)
        clock.advance(by: 50_000)
        #expect(try bus.readRegister(0x12, address: a) == 0x04)
        #expect(try bus.readRegister(0x10, address: a) == 0x00)
        try bus.writeRegister(0x12, 0x84, address: a)
        clock.advance(by: 9_000_000)
        #expect(try bus.readRegister(0x12, address: a) == 0x84)
        clock.advance(by: 1_000_000)
        #expect(try bus.readRegister(0x12, address: a) == 0x04)
    }

    @Test func autoIncrementFollowsIFINC() throws {
        let (bus, _, _) = chip(.lsm6dso)
        try bus.write([0x73, 1, 2, 3], to: a)
        #expect(try bus.readRegisters(0x73, count: 3, address: a) == [1, 2, 3])
        try bus.writeRegister(0x12, 0x00, address: a) // IF_INC off
        #expect(try bus.readRegisters(0x73, count: 3, address: a) == [1, 1, 1])
    }

    @Test func rangeAndRateTakeEffect() throws {
        let (bus, chip, _) = chip(.lsm6dso)
        chip.profile = MotionProfile(name: "1 g on x") { _ in MotionState(angularRate: SIMD3(1, 0, 0), specificForce: SIMD3(9.80665, 0, 0), attitude: nil) }
        try bus.writeRegister(0x10, 0x40, address: a) // 104 Hz, ±2 g
        try bus.writeRegister(0x11, 0x4C, address: a) // 104 Hz, ±2000 dps
        clock.advance(by: 200_000_000) // past the filters' settling (12 gyroscope samples at 104 Hz)
        #expect(try bus.readRegister(0x1E, address: a) & 0x03 == 0x03)
        let out = try bus.readRegisters(0x22, count: 12, address: a)
        #expect(Int16(bitPattern: UInt16(out[6]) | UInt16(out[7]) << 8) == 16393) // 1000 mg / 0.061
        #expect(Int16(bitPattern: UInt16(out[0]) | UInt16(out[1]) << 8) == 819)   // 57.3 dps / 70 mdps
        #expect(try bus.readRegister(0x1E, address: a) & 0x03 == 0)
        try bus.writeRegister(0x10, 0x44, address: a) // ±16 g (code 1)
        clock.advance(by: 10_000_000)
        let x = try bus.readRegisters(0x28, count: 2, address: a)
        #expect(Int16(bitPattern: UInt16(x[0]) | UInt16(x[1]) << 8) == 2049)      // 1000 mg / 0.488
    }

    @Test func taggedFIFOWithOverflowAndWatermarkPin() throws {
        let (bus, chip, line) = chip(.lsm6dso)
        try bus.write([0x07, 10, 0x00, 0x77], to: a)   // watermark 10 words, BDR 833 Hz both
        try bus.writeRegister(0x0D, 0x08, address: a)  // INT1_FIFO_TH
        try bus.writeRegister(0x19, 0x20, address: a)  // timer on
        try bus.writeRegister(0x0A, 0xC6, address: a)  // TS every 32nd batch, continuous
        try bus.write([0x10, 0x70, 0x70], to: a)       // 833 Hz both
        clock.advance(by: 1_200_000 * 5 + 100_000)     // five instants
        #expect(chip.fifoLevel == 11)                   // 1 timestamp + 5 × (G, XL)
        let edges = try line.readQueuedEdges()
        #expect(edges.map(\.kind) == [.rising])
        let status = try bus.readRegisters(0x3A, count: 2, address: a)
        #expect(status == [11, 0x80])
        var words: [LSM6DS.FIFOWord] = []
        try LSM6DS.TaggedFIFO.decode(try bus.readRegisters(0x78, count: 21, address: a), into: &words)
        #expect(words.map(\.slot) == [0, 0, 0])
        if case .timestamp = words[0].entry {} else { Issue.record("first word \(words[0])") }
        #expect(try line.readQueuedEdges().map(\.kind) == [.falling]) // below the watermark again
        clock.advance(by: 2_000_000_000)               // stall: 3 KB fills and overflows
        let full = try bus.readRegisters(0x3A, count: 2, address: a)
        #expect(chip.counters.fifoWordsLost > 0)
        #expect(Int(full[0]) | Int(full[1] & 3) << 8 == 512)
        #expect(full[1] & 0x68 == 0x68)                 // OVR_IA, FULL_IA, OVR_LATCHED
        #expect(try bus.readRegister(0x3B, address: a) & 0x08 == 0) // the latch cleared on read
        try bus.writeRegister(0x0A, 0xC0, address: a)  // bypass empties it
        #expect(chip.fifoLevel == 0)
    }

    /// The threshold pin is a level (DS12140 FIFO_STATUS2 FIFO_WTM_IA: 1 while the FIFO holds at
    /// least the threshold) and a burst pops word by word while the chip samples on: a 140-word
    /// read at 400 kHz (22 ms) at 1666 Hz leaves about 75 words, so with a 20-word threshold the
    /// pin never falls and no new rising edge comes. Handled at its start (``timesEachByte`` off)
    /// the burst empties the FIFO at once, and the pin falls and rises again during it.
    @Test(arguments: [true, false])
    func aLongBurstKeepsTheThresholdPinHighOnlyWhenBytesTakeTheirTime(timed: Bool) throws {
        let (bus, chip, line) = chip(.lsm6dso)
        bus.bitsPerSecond = 400_000
        bus.timesEachByte = timed
        try bus.write([0x07, 20, 0x00, 0x88], to: a)   // threshold 20 words, BDR 1666 Hz both
        try bus.writeRegister(0x0D, 0x08, address: a)  // INT1_FIFO_TH
        try bus.writeRegister(0x0A, 0x06, address: a)  // continuous, no timestamps
        try bus.write([0x10, 0x80, 0x80], to: a)       // 1666 Hz both
        clock.advance(by: 42_000_000)                  // 70 instants: 140 words
        #expect(try line.readQueuedEdges().map(\.kind) == [.rising])
        let waiting = chip.fifoLevel
        #expect(waiting >= 138 && waiting <= 142)
        _ = try bus.readRegisters(0x78, count: 7 * waiting, address: a)
        let left = chip.fifoLevel
        // 7 bytes at 9 bits each, 400 kHz: 158 µs a word, 22 ms in all; 2 words per 600 µs.
        #expect(left >= 70 && left <= 78, "\(left) words left")
        let edges = try line.readQueuedEdges().map(\.kind)
        #expect(edges == (timed ? [] : [.falling, .rising]), "\(edges)")
        #expect(try bus.readRegister(0x3B, address: a) & 0x80 == 0x80) // FIFO_WTM_IA
    }

    /// Compressed FIFO: every tag byte carries TAG_PARITY; FIFO_COMPR_INIT restarts the
    /// compressor (its first word per sensor is uncompressed), a flush alone does not (the
    /// emulator's stated assumption); ``LSM6DSEmulator/corruptTag(ofWaitingWord:mask:)`` flips bits.
    @Test func compressedTagsCarryParityAndCompressorInitRestarts() throws {
        let (bus, chip, _) = chip(.lsm6dso)
        typealias F = LSM6DS.TaggedFIFO
        try bus.writeRegister(0x01, 0x80, address: a)  // embedded bank
        try bus.writeRegister(0x05, 0x08, address: a)  // EMB_FUNC_EN_B.FIFO_COMPR_EN
        try bus.writeRegister(0x01, 0x00, address: a)
        try bus.write([0x07, 0xFF, 0x46, 0x77], to: a)  // FIFO_COMPR_RT_EN, UNCOPTR 32, BDR 833 Hz
        try bus.write([0x10, 0x70, 0x70], to: a)       // 833 Hz both
        func run(instants: Int) throws -> [UInt8] {
            try bus.writeRegister(0x0A, 0x06, address: a)   // continuous (no timestamps)
            clock.advance(by: UInt64(instants) * 1_200_480 + 100_000)
            let n = chip.fifoLevel
            let bytes = try bus.readRegisters(0x78, count: n * 7, address: a)
            try bus.writeRegister(0x0A, 0x00, address: a)   // bypass
            return stride(from: 0, to: bytes.count, by: 7).map { bytes[$0] }
        }
        func initCompressor() throws {
            try bus.writeRegister(0x01, 0x80, address: a)
            try bus.writeRegister(0x67, 0x08, address: a)  // EMB_FUNC_INIT_B.FIFO_COMPR_INIT
            #expect(try bus.readRegister(0x67, address: a) == 0)
            try bus.writeRegister(0x01, 0x00, address: a)
        }
        try initCompressor()
        let first = try run(instants: 40)
        #expect(first.count > 20)
        #expect(first.allSatisfy(F.hasValidParity))
        // The first word of each sensor has no reference to differ from: NC_T_2.
        #expect(Set(first.prefix(2).map { $0 >> 3 }) == [F.Tag.gyroscopeT2.rawValue, F.Tag.accelerometerT2.rawValue])
        #expect(first.contains { $0 >> 3 == F.Tag.accelerometer3x.rawValue })
        // Restarted without FIFO_COMPR_INIT: the at-rest signal compresses against the old reference.
        let stale = try run(instants: 6)
        #expect(stale.allSatisfy(F.hasValidParity))
        #expect(stale.prefix(2).allSatisfy { $0 >> 3 == F.Tag.gyroscope3x.rawValue || $0 >> 3 == F.Tag.accelerometer3x.rawValue })
        try initCompressor()
        let restarted = try run(instants: 6)
        #expect(Set(restarted.prefix(2).map { $0 >> 3 }) == [F.Tag.gyroscopeT2.rawValue, F.Tag.accelerometerT2.rawValue])
        #expect(chip.counters.compressorInits == 2)
        // Fault injection: the second waiting word's tag loses its parity.
        try bus.writeRegister(0x0A, 0x06, address: a)
        clock.advance(by: 10 * 1_200_480)
        #expect(chip.corruptTag(ofWaitingWord: 1, mask: 0x01))
        #expect(!chip.corruptTag(ofWaitingWord: chip.fifoLevel, mask: 0x01))
        let bytes = try bus.readRegisters(0x78, count: 14, address: a)
        #expect(F.hasValidParity(bytes[0]) && !F.hasValidParity(bytes[7]))
    }

    @Test func patternFIFOPositionAndTimestampSet() throws {
        let (bus, chip, _) = chip(.lsm6ds3)
        try bus.write([0x07, 0x80, 0x09, 0x28, 0x36], to: a) // TS in FIFO, G+XL every sample, TS every 8th, 416 Hz continuous
        try bus.writeRegister(0x5C, 0x10, address: a)          // TIMER_HR
        try bus.writeRegister(0x58, 0x80, address: a)          // TIMER_EN
        try bus.write([0x10, 0x60, 0x60], to: a)
        clock.advance(by: 2_404_000 * 2 + 1_000)               // two instants at 416 Hz
        #expect(chip.fifoLevel == 15)                           // G, XL, TS + G, XL sets of 3 words
        let s = try bus.readRegisters(0x3A, count: 4, address: a)
        #expect(s == [15, 0x00, 0, 0])
        let p = LSM6DS.PatternFIFO(gyroscopeDecimation: 1, accelerometerDecimation: 1, timestampDecimation: 8)
        var words: [LSM6DS.FIFOWord] = []
        let bytes = try bus.readRegisters(0x3E, count: 18, address: a)
        _ = try p.decode(bytes, position: 0, slot: 0, into: &words)
        guard case .timestamp(let ticks) = words[0].entry else { Issue.record("\(words)"); return }
        #expect(ticks >= 96 && ticks <= 97)                    // 2.404 ms / 25 µs
        #expect(try bus.readRegisters(0x3C, count: 2, address: a) == [9, 0])
    }

    @Test func timerResetsOn0xAA() throws {
        let (bus, chip, _) = chip(.lsm6dso)
        try bus.writeRegister(0x19, 0x20, address: a)
        clock.advance(by: 1_000_000)
        #expect(chip.timerTicks == 40)
        try bus.writeRegister(0x42, 0xAA, address: a)
        clock.advance(by: 250_000)
        #expect(try bus.readRegisters(0x40, count: 4, address: a) == [10, 0, 0, 0])
    }

    /// CTRL5_C ST_G = 3 is the negative gyroscope self-test and 2 is "not allowed"; ST_XL's
    /// negative is 2 (ST-C `lsm6dso_st_g_t`: `LSM6DSO_GY_ST_NEGATIVE = 3`; `lsm6dso_st_xl_t`:
    /// `LSM6DSO_XL_ST_NEGATIVE = 2`). The emulator once took ST_G = 2 for negative.
    @Test(arguments: [LSM6DS.Variant.lsm6ds3, .lsm6ds3trc, .lsm6dso])
    func gyroscopeSelfTestSignFollowsSTG(_ v: LSM6DS.Variant) throws {
        let (bus, chip, _) = chip(v)
        chip.settlesAfterStart = false
        func gyroX(stG: UInt8) throws -> Int16 {
            try bus.writeRegister(0x14, stG << 2, address: a)
            clock.advance(by: 20_000_000)
            let b = try bus.readRegisters(0x22, count: 2, address: a)
            return Int16(bitPattern: UInt16(b[0]) | UInt16(b[1]) << 8)
        }
        try bus.writeRegister(0x11, 0x5C, address: a)          // 208 Hz, ±2000 dps
        clock.advance(by: 20_000_000)
        let deflection = Int16((chip.selfTestGyroscopeDPS.x * 1000 / 70).rounded())
        #expect(try gyroX(stG: 0) == 0)
        #expect(try gyroX(stG: 1) == deflection)
        #expect(try gyroX(stG: 3) == -deflection)
        #expect(try gyroX(stG: 2) == 0)
    }

    @Test func activeLowInvertsThePin() throws {
        let (bus, _, line) = chip(.lsm6dso)
        try bus.writeRegister(0x12, 0x24, address: a)          // H_LACTIVE: idle high
        #expect(try line.readQueuedEdges().map(\.kind) == [.rising])
        try bus.writeRegister(0x0D, 0x01, address: a)          // DRDY_XL on INT1
        try bus.writeRegister(0x10, 0x40, address: a)
        clock.advance(by: 9_700_000)
        #expect(try line.readQueuedEdges().map(\.kind) == [.falling])
    }
}
