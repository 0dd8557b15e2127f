/// Turning decoded FIFO words into timed samples.
extension LSM6DS {
    /// The chip's timestamp counter mapped onto the host's monotonic clock.
    ///
    /// The counter ticks every 25 µs (TIMER_HR = 1 on the DS3 generation). On the DSO generation the
    /// tick is trimmed by INTERNAL_FREQ_FINE (0x63), a signed byte: tick = 25 µs − fine × 37.5 ns
    /// (K-LSM `st_lsm6dsx_get_ts_gain`; datasheet LSM6DSO §6.4). The counter is 24 bits on the
    /// pattern-FIFO parts (it wraps every 419 s) and 32 bits on the DSO generation (29.8 h); it is
    /// unwrapped here into 64 bits, so the driver never has to reset it mid-stream.
    public struct Timebase: Sendable, Equatable {
        /// Nanoseconds per tick.
        public var tickNanoseconds: Double
        /// Counter width in bits (24 or 32).
        public var bits: Int
        /// The host time, CLOCK_MONOTONIC nanoseconds, at which the counter read zero.
        public var originNanoseconds: UInt64

        /// A timebase with the nominal 25 µs tick trimmed by `frequencyFine`.
        public init(bits: Int, frequencyFine: Int8 = 0, originNanoseconds: UInt64) {
            self.tickNanoseconds = 25_000 - Double(frequencyFine) * 37.5
            self.bits = bits
            self.originNanoseconds = originNanoseconds
        }

        /// The typical tick, 25 µs, before the trim.
        ///
        /// A sampling period holds this many of the counter's ticks whatever the trim: the ODR
        /// and the counter run from the same oscillator, and INTERNAL_FREQ_FINE gives "the
        /// difference in percentage of the effective ODR (and timestamp rate) with respect to the
        /// typical" (Datasheet: LSM6DSO DS12140, INTERNAL_FREQ_FINE (63h)). So the nominal period
        /// in ticks is 1/ODR over the typical tick; over the trimmed tick it was off by the trim
        /// (0.45 % at FREQ_FINE 3), and the samples timed from it before the period was measured
        /// (the first 32 after a start, and after a restart) drifted by up to 1.4 ms at 104 Hz.
        public static let typicalTickNanoseconds = 25_000.0

        /// Host nanoseconds for an unwrapped tick count (fractional ticks allowed).
        @inline(__always)
        public func nanoseconds(ticks: Double) -> UInt64 {
            originNanoseconds &+ UInt64(roundingClamped: ticks * tickNanoseconds)
        }
    }

    /// Pairs the gyroscope and accelerometer words of each time slot into an ``IMUSample`` and
    /// times it from the hardware timestamps; reports every slot it cannot emit.
    ///
    /// Timing: a timestamp word anchors its slot; a later slot is the anchor plus the number of
    /// slots since, times the slot period measured between the last two timestamp words (the chip's
    /// real rate, which differs from the nominal ODR by up to a few percent). After a FIFO overflow
    /// the slot count is unknown, so samples are dropped (and counted) until the next timestamp
    /// word re-anchors the timeline: no sample is ever emitted with a guessed time.
    ///
    /// The assembler keeps its state between drains; call ``restart(timebase:)`` after the FIFO is
    /// flushed and the counter reset.
    public struct SampleAssembler: Sendable {
        /// Scale for the accelerometer, m/s² per LSB.
        public var accelerometerScale: Double
        /// Scale for the gyroscope, rad/s per LSB.
        public var gyroscopeScale: Double
        /// True when slots carry a gyroscope word.
        public var gyroscopeEnabled: Bool
        /// LSB per °C and the most recent raw temperature (from the FIFO or a register read).
        public var temperatureLSBPerDegree: Double
        public var temperatureRaw: Int16?
        public private(set) var timebase: Timebase

