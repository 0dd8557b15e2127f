import PlumbHAL

/// FIFO streaming: start, stop and drain.
extension LSM6DS {
    /// Empties the FIFO, resets the timestamp counter, routes the watermark interrupt and starts
    /// the FIFO in continuous mode.
    ///
    /// Order: FIFO to bypass (the flush, as K-LSM and Seeed-Studio/Seeed_Arduino_LSM6DS3#37 do it:
    /// draining to empty never finishes at high rates); with compression, FIFO_COMPR_INIT in the
    /// embedded bank (``initialiseFIFOCompression()``: the first word is then uncompressed, and
    /// no sample is skipped for want of a DPCM reference); sensors on; read INTERNAL_FREQ_FINE (DSO
    /// generation); TIMESTAMP2 = 0xAA (timer reset) and note the host time;
    /// read the counter back to anchor it; INT1_CTRL/INT2_CTRL = FIFO threshold on the configured pin only; FIFO_MODE = continuous.
    public func startStreaming() throws(IMUError) {
        let v = try requireVariant()
        if plan == nil { try apply(configuration) }
        guard let p = plan else { return }
        streaming = false
        try writeRegister(Register.fifoModeControl, p.fifoModeControl)
        if p.compression { try initialiseFIFOCompression() }
        try writeRegister(Register.control1XL, p.control1XL)
        try writeRegister(Register.control2G, p.control2G)
        expectedControl = [p.control1XL, p.control2G, p.control3C]
        var fine: Int8 = 0
        if let a = v.frequencyFineAddress { fine = Int8(bitPattern: try readRegister(a)) }
        try writeRegister(Register.timestamp2, Self.timestampResetValue)
        // Anchor the counter to the host clock from its value now, so the mapping holds even on a
        // part that ignores the reset write. The chip latches the counter somewhere inside the
        // transfer (the datasheet does not say where): the middle of it is at most half the
        // transfer off. Taken after it, every sample was late by the whole transfer (about
        // 150 µs at 400 kHz: 0.13 periods at 833 Hz, in the differential test). The middle of
        // the attempt that answered, not of the retries: across a failed attempt and the 1 ms
        // pause every sample was 0.44 ms early (differential sweep, lsm6dso 208 Hz seed 7).
        var before: UInt64 = 0, after: UInt64 = 0
        let ts = try registers.run { () throws(I2CError) -> [UInt8] in
            before = clock.nowNanoseconds
            let bytes = try bus.readRegisters(Register.timestamp0, count: v.timestampBits / 8, address: address)
            after = clock.nowNanoseconds
            return bytes
        }
        let now = before + (after &- before) / 2
        var ticks: UInt64 = 0
        for (i, b) in ts.enumerated() { ticks |= UInt64(b) << UInt64(8 * i) }
        let elapsed = UInt64((Double(ticks) * (25_000 - Double(fine) * 37.5)).rounded())
        let origin = now >= elapsed ? now - elapsed : 0
        let pin = p.effective.interrupt.pin
        try writeRegister(pin == .int1 ? Register.int2Control : Register.int1Control, 0)
        try writeRegister(pin == .int1 ? Register.int1Control : Register.int2Control, Self.fifoThresholdInterrupt)
        try writeRegister(Register.fifoModeControl, p.fifoModeControl | FIFOMode.continuous.rawValue)

        let timebase = Timebase(bits: v.timestampBits, frequencyFine: fine, originNanoseconds: origin)
        var a = SampleAssembler(
            accelerometerScale: p.accelerometerRange.milliGPerLSB * 1e-3 * LSM6DS.standardGravity,
            gyroscopeScale: p.gyroscopeRange.milliDPSPerLSB * 1e-3 * .pi / 180,
            gyroscopeEnabled: p.effective.gyroscopeEnabled,
            temperatureLSBPerDegree: v.temperatureLSBPerDegree, timebase: timebase,
            nominalPeriodTicks: 1e9 / p.dataRate.hertz / Timebase.typicalTickNanoseconds)
        // The first samples after the sensors start are the filters settling, not the signal:
        // a count to drop (DSL generation) or the chip's own marks (DSO generation, DRDY_MASK).
        a.settlingInstants = v.settlingInstants(rate: p.dataRate, gyroscope: p.effective.gyroscopeEnabled)
        a.dropsMaskedSettlingWords = v.dataReadyMask != nil
        a.keepsDoubtfulSamplesAfterLoss = !p.compression
        // A timestamp comes every 32 instants on the tagged FIFO and every 8 on the pattern FIFO:
        // hold the samples after a loss and time them back from it, rather than drop up to 31 (7)
        // of them (uncompressed only: a compressed word's values depend on the words before it).
        // Pattern FIFO: one zeroed read at 12.5 Hz cost 7–9 instants, now its batch of 7
        // (LowRateFaultCostTests).
        a.holdsSamplesAfterDiscontinuity = !p.compression
        assembler = a
        pattern = v.generation.hasPatternFIFO
            ? PatternFIFO(gyroscopeDecimation: p.effective.gyroscopeEnabled ? 1 : 0, accelerometerDecimation: 1,
                          timestampDecimation: p.timestampDecimation)
            : nil
        patternPosition = 0
        patternSlot = 0
        // The temperature comes from the FIFO (DSO generation, first batch) or from OUT_TEMP at the
        // first drain (DS3 generation), once the sensors have converted it.
        lastTemperatureReadNanoseconds = 0
        pendingGaps.removeAll()
        taggedStateKnown = false
        taggedReadsSinceStatus = 0
        taggedLastReadEndNanoseconds = clock.nowNanoseconds
        fill = FIFOFill(fromNanoseconds: clock.nowNanoseconds)
        taggedWordsPerInstant = p.compression ? Self.fewestWordsPerInstant(p) : Self.wordsPerInstant(p)
        decompressor = TaggedFIFO.Decompressor(gyroscopeEnabled: p.effective.gyroscopeEnabled)
        words.reserveCapacity(p.watermarkWords * 2 + 64)
        streaming = true
    }

    /// FIFO to bypass, interrupt routing off, both sensors powered down.
    public func stopStreaming() throws(IMUError) {
        _ = try requireVariant()
        streaming = false
        try writeRegister(Register.fifoModeControl, plan?.fifoModeControl ?? 0)
        try writeRegister(Register.int1Control, 0)
        try writeRegister(Register.int2Control, 0)
        try writeRegister(Register.control1XL, 0)
        try writeRegister(Register.control2G, plan.map { $0.control2G & 0x0F } ?? 0)
        if let p = plan { expectedControl = [0, p.control2G & 0x0F, p.control3C] }
    }

