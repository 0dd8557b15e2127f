/// FIFO compression on the tagged FIFO (DSO generation).
///
/// With FIFO_COMPR_EN (EMB_FUNC_EN_B, embedded bank) and FIFO_COMPR_RT_EN (FIFO_CTRL2 bit 6) set,
/// the chip stores each sensor's samples by lossless DPCM over three consecutive samples, the
/// oldest two or three at once, so one 7-byte word can carry one, two or three samples:
///
/// | tag (gyro / accel) | name | data bytes | samples |
/// |---|---|---|---|
/// | 0x01 / 0x02 | NC | x, y, z int16 | slot T |
/// | 0x0A / 0x06 | NC_T_2 | x, y, z int16 | slot T − 2 |
/// | 0x0B / 0x07 | NC_T_1 | x, y, z int16 | slot T − 1 |
/// | 0x0C / 0x08 | 2xC | int8 differences: bytes 0–2 for T − 2, bytes 3–5 for T − 1 | T − 2, T − 1 |
/// | 0x0D / 0x09 | 3xC | three little-endian 16-bit words, 5-bit differences x 4:0, y 9:5, z 14:10, for T − 2, T − 1, T | T − 2 … T |
///
/// T is the word's TAG_CNT slot; each difference is to the sample one slot earlier (the first to
/// the last sample decoded for that sensor). The chip writes a word only when three samples are
/// waiting, so the counter advances by at most 3 between words, and a sensor's data arrives up
/// to two slots late; gyroscope and accelerometer words of one slot may sit in different drains.
/// The first word after the FIFO starts is uncompressed (NC_T_2), and FIFO_CTRL2 UNCOPTR_RATE
/// forces one every 8, 16 or 32 batches so decoding can restart after an overrun.
///
/// Sources: LSM6DSO datasheet DS12140 §6.5.7 (enable bits); ST STEVAL-BCN002V1 user manual
/// §2.3.1.4 and its DPCM description (selection: a difference over 8 bits → NC_T_2, over 5 bits →
/// 2xC, else 3xC); ST `fifo_utility.c` (`st_fifo_decode`, `get_diff_2x`, `get_diff_3x`) and
/// arduino-libraries/Arduino_LSM6DSOX `src/LSM6DSOXFIFO.cpp` (`decodeWord`, `extend5bits`) agree
/// on the tags and byte layouts. One disagreement: the user manual's text lists a 2xC word's
/// differences in the other order (D1, for T − 1, then D2, for T − 2), while `fifo_utility.c`
/// applies bytes 0–2 to the T − 2 sample first, and so does Arduino_LSM6DSOX `decodeWord`
/// (written independently: bytes 0–2 added to the T − 3 sample give T − 2, bytes 3–5 then give
/// T − 1); the code follows the two decoders, untested against a real chip. Both also take T
/// from the word's own TAG_CNT and check TAG_PARITY as even parity over the whole tag byte. The
/// Zephyr `lsm6dsv16x_decoder.c` read for comparison skips compressed tags (no third opinion).
extension LSM6DS.TaggedFIFO {
    /// The 6 data bytes of a 2xC word: 8-bit differences for T − 2, then T − 1.
    ///
    /// - Precondition: every component fits in −128…127.
    public static func pack2x(_ d2: SIMD3<Int16>, _ d1: SIMD3<Int16>) -> [UInt8] {
        precondition(fits(d2, bits: 8) && fits(d1, bits: 8), "2xC differences must fit 8 bits")
        return [d2.x, d2.y, d2.z, d1.x, d1.y, d1.z].map { UInt8(truncatingIfNeeded: $0) }
    }

    /// The 6 data bytes of a 3xC word: 5-bit differences for T − 2, T − 1, T.
    ///
    /// - Precondition: every component fits in −16…15.
    public static func pack3x(_ d2: SIMD3<Int16>, _ d1: SIMD3<Int16>, _ d0: SIMD3<Int16>) -> [UInt8] {
        precondition(fits(d2, bits: 5) && fits(d1, bits: 5) && fits(d0, bits: 5), "3xC differences must fit 5 bits")
        var out: [UInt8] = []
        for d in [d2, d1, d0] {
            let w = UInt16(truncatingIfNeeded: d.x) & 0x1F | (UInt16(truncatingIfNeeded: d.y) & 0x1F) << 5
                | (UInt16(truncatingIfNeeded: d.z) & 0x1F) << 10
            out.append(UInt8(truncatingIfNeeded: w))
            out.append(UInt8(truncatingIfNeeded: w >> 8))
        }
        return out
    }