        /// The slot in progress, `nil` before the first word.
        private var slot: UInt8?
        private var gyroscope: SIMD3<Int16>?
        private var accelerometer: SIMD3<Int16>?
        private var emitted = false
        /// Unwrapping state: the last counter value read and its unwrapped tick count.
        private var lastRawTimestamp: UInt32?
        private var lastUnwrappedTicks: UInt64 = 0
        /// Timestamp words that disagreed with the slot count (held until the next word decides, or
        /// ignored): a counter restarted behind the driver's back (a stray TIMESTAMP2 write, a
        /// glitch), a corrupted word, or slots lost unseen.
        public private(set) var timestampJumps = 0
        /// A timestamp word that disagreed with the slot count: its raw value, the ticks the slot
        /// count gave it, and the slots between the last trusted word and it.
        private struct Held: Sendable { var raw: UInt32; var ticks: UInt64; var slotsFromTrusted: Int }
        private var held: Held?
        /// The last anchor (unwrapped ticks) and slots since it; `nil` when no valid anchor.
        private var anchorTicks: UInt64?
        private var slotsSinceAnchor = 0
        /// Measured ticks per slot.
        public private(set) var periodTicks: Double
        private let nominalPeriodTicks: Double
        /// Samples dropped while waiting for an anchor, reported with the next gap.
        private var unanchoredDrops = 0
        /// Slots lost so far (incomplete or skipped), for the driver to report and reset.
        public var lostSlots = 0
        /// The time of the last emitted sample.
        public private(set) var lastSampleNanoseconds: UInt64?
        /// Host times (nanoseconds) the samples being consumed can have been taken at, when the
        /// caller knows them (the driver: no later than now). A timestamp word that maps outside is
        /// corrupted and ignored; a timeline whose prediction falls outside is abandoned for the
        /// words. `nil` (the default): no check.
        public var plausibleWindow: ClosedRange<UInt64>?
        /// The host time (nanoseconds) of the read being consumed, when the caller knows it (the
        /// driver does). After a loss it tells a counter that ran on through a long pause (the
        /// reader stopped, the FIFO overran) from one that restarted: the host's clock moved on
        /// with the first and not with the second. `nil` (the default): a step of more than half
        /// the counter's range after a loss is taken for a restart.
        public var readNanoseconds: UInt64?
        /// ``readNanoseconds`` when the last trusted timestamp word was consumed.
        private var lastWordReadNanoseconds: UInt64?
        /// Sampling instants still to drop while the sensors' digital filters settle after they
        /// were switched on (the DSL generation's count, ``Variant/settlingInstants(rate:gyroscope:)``).
        /// Set by the driver when a stream starts. Default 0.
        public var settlingInstants = 0
        /// Drop the sensor words the chip masks while its filters settle (DSO generation with
        /// CTRL4_C.DRDY_MASK: the x value reads 0x7FFD or more; Linux `st_lsm6dsx_push_tagged_data`,
        /// "invalid sample during bootstrap phase"). Only until the sensor's first valid word, so
        /// a saturated sample later in the stream is kept. Default false.
        public var dropsMaskedSettlingWords = false
        /// The first raw x value the chip uses to mark a settling sample (Linux `ST_LSM6DSX_INVALID_SAMPLE`).
        public static let firstMaskedSettlingValue: Int16 = 0x7FFD
        private var gyroscopeSettled = false
        private var accelerometerSettled = false
        /// The slot in progress had a masked (settling) word: it is dropped, not lost.
        private var settlingSlot = false
        /// Instants dropped while the filters settled since the last ``takeSettlingDrops()``.
        private var settlingDrops = 0
        /// After ``markSlotCountInDoubt()``: the samples since, untimed, and their slots since the
        /// anchor, until the next timestamp word says whether slots were lost before them.
        private var doubtful: [IMUSample] = []
        private var doubtfulSlots: [Int] = []
        private var inDoubt = false
        /// The anchor the slot count ran from when ``markSlotCountInDoubt()`` raised the doubt:
        /// kept when a TAG_CNT jump un-anchors the timeline during it, so the next timestamp word
        /// still shows the multiple of four slots the jump could not (``resolveDoubt(_:into:)``).
        private var doubtAnchorTicks: UInt64?
        /// Half-read slots abandoned by ``markSlotCountInDoubt()``, counted lost with the slots the
        /// next timestamp word finds (one gap for the loss).
        private var abandonedInDoubt = 0
        /// How many of the samples held in doubt came before a second read that may have lost
        /// slots: if the timestamp word shows slots lost, they may have been lost after those
        /// samples as well as before, so those cannot be timed back from the word.
        private var ambiguousDoubtful = 0
        /// What to do with the samples held in doubt when the next timestamp word shows slots were
        /// lost before them: `true` (the default) times them back from that word, which is exact
        /// when each word carries its own values; `false` drops them, counted, for a compressed
        /// FIFO, whose differences were taken from samples that were lost.
        public var keepsDoubtfulSamplesAfterLoss = true
        /// After a discontinuity, hold the samples that follow and time them back from the next
        /// timestamp word, instead of dropping them until it comes (needs
        /// ``keepsDoubtfulSamplesAfterLoss`` and a measured period). Default false.
        ///
        /// The words read after a loss are contiguous, so the slots from each sample to the next
        /// timestamp word are counted exactly; only the slots lost before them are unknown. The
        /// tagged FIFO writes a timestamp word every 32 instants (DEC_TS_BATCH = 3), so dropping
        /// cost up to 31 samples a loss: 2.5 s of data at the low-energy mode's 12.5 Hz for each
        /// zeroed or failed FIFO read (LowRateFaultCostTests). Held, they come that much later
        /// instead. Timed back over up to 31 slots, a period measured to the counter's 25 µs tick
        /// over 32 slots is off by under 25 µs; the nominal period (before two timestamp words
        /// were seen) is off by the oscillator's trim, up to a few percent, so without a measured
        /// period the samples are still dropped.
        ///
        /// A timestamp word per instant (DEC_TS_BATCH = 1, as Linux `st_lsm6dsx_update_decimators`
        /// sets it: "a ts sample for each data sample in FIFO") would time them at once, and kept
        /// 17–48 % of the low-energy mode's samples instead of 6–27 % under the differential
        /// test's faults (seeds 1–25: a zeroed read about every second, before the next timestamp
        /// word comes); but
        /// its batches are exactly 7 instants where the threshold's spare word made most of them
        /// 8, and that moved one BROAD change of the low-energy orientation check to 1.006 s, past
        /// the mode's 1 s (scripts/test.d/42-orientation-figures), and added 5 % wake-ups and
        /// 85 B/s: not done.
        public var holdsSamplesAfterDiscontinuity = false
        /// The period has been measured between two timestamp words since the last restart.
        private var periodMeasured = false
        /// Set when a timestamp word showed slots lost unseen before the samples held in doubt;
        /// read and cleared with ``takeLossFoundAfterDoubt()``.
        public private(set) var lossFoundAfterDoubt = false
        /// Samples held in doubt since the last ``takeNewlyHeld()``.
        public private(set) var newlyHeld = 0
        /// The most samples held in doubt; beyond, they are dropped and the timeline waits for a
        /// timestamp word. The tagged FIFO writes one every 32 slots.
        static let maximumDoubtfulSamples = 48

