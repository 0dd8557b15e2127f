import PlumbHAL
import PlumbDrivers

/// The FIFO decoders as pure functions of the bytes, with the state they keep across drains: the
/// LSM6DSO decompressor and the sample assembler (timestamp words, TAG_CNT, held samples), the
/// DS3/DSL pattern decoder at any decimation and pattern position, and the MPU-6050 record decoder
/// with its sample clock fed arbitrary edges. Each drain's size, the drain-to-drain events
/// (discontinuity, words lost, doubt) and the host times come from the input too.
public enum DecoderHarness {
    public static func run(_ input: FuzzInput) {
        switch input.byte() % 4 {
        case 0: tagged(input, compressed: false)
        case 1: tagged(input, compressed: true)
        case 2: pattern(input)
        default: mpu(input)
        }
    }

    static func assembler(_ input: FuzzInput, gyroscope: Bool, bits: Int) -> LSM6DS.SampleAssembler {
        let timebase = LSM6DS.Timebase(bits: bits, frequencyFine: Int8(bitPattern: input.byte()),
                                       originNanoseconds: input.bool() ? UInt64(input.uint32()) : input.uint64())
        let rate = [12.5, 26, 104, 833, 1666, 6664][Int(input.byte()) % 6]
        var a = LSM6DS.SampleAssembler(accelerometerScale: 0.000122 * 9.80665, gyroscopeScale: 0.07 * .pi / 180,
                                       gyroscopeEnabled: gyroscope, temperatureLSBPerDegree: 256, timebase: timebase,
                                       nominalPeriodTicks: 1e9 / rate / LSM6DS.Timebase.typicalTickNanoseconds)
        let f = input.byte()
        a.settlingInstants = Int(f & 0x03)
        a.dropsMaskedSettlingWords = f & 0x04 != 0
        a.keepsDoubtfulSamplesAfterLoss = f & 0x08 != 0
        return a
    }

    /// Between drains: the host times, and what the driver tells the assembler.
    static func betweenDrains(_ input: FuzzInput, _ a: inout LSM6DS.SampleAssembler, now: inout UInt64) {
        let e = input.byte()
        now &+= UInt64(input.uint16()) &* 10_000
        a.readNanoseconds = e & 0x01 != 0 ? now : nil
        a.plausibleWindow = e & 0x02 != 0 ? 0...(now &+ 1_000_000_000) : nil
        if e & 0x10 != 0 { a.markDiscontinuity() }
        if e & 0x20 != 0 { a.markSlotCountInDoubt() }
        if e & 0x40 != 0 { _ = a.takeLossFoundAfterDoubt(); _ = a.takeUnanchoredDrops() }
        if e & 0x80 != 0 { a.restart(timebase: a.timebase) }
    }

    static func tagged(_ input: FuzzInput, compressed: Bool) {
        let gyroscope = input.bool()
        var a = assembler(input, gyroscope: gyroscope, bits: 32)
        var decompressor = LSM6DS.TaggedFIFO.Decompressor(gyroscopeEnabled: gyroscope)
        var words: [LSM6DS.FIFOWord] = [], samples: [IMUSample] = []
        var now: UInt64 = 1_000_000_000
        while !input.isEmpty {
            betweenDrains(input, &a, now: &now)
            let d = input.byte()
            if compressed {
                if d & 0x80 != 0 { decompressor.reset() }
                if d & 0x40 != 0 { decompressor.forgetWaitingTimestamps() }
            }
            let bytes = Array(input.take(Int(d & 0x3F) * LSM6DS.TaggedFIFO.wordLength + (compressed ? 0 : Int(d >> 6))))
            words.removeAll(keepingCapacity: true)
            if compressed {
                decompressor.decode(bytes, range: 0..<bytes.count, into: &words)
            } else {
                do { try LSM6DS.TaggedFIFO.decode(bytes, into: &words) } catch { continue }
            }
            samples.removeAll(keepingCapacity: true)
            a.lostSlots += a.consume(words, into: &samples) + decompressor.takeLostSlots()
            _ = a.takeNewlyHeld(); _ = a.takeSettlingDrops()
        }
    }

    static func pattern(_ input: FuzzInput) {
        let factors = [0, 1, 2, 3, 4, 8, 16, 32]
        let p = input.byte()
        var g = factors[Int(p & 7)], x = factors[Int(p >> 3 & 7)]
        let ts = [0, 1, 2, 4, 8][Int(p >> 6) % 5]
        if input.bool() { g = 0 }
        // At least one set (the pattern's precondition; the driver always batches the accelerometer).
        if g == 0 && x == 0 { x = 1 }
        let pattern = LSM6DS.PatternFIFO(gyroscopeDecimation: g, accelerometerDecimation: x, timestampDecimation: ts)
        var a = assembler(input, gyroscope: g > 0, bits: 24)
        var position = Int(input.uint16())
        var slot = input.byte()
        var words: [LSM6DS.FIFOWord] = [], samples: [IMUSample] = []
        var now: UInt64 = 1_000_000_000
        while !input.isEmpty {
            betweenDrains(input, &a, now: &now)
            let available = Int(input.uint16() & 0x0FFF)
            let complete = pattern.completeWords(from: position, available: available)
            let n = input.bool() ? complete * 2 : Int(input.byte())
            let bytes = Array(input.take(n))
            words.removeAll(keepingCapacity: true)
            do {
                let next = try pattern.decode(bytes, position: position, slot: slot, into: &words)
                position = next.position; slot = next.slot
            } catch {
                position = Int(input.uint16())
                continue
            }
            samples.removeAll(keepingCapacity: true)
            a.lostSlots += a.consume(words, into: &samples)
        }
    }

    static func mpu(_ input: FuzzInput) {
        let variant = input.pick(MPU6050.variants)
        let c = input.byte()
        let config = IMUConfiguration(outputDataRate: [4, 50, 100, 1000][Int(c & 3)],
                                      accelerometerRange: [2, 4, 8, 16][Int(c >> 2 & 3)],
                                      gyroscopeRange: [250, 500, 1000, 2000][Int(c >> 4 & 3)],
                                      gyroscopeEnabled: c & 0x40 == 0)
        guard let settings = try? MPU6050.settings(for: config, variant: variant) else { return }
        let decoder = MPU6050.FIFODecoder(settings: settings, variant: variant)
        var clock = SampleClock(nominalPeriodNanoseconds: 1e9 / settings.effective.outputDataRate)
        var lastTime: UInt64? = nil, temperature: Double? = nil
        var samples: [IMUSample] = []
        var index = 0
        while !input.isEmpty {
            // The sample clock: edges and reads at any time, as a storm or another clock gives them.
            for _ in 0..<Int(input.byte() & 0x07) {
                let t = input.bool() ? UInt64(input.uint32()) &* 1000 : input.uint64()
                switch input.byte() % 5 {
                case 0: clock.anchor(edge: t, index: index)
                case 1: clock.observe(edge: t, newestIndex: index + Int(input.byte()))
                case 2: clock.keepAnchorIfConsistent(newestIndex: index, readTime: t)
                case 3: clock.guess(newestIndex: index, readTime: t)
                default: clock.restart(); index = 0
                }
            }
            let records = Int(input.byte())
            let bytes = Array(input.take(records * decoder.recordSize))
            let whole = bytes.count / decoder.recordSize
            bytes.withUnsafeBufferPointer { buffer in
                decoder.decode(buffer, records: whole, clock: clock, firstIndex: index, lastTime: &lastTime,
                               temperature: &temperature, into: &samples)
            }
            index += whole
            samples.removeAll(keepingCapacity: true)
        }
    }
}
