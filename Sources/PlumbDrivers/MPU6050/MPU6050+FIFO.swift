import PlumbHAL

extension MPU6050 {
    /// Reads every whole record in the FIFO and appends the samples.
    ///
    /// One drain is three transfers: INT_STATUS (1 byte, which acknowledges a latched pin; first,
    /// because on the MPU-9150 INT_RD_CLEAR makes any read clear it), FIFO_COUNT (2 bytes,
    /// big-endian) and one burst of whole records from FIFO_R_W, chunked only when the adapter is
    /// SMBus-only; a fourth, USER_CTRL, only after a burst whose last record ends in two equal
    /// bytes (see below). Every 1 s it also reads TEMP_OUT unless the records carry the temperature.
    ///
    /// - Overflow, judged by FIFO_COUNT alone as Linux `inv_mpu_ring.c` does: a FIFO with room
    ///   for fewer than three more records is reset and a `.fifoOverflow` gap reported; its content
    ///   is dropped, because on the MPU-6050 a full FIFO overwrites its oldest bytes and loses
    ///   record alignment (Register Map rev 4.2 §4.17), and records keep arriving between the
    ///   count and the burst ("Reset if there is only 3 data set free remaining to mitigate
    ///   possible delay between reading fifo count and fifo data"). INT_STATUS.FIFO_OFLOW_INT is
    ///   not used: "Some chips have a fifo overflow bit issue where the bit is always set. The
    ///   result is that every data is dropped" (Linux commit 6e82ae6b8d11, "iio: imu:
    ///   inv_mpu6050: fix no data on MPU6050"). A real overflow leaves the FIFO full, which the
    ///   count shows. A burst the chip would outrun on a slow bus (the FIFO filling up behind it)
    ///   is cut short (``recordsReadableWithoutOverflow(_:count:recordSize:fifoSize:byteNanoseconds:sinceCountNanoseconds:periodNanoseconds:)``).
    /// - A failed burst may have popped part of the FIFO, so the FIFO is reset and a `.busError`
    ///   gap reported: a sample is never decoded from a misaligned record. A burst that reads as
    ///   all 0x00 or all 0xFF (the bus, not the chip) is a `.busError` gap too.
    /// - A FIFO emptied during the burst (a brown-out) is found by the repeated byte it leaves and,
    ///   when the last record ends in two equal bytes, by USER_CTRL.FIFO_EN read after the burst
    ///   (``fifoKeptThroughBurst()``): the records from the one it emptied in are a `.busError` gap.
    /// - A FIFO_COUNT larger than the FIFO is a corrupted read: thrown as a bus error, nothing reset.
    /// - Throws: ``IMUError/bus(_:)`` when a register read still fails after the retries.
    public func drain(into samples: inout [IMUSample], edges: [EdgeEvent]) throws(IMUError) -> DrainResult {
        let v = try requireVariant()
        let s = try requireSettings()
        let record = s.recordSize
        pendingEdges.append(contentsOf: edges)

        let statusTime = clock.nowNanoseconds
        // Read for its side effect only: it acknowledges a latched interrupt (see the overflow note).
        _ = try readRegister(Register.intStatus)
        // The time of the attempt that answered: a retry 1 ms later counts records sampled after
        // the first attempt, which the timing below takes for sampled before the count.
        var countTime: UInt64 = 0
        let countBytes = try registers.run { () throws(I2CError) -> [UInt8] in
            countTime = clock.nowNanoseconds
            return try bus.readRegisters(Register.fifoCountH, count: 2, address: address)
        }
        let countDone = clock.nowNanoseconds
        let count = Int(countBytes[0] & 0x1F) << 8 | Int(countBytes[1])

        // More bytes than the FIFO holds is a corrupted read (an overflowed FIFO counts its size
        // at most), not an overflow: the FIFO is kept and the next drain reads both again. The
        // bound is the FIFO's power-of-two storage (1024 for the ICM-20602's 1008 usable bytes),
        // so a part that counts past its usable size still takes the overflow path below.
        var storage = 1
        while storage < v.fifoSize { storage <<= 1 }
        if count > storage {
            throw .implausibleRead("FIFO_COUNT (0x72)", bytes: countBytes, address: address, bus: bus.path,
                                   "\(count) bytes waiting in a FIFO of \(v.fifoSize)")
        }
        if count >= v.fifoSize - Self.overflowMarginRecords * record {
            let lost = max(min(count, v.fifoSize) / record, 1)
            let gap = StreamGap(reason: .fifoOverflow, afterNanoseconds: lastSampleTime, detectedNanoseconds: countTime,
                                lostSamples: lost)
            try resetFIFO()
            return DrainResult(sampleCount: 0, gaps: [gap])
        }
        var records = count / record
        let newest = fifoIndex + records - 1
        timeSamples(newest: newest, countTime: countTime, latched: s.interruptPinConfig & Bits.intLatch != 0)
        previousStatusTime = statusTime
        previousCountTime = countTime
        previousCountDoneTime = countDone
        previousNewest = newest
        guard records > 0 else { return DrainResult() }
        // A timeline the host clock contradicts (walked off by stray edges) starts again: guessed
        // now, anchored by the next edge after this status read.
        sampleClock.keepAnchorIfConsistent(newestIndex: newest, readTime: countTime)
        if !sampleClock.isAnchored { sampleClock.guess(newestIndex: newest, readTime: countTime) }
        // Before the burst: a failure here loses nothing.
        if s.fifoEnable & Bits.fifoTemperature == 0 { try refreshTemperature(variant: v) }
        // A burst the chip would outrun is cut short: the rest stays for the next drain.
        records = Self.recordsReadableWithoutOverflow(records, count: count, recordSize: record, fifoSize: v.fifoSize,
                                                      byteNanoseconds: Double(countDone &- countTime) / 5,
                                                      sinceCountNanoseconds: Double(clock.nowNanoseconds &- countTime),
                                                      periodNanoseconds: sampleClock.period)

        do {
            fifoBuffer = try bus.readRegisters(Register.fifoData, count: records * record, autoIncrement: false, address: address)
        } catch {
            // Part of the FIFO may have been popped: alignment is unknown, start again.
            let gap = StreamGap(reason: .busError, afterNanoseconds: lastSampleTime, detectedNanoseconds: countTime, lostSamples: records)
            try resetFIFO()
            return DrainResult(sampleCount: 0, gaps: [gap])
        }
        // Whole records were popped, but a burst of nothing but 0x00 or 0xFF came from the bus,
        // not the chip: the records are lost (a gap), never decoded as samples of 0 or −1 LSB.
        if IMUError.looksLikeStuckBus(fifoBuffer) {
            let gap = StreamGap(reason: .busError, afterNanoseconds: lastSampleTime, detectedNanoseconds: countTime, lostSamples: records)
            fifoIndex += records
            return DrainResult(sampleCount: 0, gaps: [gap])
        }

        // FIFO_R_W read while the FIFO is empty repeats the last byte read (Register Map rev 4.2
        // §4.31): a brown-out or FIFO reset between FIFO_COUNT and the burst leaves the rest of
        // the burst one byte over and over. Such a record is not data (a chip's noise never puts
        // one value in every byte), and neither is anything after it: those records are lost,
        // and the FIFO is reset so that the record count and its timeline start again.
        var valid = fifoBuffer.withUnsafeBufferPointer { Self.recordsBeforeRepeatedByte($0, records: records, recordSize: record) }
        // A FIFO that empties inside the burst's last record leaves no record of repeats behind
        // it: that record is part data, part repeat, and its bytes cannot tell. It then ends in
        // two equal bytes, so only such a burst asks the chip: about 1 in 256 while the last word
        // wanders, but far more often at rest when it sits near zero (gyro z at 0 or −1 LSB after
        // the offset registers take out its bias: 00 00, FF FF), up to a read a drain.
        if valid == records, fifoBuffer[records * record - 1] == fifoBuffer[records * record - 2], !fifoKeptThroughBurst() {
            valid = records - 1
        }
        let decoder = FIFODecoder(settings: s, variant: v)
        fifoBuffer.withUnsafeBufferPointer { buffer in
            decoder.decode(buffer, records: valid, clock: sampleClock, firstIndex: fifoIndex,
                           lastTime: &lastSampleTime, temperature: &lastTemperature, into: &samples)
        }
        fifoIndex += valid
        guard valid == records else {
            let gap = StreamGap(reason: .busError, afterNanoseconds: lastSampleTime, detectedNanoseconds: countTime,
                                lostSamples: records - valid)
            try resetFIFO()
            return DrainResult(sampleCount: valid, gaps: [gap])
        }
        return DrainResult(sampleCount: records)
    }