    /// Reads every complete sampling instant waiting in the FIFO and appends the samples.
    ///
    /// One status read (FIFO_STATUS1–4 with the pattern position on the DS3 generation; on the
    /// DSO generation FIFO_STATUS1–2, skipped in steady state, see ``drainTagged(_:edges:catchingUp:into:)``)
    /// and one burst of FIFO data per call (split into whole words when the bus limits the read
    /// length); after a burst that may have left the threshold's words behind, up to
    /// ``maximumCatchUpReads`` status reads more, each followed by a burst while the status shows
    /// the threshold (``fifoMayHoldThreshold(lastSample:periodNanoseconds:)``). Samples are timed by the chip's timestamps;
    /// `edges` are not needed for timing.
    ///
    /// - Returns: the number of samples added and the gaps found: a FIFO overrun (with the number
    ///   of samples lost, measured from the timestamps when the timeline is re-anchored in the same
    ///   drain), or data lost to a failed read in an earlier call.
    /// - Throws: ``IMUError/bus(_:)``; a failed FIFO read is also remembered as a gap for the next call.
    public func drain(into samples: inout [IMUSample], edges: [EdgeEvent]) throws(IMUError) -> DrainResult {
        guard streaming, let v = variant, var a = assembler else {
            throw .unsupported("drain() before startStreaming() on \(variant?.name ?? "LSM6DS") at \(address) on \(bus.path)")
        }
        defer { assembler = a }
        var result = DrainResult()
        let before = samples.count
        let lastBefore = a.lastSampleNanoseconds
        a.plausibleWindow = plausibleSampleWindow(timebase: a.timebase)
        a.readNanoseconds = clock.nowNanoseconds
        var overflow = false
        if v.generation == .dso {
            taggedCorruption = false
            taggedZeroedWords = 0
            overflow = try drainTagged(&a, edges: edges, into: &samples)
            catchUp(&a, overflow: &overflow, stillClean: { !taggedCorruption && taggedZeroedWords == 0 }) { (a: inout SampleAssembler) throws(IMUError) -> Bool in
                try drainTagged(&a, edges: [], catchingUp: true, into: &samples)
            }
            // Slots were lost before samples held in doubt: with compression the words decoded
            // since took their differences from lost samples, so decoding restarts.
            if a.takeLossFoundAfterDoubt(), plan?.compression == true { discontinuity(&a) }
        } else {
            overflow = try drainPattern(&a, variant: v, into: &samples)
            catchUp(&a, overflow: &overflow, stillClean: { true }) { (a: inout SampleAssembler) throws(IMUError) -> Bool in
                try drainPattern(&a, variant: v, catchingUp: true, into: &samples)
            }
        }
        let lost = a.lostSlots
        a.lostSlots = 0
        let drops = a.takeUnanchoredDrops()
        let now = clock.nowNanoseconds
        if overflow {
            var estimate: Int? = nil
            if let last = lastBefore, samples.count > before {
                let ns = Double(samples[before].timestampNanoseconds &- last)
                let period = a.periodTicks * a.timebase.tickNanoseconds
                estimate = max(0, Int((ns / period).rounded()) - 1)
            }
            result.gaps.append(StreamGap(reason: .fifoOverflow, afterNanoseconds: lastBefore,
                                         detectedNanoseconds: now, lostSamples: estimate))
        } else if taggedCorruption {
            // How much the corrupted words held is unknown: the next words re-anchor the timeline.
            result.gaps.append(StreamGap(reason: .busError, afterNanoseconds: a.lastSampleNanoseconds ?? lastBefore,
                                         detectedNanoseconds: now, lostSamples: nil))
        } else if taggedZeroedWords > 0 {
            // Lost whatever the timeline shows next: the discontinuity re-anchors it on the next
            // timestamp word, which may come first (then no sample is dropped to show the loss).
            // Uncompressed, an instant takes a word per sensor and a timestamp word per
            // `timestampDecimation` instants; compressed, one to three samples a word.
            var estimate: Int?
            if let p = plan, !p.compression {
                let perInstant = (p.effective.gyroscopeEnabled ? 2.0 : 1.0) + 1.0 / Double(max(1, p.timestampDecimation))
                estimate = Int((Double(taggedZeroedWords) / perInstant).rounded()) + lost + drops
            }
            result.gaps.append(StreamGap(reason: .busError, afterNanoseconds: a.lastSampleNanoseconds ?? lastBefore,
                                         detectedNanoseconds: now, lostSamples: estimate))
        } else if lost + drops > 0 {
            result.gaps.append(StreamGap(reason: .busError, afterNanoseconds: lastBefore,
                                         detectedNanoseconds: now, lostSamples: lost + drops))
        }
        taggedCorruption = false
        taggedZeroedWords = 0
        // A failed read's gap goes out with the next drain that returns: taken at the start, it
        // was lost when that drain failed too (a FIFO read failing, then the status read of the
        // next drain, in a NACK window), and the samples held since were emitted with no gap
        // before them (differential sweep with PLUMB_MORE, lsm6dso 833 Hz seed 10: 17 slots).
        if !pendingGaps.isEmpty {
            result.gaps.insert(contentsOf: pendingGaps, at: 0)
            pendingGaps.removeAll()
        }
        result.sampleCount = samples.count - before
        result.heldSamples = a.takeNewlyHeld()
        result.settlingDiscards = a.takeSettlingDrops()
        return result
    }

    /// The host times a sample read now can have been taken at: no later than now, widened by 1 s
    /// and 5 % of the time since the counter was anchored (the counter's tick is trimmed, not
    /// exact). A timestamp word later than that is corrupted (``SampleAssembler/plausibleWindow``):
    /// anchored there, the timeline would run hours ahead. There is no lower bound: a counter that
    /// ignored its reset (or an i2c-stub image) gives old-looking times that are still the chip's,
    /// and a corrupted word in the past is corrected by the next two words.
    func plausibleSampleWindow(timebase: Timebase) -> ClosedRange<UInt64> {
        let now = clock.nowNanoseconds
        let margin = Nanoseconds.perSecond + (now &- min(now, timebase.originNanoseconds)) / 20
        return 0...(now &+ margin)
    }

