import PlumbHAL
import PlumbDrivers
import PlumbSimulation

/// The LSM6DSO part of `plumb bench drivers`: bus cost per sample of FIFO streaming at 833 Hz
/// against the 12-byte payload minimum and against the per-sample 12-byte burst read most
/// Raspberry Pi libraries do, and the decode cost per sample.
///
/// Bus figures come from the emulated bus's counters in virtual time (400 kHz, the same driver
/// and streaming engine as on a board); decode time is measured on this machine, with a plain
/// pass over the same bytes as the reference in the same run.
enum LSM6DSOBench {
    /// What one way of reading cost on the bus.
    struct BusFigures {
        var method: String
        var samples: Int
        var transactions: Int
        /// Register-pointer and data bytes, both directions (address bytes excluded).
        var dataBytes: Int
        /// One address byte per START and repeated START.
        var addressBytes: Int
        var wakeups: Int
        var seconds: Double

        var bytesPerSample: Double { Double(dataBytes) / Double(max(samples, 1)) }
        var wireBytesPerSample: Double { Double(dataBytes + addressBytes) / Double(max(samples, 1)) }
        var transactionsPerSample: Double { Double(transactions) / Double(max(samples, 1)) }
        var wakeupsPerSecond: Double { Double(wakeups) / seconds }
    }

    /// Decode cost, nanoseconds per sample.
    struct DecodeFigures {
        var tagged: Double
        /// The compressed tagged FIFO (3xC words), through ``LSM6DS/TaggedFIFO/Decompressor``.
        var compressed: Double
        var pattern: Double
        var reference: Double
        /// Samples decoded in all runs, and the reference pass's byte sum (keep the work observable).
        var samplesDecoded: Int
        var byteSum: Int
    }

    /// The payload of one 6-axis sample: three 16-bit axes each for gyroscope and accelerometer.
    static let payloadBytes = 12

    static func sensor(seed: UInt64 = 1, profile: MotionProfile = .slowRotation()) -> (SimulatedSensor, LSM6DS) {
        let model = SimulatedChips.model("lsm6dso")!
        let sensor = SimulatedSensor(model: model, profile: profile, seed: seed)
        let imu = LSM6DS(bus: sensor.bus, address: model.address, clock: sensor.clock)
        return (sensor, imu)
    }

    /// FIFO streaming through the engine, watermark `watermark` samples, for `seconds` of virtual
    /// time, with the FIFO compressed (the driver's default) or not, under `profile`.
    static func fifo(watermark: Int, seconds: Double, compression: Bool = true,
                     profile: MotionProfile = .slowRotation()) throws -> BusFigures {
        let (sensor, imu) = sensor(profile: profile)
        imu.fifoCompression = compression
        let stream = IMUStream(imu: imu, line: sensor.line, clock: sensor.clock)
        _ = try stream.start(IMUConfiguration(outputDataRate: 833, fifoWatermark: watermark))
        var samples: [IMUSample] = []
        samples.reserveCapacity(4096)
        // Settle one second, then count.
        let settle = sensor.clock.nowNanoseconds + 1_000_000_000
        while sensor.clock.nowNanoseconds < settle { _ = stream.step(into: &samples); samples.removeAll(keepingCapacity: true) }
        sensor.bus.resetCounters()
        let wakeupsBefore = stream.statistics.wakeups
        let start = sensor.clock.nowNanoseconds
        let end = start + UInt64(seconds * 1e9)
        var count = 0
        while sensor.clock.nowNanoseconds < end {
            _ = stream.step(into: &samples)
            count += samples.count
            samples.removeAll(keepingCapacity: true)
        }
        let c = sensor.bus.counters
        let label = "FIFO, watermark \(watermark)" + (imu.isCompressingFIFO ? ", compressed" : ", uncompressed") + (profile.name == "rotation" ? "" : ", \(profile.name)")
        return BusFigures(method: label, samples: count, transactions: c.transactions,
                          dataBytes: c.bytes, addressBytes: c.addressBytes, wakeups: stream.statistics.wakeups - wakeupsBefore,
                          seconds: Double(sensor.clock.nowNanoseconds - start) / 1e9)
    }

    /// The common Raspberry Pi way: data-ready on INT1 (latched), one 12-byte burst from OUTX_L_G
    /// (0x22) per sample.
    static func perSampleBurst(seconds: Double) throws -> BusFigures {
        let (sensor, imu) = sensor()
        try imu.identify()
        try imu.reset()
        try imu.apply(IMUConfiguration(outputDataRate: 833, fifoWatermark: 16))
        let address = sensor.model.address
        try sensor.bus.writeRegister(LSM6DS.Register.int1Control, 0x02, address: address) // INT1_DRDY_G
        _ = try sensor.bus.readRegisters(LSM6DS.Register.outGyroscope, count: 12, address: address)
        sensor.bus.resetCounters()
        sensor.line.resetCounters()
        let start = sensor.clock.nowNanoseconds
        let end = start + UInt64(seconds * 1e9)
        var ops = [I2COperation.write([LSM6DS.Register.outGyroscope]), I2COperation.read(count: 12)]
        var count = 0
        while sensor.clock.nowNanoseconds < end {
            guard try sensor.line.waitForEdge(timeoutNanoseconds: 100_000_000) != nil else { continue }
            try sensor.bus.transfer(&ops, address: address)
            count += 1
        }
        let c = sensor.bus.counters
        return BusFigures(method: "per-sample 12-byte burst", samples: count, transactions: c.transactions,
                          dataBytes: c.bytes, addressBytes: c.addressBytes, wakeups: sensor.line.counters.wakeups,
                          seconds: Double(sensor.clock.nowNanoseconds - start) / 1e9)
    }