    /// Whether the chip still has its FIFO after a burst: USER_CTRL.FIFO_EN, set while streaming,
    /// is cleared by a brown-out (its reset value is 0x00: Register Map rev 4.2 §3 gives every
    /// register but PWR_MGMT_1 and WHO_AM_I that value), and only a brown-out empties the FIFO between FIFO_COUNT and the
    /// end of the burst (the driver resets it only between transfers). Set: the burst's last
    /// record is data. Cleared: the FIFO was lost before this read, maybe inside that record (a
    /// good record is dropped when the brown-out came after the burst; the next drain finds the
    /// chip reset). A read that fails after its retries cannot tell, and counts as lost: one
    /// record in the gap rather than a sample that may be part repeat.
    ///
    /// A chip streaming on what it reads back (``acceptReadBack()``: a clone, a stuck bit) whose
    /// USER_CTRL then read FIFO_EN clear cannot tell either, but every time: the record is kept.
    /// Judged lost, each such burst (gyro z at 0 or −1 LSB, common at rest, ends a record in two
    /// equal bytes) cost a good record, a bus-error gap and a FIFO reset.
    func fifoKeptThroughBurst() -> Bool {
        // A chip accepted as reading USER_CTRL without FIFO_EN cannot tell: keep the record, and
        // spare the read.
        if let accepted = acceptedUserControl, accepted & Bits.userFIFOEnable == 0 { return true }
        let user: UInt8
        do { user = try readRegister(Register.userControl) } catch { return false }
        return user & Bits.userFIFOEnable != 0
    }