    /// Drains again (with `drainAgain`, a catch-up read) while the FIFO may still hold the
    /// threshold's words after the read just made (``fifoMayHoldThreshold(lastSample:periodNanoseconds:)``),
    /// nothing overflowed and `stillClean` holds, at most ``maximumCatchUpReads`` times. A failed
    /// read ends it: the samples already appended stand, a FIFO read that failed left its gap in
    /// `pendingGaps` (reported by the drain), a status read lost nothing, and the next drain reads
    /// the status again.
    func catchUp(_ a: inout SampleAssembler, overflow: inout Bool, stillClean: () -> Bool,
                 _ drainAgain: (inout SampleAssembler) throws(IMUError) -> Bool) {
        var reads = 0
        while reads < (catchesUp ? Self.maximumCatchUpReads : 0), !overflow, stillClean(),
              fifoMayHoldThreshold(lastSample: a.lastSampleNanoseconds, periodNanoseconds: a.periodTicks * a.timebase.tickNanoseconds) {
            reads += 1
            catchUpReads += 1
            a.plausibleWindow = plausibleSampleWindow(timebase: a.timebase)
            a.readNanoseconds = clock.nowNanoseconds
            do throws(IMUError) {
                overflow = try drainAgain(&a)
            } catch {
                break
            }
        }
    }

    /// Status reads one drain adds to catch up (``fifoMayHoldThreshold(lastSample:periodNanoseconds:)``). A burst pops the FIFO
    /// faster than 400 kHz lets a 1666 Hz chip fill it (a 7-byte word in 158 µs against 2 words
    /// per 600 µs: about half as many words arrive as are read), so each read leaves about half the
    /// last: a full LSM6DSO FIFO (512 words) is below a 16-sample threshold after five. Bounded, so
    /// a chip that always reports full cannot hold the reader.
    static let maximumCatchUpReads = 6

    /// Whether the FIFO may still hold its threshold's words after the burst just read: the words
    /// known left and those that can have arrived since (``fill``, when its last read was a burst),
    /// with 1 % for the oscillator, and one instant more (the words of an instant arrive together)
    /// unless the chip's timeline says it has not come yet (see below).
    ///
    /// The threshold pin is a level, not a pulse: FIFO_WTM_IA (and so the pin, routed to the
    /// threshold only) is 1 while the FIFO holds at least the threshold (Datasheet: LSM6DSO
    /// DS12140, FIFO_STATUS2 (3Bh) FIFO_WTM_IA; LSM6DS3 DocID026899 and LSM6DSL DocID028475,
    /// FIFO_STATUS2 (3Bh) WaterM: "FIFO filling is equal to or higher than the watermark level").
    /// A long read (after the reader was held up: 40 ms at 1666 Hz puts 140 words in the FIFO,
    /// 22 ms of bus at 400 kHz) pops words while new ones arrive; when the level never falls below
    /// the threshold the pin never falls, and no new rising edge comes. The stream's watchdog then
    /// took the line for dead: a notice, polling, a notice back (ReaderStallTests: 1666 Hz, stalls
    /// of 10–40 ms, 30–40 notices in 6 s). The drain reads the status again instead, and drains
    /// again while it shows the threshold. In steady state the estimate stays below the threshold
    /// (a 16-sample burst at 1666 Hz: 20 words of 33), so no read is added there.
    ///
    /// With the chip's own timeline (`lastSample`, the last sample read, and `periodNanoseconds`)
    /// the instant that may have arrived is counted only once it is due (within
    /// ``catchUpTimelineMarginNanoseconds``): at a small threshold (1–3 samples) one instant reaches
    /// it, and allowing for one always added a status read to every drain at 833 Hz and above.
    func fifoMayHoldThreshold(lastSample: UInt64?, periodNanoseconds: Double) -> Bool {
        guard fill.afterBurst, let p = plan else { return false }
        let from = fill.fromNanoseconds
        let sets = (p.effective.gyroscopeEnabled ? 2.0 : 1.0) + 1.0 / Double(max(1, p.timestampDecimation))
        // Tagged: a 7-byte word per set (uncompressed: compression only packs more in a word);
        // pattern: three 16-bit words per set.
        let wordsPerInstant = variant?.generation == .dso ? sets : 3 * sets
        let now = clock.nowNanoseconds
        let threshold = Double(p.watermarkWords)
        let arrived = fill.words(at: now, instantsPerSecond: p.dataRate.hertz * 1.01, wordsPerInstant: wordsPerInstant)
        if arrived >= threshold { return true }
        // Only an instant more can reach the threshold: has one come since the last sample read?
        guard arrived + wordsPerInstant >= threshold else { return false }
        guard let last = lastSample, periodNanoseconds > 0 else { return true }
        // Two bounds on the instants come since, each widened by the margin, the smaller taken:
        // those of the timeline (last + k periods) after the last sample read (which the DSO's
        // decoder may hold back a few instants), and those between `from` and now.
        let margin = Self.catchUpTimelineMarginNanoseconds
        let end = (Double(Int64(bitPattern: now &- last)) * 1.01 + margin) / periodNanoseconds
        let start = (Double(Int64(bitPattern: from &- last)) - margin) / periodNanoseconds
        let due = max(0, min(end.rounded(.down), end.rounded(.down) - start.rounded(.down)))
        return Double(fill.words) + due * wordsPerInstant >= threshold
    }

    /// How far the timeline of the samples read may lag the chip's, for ``fifoMayHoldThreshold(lastSample:periodNanoseconds:)``:
    /// 150 µs (the differential tests hold the LSM6DS's sample times to 125 µs).
    static let catchUpTimelineMarginNanoseconds = 150_000.0

    /// Watermark reads between two FIFO_STATUS reads on the tagged FIFO (a safety net: the
    /// watermark-read conditions already exclude an overrun).
    static let watermarkReadsPerStatusRead = 64