        public init(accelerometerScale: Double, gyroscopeScale: Double, gyroscopeEnabled: Bool,
                    temperatureLSBPerDegree: Double, timebase: Timebase, nominalPeriodTicks: Double) {
            self.accelerometerScale = accelerometerScale
            self.gyroscopeScale = gyroscopeScale
            self.gyroscopeEnabled = gyroscopeEnabled
            self.temperatureLSBPerDegree = temperatureLSBPerDegree
            self.timebase = timebase
            self.periodTicks = nominalPeriodTicks
            self.nominalPeriodTicks = nominalPeriodTicks
            doubtful.reserveCapacity(Self.maximumDoubtfulSamples)
            doubtfulSlots.reserveCapacity(Self.maximumDoubtfulSamples)
        }

        /// Forgets the stream after a flush: the next timestamp word starts a new timeline.
        public mutating func restart(timebase: Timebase) {
            self.timebase = timebase
            slot = nil; gyroscope = nil; accelerometer = nil; emitted = false; settlingSlot = false
            lastRawTimestamp = nil; lastUnwrappedTicks = 0; anchorTicks = nil; slotsSinceAnchor = 0; held = nil
            lastWordReadNanoseconds = nil
            periodTicks = nominalPeriodTicks; periodMeasured = false; unanchoredDrops = 0
            doubtful.removeAll(keepingCapacity: true); doubtfulSlots.removeAll(keepingCapacity: true)
            inDoubt = false; lossFoundAfterDoubt = false; ambiguousDoubtful = 0; abandonedInDoubt = 0; doubtAnchorTicks = nil
        }