    /// The records before the one the FIFO emptied in: the first record whose bytes are all the
    /// same value (what FIFO_R_W gives when read empty) and the one before it; `records` when
    /// there is none. Stops at the first byte that differs, so a real record costs a comparison or
    /// two.
    ///
    /// The repeated byte is the last one the FIFO held, so the run of it begins inside the record
    /// before: a brown-out in the middle of the burst empties the FIFO mid-record, and that record
    /// is then part data, part repeat (MPU-6050 at 1 kHz, a brown-out during a burst: a sample 15 m/s²
    /// off, emitted, with the emulated bus popping the FIFO byte by byte). Whether the FIFO emptied
    /// at the record's end cannot be told from the bytes (its last byte is the repeated one
    /// either way), so it is dropped too: at most one good record, counted in the gap.
    static func recordsBeforeRepeatedByte(_ buffer: UnsafeBufferPointer<UInt8>, records: Int, recordSize: Int) -> Int {
        for r in 0..<records {
            let base = r * recordSize
            let first = buffer[base]
            var i = base + 1
            while i < base + recordSize, buffer[i] == first { i += 1 }
            if i == base + recordSize { return max(0, r - 1) }
        }
        return records
    }

    /// How many of the `records` counted one burst can read before the FIFO fills up behind it.
    ///
    /// A burst pops bytes at the bus's pace while the chip pushes a record every period. On a bus
    /// slower than the stream (six axes at 1 kHz need about 108 kbit/s of data alone, more than a
    /// Raspberry Pi's default 100 kHz bus carries) the FIFO grows during a long burst, and an
    /// MPU-6050 whose FIFO is full overwrites its oldest bytes (Register Map rev 4.2 §4.17, FIFO
    /// overflow): the burst's later records are then read out of alignment, each sample made of
    /// the words of two (MPU-6050 at 1 kHz on a 100 kHz bus: five samples in four seconds with
    /// gravity on the x or y axis, up to 0.7 s off the ramp they were sampled on). The three
    /// records of room the overflow check keeps (``overflowMarginRecords``) cover the time from
    /// the count to the burst, not a burst of a nearly full FIFO.
    ///
    /// The burst is cut to the most records after which the FIFO, given every record that can
    /// arrive meanwhile (one more than the time since the count over 0.9 periods, for a chip
    /// clock running fast) and none of the bytes popped before the burst ends, still has room.
    /// The rest stays in the FIFO: the next count finds it and, when the bus cannot keep up, the
    /// overflow check resets the FIFO with a gap. The bus's pace is taken from the count's own
    /// read (5 bytes on the wire: address, register, address, two data bytes), which includes the
    /// host's overhead, so it errs on the slow side. At least one record is read.
    /// - Parameters:
    ///   - count: FIFO_COUNT, bytes.
    ///   - byteNanoseconds: nanoseconds a byte took on the bus.
    ///   - sinceCountNanoseconds: from the start of the count's read to now.
    ///   - periodNanoseconds: the chip's sample period.
    static func recordsReadableWithoutOverflow(_ records: Int, count: Int, recordSize: Int, fifoSize: Int, byteNanoseconds: Double,
                                               sinceCountNanoseconds: Double, periodNanoseconds: Double) -> Int {
        guard records > 1, byteNanoseconds > 0, periodNanoseconds > 0 else { return records }
        let fastest = 0.9 * periodNanoseconds
        var n = records
        while n > 1 {
            // Register pointer, two address bytes and the data.
            let burst = Double(n * recordSize + 3) * byteNanoseconds
            let arriving = Int(min(1e9, (sinceCountNanoseconds + burst) / fastest)) + 1
            if count + (arriving - n) * recordSize <= fifoSize { return n }
            n -= 1
        }
        return 1
    }