    /// DSO generation. Two ways to drain:
    ///
    /// - **Watermark read** (steady state): one burst of exactly the threshold's worth of 7-byte
    ///   words from FIFO_DATA_OUT_TAG, no FIFO_STATUS read. Taken only when the drain was woken by
    ///   a watermark edge seen after the previous FIFO read ended, soon after that edge, and the
    ///   previous drain left the stream in a known state, and only when the time since the
    ///   previous read's edge (or status read) lets the FIFO hold the threshold whatever the edge
    ///   (``fifoFilledToThreshold(now:threshold:configuration:)``: a stray edge gets a status
    ///   read). FIFO_WTM_IA (and so the pin, routed
    ///   to the threshold only) is 1 while the FIFO holds at least the threshold's words
    ///   (Datasheet: LSM6DSO DS12140, FIFO_STATUS2 (3Bh) FIFO_WTM_IA), so a new assertion after
    ///   the last read means the level rose from below the threshold to it: the words are there
    ///   and none was overwritten before the edge. From the edge to now the FIFO fills at most at
    ///   2 words + a timestamp per sample period; the read is taken only while that cannot reach
    ///   the capacity, nor leave a second threshold's worth behind (the pin then falls and the
    ///   next crossing gives the next edge). The register pointer rolls back from 0x7E to 0x78
    ///   after each word (with CTRL3_C.IF_INC), so one transfer reads many words, as K-LSM's
    ///   `st_lsm6dsx_read_tagged_fifo` does in 28-byte blocks (reference/drivers.md §B2). The
    ///   datasheet text for the roll-back was not among the sources read.
    ///   Every tag is checked: a word whose TAG_SENSOR is not one the FIFO is configured to
    ///   batch (what a chip reset or an emptied FIFO gives), or whose tag byte fails TAG_PARITY,
    ///   ends the read's valid data, and the next drain reads the status. When the words dropped
    ///   so are not all zero, they are corruption: a discontinuity (timeline re-anchored, DPCM
    ///   references dropped, so decoding waits for an uncompressed word) and a gap. All-zero
    ///   words are either the read past the end of a FIFO that held less than the threshold (a
    ///   stray edge: nothing lost) or words the chip popped and the bus returned as zeros (lost,
    ///   possibly a multiple of four slots, which the two-bit slot counter cannot see): the
    ///   samples after them are held until the next timestamp word tells which
    ///   (``SampleAssembler/markSlotCountInDoubt()``), so they are never timed off by the lost
    ///   slots. After a status read the words were there (DIFF_FIFO said so), so even all-zero
    ///   ones were popped and lost: a discontinuity, and a gap of its own (the next words may
    ///   start with a timestamp word, so no sample need be dropped to show the loss: 50 slots went
    ///   unreported so in the differential test's lsm6dso seed 9).
    ///   Not taken while samples are held in doubt: a slow storm (stray edges before the FIFO
    ///   reaches its threshold) otherwise chains one read into zeros onto another. With
    ///   compression each such read drops the timestamp words still waiting in the decompressor
    ///   (read before the zeros, they must not settle the doubt), so the samples held waited 32
    ///   slots more, passed ``SampleAssembler/maximumDoubtfulSamples`` and were all dropped: gaps
    ///   of about 56 samples (StormSweep, LSM6DSO watermark 16 compressed: 833 Hz in 50–100 Hz
    ///   storms 16–83 gaps, 416 Hz in 30–60 Hz storms 2–50; none after). The chip was right:
    ///   the threshold and DIFF_FIFO count 7-byte words (DS12140 §6.5.7), the compressor writes
    ///   a sample up to two slots late (ST STEVAL-BCN002V1 user manual, DPCM: "a latency of 2
    ///   data words"), and a timestamp word comes every 32 batches (DEC_TS_BATCH = 3); the
    ///   emulator does all three. A status read instead reads DIFF_FIFO's words, never zeros.
    /// - **Status read**: FIFO_STATUS1/2, then DIFF_FIFO words. Used at start, after anything
    ///   unusual, when polling, and every ``watermarkReadsPerStatusRead`` watermark reads; it
    ///   reports an overrun (OVER_RUN_LATCHED is cleared by the read, so none is missed).
    ///
    /// `catchingUp`: a status read after a burst that may have left the threshold's words behind
    /// (``fifoMayHoldThreshold(lastSample:periodNanoseconds:)``); the words are read only when the status shows at least the
    /// threshold, else the pin is low and the next crossing gives an edge.
    func drainTagged(_ a: inout SampleAssembler, edges: [EdgeEvent], catchingUp: Bool = false,
                     into samples: inout [IMUSample]) throws(IMUError) -> Bool {
        fill.afterBurst = false
        guard let p = plan else { return false }
        let threshold = p.watermarkWords
        let now = clock.nowNanoseconds
        // The pin's assertion: rising when active high, falling when active low (H_LACTIVE).
        let asserting: EdgeKind = p.effective.interrupt.level == .activeLow ? .falling : .rising
        let edge = edges.last { $0.kind == asserting }?.timestampNanoseconds
        // Words the FIFO can gain per nanosecond: two sensor words and a timestamp word per
        // sample, with 1 % for the oscillator.
        let wordsPerNanosecond = 2.05 * p.dataRate.hertz * 1.01 / 1e9
        let capacityWords = (variant?.fifoCapacityBytes ?? 3072) / 6
        let margin = Double(min(capacityWords - threshold, threshold)) / 2
        // Below 8 words the words gained in the margin could keep the level at the threshold
        // after the read, and the pin would not fall for the next edge: read the status instead.
        // While samples are held in doubt after a read that ended in zeros, only status reads:
        // a second read into zeros would chain a second doubt onto the first (see below).
        if !catchingUp, taggedStateKnown, threshold >= 8, taggedReadsSinceStatus < Self.watermarkReadsPerStatusRead, !a.isHoldingInDoubt,
           let edge, edge >= taggedLastReadEndNanoseconds, now >= edge,
           Double(now - edge) * wordsPerNanosecond < margin,
           fifoFilledToThreshold(now: now, threshold: threshold, configuration: p) {
            taggedStateKnown = false
            // The FIFO held the threshold's words at the edge: what is left came after it.
            let fillSpan = (from: fill.fromNanoseconds, to: edge, words: threshold - fill.words)
            fill = FIFOFill(fromNanoseconds: edge, afterBurst: true)
            try readFIFO(TaggedFIFO.dataRegister, bytes: threshold * TaggedFIFO.wordLength,
                         unit: TaggedFIFO.wordLength, assembler: &a)
            taggedLastReadEndNanoseconds = clock.nowNanoseconds
            taggedReadsSinceStatus += 1
            watermarkDrains += 1
            var valid = try decodeTagged(words: threshold, configuration: p)
            a.lostSlots += a.consume(words, into: &samples) + decompressor.takeLostSlots()
            // A stray edge the fill check could not refuse (the words an instant adds vary by
            // half with compression) read past the end of the FIFO: zeros, then the words that
            // came during the burst. Taken as corruption they cost a gap and, compressed, every
            // sample to the next uncompressed word (the 60 Hz storm in MotionFaultDifferentialTests:
            // 19 samples in three gaps at 833 Hz). They go on from the words before the zeros.
            var resumed = false
            while taggedCorruption, let resume = taggedResumption(after: valid, words: threshold, configuration: p) {
                taggedCorruption = false
                resumed = true
                if p.compression { decompressor.forgetWaitingTimestamps() }
                a.markSlotCountInDoubt()
                valid = try decodeTagged(from: resume, words: threshold, configuration: p)
                a.lostSlots += a.consume(words, into: &samples) + decompressor.takeLostSlots()
            }
            taggedStateKnown = valid == threshold && !resumed
            if taggedStateKnown { measureWordsPerInstant(fillSpan, configuration: p) }
            if taggedCorruption {
                discontinuity(&a)
            } else if valid < threshold {
                // A timestamp still waiting in the decompressor was read before the zeros: it
                // must not settle the doubt they raise.
                if p.compression { decompressor.forgetWaitingTimestamps() }
                a.markSlotCountInDoubt()
            }
            return false
        }
        let fillKnown = taggedStateKnown
        taggedStateKnown = false
        let statusTime = clock.nowNanoseconds
        let status = try readRegisters(Register.fifoStatus1, count: 2)
        statusDrains += 1
        taggedReadsSinceStatus = 0
        let count = Int(status[0]) | Int(status[1] & 0x03) << 8
        // DIFF_FIFO is 10 bits, the FIFO holds 512 words: more is a corrupted read (reading it
        // would take a 7 KB burst of garbage).
        guard count <= capacityWords else {
            throw .implausibleRead("FIFO_STATUS1/2 (0x3A)", bytes: status, address: address, bus: bus.path,
                                   "\(count) words waiting in a FIFO of \(capacityWords)")
        }
        // FIFO_STATUS2: OVER_RUN_LATCHED bit 3 (cleared by this read), FIFO_OVR_IA bit 6.
        let overflow = status[1] & 0x48 != 0
        if overflow { discontinuity(&a) }
        let fillSpan = (from: fill.fromNanoseconds, to: statusTime, words: count - fill.words)
        guard count > 0, !catchingUp || count >= threshold else {
            fill = FIFOFill(fromNanoseconds: statusTime, words: count)
            taggedLastReadEndNanoseconds = clock.nowNanoseconds
            taggedStateKnown = true
            return overflow
        }
        fill = FIFOFill(fromNanoseconds: statusTime)
        try readFIFO(TaggedFIFO.dataRegister, bytes: count * TaggedFIFO.wordLength,
                     unit: TaggedFIFO.wordLength, assembler: &a)
        // Every word there at the status read was read: what is left came after it.
        fill.afterBurst = true
        taggedLastReadEndNanoseconds = clock.nowNanoseconds
        let valid = try decodeTagged(words: count, configuration: p)
        taggedStateKnown = valid == count
        a.lostSlots += a.consume(words, into: &samples) + decompressor.takeLostSlots()
        if fillKnown, taggedStateKnown, !overflow { measureWordsPerInstant(fillSpan, configuration: p) }
        if valid < count {
            discontinuity(&a)
            if !taggedCorruption { taggedZeroedWords = count - valid }
        }
        return overflow
    }