        /// Marks data lost before the next words (a FIFO overflow or a failed read): the timeline
        /// must be re-anchored by the next timestamp word. The samples before it are dropped
        /// (counted), or with ``holdsSamplesAfterDiscontinuity`` held and timed back from it.
        public mutating func markDiscontinuity() {
            dropDoubtful()
            anchorTicks = nil
            held = nil
            slot = nil; gyroscope = nil; accelerometer = nil; emitted = false; settlingSlot = false
            if holdsSamplesAfterDiscontinuity, keepsDoubtfulSamplesAfterLoss, periodMeasured {
                // Held as in doubt, with no anchor: the next timestamp word anchors the timeline
                // and times them back by the slots counted since (``resolveDoubt(_:into:)``).
                inDoubt = true
                slotsSinceAnchor = 0
            }
        }

        /// Sampling instants dropped while the filters settled since the last call; resets the count.
        public mutating func takeSettlingDrops() -> Int {
            defer { settlingDrops = 0 }
            return settlingDrops
        }

        /// Marks a read that may have lost whole slots unseen, or lost nothing: words the chip may
        /// have popped came back as zeros, which an emptied FIFO also returns when read past its end.
        /// The samples after it are held until the next timestamp word: if it agrees with the slot
        /// count nothing was lost, and they are timed by the slot count; if it is ahead, slots were
        /// lost (counted), and the samples are timed back from it (the slots between them and it
        /// are counted exactly) or, without ``keepsDoubtfulSamplesAfterLoss``, dropped.
        ///
        /// A slot left half read (its gyroscope word read, its accelerometer word not yet) is
        /// abandoned and counted lost: its other word was among the zeros, since the chip writes
        /// both words of an instant together, so an emptied FIFO never ends between them. A word
        /// of a slot 4k further on carries the same two-bit TAG_CNT and would otherwise complete
        /// it with another instant's values (gyroscope 16 slots older than the accelerometer, with
        /// real motion, in the differential test's lsm6dso seed 3).
        ///
        /// A slot of which only a timestamp or temperature word was read (the chip writes those
        /// before the instant's sensor words) is left open: its sensor words are the next ones
        /// when nothing was lost, and a word 4k slots on when slots were, which the next timestamp
        /// word then shows, as for any sample held in doubt. Closed, its sensor words were
        /// swallowed without a count: one slot lost with no gap, when SDA held low made a watermark
        /// read all zeros without popping the FIFO (differential sweep, lsm6dso 833 Hz seed 5).
        public mutating func markSlotCountInDoubt() {
            var abandoned = 0
            if slot != nil, !emitted, gyroscope != nil || accelerometer != nil || settlingSlot {
                if !settlingSlot { abandoned = 1 }
                gyroscope = nil; accelerometer = nil; emitted = true
            }
            if inDoubt {
                ambiguousDoubtful = doubtful.count
                abandonedInDoubt += abandoned
                return
            }
            guard anchorTicks != nil else { // samples wait for an anchor anyway
                lostSlots += abandoned
                return
            }
            inDoubt = true
            doubtAnchorTicks = anchorTicks
            abandonedInDoubt = abandoned
        }