    /// Drains in a row whose latched-pin timeline puts the previous status read past the first
    /// record that read's count missed before the timeline starts again
    /// (``timeSamples(newest:countTime:latched:)``).
    static let earlyTimelineDrainsBeforeRestart = 2

    /// Records of room below which the FIFO counts as overflowed: 3, as Linux `inv_mpu_ring.c`
    /// (`inv_mpu6050_read_fifo`), for the records that arrive between the count and the burst.
    static let overflowMarginRecords = 3

    /// Empties the FIFO and starts a new record count and sample-time anchor. USER_CTRL.FIFO_EN is
    /// cleared in a write of its own before FIFO_RESET, since the register map says the reset takes
    /// effect while FIFO_EN is 0 (MPU-6000/6050 Register Map rev 4.2, Register 106 USER_CTRL), the order Linux
    /// `inv_reset_fifo` uses; then the FIFO is enabled again.
    func resetFIFO() throws(IMUError) {
        try writeRegister(Register.userControl, 0)
        try writeRegister(Register.userControl, Bits.userFIFOReset)
        try writeRegister(Register.userControl, Bits.userFIFOEnable)
        restartFIFORun()
    }

    func restartFIFORun() {
        fifoIndex = 0
        pendingEdges.removeAll(keepingCapacity: true)
        sampleClock.restart()
        previousStatusTime = clock.nowNanoseconds
        previousCountTime = previousStatusTime
        previousCountDoneTime = previousStatusTime
        previousNewest = -1
        earlyTimelineDrains = 0
    }