    /// Whether the FIFO must hold the threshold's words now, whatever the edge that woke the
    /// drain: the words known there at the fill's reference (``fill``) and those the instants since
    /// then added (at the configured rate less 1 % for the oscillator), with one instant's words
    /// of slack for where the instants fall in that time, and with compression two words per
    /// sensor more (the compressor writes a sensor's words in bursts: a 3xC word every third
    /// instant, or up to three uncompressed words at once).
    ///
    /// The pin is a level and an edge after the last read says the FIFO rose to the threshold
    /// since, but not a stray one: noise on the pin, or an edge stamped just after a read that
    /// belongs before it. The watermark read on such an edge ran past the end of the FIFO.
    /// The chip samples on during a burst (the words of an instant arrive while the
    /// bytes are read: 33 words take 5.2 ms at 400 kHz, 4 instants at 833 Hz), so past the end
    /// the read got zeros, then the words that came meanwhile, popped behind them: taken for
    /// corruption, a gap, and with compression every sample up to the next uncompressed word
    /// dropped (StrayEdgeTests: 833 Hz, watermark 16, a stray edge 0–15 ms after a read: a gap
    /// and 19–55 instants lost in 20 strays uncompressed, 390–730 compressed). After a genuine
    /// edge the time since the previous edge (or status read) always covers the threshold, so
    /// the steady state keeps its watermark reads; the stray edge gets a status read.
    ///
    /// Uncompressed an instant adds a word per sensor and a timestamp word per
    /// `timestampDecimation`, and the temperature word's share; compressed, what the last reads
    /// measured (``measureWordsPerInstant(_:configuration:)``), from the fewest an instant can add
    /// (3xC) after a start.
    func fifoFilledToThreshold(now: UInt64, threshold: Int, configuration p: Plan) -> Bool {
        let perInstant = taggedWordsPerInstant
        let slack = perInstant + (p.compression ? (p.effective.gyroscopeEnabled ? 4.0 : 2.0) : 0)
        return fill.words(at: now, instantsPerSecond: p.dataRate.hertz * 0.99, wordsPerInstant: perInstant) + slack >= Double(threshold)
    }

    /// Words a sampling instant adds to the tagged FIFO uncompressed: one per sensor, the
    /// timestamp word every `timestampDecimation` instants, and the temperature word's share
    /// (ODR_T_BATCH = 1.6 Hz, ``startStreaming()``). Without the temperature, 10 genuine edges
    /// in 30 s at 12.5 Hz (watermark 7, accelerometer only) took a status read: a temperature
    /// word every 8 instants brings the edge an instant sooner.
    static func wordsPerInstant(_ p: Plan) -> Double {
        (p.effective.gyroscopeEnabled ? 2.0 : 1.0) + extraWordsPerInstant(p)
    }

    /// The fewest words an instant can add with compression: 3xC words (three samples of a sensor
    /// in one word, as ``Plan/maximumSamplesPerWatermark`` counts), the timestamp and temperature words.
    static func fewestWordsPerInstant(_ p: Plan) -> Double {
        (p.effective.gyroscopeEnabled ? 2.0 : 1.0) / 3 + extraWordsPerInstant(p)
    }

    /// The timestamp word every `timestampDecimation` instants and the temperature word at 1.6 Hz.
    static func extraWordsPerInstant(_ p: Plan) -> Double {
        1.0 / Double(max(1, p.timestampDecimation)) + temperatureBatchHertz / p.dataRate.hertz
    }

    /// ODR_T_BATCH = 1 (Datasheet: LSM6DSO DS12140, FIFO_CTRL4 (0Ah): 01 = 1.6 Hz).
    static let temperatureBatchHertz = 1.6