    /// True when every component of `v` is a `bits`-bit two's-complement value.
    public static func fits(_ v: SIMD3<Int16>, bits: Int) -> Bool {
        let hi = Int16(1) << Int16(bits - 1)
        return v.x >= -hi && v.x < hi && v.y >= -hi && v.y < hi && v.z >= -hi && v.z < hi
    }

    /// Turns compressed (and uncompressed) tagged words back into one gyroscope and one
    /// accelerometer word per slot, in slot order, for ``LSM6DS/SampleAssembler``.
    ///
    /// It keeps the last decoded sample of each sensor (the DPCM reference) and up to eight slots
    /// waiting for their other sensor, across drains. A slot is handed on once both sensors are
    /// past it and a word of a later slot has arrived (or it is six slots old), with its timestamp
    /// and temperature words first; a slot
    /// missing a sensor is handed on with what it has, so the assembler counts it lost. After a
    /// discontinuity (``reset()``) compressed words are skipped until an uncompressed word gives
    /// each sensor a reference again: a sample is never rebuilt from a wrong reference.
    public struct Decompressor: Sendable {
        struct Slot: Sendable {
            var index = Int.min
            var gyroscope: SIMD3<Int16>?
            var accelerometer: SIMD3<Int16>?
            var timestamp: UInt32?
            var temperature: Int16?
        }

        /// True when the FIFO batches the gyroscope (a slot then needs both sensors).
        public var gyroscopeEnabled: Bool
        private var ring = [Slot](repeating: Slot(), count: 8)
        /// The slot of the last word, counted from an arbitrary origin; `nil` after a reset.
        private var tick: Int?
        private var nextEmit = 0
        private var gyroscopeHigh = Int.min
        private var accelerometerHigh = Int.min
        private var lastGyroscope: SIMD3<Int16>?
        private var lastAccelerometer: SIMD3<Int16>?
        /// Sensor samples skipped because no reference was known (after a reset).
        public private(set) var skippedSamples = 0
        /// Slots handed on with no sensor data at all, and slots skipped whole before the first
        /// slot with data after a reset (compressed words without a reference); the assembler
        /// counts partial slots itself.
        public private(set) var lostSlots = 0
        /// The slots covered by skipped words since the last reset (empty when `low > high`).
        private var skippedLow = Int.max
        private var skippedHigh = Int.min
        /// False after a reset until the first slot with data is handed on: empty slots before it
        /// are not losses (they precede the stream).
        private var handedOnData = false
        /// A sensor's samples did not follow on from its last one (see ``take(_:at:into:)``).
        private var outOfOrder = false

        public init(gyroscopeEnabled: Bool) { self.gyroscopeEnabled = gyroscopeEnabled }

        /// Forgets the references and the waiting slots: the words that follow are not known to
        /// continue the ones before (an overrun, a failed read, a flush).
        public mutating func reset() {
            for i in ring.indices { ring[i] = Slot() }
            tick = nil
            handedOnData = false
            gyroscopeHigh = .min; accelerometerHigh = .min
            lastGyroscope = nil; lastAccelerometer = nil
            skippedLow = .max; skippedHigh = .min
        }

        /// Drops the timestamps of the slots still waiting (read, not yet handed on), after a read
        /// that may have lost words unseen. Those timestamps were read before the loss; handed on
        /// after ``SampleAssembler/markSlotCountInDoubt()`` they would settle the doubt as "nothing
        /// lost" although the loss came after them (a loss of 4k slots does not show in TAG_CNT),
        /// and the samples after the loss were timed 4k slots early (44 slots, 52 ms at 833 Hz).
        /// Without them the next timestamp, read after the loss, settles it.
        public mutating func forgetWaitingTimestamps() {
            for i in ring.indices { ring[i].timestamp = nil }
        }

        /// Returns and clears ``lostSlots``.
        public mutating func takeLostSlots() -> Int {
            defer { lostSlots = 0 }
            return lostSlots
        }

        /// Decodes whole 7-byte words from `bytes[range]`, appending per-slot words to `words`.
        /// Words with tags other than sensor, timestamp and temperature data are ignored.
        public mutating func decode(_ bytes: [UInt8], range: Range<Int>, into words: inout [LSM6DS.FIFOWord]) {
            var i = range.lowerBound
            while i + LSM6DS.TaggedFIFO.wordLength <= range.upperBound {
                take(bytes, at: i, into: &words)
                i += LSM6DS.TaggedFIFO.wordLength
            }
        }