    /// Feeds the edges up to the FIFO count into the sample clock.
    ///
    /// Edges stamped more than a second after the count are dropped (another clock), so the edges
    /// kept for the next drain stay few.
    ///
    /// Anchoring: the first edge after the previous INT_STATUS read belongs to the first sample
    /// after it. If it came before the previous count, that sample was the newest counted then;
    /// otherwise it is the next one (plus whole periods, for an edge well after the count). With
    /// a latched pin this is the only edge per drain; with pulses it is the first of several.
    ///
    /// Once anchored, a latched pin's edges are sorted the same way: the pin rises once per
    /// INT_STATUS read, at the first sample after it, so only the edge nearest that record's time
    /// is offered to the clock, and none when no record came since the read. (On the MPU-9150,
    /// whose any-read acknowledge re-arms the pin during the burst, the other edges are stray.) A pulsed pin gives
    /// one edge per record, so of the edges nearest one record only the closest is offered. In a
    /// slow storm the others (stray edges, most fitting some record) moved the timeline and its
    /// period: a sawtooth of up to half a period while it lasted, and some runs a record off for
    /// good (StormTimingTests: latched, 37 ms at 26 Hz during a 150 Hz storm, 80 ms at 12.5 Hz
    /// after an 80 Hz one, 0.05 ms now; pulsed, 39 ms at 26 Hz in a 150 Hz storm, 0.03 ms now).
    func timeSamples(newest: Int, countTime: UInt64, latched: Bool) {
        var keep = 0
        // A latched pin rises once per status read: at the first sample after it (`expected`),
        // the only record an edge of this drain can belong to; the edge nearest its time is the
        // one offered to the clock. With no record since that read, the edges are all stray.
        // A pulsed pin gives one edge per record: the edge nearest each record is offered.
        // (Positions are clamped before they become indices: an edge on another clock is far off.)
        func recordIndex(_ position: Double) -> Int { Int(max(-1e15, min(1e15, position))) }
        let expected = latched ? sampleClock.position(of: previousStatusTime).map { recordIndex($0.rounded(.down)) + 1 } : nil
        // The first record after the previous status read is at most the first one that count
        // did not see (records are counted after the status read). A timeline that puts it later
        // is early, by at least the time from that status read to the next record; one that stays
        // so at drain after drain is a record or so early, and cannot mend itself: it sends every
        // edge to a record not yet counted, so none is offered. With edges waking the reader, this only costs a restart
        // after ``SampleClock/unmatchedEdgesBeforeRestart`` stray-looking edges; while it polls
        // (after a storm, until edges are trusted again) the edges are not even tried, and an
        // MPU-6050 at 50 Hz stayed 14 ms early for 12 s after a slow storm (StormWalkTests, at
        // some start phases). It starts again, anchored by this drain's edge.
        // Only when two drains in a row say so: a timeline a little early (its period not yet
        // learnt) also puts the status read past that record whenever the next record came soon
        // after the count, and every restart forgets the edges the period is estimated from.
        // With the chip's oscillator 2-3 % slow (the internal one runs the low-energy mode,
        // accelerometer only: ±5 % at 25 °C, Product Specification rev 3.4 §6.6, internal clock
        // source, CLK_SEL = 0), 12.5 Hz at watermark 7 started again at nearly every drain, and
        // its samples were 8.6-13 ms off (RMS) instead of 1.1-1.5 ms (SlowChipClockTimelineTests).
        // A timeline a record early says so at most drains, so it still starts again within a few.
        if let expected, expected > previousNewest + 1, sampleClock.hasEdgeAnchor {
            earlyTimelineDrains += 1
            if earlyTimelineDrains >= Self.earlyTimelineDrainsBeforeRestart {
                sampleClock.restart()
                earlyTimelineDrains = 0
            }
        } else {
            earlyTimelineDrains = 0
        }
        var nearest: (edge: UInt64, distance: Double, index: Int)?
        var anchoredHere = false
        for edge in pendingEdges {
            let te = edge.timestampNanoseconds
            if te > countTime {
                // An edge from after the count waits for the next drain; one more than a second
                // ahead of this clock is on another clock (or the line's clock was stepped) and
                // would wait, and pile up, until this clock caught up with it.
                if te - countTime > Nanoseconds.perSecond { continue }
                pendingEdges[keep] = edge
                keep += 1
                continue
            }
            if sampleClock.hasEdgeAnchor {
                guard let position = sampleClock.position(of: te) else { continue }
                if let expected {
                    guard !anchoredHere, expected <= newest else { continue }
                    let distance = abs(position - Double(expected))
                    if nearest.map({ distance < $0.distance }) ?? true { nearest = (te, distance, expected) }
                } else {
                    // Pulses: one per record, so of the edges nearest one record (in time order,
                    // so together) only the closest is offered, the rest are stray.
                    let k = recordIndex(position.rounded()), distance = abs(position - position.rounded())
                    if let n = nearest, n.index != k {
                        sampleClock.observe(edge: n.edge, newestIndex: newest)
                        nearest = nil
                    }
                    if nearest.map({ distance < $0.distance }) ?? true { nearest = (te, distance, k) }
                }
            } else if te > previousStatusTime {
                let index: Int
                if te <= previousCountTime {
                    index = previousNewest
                } else {
                    index = previousNewest + 1 + Int(Double(te - previousCountTime) / sampleClock.period)
                }
                if index >= 0, index <= newest { sampleClock.anchor(edge: te, index: index); anchoredHere = true }
            }
        }
        pendingEdges.removeSubrange(keep...)
        if let nearest {
            // A latched pin's edge is the first sample after the previous status read: counted
            // then (the newest) when it came before that count, else the first one after it. Known
            // from the count, not the timeline, so a timeline still on the nominal period (a
            // record off by rounding at 5 % off) cannot take it for its neighbour. An edge stamped
            // during the count's transfer may be either: the chip takes the count as its bytes go
            // by (after the address and register bytes, ~70 µs at 400 kHz), so of the two the one
            // nearer the timeline is taken. Always taken for the next record, it was the newest
            // about one drain in fourteen at 1 kHz, and a latched pin at watermark 7 and 5 % slow
            // stayed a whole record (1.05 ms) off for good.
            let record: Int? = if !latched { nil }
                else if nearest.edge <= previousCountTime { previousNewest }
                else if nearest.edge > previousCountDoneTime { previousNewest + 1 }
                else { (sampleClock.position(of: nearest.edge) ?? 0) < Double(previousNewest) + 0.5 ? previousNewest : previousNewest + 1 }
            sampleClock.observe(edge: nearest.edge, newestIndex: newest, record: record)
        }
    }