    /// With compression, folds the words that arrived over a span into ``taggedWordsPerInstant``:
    /// from one read's fill reference (its edge or status read) to the next one's, the words the
    /// next read found (the threshold's at a watermark edge, DIFF_FIFO's at a status read) less
    /// those known there at the start. Spans shorter than four instants are skipped (the words of
    /// an instant arrive together). Up at once (a signal that compresses worse brings the edges
    /// sooner: with a quarter weight both ways, the shaking benchmark took extra status reads),
    /// down with a quarter weight (fewer words an instant only delays the edge). Counted by time,
    /// not by the samples a read gave: those lag the words (the compressor holds up to two slots
    /// back, the settling samples after a start are dropped), and one read that gave few samples
    /// put the figure at 1.04 words an instant where 0.75 came (1666 Hz: a stray edge 13 ms after
    /// a read ran 10 words past the end). Uncompressed the figure is exact and stays.
    func measureWordsPerInstant(_ span: (from: UInt64, to: UInt64, words: Int), configuration p: Plan) {
        guard p.compression, span.to > span.from else { return }
        let instants = Double(span.to - span.from) * p.dataRate.hertz / 1e9
        guard instants >= 4 else { return }
        let ratio = min(Self.wordsPerInstant(p), max(Self.fewestWordsPerInstant(p), Double(span.words) / instants))
        taggedWordsPerInstant = max(ratio, taggedWordsPerInstant + (ratio - taggedWordsPerInstant) / 4)
    }

    /// Data before the next words may be missing: re-anchor the timeline and drop the DPCM
    /// references.
    func discontinuity(_ a: inout SampleAssembler) {
        a.markDiscontinuity()
        decompressor.reset()
    }

    /// Decodes words `first..<n` of `fifoBytes` into `words`, keeping those before the first word
    /// whose tag byte fails TAG_PARITY (``TaggedFIFO/hasValidParity(_:)``) or whose tag is not
    /// batched by this configuration (gyroscope, accelerometer, temperature, timestamp,
    /// configuration change; with compression also the compressed sensor tags). Returns the index
    /// of the first word not kept (`n` when all were), and sets ``taggedCorruption`` when the words
    /// after it are not all zero. With compression the kept words go through ``decompressor`` and
    /// `words` holds one word per sensor and slot, in slot order (slots still waiting for a sensor
    /// stay in it).
    func decodeTagged(from first: Int = 0, words n: Int, configuration p: Plan) throws(IMUError) -> Int {
        words.removeAll(keepingCapacity: true)
        let length = TaggedFIFO.wordLength
        var valid = first
        while valid < n, isBatchedTaggedWord(valid, configuration: p) { valid += 1 }
        if valid < n, fifoBytes[(valid * length)..<(n * length)].contains(where: { $0 != 0 }) {
            taggedCorruption = true
        }
        if p.compression {
            decompressor.decode(fifoBytes, range: first * length..<valid * length, into: &words)
            return valid
        }
        do {
            try TaggedFIFO.decode(fifoBytes, range: first * length..<valid * length, into: &words)
        } catch {
            throw .unsupported("LSM6DS FIFO: \(error)")
        }
        return valid
    }

    /// Whether word `i` of `fifoBytes` is one this configuration batches, with a valid TAG_PARITY
    /// (see ``decodeTagged(from:words:configuration:)``). A word of zeros never is (TAG_SENSOR 0).
    func isBatchedTaggedWord(_ i: Int, configuration p: Plan) -> Bool {
        let tagByte = fifoBytes[i * TaggedFIFO.wordLength]
        guard TaggedFIFO.hasValidParity(tagByte), let tag = TaggedFIFO.Tag(rawValue: tagByte >> 3) else { return false }
        if tag.isGyroscope && !p.effective.gyroscopeEnabled { return false }
        // Without compression only the plain sensor tags occur.
        return p.compression || tag.rawValue <= TaggedFIFO.Tag.configurationChange.rawValue
    }

    /// Where a watermark read that ran past the end of the FIFO goes on: after the words kept up
    /// to `end`, whole words of zeros (the FIFO empty: FIFO_DATA_OUT reads zeros and pops nothing),
    /// then, from the index returned, words the chip wrote while the burst was being read (it
    /// samples on during a burst: 33 words take 5.2 ms at 400 kHz, 4 instants at 833 Hz). Nil when
    /// no such word follows the zeros.
    ///
    /// Zeros followed by words are also what a fault that zeroed part of a read looks like (SDA
    /// held low while the chip popped words): the caller takes the words after the zeros as it
    /// takes the next read's after a read that ended in zeros, with the slot count in doubt until
    /// the next timestamp word shows whether slots were lost
    /// (``SampleAssembler/markSlotCountInDoubt()``).
    func taggedResumption(after end: Int, words n: Int, configuration p: Plan) -> Int? {
        let length = TaggedFIFO.wordLength
        var i = end
        while i < n, fifoBytes[(i * length)..<((i + 1) * length)].allSatisfy({ $0 == 0 }) { i += 1 }
        guard i > end, i < n, isBatchedTaggedWord(i, configuration: p) else { return nil }
        return i
    }