        private mutating func take(_ b: [UInt8], at i: Int, into words: inout [LSM6DS.FIFOWord]) {
            let tagByte = b[i]
            let counter = Int(tagByte >> 1 & 0x03)
            let t: Int
            if let previous = tick {
                t = previous + ((counter - previous) & 0x03)
            } else {
                // A fresh origin, far enough from zero that T − 2 stays positive.
                t = 8 + counter
                nextEmit = t - 2
            }
            tick = t
            // Slots older than this cannot complete any more (data arrives at most two slots late).
            emit(through: t - 6, into: &words)
            switch tagByte >> 3 {
            case Tag.gyroscope.rawValue: store(gyroscope: LSM6DS.vector(b, i + 1), at: t)
            case Tag.accelerometer.rawValue: store(accelerometer: LSM6DS.vector(b, i + 1), at: t)
            case Tag.temperature.rawValue: self[slot: t]?.temperature = LSM6DS.int16(b, i + 1)
            case Tag.timestamp.rawValue:
                self[slot: t]?.timestamp = UInt32(b[i + 1]) | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3]) << 16 | UInt32(b[i + 4]) << 24
            case Tag.gyroscopeT2.rawValue: store(gyroscope: LSM6DS.vector(b, i + 1), at: t - 2)
            case Tag.gyroscopeT1.rawValue: store(gyroscope: LSM6DS.vector(b, i + 1), at: t - 1)
            case Tag.accelerometerT2.rawValue: store(accelerometer: LSM6DS.vector(b, i + 1), at: t - 2)
            case Tag.accelerometerT1.rawValue: store(accelerometer: LSM6DS.vector(b, i + 1), at: t - 1)
            case Tag.gyroscope2x.rawValue, Tag.gyroscope3x.rawValue:
                takeDifferences(b, at: i, slot: t, threex: tagByte >> 3 == Tag.gyroscope3x.rawValue, gyroscope: true)
            case Tag.accelerometer2x.rawValue, Tag.accelerometer3x.rawValue:
                takeDifferences(b, at: i, slot: t, threex: tagByte >> 3 == Tag.accelerometer3x.rawValue, gyroscope: false)
            default:
                break
            }
            // Each sensor's samples cover consecutive slots (the chip codes the oldest waiting
            // samples first), so a word whose first sample is not the slot after that sensor's last
            // was read out of order or with a corrupted TAG_CNT: the slots from here are in doubt.
            // Start again as after a discontinuity: drop the slots waiting (counted lost), skip
            // compressed words until an uncompressed one, and tell the assembler to re-anchor.
            if outOfOrder {
                lostSlots += ring.filter { $0.index >= nextEmit && ($0.accelerometer != nil || $0.gyroscope != nil) }.count
                let current = UInt8(truncatingIfNeeded: nextEmit - 1) & 0x03
                reset()
                outOfOrder = false
                words.append(LSM6DS.FIFOWord(slot: current, entry: .lost))
                return
            }
            // A slot is handed on once every batched sensor is past it and a word of a later slot
            // has arrived, so its timestamp or temperature word is in whatever order the chip
            // writes a slot's words.
            let sensors = gyroscopeEnabled ? min(gyroscopeHigh, accelerometerHigh) : accelerometerHigh
            if sensors != .min { emit(through: min(sensors, t - 1), into: &words) }
        }

        /// A 2xC or 3xC word of one sensor at `b[i]`, slot `t`: its samples from slot `t` − 2 on,
        /// each the previous one plus its difference; skipped while the sensor has no reference.
        private mutating func takeDifferences(_ b: [UInt8], at i: Int, slot t: Int, threex: Bool, gyroscope: Bool) {
            let n = threex ? 3 : 2
            guard var v = gyroscope ? lastGyroscope : lastAccelerometer else {
                checkFollows(gyroscope ? gyroscopeHigh : accelerometerHigh, first: t - 2)
                skip(n, at: t)
                if gyroscope { gyroscopeHigh = max(gyroscopeHigh, t - 3 + n) } else { accelerometerHigh = max(accelerometerHigh, t - 3 + n) }
                return
            }
            for k in 0..<n {
                v &+= Self.difference(b, at: i + 1, k, threex: threex)
                if gyroscope { store(gyroscope: v, at: t - 2 + k) } else { store(accelerometer: v, at: t - 2 + k) }
            }
        }

        /// Notes a compressed word of `n` samples from slot `t` − 2 on, skipped for want of a reference.
        private mutating func skip(_ n: Int, at t: Int) {
            skippedSamples += n
            skippedLow = min(skippedLow, t - 2)
            skippedHigh = max(skippedHigh, t - 3 + n)
        }

        /// Difference vector `k` (0 = the T − 2 sample) of a 2xC or 3xC word whose data starts at `b[i]`.
        @inline(__always)
        static func difference(_ b: [UInt8], at i: Int, _ k: Int, threex: Bool) -> SIMD3<Int16> {
            if !threex {
                let j = i + 3 * k
                return SIMD3(Int16(Int8(bitPattern: b[j])), Int16(Int8(bitPattern: b[j + 1])), Int16(Int8(bitPattern: b[j + 2])))
            }
            let w = UInt16(b[i + 2 * k]) | UInt16(b[i + 2 * k + 1]) << 8
            // Sign-extend each 5-bit field: shift it to the top of an Int16, then back.
            let x = Int16(bitPattern: w << 11) >> 11
            let y = Int16(bitPattern: w << 6) >> 11
            let z = Int16(bitPattern: w << 1) >> 11
            return SIMD3(x, y, z)
        }

        /// The waiting slot `s`, created if new; `nil` when `s` was already handed on.
        private subscript(slot s: Int) -> Slot? {
            get {
                guard s >= nextEmit else { return nil }
                return ring[s & 7].index == s ? ring[s & 7] : Slot(index: s)
            }
            set {
                guard s >= nextEmit, let newValue else { return }
                ring[s & 7] = newValue
            }
        }

        /// Notes a sensor sample at `first` that is not the slot after that sensor's last, `high`.
        private mutating func checkFollows(_ high: Int, first: Int) {
            if high != .min && first != high + 1 { outOfOrder = true }
        }

        private mutating func store(gyroscope v: SIMD3<Int16>, at s: Int) {
            checkFollows(gyroscopeHigh, first: s)
            lastGyroscope = v
            gyroscopeHigh = max(gyroscopeHigh, s)
            self[slot: s]?.gyroscope = v
        }

        private mutating func store(accelerometer v: SIMD3<Int16>, at s: Int) {
            checkFollows(accelerometerHigh, first: s)
            lastAccelerometer = v
            accelerometerHigh = max(accelerometerHigh, s)
            self[slot: s]?.accelerometer = v
        }

        /// Hands on every slot up to and including `last`. Every slot after the first with data is
        /// handed on, an empty one as a single `.other(tag: 0)` word, so the assembler's two-bit
        /// slot count never skips four or more slots while its timeline is anchored; an empty slot
        /// no skipped word explains as a `.lost` word, which un-anchors it.
        private mutating func emit(through last: Int, into words: inout [LSM6DS.FIFOWord]) {
            while nextEmit <= last {
                let s = nextEmit
                nextEmit += 1
                let entry = ring[s & 7].index == s ? ring[s & 7] : Slot()
                ring[s & 7] = Slot()
                let n = UInt8(truncatingIfNeeded: s) & 0x03
                let hasData = entry.accelerometer != nil || (gyroscopeEnabled && entry.gyroscope != nil)
                let skipped = s >= skippedLow && s <= skippedHigh
                if !hasData {
                    guard handedOnData else {
                        // Before the first slot with data: a loss only if a skipped word covered it
                        // (otherwise the slot precedes the stream).
                        if skipped { lostSlots += 1 }
                        continue
                    }
                    lostSlots += 1
                }
                handedOnData = true
                let before = words.count
                // A slot that no word filled, and no skipped word explains, means the slot counter
                // was misread (words out of order, a corrupted TAG_CNT): the slot count from here is
                // in doubt, so the timeline waits for the next timestamp.
                if !hasData && !skipped { words.append(LSM6DS.FIFOWord(slot: n, entry: .lost)) }
                if let ts = entry.timestamp { words.append(LSM6DS.FIFOWord(slot: n, entry: .timestamp(ts))) }
                if let t = entry.temperature { words.append(LSM6DS.FIFOWord(slot: n, entry: .temperature(t))) }
                if let g = entry.gyroscope, gyroscopeEnabled { words.append(LSM6DS.FIFOWord(slot: n, entry: .gyroscope(g))) }
                if let a = entry.accelerometer { words.append(LSM6DS.FIFOWord(slot: n, entry: .accelerometer(a))) }
                if words.count == before { words.append(LSM6DS.FIFOWord(slot: n, entry: .other(tag: 0))) }
            }
        }
    }
}