    /// Reads TEMP_OUT (0x41) when the last reading is a second old.
    func refreshTemperature(variant v: Variant) throws(IMUError) {
        let now = clock.nowNanoseconds
        if let last = lastTemperatureRead, now &- last < Nanoseconds.perSecond { return }
        let bytes = try readRegisters(Register.tempOutH, count: 2)
        lastTemperature = v.temperature(raw: Int16(bitPattern: UInt16(bytes[0]) << 8 | UInt16(bytes[1])))
        lastTemperatureRead = now
    }

    /// Reads one sample from the data registers (a 14-byte burst from ACCEL_XOUT_H), without
    /// the FIFO: for self-test and one-shot reads.
    public func readSample() throws(IMUError) -> IMUSample {
        let v = try requireVariant()
        let s = try requireSettings()
        let b = try readRegisters(Register.accelXOutH, count: 14)
        func word(_ o: Int) -> Int16 { Int16(bitPattern: UInt16(b[o]) << 8 | UInt16(b[o + 1])) }
        let a = SIMD3(word(0), word(2), word(4)), g = SIMD3(word(8), word(10), word(12))
        let accelScale = MotionConstants.standardGravity / MPU6050.accelerometerRanges[Int(s.accelerometerRangeCode)].lsbPerG
        let gyroScale = MotionConstants.radiansPerDegree / MPU6050.gyroscopeRanges[Int(s.gyroscopeRangeCode)].lsbPerDegree
        return IMUSample(timestampNanoseconds: clock.nowNanoseconds,
                         acceleration: SIMD3(Double(a.x), Double(a.y), Double(a.z)) * accelScale,
                         angularRate: SIMD3(Double(g.x), Double(g.y), Double(g.z)) * gyroScale,
                         temperature: v.temperature(raw: word(6)),
                         saturation: Saturation.of(accelerometer: a, gyroscope: g))
    }
}

