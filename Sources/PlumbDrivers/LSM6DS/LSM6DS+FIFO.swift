/// The two LSM6DS FIFO formats, decoded as pure functions of the bytes read.
///
/// Both decoders turn bytes into ``LSM6DS/FIFOWord``s: a sensor reading plus a two-bit slot counter
/// that says which sampling instant ("time slot") it belongs to. ``LSM6DS/SampleAssembler`` then
/// pairs gyroscope and accelerometer words of one slot into a sample and times it.
extension LSM6DS {
    /// The content of one FIFO word or data set.
    public enum FIFOEntry: Sendable, Equatable {
        /// Raw angular rate, x y z.
        case gyroscope(SIMD3<Int16>)
        /// Raw specific force, x y z.
        case accelerometer(SIMD3<Int16>)
        /// Raw OUT_TEMP-format temperature.
        case temperature(Int16)
        /// The hardware timer, in 25 µs ticks (24 bits on the pattern FIFO, 32 on the tagged FIFO).
        case timestamp(UInt32)
        /// A word this driver does not use (configuration change, sensor hub, step counter), by tag.
        case other(tag: UInt8)
        /// A slot the FIFO should have filled and did not, for no reason the decoder knows (the
        /// decompressor's words out of order or their slot counter corrupted): the slot count may
        /// be wrong from here, so the timeline waits for the next timestamp. The loss is counted
        /// by whoever emits it.
        case lost
    }

    /// One decoded FIFO word with the time slot it belongs to.
    public struct FIFOWord: Sendable, Equatable {
        /// The slot counter, 0...3, advancing by one per sampling instant (the tagged FIFO's TAG_CNT).
        public var slot: UInt8
        public var entry: FIFOEntry

        public init(slot: UInt8, entry: FIFOEntry) { self.slot = slot; self.entry = entry }
    }

    /// A FIFO whose bytes could not be decoded. The driver flushes the FIFO and reports a gap.
    public enum FIFODecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The byte count is not a whole number of words (7 bytes tagged, 6-byte sets pattern).
        case partialWord(bytes: Int, wordLength: Int)
        /// The pattern position is not at the start of a 6-byte data set.
        case misalignedPattern(position: Int)