    /// DS3 generation: FIFO_STATUS1–4, then the complete instants from FIFO_DATA_OUT_L; CTRL1_XL
    /// after a burst whose last set may be cut short by a brown-out (``patternKeptThroughBurst()``).
    ///
    /// `catchingUp`: as for ``drainTagged(_:edges:catchingUp:into:)``, the words are read only
    /// when the status shows at least the threshold.
    func drainPattern(_ a: inout SampleAssembler, variant v: Variant, catchingUp: Bool = false,
                      into samples: inout [IMUSample]) throws(IMUError) -> Bool {
        fill.afterBurst = false
        guard let pattern else { return false }
        let statusTime = clock.nowNanoseconds
        let status = try readRegisters(Register.fifoStatus1, count: 4)
        var count = Int(status[0]) | Int(status[1] & v.fifoThresholdHigh.mask) << 8
        // FIFO_STATUS2 bit 6: OVER_RUN.
        let overflow = status[1] & 0x40 != 0
        var position = Int(status[2]) | Int(status[3] & 0x03) << 8
        // FIFO_STATUS2 bit 4: FIFO_EMPTY. Empty with words waiting, or a position past the end of
        // the pattern, is a corrupted read: decoding after it would emit garbage as samples.
        if status[1] & 0x10 != 0 && count > 0 || position >= pattern.wordsPerPattern {
            let why = position >= pattern.wordsPerPattern
                ? "pattern position \(position) in a pattern of \(pattern.wordsPerPattern) words"
                : "the FIFO empty with \(count) words waiting"
            throw .implausibleRead("FIFO_STATUS1–4 (0x3A)", bytes: status, address: address, bus: bus.path, why)
        }
        if overflow || position != patternPosition { a.markDiscontinuity() }
        patternPosition = position
        if catchingUp, count < plan?.watermarkWords ?? 0 { return overflow }
        if lastTemperatureReadNanoseconds == 0 || clock.nowNanoseconds &- lastTemperatureReadNanoseconds >= 1_000_000_000 {
            let t = try readRegisters(Register.outTemperature, count: 2)
            a.temperatureRaw = LSM6DS.int16(t, 0)
            lastTemperatureReadNanoseconds = clock.nowNanoseconds
        }
        if position % 3 != 0 {
            // Inside a data set: the overrun dropped part of the oldest set (the FIFO is not a whole
            // number of sets), or a read failed mid-set. Discard up to the next set boundary.
            let skip = 3 - position % 3
            guard count >= skip else { return overflow }
            try readFIFO(PatternFIFO.dataRegister, bytes: skip * 2, unit: 2, assembler: &a)
            a.markDiscontinuity()
            position = (position + skip) % pattern.wordsPerPattern
            count -= skip
            patternPosition = position
        }
        let wordsToRead = pattern.completeWords(from: position, available: count)
        guard wordsToRead > 0 else { return overflow }
        let bytes = wordsToRead * 2
        try readFIFO(PatternFIFO.dataRegister, bytes: bytes, unit: PatternFIFO.setLength, assembler: &a)
        // The words of an incomplete instant stay, and what came after the status read.
        fill = FIFOFill(fromNanoseconds: statusTime, words: count - wordsToRead, afterBurst: true)
        words.removeAll(keepingCapacity: true)
        let firstSlot = patternSlot
        do {
            let next = try pattern.decode(fifoBytes, range: 0..<bytes, position: position, slot: firstSlot, into: &words)
            patternPosition = next.position
            patternSlot = next.slot
        } catch {
            throw .unsupported("LSM6DS FIFO: \(error)")
        }
        // The sets were popped, but a burst of nothing but 0x00 or 0xFF came from the bus, not
        // the chip (an untagged FIFO cannot tell otherwise): its instants are lost, never
        // decoded as samples of 0 or −1 LSB, and the timeline re-anchors after them.
        if IMUError.looksLikeStuckBus(fifoBytes[0..<bytes]) {
            a.lostSlots += words.reduce(0) { n, w in if case .accelerometer = w.entry { n + 1 } else { n } }
            a.markDiscontinuity()
            return overflow
        }
        // A reset in the middle of the burst (a brown-out): the chip's FIFO is gone and the rest
        // of the burst reads 0x00. Two or more whole data sets of zeros at its end, or an
        // accelerometer or timestamp set of zeros as its last (exactly 0 LSB on every axis: no
        // chip at work reads that, the accelerometer always has gravity or noise; a counter of
        // exactly 0, which the 24-bit counter reads for one 25 µs tick in 419 s), are not
        // samples: they are lost, with the set before them, and the timeline re-anchors after
        // them. The stream's read-back finds the reset.
        // (Found with EmulatedI2CBus.timesEachByte: an LSM6DS3TR-C brown-out emitted 9 zero samples.)
        // A reset inside the last set leaves no zero set after it, only the set's last word 0x0000:
        // then, and only then, CTRL1_XL read after the burst tells a reset (``mayBeCutShort``,
        // ``patternKeptThroughBurst()``); a set so cut short came out as (x, 0, 0) or (x, y, 0)
        // before (PartialSetBrownOutTests: 64 of 304 reset times at each watermark-32 sweep).
        //
        // The sets are dropped in the FIFO's order, by decoding again only those before them:
        // `words` is not in that order (the timestamp word goes ahead of its instant's sensor
        // words), and dropping its last words kept a zeroed timestamp set at the tail in place of
        // the instant's good sets. Taken as the counter, its 0 timed the samples held since a
        // loss by the slots since the loss alone, and every later timestamp set looked hours
        // ahead of it: no sample until a restart (PatternZeroTailTests).
        let set = PatternFIFO.setLength
        let sets = bytes / set
        var zeroSets = 0
        while zeroSets < sets,
              fifoBytes[(bytes - (zeroSets + 1) * set)..<(bytes - zeroSets * set)].allSatisfy({ $0 == 0 }) {
            zeroSets += 1
        }
        let lastSet = pattern.locate((position + wordsToRead - 3) % pattern.wordsPerPattern).map { pattern.instants[$0.instant][$0.set] }
        var dropped = 0
        if zeroSets >= 2 || zeroSets == 1 && lastSet.map({ $0 != .gyroscope }) == true {
            // The set before the zeros may hold the reset's boundary (its first bytes read, the
            // rest zeros: an accelerometer of (x, 0, 0), a counter missing its low byte); it goes with them.
            dropped = zeroSets + 1
        } else if zeroSets == 0, let last = lastSet, Self.mayBeCutShort(last, fifoBytes, end: bytes), !patternKeptThroughBurst() {
            // The reset came inside the last set itself: nothing follows it to show the zeros.
            dropped = 1
        }
        if dropped > 0 {
            func accelerometers(_ w: [FIFOWord]) -> Int { w.reduce(0) { n, w in if case .accelerometer = w.entry { n + 1 } else { n } } }
            let decoded = accelerometers(words)
            words.removeAll(keepingCapacity: true)
            let kept = max(0, sets - dropped)
            do {
                _ = try pattern.decode(fifoBytes, range: 0..<kept * set, position: position, slot: firstSlot, into: &words)
            } catch {
                throw .unsupported("LSM6DS FIFO: \(error)")
            }
            a.lostSlots += decoded - accelerometers(words)
            a.lostSlots += a.consume(words, into: &samples)
            a.markDiscontinuity()
            return overflow
        }
        a.lostSlots += a.consume(words, into: &samples)
        return overflow
    }