    /// A tagged FIFO timestamp word: tag, the 32-bit counter little-endian, two spare bytes.
    static func timestampWord(_ ticks: UInt32, slot: UInt8) -> [UInt8] {
        [LSM6DS.TaggedFIFO.tagByte(.timestamp, slot: slot), UInt8(truncatingIfNeeded: ticks), UInt8(truncatingIfNeeded: ticks >> 8),
         UInt8(truncatingIfNeeded: ticks >> 16), UInt8(truncatingIfNeeded: ticks >> 24), 0, 0]
    }

    /// Decode + timestamp assembly per sample for both FIFO formats, and a plain byte pass over the
    /// tagged bytes as the reference.
    static func decode(samples n: Int = 8192, repeats: Int = 40) -> DecodeFigures {
        // Tagged: timestamp word every 32 slots, then gyroscope and accelerometer words.
        var tagged: [UInt8] = []
        tagged.reserveCapacity(n * 15)
        for i in 0..<n {
            let slot = UInt8(i & 3)
            if i % 32 == 0 { tagged += timestampWord(UInt32(i) * 48, slot: slot) }
            let v = SIMD3<Int16>(Int16(truncatingIfNeeded: i), -300, 16000)
            tagged += [LSM6DS.TaggedFIFO.tagByte(.gyroscope, slot: slot)] + LSM6DS.bytes(of: v)
            tagged += [LSM6DS.TaggedFIFO.tagByte(.accelerometer, slot: slot)] + LSM6DS.bytes(of: v)
        }
        // Compressed, as the chip writes a slowly changing signal: a timestamp word every 32
        // slots, both sensors' first sample uncompressed (NC_T_2) at slot 2, then a 3xC word per
        // sensor every third slot.
        var compressed: [UInt8] = []
        compressed.reserveCapacity(n * 5)
        for tick in 0..<n {
            let counter = UInt8(tick & 3)
            if tick % 32 == 0 { compressed += timestampWord(UInt32(tick) * 48, slot: counter) }
            if tick == 2 {
                for tag in [LSM6DS.TaggedFIFO.Tag.gyroscopeT2, .accelerometerT2] {
                    compressed += [LSM6DS.TaggedFIFO.tagByte(tag, slot: counter)] + LSM6DS.bytes(of: SIMD3(100, -300, 16000))
                }
            } else if tick >= 3, tick % 3 == 0, tick + 2 < n {
                let d = SIMD3<Int16>(Int16(tick % 7) - 3, 2, -1)
                for tag in [LSM6DS.TaggedFIFO.Tag.gyroscope3x, .accelerometer3x] {
                    compressed += [LSM6DS.TaggedFIFO.tagByte(tag, slot: counter)] + LSM6DS.TaggedFIFO.pack3x(d, .zero &- d, d)
                }
            }
        }
        // Pattern: gyroscope, accelerometer, timestamp set every 8th instant.
        let pattern = LSM6DS.PatternFIFO(gyroscopeDecimation: 1, accelerometerDecimation: 1, timestampDecimation: 8)
        var patterned: [UInt8] = []
        patterned.reserveCapacity(n * 13)
        for i in 0..<n {
            let v = SIMD3<Int16>(Int16(truncatingIfNeeded: i), -300, 16000)
            patterned += LSM6DS.bytes(of: v) + LSM6DS.bytes(of: v)
            if i % 8 == 0 { patterned += LSM6DS.PatternFIFO.encode(.timestamp, timestamp: UInt32(i) * 48) }
        }
        func assembler() -> LSM6DS.SampleAssembler {
            LSM6DS.SampleAssembler(accelerometerScale: 0.122e-3 * 9.80665, gyroscopeScale: 17.5e-3 * .pi / 180,
                                   gyroscopeEnabled: true, temperatureLSBPerDegree: 256,
                                   timebase: .init(bits: 32, originNanoseconds: 0), nominalPeriodTicks: 48)
        }
        var words: [LSM6DS.FIFOWord] = []
        words.reserveCapacity(n * 3)
        var out: [IMUSample] = []
        out.reserveCapacity(n)
        var sink = 0
        let clock = ContinuousClock()

        func time(_ body: () -> Void) -> Double {
            var best = Double.infinity
            for _ in 0..<repeats {
                let t0 = clock.now
                body()
                let d = clock.now - t0
                best = min(best, Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) / 1e9)
            }
            return best / Double(n)
        }
        let taggedNs = time {
            var a = assembler()
            words.removeAll(keepingCapacity: true); out.removeAll(keepingCapacity: true)
            do { try LSM6DS.TaggedFIFO.decode(tagged, into: &words) } catch { sink = -1 }
            a.consume(words, into: &out)
            sink &+= out.count
        }
        let compressedNs = time {
            var a = assembler()
            var decompressor = LSM6DS.TaggedFIFO.Decompressor(gyroscopeEnabled: true)
            words.removeAll(keepingCapacity: true); out.removeAll(keepingCapacity: true)
            decompressor.decode(compressed, range: 0..<compressed.count, into: &words)
            a.consume(words, into: &out)
            sink &+= out.count
        }
        let patternNs = time {
            var a = assembler()
            words.removeAll(keepingCapacity: true); out.removeAll(keepingCapacity: true)
            do { _ = try pattern.decode(patterned, position: 0, slot: 0, into: &words) } catch { sink = -1 }
            a.consume(words, into: &out)
            sink &+= out.count
        }
        var byteSum = 0
        let referenceNs = time {
            var s = 0
            for b in tagged { s &+= Int(b) }
            byteSum = s
        }
        return DecodeFigures(tagged: taggedNs, compressed: compressedNs, pattern: patternNs, reference: referenceNs, samplesDecoded: sink, byteSum: byteSum)
    }

    /// The report lines, in the layout of the MPU-6050 table above them: bytes on the wire
    /// (address bytes included), then register and data bytes alone.
    static func report(seconds: Double = 20) throws -> [String] {
        let rows = [try fifo(watermark: 16, seconds: seconds), try fifo(watermark: 32, seconds: seconds),
                    try fifo(watermark: 64, seconds: seconds),
                    try fifo(watermark: 16, seconds: seconds, profile: .shaking()),
                    try fifo(watermark: 16, seconds: seconds, compression: false),
                    try perSampleBurst(seconds: seconds)]
        var lines = ["LSM6DSO at 833 Hz, emulated 400 kHz bus, \(Int(seconds)) s virtual per scenario",
                     pad("scenario", 50) + pad("bytes/sample", 14) + pad("x payload", 11) + pad("data bytes", 12)
                        + pad("transfers/sample", 18) + "wakeups/s"]
        for r in rows {
            let name = r.method.hasPrefix("FIFO") ? "plumb \(r.method)" : "reference: 12-byte burst per sample"
            lines.append(pad(name, 50) + pad(fixed(r.wireBytesPerSample, 2), 14)
                         + pad(fixed(r.wireBytesPerSample / Double(payloadBytes), 2), 11) + pad(fixed(r.bytesPerSample, 2), 12)
                         + pad(fixed(r.transactionsPerSample, 3), 18) + fixed(r.wakeupsPerSecond, 1))
        }
        lines.append(pad("payload minimum (accel + gyro)", 50) + pad("12.00", 14) + pad("1.00", 11))
        lines.append("slow rotation unless named. Compressed: lossless DPCM, a 7-byte word carries 1-3 samples of a sensor; the driver")
        lines.append("compresses where a compressed watermark still fills within 125 ms (here watermarks 16 and 32); the threshold keeps")
        lines.append("the uncompressed word count, so a drain holds at least the watermark's samples (about 2.5x as many at rest).")
        lines.append("Uncompressed: 14 bytes a sample (a tag byte per 6-byte word) + a 7-byte timestamp word per 32; at watermark 16 that")
        lines.append("layout's floor is 14.40. A drain is one burst of the threshold's words (3 bytes besides the words); a FIFO_STATUS")
        lines.append("read (5 bytes) only at start, after anything unusual, when polling, and every 64 drains")
        for (r, w) in zip(rows.prefix(3), [16.0, 32, 64]) {
            let bytesOK = r.wireBytesPerSample <= 1.2 * Double(payloadBytes)
            let wakeOK = r.wakeupsPerSecond <= 833 / w + 0.5
            lines.append("target at watermark \(Int(w)): ≤ 14.4 bytes/sample: \(bytesOK ? "met" : "MISSED") (\(fixed(r.wireBytesPerSample, 2))); "
                         + "≤ ODR/\(Int(w)) = \(fixed(833 / w, 1)) wakeups/s (+0.5 for start-up): \(wakeOK ? "met" : "MISSED") (\(fixed(r.wakeupsPerSecond, 1)))")
        }
        let d = decode()
        lines.append("decode + timestamping: \(fixed(d.tagged, 1)) ns/sample (tagged FIFO), \(fixed(d.compressed, 1)) ns/sample (compressed), \(fixed(d.pattern, 1)) ns/sample (pattern FIFO); "
                     + "reference \(fixed(d.reference, 1)) ns/sample (one pass summing the tagged bytes); ratio \(fixed(d.tagged / max(d.reference, 0.001), 2))")
        return lines
    }

}