extension MPU6050 {
    /// Turns FIFO records into samples: big-endian words in register order (accel x/y/z,
    /// temperature when enabled, gyro x/y/z when enabled), scaled by the ranges in force.
    public struct FIFODecoder: Sendable {
        public let recordSize: Int
        let accelScale: Double, gyroScale: Double
        let hasGyro: Bool, hasTemp: Bool
        let variant: Variant

        public init(settings s: Settings, variant: Variant) {
            recordSize = s.recordSize
            accelScale = MotionConstants.standardGravity / MPU6050.accelerometerRanges[Int(s.accelerometerRangeCode)].lsbPerG
            gyroScale = MotionConstants.radiansPerDegree / MPU6050.gyroscopeRanges[Int(s.gyroscopeRangeCode)].lsbPerDegree
            hasGyro = s.fifoEnable & Bits.fifoGyro != 0
            hasTemp = s.fifoEnable & Bits.fifoTemperature != 0
            self.variant = variant
        }

        /// Decodes `records` whole records from `buffer`, timing record i as
        /// `clock.time(of: firstIndex + i)` and never earlier than half a period after `lastTime`.
        ///
        /// A timeline started again (walked off by a storm's stray edges and forgotten, or anchored
        /// anew) can put the next record before samples already given out: those keep their times,
        /// and the correction is spread over the records that follow, each at least half a period
        /// after the one before, until the new timeline is ahead again. Clamped to 1 ns after the
        /// previous one, a 50 Hz MPU in a storm gave pairs of samples 1 ns apart (2.8 % of them).
        public func decode(_ buffer: UnsafeBufferPointer<UInt8>, records: Int, clock: SampleClock, firstIndex: Int,
                           lastTime: inout UInt64?, temperature: inout Double?, into samples: inout [IMUSample]) {
            precondition(buffer.count >= records * recordSize, "a partial record would be misaligned")
            samples.reserveCapacity(samples.count + records)
            let spacing = Swift.max(1, UInt64(roundingClamped: (clock.period / 2).rounded(.up)))
            var earliest = lastTime.map { $0 &+ spacing } ?? 0
            var t: UInt64 = 0
            for i in 0..<records {
                let base = i * recordSize
                @inline(__always) func word(_ offset: Int) -> Int16 {
                    Int16(bitPattern: UInt16(buffer[base + offset]) << 8 | UInt16(buffer[base + offset + 1]))
                }
                let a = SIMD3(word(0), word(2), word(4))
                var g = SIMD3<Int16>(0, 0, 0)
                var gyroOffset = 6
                if hasTemp { temperature = variant.temperature(raw: word(6)); gyroOffset = 8 }
                if hasGyro { g = SIMD3(word(gyroOffset), word(gyroOffset + 2), word(gyroOffset + 4)) }
                t = max(clock.time(of: firstIndex + i), earliest)
                earliest = t &+ spacing
                samples.append(IMUSample(
                    timestampNanoseconds: t,
                    acceleration: SIMD3(Double(a.x), Double(a.y), Double(a.z)) * accelScale,
                    angularRate: SIMD3(Double(g.x), Double(g.y), Double(g.z)) * gyroScale,
                    temperature: temperature,
                    saturation: Saturation.of(accelerometer: a, gyroscope: g)))
            }
            if records > 0 { lastTime = t }
        }
    }
}

/// Physical constants shared by the drivers.
public enum MotionConstants {
    /// Standard gravity, m/s² (CGPM 1901): the g of every accelerometer datasheet.
    public static let standardGravity = 9.80665
    public static let radiansPerDegree = Double.pi / 180
}