    /// Whether the data set of kind `set` ending at `end` in `bytes` may be one a brown-out cut
    /// short: read up to a word, then 0x00 for the rest (the emptied FIFO). The FIFO hands out
    /// 16-bit words (FIFO_DATA_OUT_L/H, 0x3E/0x3F: reading the low byte pops the word, the high
    /// byte comes from the word popped), so the cut falls between words and leaves the set's last
    /// data word 0x0000: a sensor set's third axis (the z axis), a timestamp set's second word,
    /// whose high byte is TIMESTAMP[7:0] (its low byte is not used; its third word is the step
    /// counter, 0 without the pedometer). Datasheet: LSM6DS3 DocID026899, LSM6DSL DocID028475,
    /// FIFO_DATA_OUT_L/H (3Eh/3Fh); the timestamp set's byte order is K-LSM's
    /// (`st_lsm6dsx_read_fifo`, reference/drivers.md).
    ///
    /// A real set reads so only when its z axis is exactly 0 LSB (a chip lying flat never: its z
    /// axis holds 1 g; on its side at rest, with the datasheet noise and no offset, after 8 of 521
    /// drains at 833 Hz, ±2 g, watermark 32; PartialSetCheckCostTests) or its counter's low byte
    /// is 0 (1 in 256 of the bursts that end in a timestamp set): only then does the drain ask the
    /// chip (``patternKeptThroughBurst()``). A cut inside the z axis's word, on a chip that cleared
    /// its output register at the reset (the emulator keeps it), would leave a z of 0–255 LSB: not
    /// looked for, since a z axis near 0 reads that after about one drain in two (262 of those 521).
    /// With the emulator changed so for a trial, 8 of the 152 reset times of the watermark-32 sweep
    /// emitted such a sample; which the part does is not documented.
    static func mayBeCutShort(_ set: PatternFIFO.DataSet, _ bytes: [UInt8], end: Int) -> Bool {
        switch set {
        case .gyroscope, .accelerometer: return bytes[end - 2] == 0 && bytes[end - 1] == 0
        case .timestamp: return bytes[end - 3] == 0
        }
    }

    /// Whether the chip kept its configuration through the burst just read, so its last set is
    /// data: CTRL1_XL read after the burst still holds the accelerometer's rate, which a brown-out
    /// returns to its reset value 0x00 (Datasheet: LSM6DS3 DocID026899, LSM6DSL DocID028475,
    /// CTRL1_XL (10h) default 00000000; the register ``verifyConfiguration()`` reads first, as
    /// ``acceptReadBack()`` took it). Changed: the chip was reset before this read, maybe inside
    /// that set (a good set is dropped when the brown-out came after the burst; the stream's
    /// read-back then finds the reset). A read that fails after its retries cannot tell, and
    /// counts as lost: one set in the gap rather than a sample that may be part zeros.
    ///
    /// A configuration accepted as reading CTRL1_XL 0x00 (``acceptReadBack()``) cannot tell, and
    /// is not read: the set is kept.
    func patternKeptThroughBurst() -> Bool {
        guard let expected = expectedControl.first, expected != 0 else { return true }
        partialSetChecks += 1
        do { return try readRegister(Register.control1XL) == expected } catch { return false }
    }

    /// Reads `count` FIFO bytes into `fifoBytes`: one transfer when the bus allows, else chunks of
    /// whole `unit`-byte words, each re-addressing the FIFO register (the chip rolls its pointer
    /// back to the first FIFO output register after the last one).
    func readFIFO(_ register: UInt8, bytes count: Int, unit: Int, assembler a: inout SampleAssembler) throws(IMUError) {
        let limit = bus.maximumReadLength.map { max(unit, $0 / unit * unit) } ?? count
        do throws(I2CError) {
            if fifoOperations.count != 2 { fifoOperations = [.write([register]), .read(count: 0)] }
            fifoOperations[0].bytes[0] = register
            fifoBytes.removeAll(keepingCapacity: true)
            var offset = 0
            while offset < count {
                let n = min(limit, count - offset)
                let have = fifoOperations[1].bytes.count
                if have > n { fifoOperations[1].bytes.removeLast(have - n) }
                else if have < n { fifoOperations[1].bytes.append(contentsOf: repeatElement(0, count: n - have)) }
                try bus.transfer(&fifoOperations, address: address)
                let got = fifoOperations[1].bytes.count
                // A short answer leaves the words unknown: a failed read, never a partial decode.
                if got != n { throw bus.shortRead(got, of: n, register: register, address: address) }
                fifoBytes.append(contentsOf: fifoOperations[1].bytes)
                offset += n
            }
        } catch {
            // The chip popped an unknown part of the FIFO: the timeline must be re-anchored.
            discontinuity(&a)
            pendingGaps.append(StreamGap(reason: .busError, afterNanoseconds: a.lastSampleNanoseconds,
                                         detectedNanoseconds: clock.nowNanoseconds, lostSamples: nil))
            throw .bus(error)
        }
    }
}

extension LSM6DS {
    /// What a drain last knew of the FIFO's fill: every word that arrived after
    /// `fromNanoseconds` (host time) is still in the FIFO, with `words` more known there then.
    ///
    /// Set by the last FIFO read: a status read that read nothing (DIFF_FIFO's words there at the
    /// status read), a burst after a status read (what the burst left: an incomplete instant on
    /// the pattern FIFO, nothing on the tagged one, all read at the status read's time) or a
    /// tagged watermark read (nothing, from the edge: the FIFO held the threshold then). Two
    /// checks estimate the fill now from it, from opposite sides:
    /// - ``fifoFilledToThreshold(now:threshold:configuration:)``, before a watermark read: must the
    ///   threshold's words be there? The slow oscillator (−1 %), the words an instant adds as
    ///   measured (``taggedWordsPerInstant``), with an instant and the compressor's bursts of slack.
    /// - ``fifoMayHoldThreshold(lastSample:periodNanoseconds:)``, after a burst (`afterBurst`):
    ///   may they still be there? The fast oscillator (+1 %), the words of an uncompressed instant.
    struct FIFOFill {
        var fromNanoseconds: UInt64
        var words = 0
        /// Whether the drain's last FIFO read was a burst, which may have left the threshold's
        /// words behind (the catch-up reads apply); false after a status read that read nothing.
        var afterBurst = false

        /// The words in the FIFO at `now` if the chip samples at `instantsPerSecond` and each
        /// instant adds `wordsPerInstant`, spread evenly over the time since the reference.
        func words(at now: UInt64, instantsPerSecond: Double, wordsPerInstant: Double) -> Double {
            let elapsed = Double(now &- min(now, fromNanoseconds))
            return Double(words) + elapsed * instantsPerSecond / 1e9 * wordsPerInstant
        }
    }
}

extension LSM6DS {
    /// Standard gravity in m/s² (CGPM 1901), for converting g.
    public static let standardGravity = 9.80665
}