        /// Returns and clears ``newlyHeld``.
        public mutating func takeNewlyHeld() -> Int {
            defer { newlyHeld = 0 }
            return newlyHeld
        }

        /// True while samples wait for a timestamp word after ``markSlotCountInDoubt()``.
        public var isHoldingInDoubt: Bool { inDoubt }

        /// Returns and clears ``lossFoundAfterDoubt``.
        public mutating func takeLossFoundAfterDoubt() -> Bool {
            defer { lossFoundAfterDoubt = false }
            return lossFoundAfterDoubt
        }

        /// Drops the samples held in doubt, counted as unanchored.
        private mutating func dropDoubtful() {
            unanchoredDrops += doubtful.count
            lostSlots += abandonedInDoubt
            abandonedInDoubt = 0
            doubtful.removeAll(keepingCapacity: true)
            doubtfulSlots.removeAll(keepingCapacity: true)
            inDoubt = false
            doubtAnchorTicks = nil
            ambiguousDoubtful = 0
        }

        /// A timestamp word after ``markSlotCountInDoubt()``: decides, times or drops the held samples.
        private mutating func resolveDoubt(_ raw: UInt32, into samples: inout [IMUSample]) {
            inDoubt = false
            let doubtAnchor = doubtAnchorTicks
            doubtAnchorTicks = nil
            lostSlots += abandonedInDoubt
            abandonedInDoubt = 0
            let ambiguous = ambiguousDoubtful
            ambiguousDoubtful = 0
            let slots = slotsSinceAnchor
            var lost = anchorTicks == nil // the slot counter already showed a jump
            var ticks: Double = 0
            if let previous = anchorTicks, let last = lastRawTimestamp {
                let modulus = UInt64(1) << UInt64(timebase.bits)
                let step = (UInt64(raw) &+ modulus &- UInt64(last)) & (modulus - 1)
                let expected = Double(previous) + Double(slots) * periodTicks
                ticks = Double(lastUnwrappedTicks + step)
                let ahead = ticks - expected
                let timebase = self.timebase
                let possible = plausibleWindow.map { $0.contains(timebase.nanoseconds(ticks: ticks)) } ?? true
                // What the doubt is about is a loss of whole multiples of four slots (the slot counter
                // shows the rest), so the midway mark between none and four decides: with the
                // general word check's quarter of the elapsed slots (9 periods after 28 slots)
                // on top, a loss of four went unseen and the held samples were 4 periods off.
                if step <= modulus / 2, possible, ahead > 2 * periodTicks {
                    lost = true
                    lostSlots += max(0, Int((ahead / periodTicks).rounded()))
                    // The counter is right: re-anchor on it without the held-word check.
                    lastRawTimestamp = raw
                    lastUnwrappedTicks = UInt64(ticks)
                    lastWordReadNanoseconds = readNanoseconds
                    held = nil
                    anchorTicks = UInt64(ticks)
                    slotsSinceAnchor = 0
                } else {
                    // Nothing lost: the slot count times them, from the anchor they were counted from.
                    for i in doubtful.indices {
                        doubtful[i].timestampNanoseconds = timebase.nanoseconds(ticks: Double(previous) + Double(doubtfulSlots[i]) * periodTicks)
                    }
                    anchor(raw)
                }
            } else {
                // A TAG_CNT jump during the doubt un-anchored the timeline and counted the slots it
                // showed, the loss modulo four. The word shows the multiple of four besides, from
                // the anchor the doubt began at (the slot count ran on from it through the jump):
                // six slots lost among zeros inside a watermark read were reported as two
                // (ZeroedRunLossCountTests). Counted only; the word anchors the timeline as after any jump.
                if let previous = doubtAnchor, let last = lastRawTimestamp {
                    let modulus = UInt64(1) << UInt64(timebase.bits)
                    let step = (UInt64(raw) &+ modulus &- UInt64(last)) & (modulus - 1)
                    let unwrapped = Double(lastUnwrappedTicks + step)
                    let ahead = unwrapped - (Double(previous) + Double(slots) * periodTicks)
                    let timebase = self.timebase
                    let possible = plausibleWindow.map { $0.contains(timebase.nanoseconds(ticks: unwrapped)) } ?? true
                    if step <= modulus / 2, possible, ahead > 2 * periodTicks {
                        lostSlots += Int((ahead / periodTicks).rounded())
                    }
                }
                anchor(raw)
                // Not `.map(Double.init)`: on a UInt64 that picks Double(bitPattern:), a
                // denormal near 0, and the held samples were stamped at the timeline's origin.
                ticks = anchorTicks.map { Double($0) } ?? 0
            }
            if lost {
                lossFoundAfterDoubt = true
                guard keepsDoubtfulSamplesAfterLoss, anchorTicks != nil else {
                    dropDoubtful()
                    // The samples that follow were decoded the same way: they wait for the next word.
                    if !keepsDoubtfulSamplesAfterLoss { anchorTicks = nil }
                    return
                }
                if ambiguous > 0 {
                    // Slots were lost, but maybe after these samples: they are dropped, counted.
                    unanchoredDrops += ambiguous
                    doubtful.removeFirst(ambiguous)
                    doubtfulSlots.removeFirst(ambiguous)
                }
                for i in doubtful.indices {
                    let back = Double(slots - doubtfulSlots[i]) * periodTicks
                    doubtful[i].timestampNanoseconds = timebase.nanoseconds(ticks: max(0, ticks - back))
                }
            }
            samples.append(contentsOf: doubtful)
            if let t = doubtful.last?.timestampNanoseconds { lastSampleNanoseconds = t }
            doubtful.removeAll(keepingCapacity: true)
            doubtfulSlots.removeAll(keepingCapacity: true)
        }