        public var description: String {
            switch self {
            case .partialWord(let n, let w): return "FIFO read of \(n) bytes is not a whole number of \(w)-byte words"
            case .misalignedPattern(let p): return "FIFO pattern position \(p) is not at the start of a data set"
            }
        }
    }

    // MARK: - Tagged FIFO (DSO generation)

    /// The tagged FIFO of the LSM6DSO generation: 7-byte words read from FIFO_DATA_OUT_TAG (0x78).
    ///
    /// Byte 0 is the tag: TAG_SENSOR in bits 7:3, TAG_CNT (the slot counter) in bits 2:1, parity in
    /// bit 0. Bytes 1–6 are the data, little-endian: x, y, z for the sensors; the 32-bit timer for a
    /// timestamp word. Datasheet: LSM6DSO DS12140 §9 (FIFO_DATA_OUT_TAG); ST-C `lsm6dso_fifo_tag_t`;
    /// K-LSM `st_lsm6dsx_read_tagged_fifo` (`tag = byte >> 3`).
    public enum TaggedFIFO {
        /// Bytes per FIFO word (tag + 6 data bytes).
        public static let wordLength = 7
        /// The FIFO_DATA_OUT_TAG register.
        public static let dataRegister: UInt8 = 0x78

        /// TAG_SENSOR values used here.
        public enum Tag: UInt8, Sendable {
            case gyroscope = 0x01
            case accelerometer = 0x02
            case temperature = 0x03
            case timestamp = 0x04
            case configurationChange = 0x05
            /// Compressed-FIFO tags (see ``Decompressor``): uncompressed at T − 2 and T − 1, and the
            /// 2x and 3x compressed words, accelerometer then gyroscope.
            case accelerometerT2 = 0x06, accelerometerT1 = 0x07, accelerometer2x = 0x08, accelerometer3x = 0x09
            case gyroscopeT2 = 0x0A, gyroscopeT1 = 0x0B, gyroscope2x = 0x0C, gyroscope3x = 0x0D

            /// True for a tag that carries gyroscope data, compressed or not.
            public var isGyroscope: Bool { self == .gyroscope || (0x0A...0x0D).contains(rawValue) }
        }

        /// The tag byte for `tag` in slot `slot`, as the chip writes it: TAG_PARITY (bit 0) set so
        /// the whole byte has an even number of ones (see ``hasValidParity(_:)``).
        public static func tagByte(_ tag: Tag, slot: UInt8) -> UInt8 {
            let b = (tag.rawValue << 3) | ((slot & 0x03) << 1)
            return b | UInt8(b.nonzeroBitCount & 1)
        }

        /// True when `tagByte` has even parity over all 8 bits, as TAG_PARITY (bit 0) makes it on
        /// the LSM6DSO generation; a byte with odd parity was corrupted between the FIFO and the
        /// host. Datasheet: LSM6DSO DS12140, FIFO_DATA_OUT_TAG (78h) TAG_PARITY; ST `fifo_utility.c`
        /// (`st_fifo_decode` rejects a tag byte for which `has_even_parity` is false on this FIFO
        /// version). An all-zero byte (what an emptied FIFO reads as) has even parity.
        @inline(__always)
        public static func hasValidParity(_ tagByte: UInt8) -> Bool { tagByte.nonzeroBitCount & 1 == 0 }

        /// Decodes whole 7-byte words from `bytes[range]`, appending to `words`.
        ///
        /// - Throws: ``FIFODecodingError/partialWord(bytes:wordLength:)`` when the range is not a
        ///   multiple of 7 bytes; nothing is appended then.
        public static func decode(_ bytes: [UInt8], range: Range<Int>? = nil,
                                  into words: inout [FIFOWord]) throws(FIFODecodingError) {
            let r = range ?? bytes.indices
            guard r.count % wordLength == 0 else { throw .partialWord(bytes: r.count, wordLength: wordLength) }
            var i = r.lowerBound
            while i < r.upperBound {
                let tagByte = bytes[i]
                let slot = (tagByte >> 1) & 0x03
                let entry: FIFOEntry
                switch Tag(rawValue: tagByte >> 3) {
                case .gyroscope: entry = .gyroscope(LSM6DS.vector(bytes, i + 1))
                case .accelerometer: entry = .accelerometer(LSM6DS.vector(bytes, i + 1))
                case .temperature: entry = .temperature(LSM6DS.int16(bytes, i + 1))
                case .timestamp:
                    entry = .timestamp(UInt32(bytes[i + 1]) | UInt32(bytes[i + 2]) << 8
                                       | UInt32(bytes[i + 3]) << 16 | UInt32(bytes[i + 4]) << 24)
                default: entry = .other(tag: tagByte >> 3)
                }
                words.append(FIFOWord(slot: slot, entry: entry))
                i += wordLength
            }
        }
    }

    // MARK: - Pattern FIFO (DS3 generation)

    /// The untagged FIFO of the LSM6DS3/DSL generation: 6-byte data sets in a fixed pattern.
    ///
    /// Each sampling instant stores, in this order, the gyroscope set, the accelerometer set and the
    /// timestamp set (the fourth data set, "step counter and timestamp"), each only when its
    /// decimation divides the instant's index within the pattern; the first instant holds every
    /// enabled set. FIFO_STATUS3/4 give the position, in 16-bit words, of the next word to be read.
    /// The timestamp set is B0 = ts[15:8], B1 = ts[23:16], B3 = ts[7:0] (B2 unused, B4–B5 steps).
    /// Datasheet: LSM6DS3 DS10193 §8 and AN4650; K-LSM `st_lsm6dsx_read_fifo` comments.
    public struct PatternFIFO: Sendable, Equatable {
        /// A 6-byte data set.
        public enum DataSet: Sendable, Equatable { case gyroscope, accelerometer, timestamp }

        /// Bytes per data set.
        public static let setLength = 6
        /// FIFO_DATA_OUT_L (0x3E).
        public static let dataRegister: UInt8 = 0x3E

        /// The data sets of each instant in one pattern period.
        public let instants: [[DataSet]]
        /// 16-bit words in one pattern period.
        public let wordsPerPattern: Int

        /// A pattern from the decimation of each data set: 1 = every instant, n = every n-th, 0 = not
        /// in the FIFO (the factor, not the register code).
        ///
        /// - Precondition: at least one set is batched.
        public init(gyroscopeDecimation: Int, accelerometerDecimation: Int, timestampDecimation: Int) {
            let factors = [(DataSet.gyroscope, gyroscopeDecimation), (.accelerometer, accelerometerDecimation),
                           (.timestamp, timestampDecimation)].filter { $0.1 > 0 }
            precondition(!factors.isEmpty, "a FIFO pattern needs at least one data set")
            let period = factors.map(\.1).max() ?? 1
            var instants: [[DataSet]] = []
            for t in 0..<period {
                let sets = factors.filter { t % $0.1 == 0 }.map(\.0)
                if !sets.isEmpty { instants.append(sets) }
            }
            self.instants = instants
            self.wordsPerPattern = instants.reduce(0) { $0 + $1.count * 3 }
        }

        /// The DEC_FIFO code for a decimation factor (FIFO_CTRL3/4): 0 off, 1 none, then 2, 3, 4, 8, 16, 32.
        public static func decimationCode(_ factor: Int) -> UInt8? {
            switch factor {
            case 0: return 0
            case 1: return 1
            case 2: return 2
            case 3: return 3
            case 4: return 4
            case 8: return 5
            case 16: return 6
            case 32: return 7
            default: return nil
            }
        }

        /// Where `position` (in words within the pattern) falls: the instant and the set within it.
        func locate(_ position: Int) -> (instant: Int, set: Int)? {
            var words = 0
            for (i, sets) in instants.enumerated() {
                for s in sets.indices {
                    if words == position { return (i, s) }
                    words += 3
                }
            }
            return nil
        }

        /// How many of `available` words, starting at `position`, end on a completed instant (so a
        /// read never splits one sampling instant's gyroscope from its accelerometer).
        public func completeWords(from position: Int, available: Int) -> Int {
            guard let start = locate(position % wordsPerPattern) else { return 0 }
            var words = 0, best = 0
            var instant = start.instant, set = start.set
            while words + 3 <= available {
                words += 3
                set += 1
                if set == instants[instant].count {
                    best = words
                    instant = (instant + 1) % instants.count
                    set = 0
                }
            }
            return best
        }

        /// Decodes whole data sets from `bytes[range]` starting at pattern `position` (words),
        /// appending to `words`. A new slot number starts at each instant; the first instant read
        /// gets `slot` when `position` is at its start, else `slot` continues the instant in progress.
        /// Within an instant the timestamp word is appended before the sensor words.
        ///
        /// - Returns: the pattern position after the last set and the slot counter of the next instant.
        /// - Throws: when `range` is not whole sets or `position` is inside a set; nothing is appended then.
        public func decode(_ bytes: [UInt8], range: Range<Int>? = nil, position: Int, slot: UInt8,
                           into words: inout [FIFOWord]) throws(FIFODecodingError) -> (position: Int, slot: UInt8) {
            let r = range ?? bytes.indices
            guard r.count % Self.setLength == 0 else { throw .partialWord(bytes: r.count, wordLength: Self.setLength) }
            guard let start = locate(position % wordsPerPattern) else { throw .misalignedPattern(position: position) }
            var instant = start.instant, set = start.set
            var current = slot & 0x03
            var i = r.lowerBound
            var wordPosition = position % wordsPerPattern
            // A read may start inside an instant: its earlier sets are not among the words here.
            let firstWord = words.count
            while i < r.upperBound {
                let entry: FIFOEntry
                switch instants[instant][set] {
                case .gyroscope: entry = .gyroscope(LSM6DS.vector(bytes, i))
                case .accelerometer: entry = .accelerometer(LSM6DS.vector(bytes, i))
                case .timestamp:
                    entry = .timestamp(UInt32(bytes[i + 3]) | UInt32(bytes[i]) << 8 | UInt32(bytes[i + 1]) << 16)
                }
                if case .timestamp = entry {
                    // The timestamp set closes its instant in the FIFO; it is handed on first so the
                    // instant's sample is timed by it.
                    words.insert(FIFOWord(slot: current, entry: entry), at: max(firstWord, words.count - set))
                } else {
                    words.append(FIFOWord(slot: current, entry: entry))
                }
                i += Self.setLength
                wordPosition = (wordPosition + 3) % wordsPerPattern
                set += 1
                if set == instants[instant].count {
                    set = 0
                    instant = (instant + 1) % instants.count
                    current = (current &+ 1) & 0x03
                }
            }
            return (wordPosition, current)
        }

        /// Encodes one instant's sets as the chip stores them (the emulator's writer and tests).
        public static func encode(_ set: DataSet, vector v: SIMD3<Int16> = .zero, timestamp: UInt32 = 0) -> [UInt8] {
            switch set {
            case .gyroscope, .accelerometer: return bytes(of: v)
            case .timestamp:
                return [UInt8(truncatingIfNeeded: timestamp >> 8), UInt8(truncatingIfNeeded: timestamp >> 16), 0,
                        UInt8(truncatingIfNeeded: timestamp), 0, 0]
            }
        }
    }
}

extension LSM6DS {
    /// The little-endian bytes of x, y, z.
    public static func bytes(of v: SIMD3<Int16>) -> [UInt8] {
        [UInt8(truncatingIfNeeded: v.x), UInt8(truncatingIfNeeded: v.x >> 8),
         UInt8(truncatingIfNeeded: v.y), UInt8(truncatingIfNeeded: v.y >> 8),
         UInt8(truncatingIfNeeded: v.z), UInt8(truncatingIfNeeded: v.z >> 8)]
    }
}

extension LSM6DS {
    /// The little-endian int16 at `b[i]`, `b[i + 1]`.
    @inline(__always)
    static func int16(_ b: [UInt8], _ i: Int) -> Int16 {
        Int16(bitPattern: UInt16(b[i]) | UInt16(b[i + 1]) << 8)
    }

    /// The little-endian x, y, z at `b[i]...b[i + 5]`.
    @inline(__always)
    static func vector(_ b: [UInt8], _ i: Int) -> SIMD3<Int16> {
        SIMD3(int16(b, i), int16(b, i + 2), int16(b, i + 4))
    }
}