        /// Samples dropped since the last call because no timestamp anchored them; resets the count.
        public mutating func takeUnanchoredDrops() -> Int {
            defer { unanchoredDrops = 0 }
            return unanchoredDrops
        }

        /// Consumes `words`, appending complete samples to `samples`.
        ///
        /// - Returns: slots that were incomplete or skipped (the slot counter jumped).
        @discardableResult
        public mutating func consume(_ words: [FIFOWord], into samples: inout [IMUSample]) -> Int {
            var lost = 0
            for word in words {
                // A sensor word for a slot that already has one is a slot four (or 4k) later: the
                // two-bit counter wrapped over lost slots.
                var repeated = false
                switch word.entry {
                case .gyroscope: repeated = word.slot == slot && gyroscope != nil
                case .accelerometer: repeated = word.slot == slot && accelerometer != nil
                default: break
                }
                if repeated {
                    if !emitted && !settlingSlot { lost += 1 }
                    lost += 3
                    anchorTicks = nil
                    slotsSinceAnchor += 4
                    gyroscope = nil; accelerometer = nil; emitted = false; settlingSlot = false
                } else if word.slot != slot {
                    if let current = slot {
                        if settlingSlot { settlingDrops += 1 } else if !emitted && (gyroscope != nil || accelerometer != nil) { lost += 1 }
                        let advance = Int((word.slot &- current) & 0x03)
                        if advance > 1 {
                            // Slots missing between two words: the count is known only modulo 4.
                            lost += advance - 1
                            anchorTicks = nil
                        }
                        slotsSinceAnchor += advance
                    }
                    slot = word.slot
                    gyroscope = nil; accelerometer = nil; emitted = false; settlingSlot = false
                }
                switch word.entry {
                case .gyroscope(let v):
                    if dropsMaskedSettlingWords, !gyroscopeSettled, v.x >= Self.firstMaskedSettlingValue { settlingSlot = true; continue }
                    gyroscopeSettled = true
                    gyroscope = v
                case .accelerometer(let v):
                    if dropsMaskedSettlingWords, !accelerometerSettled, v.x >= Self.firstMaskedSettlingValue { settlingSlot = true; continue }
                    accelerometerSettled = true
                    accelerometer = v
                case .temperature(let t): temperatureRaw = t
                case .timestamp(let raw): if inDoubt { resolveDoubt(raw, into: &samples) } else { anchor(raw) }
                case .other: break
                case .lost: dropDoubtful(); anchorTicks = nil; held = nil
                }
                if !emitted, !settlingSlot, let a = accelerometer, !gyroscopeEnabled || gyroscope != nil {
                    emitted = true
                    if settlingInstants > 0 {
                        settlingInstants -= 1
                        settlingDrops += 1
                        continue
                    }
                    // Held in doubt, the slot count since the anchor goes on even when a jump
                    // un-anchored the timeline: the slots from the sample to the next word are exact.
                    guard inDoubt || anchorTicks != nil else { unanchoredDrops += 1; continue }
                    let ticks = Double(anchorTicks ?? 0) + Double(slotsSinceAnchor) * periodTicks
                    let g = gyroscope ?? .zero
                    let t = timebase.nanoseconds(ticks: ticks)
                    let sample = IMUSample(
                        timestampNanoseconds: t,
                        acceleration: SIMD3(Double(a.x), Double(a.y), Double(a.z)) * accelerometerScale,
                        angularRate: SIMD3(Double(g.x), Double(g.y), Double(g.z)) * gyroscopeScale,
                        temperature: temperatureRaw.map { Double($0) / temperatureLSBPerDegree + 25 },
                        saturation: Saturation.of(accelerometer: a, gyroscope: gyroscopeEnabled ? g : .zero))
                    if inDoubt {
                        doubtful.append(sample)
                        doubtfulSlots.append(slotsSinceAnchor)
                        newlyHeld += 1
                        if doubtful.count >= Self.maximumDoubtfulSamples { dropDoubtful(); anchorTicks = nil }
                        continue
                    }
                    lastSampleNanoseconds = t
                    samples.append(sample)
                }
            }
            return lost
        }

        /// A timestamp word: unwrap, check it against the slot count, measure the period against
        /// the previous anchor, re-anchor.
        ///
        /// The counter only counts up, so the step from the last trusted word is taken modulo its
        /// width (a wrap is a small step). While anchored, the slots since that word are counted
        /// exactly, so the word must land within two periods plus a quarter of the elapsed slots'
        /// time of where they put it. One that does not is held, and the samples after it are timed
        /// by the slot count, until the next word decides:
        /// - it agrees with the trusted word: the held one was corrupted (a bit flipped on the
        ///   bus), and is dropped;
        /// - it agrees with the held one: the counter's timeline moved. Ahead of the slot count by
        ///   less than half the counter's range, slots were lost that the two-bit slot counter
        ///   could not see (a multiple of four): the counter is right, and the slots are counted
        ///   lost. Otherwise the counter restarted (a stray TIMESTAMP2 write, a glitch; it would
        ///   read as a wrap, 29.8 h on the 32-bit counter and 419 s on the 24-bit one): the slot
        ///   count carries the timeline on.
        /// Without an anchor (after a loss) a step of more than half the counter's range is a
        /// restart, continued from the slots seen, unless the host's clock (``readNanoseconds``)
        /// moved on by at least half the step since the last trusted word: then the counter ran on
        /// through a pause, and it is unwrapped as often as the host's time asks. With a ``plausibleWindow``, a word that falls
        /// outside it and has no prediction to be replaced by is ignored, and a prediction outside
        /// it is no prediction.
        private mutating func anchor(_ raw: UInt32) {
            let modulus = UInt64(1) << UInt64(timebase.bits)
            func steps(from last: UInt32, to next: UInt32) -> UInt64 { (UInt64(next) &+ modulus &- UInt64(last)) & (modulus - 1) }
            func tolerance(_ slots: Int) -> Double { 2 * periodTicks + 0.25 * Double(slots) * periodTicks }
            var ticks = UInt64(raw)
            var step: UInt64 = 0
            if let last = lastRawTimestamp {
                step = steps(from: last, to: raw)
                ticks = lastUnwrappedTicks + step
            }
            let elapsed = Double(slotsSinceAnchor) * periodTicks
            let window = plausibleWindow
            let timebase = self.timebase
            func possible(_ t: Double) -> Bool { window.map { $0.contains(timebase.nanoseconds(ticks: t)) } ?? true }
            if let previous = anchorTicks, possible(Double(previous) + elapsed) {
                let expected = Double(previous) + elapsed
                let sinceTrusted = (held?.slotsFromTrusted ?? 0) + slotsSinceAnchor
                if abs(Double(ticks) - expected) <= tolerance(sinceTrusted) && possible(Double(ticks)) {
                    held = nil // agrees with the trusted word: a held word was corrupted
                } else if let h = held, abs(Double(steps(from: h.raw, to: raw)) - elapsed) <= tolerance(slotsSinceAnchor) {
                    // Agrees with the held word: the counter's timeline moved at the held word.
                    let sinceHeld = steps(from: h.raw, to: raw)
                    let ahead = steps(from: lastRawTimestamp ?? h.raw, to: h.raw)
                    let counted = Double(h.slotsFromTrusted) * periodTicks
                    let base: Double
                    if ahead <= modulus / 2, Double(ahead) > counted, possible(Double(lastUnwrappedTicks + ahead + sinceHeld)) {
                        base = Double(lastUnwrappedTicks + ahead)
                        lostSlots += max(0, Int(((Double(ahead) - counted) / periodTicks).rounded()))
                    } else {
                        base = Double(h.ticks)
                    }
                    ticks = UInt64(roundingClamped: base) &+ sinceHeld
                    held = nil
                } else {
                    // Disagrees with both: hold it; the slot count times the samples meanwhile.
                    held = Held(raw: raw, ticks: UInt64(roundingClamped: expected), slotsFromTrusted: sinceTrusted)
                    timestampJumps += 1
                    anchorTicks = UInt64(roundingClamped: expected)
                    slotsSinceAnchor = 0
                    return
                }
            } else {
                held = nil
                // The host time between the reads of the last trusted word and this one, in ticks.
                let hostTicks = readNanoseconds.flatMap { now in
                    lastWordReadNanoseconds.map { Double(now &- min(now, $0)) / timebase.tickNanoseconds }
                }
                if lastRawTimestamp != nil, let hostTicks, step > modulus / 2 ? hostTicks >= Double(step) / 2 : hostTicks > Double(modulus) {
                    // The host's clock says the time went by (a long pause after which the FIFO
                    // overran): the counter ran on, and wrapped as often as that time asks.
                    let wraps = max(0, ((hostTicks - Double(step)) / Double(modulus)).rounded())
                    ticks = lastUnwrappedTicks + step + UInt64(wraps) * modulus
                } else if lastRawTimestamp != nil, step > modulus / 2 {
                    ticks = lastUnwrappedTicks &+ Swift.max(1, UInt64(roundingClamped: elapsed))
                    timestampJumps += 1
                }
                guard possible(Double(ticks)) else {
                    // Nothing to check the word against but the host clock, and it rules it out:
                    // the word is ignored and the slots wait for the next one.
                    timestampJumps += 1
                    anchorTicks = nil
                    return
                }
            }
            lastRawTimestamp = raw
            lastUnwrappedTicks = ticks
            lastWordReadNanoseconds = readNanoseconds
            if let previous = anchorTicks, slotsSinceAnchor > 0, ticks > previous {
                let measured = Double(ticks - previous) / Double(slotsSinceAnchor)
                // Accept a measurement within ±20 % of nominal (a wild value means missed slots).
                if abs(measured - nominalPeriodTicks) < 0.2 * nominalPeriodTicks {
                    periodTicks = periodTicks == nominalPeriodTicks ? measured : 0.75 * periodTicks + 0.25 * measured
                    periodMeasured = true
                }
            }
            anchorTicks = ticks
            slotsSinceAnchor = 0
        }
    }
}
