import PlumbHAL

/// FIFO streaming: start, stop and drain.
extension LSM6DS {
    /// Empties the FIFO, resets the timestamp counter, routes the watermark interrupt and starts
    /// the FIFO in continuous mode.
    ///
    /// Order: FIFO to bypass (the flush, as K-LSM and Seeed-Studio/Seeed_Arduino_LSM6DS3#37 do it:
    /// draining to empty never finishes at high rates); sensors on; read INTERNAL_FREQ_FINE (DSO
    /// generation); TIMESTAMP2 = 0xAA (timer reset) and note the host time;
    /// read the counter back to anchor it; INT1_CTRL/INT2_CTRL = FIFO threshold on the configured pin only; FIFO_MODE = continuous.
    public func startStreaming() throws(IMUError) {
        let v = try requireVariant()
        if plan == nil { try apply(configuration) }
        guard let p = plan else { return }
        streaming = false
        try writeRegister(Register.fifoModeControl, p.fifoModeControl)
        try writeRegister(Register.control1XL, p.control1XL)
        try writeRegister(Register.control2G, p.control2G)
        expectedControl = [p.control1XL, p.control2G, p.control3C]
        var fine: Int8 = 0
        if let a = v.frequencyFineAddress { fine = Int8(bitPattern: try readRegister(a)) }
        try writeRegister(Register.timestamp2, Self.timestampResetValue)
        // Anchor the counter to the host clock from its value now, so the mapping holds even on a
        // part that ignores the reset write.
        let ts = try readRegisters(Register.timestamp0, count: v.timestampBits / 8)
        let now = clock.nowNanoseconds
        var ticks: UInt64 = 0
        for (i, b) in ts.enumerated() { ticks |= UInt64(b) << UInt64(8 * i) }
        let elapsed = UInt64((Double(ticks) * (25_000 - Double(fine) * 37.5)).rounded())
        let origin = now >= elapsed ? now - elapsed : 0
        let pin = p.effective.interrupt.pin
        try writeRegister(pin == .int1 ? Register.int2Control : Register.int1Control, 0)
        try writeRegister(pin == .int1 ? Register.int1Control : Register.int2Control, Self.fifoThresholdInterrupt)
        try writeRegister(Register.fifoModeControl, p.fifoModeControl | FIFOMode.continuous.rawValue)

        let timebase = Timebase(bits: v.timestampBits, frequencyFine: fine, originNanoseconds: origin)
        let a = SampleAssembler(
            accelerometerScale: p.accelerometerRange.milliGPerLSB * 1e-3 * LSM6DS.standardGravity,
            gyroscopeScale: p.gyroscopeRange.milliDPSPerLSB * 1e-3 * .pi / 180,
            gyroscopeEnabled: p.effective.gyroscopeEnabled,
            temperatureLSBPerDegree: v.temperatureLSBPerDegree, timebase: timebase,
            nominalPeriodTicks: 1e9 / p.dataRate.hertz / timebase.tickNanoseconds)
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
    /// One status read (FIFO_STATUS1–2, or 1–4 with the pattern position on the DS3 generation)
    /// and one burst of FIFO data per call (split into whole words when the bus limits the read
    /// length). Samples are timed by the chip's timestamps; `edges` are not needed for timing.
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
        result.gaps = pendingGaps
        pendingGaps.removeAll()
        let before = samples.count
        let lastBefore = a.lastSampleNanoseconds
        var overflow = false
        if v.generation == .dso {
            overflow = try drainTagged(&a, into: &samples)
        } else {
            overflow = try drainPattern(&a, variant: v, into: &samples)
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
        } else if lost + drops > 0 {
            result.gaps.append(StreamGap(reason: .busError, afterNanoseconds: lastBefore,
                                         detectedNanoseconds: now, lostSamples: lost + drops))
        }
        result.sampleCount = samples.count - before
        return result
    }

    /// DSO generation: FIFO_STATUS1/2, then DIFF_FIFO 7-byte words from FIFO_DATA_OUT_TAG.
    func drainTagged(_ a: inout SampleAssembler, into samples: inout [IMUSample]) throws(IMUError) -> Bool {
        let status = try readRegisters(Register.fifoStatus1, count: 2)
        let count = Int(status[0]) | Int(status[1] & 0x03) << 8
        // FIFO_STATUS2: OVER_RUN_LATCHED bit 3 (cleared by this read), FIFO_OVR_IA bit 6.
        let overflow = status[1] & 0x48 != 0
        if overflow { a.markDiscontinuity() }
        guard count > 0 else { return overflow }
        try readFIFO(TaggedFIFO.dataRegister, bytes: count * TaggedFIFO.wordLength,
                     unit: TaggedFIFO.wordLength, assembler: &a)
        words.removeAll(keepingCapacity: true)
        do {
            try TaggedFIFO.decode(fifoBytes, range: 0..<count * TaggedFIFO.wordLength, into: &words)
        } catch {
            throw .unsupported("LSM6DS FIFO: \(error)")
        }
        a.lostSlots += a.consume(words, into: &samples)
        return overflow
    }

    /// DS3 generation: FIFO_STATUS1–4, then the complete instants from FIFO_DATA_OUT_L.
    func drainPattern(_ a: inout SampleAssembler, variant v: Variant, into samples: inout [IMUSample]) throws(IMUError) -> Bool {
        guard let pattern else { return false }
        let status = try readRegisters(Register.fifoStatus1, count: 4)
        var count = Int(status[0]) | Int(status[1] & v.fifoThresholdHigh.mask) << 8
        // FIFO_STATUS2 bit 6: OVER_RUN.
        let overflow = status[1] & 0x40 != 0
        var position = Int(status[2]) | Int(status[3] & 0x03) << 8
        if overflow || position != patternPosition { a.markDiscontinuity() }
        patternPosition = position
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
        words.removeAll(keepingCapacity: true)
        do {
            let next = try pattern.decode(fifoBytes, range: 0..<bytes, position: position, slot: patternSlot, into: &words)
            patternPosition = next.position
            patternSlot = next.slot
        } catch {
            throw .unsupported("LSM6DS FIFO: \(error)")
        }
        a.lostSlots += a.consume(words, into: &samples)
        return overflow
    }

    /// Reads `count` FIFO bytes into `fifoBytes`: one transfer when the bus allows, else chunks of
    /// whole `unit`-byte words, each re-addressing the FIFO register (the chip rolls its pointer
    /// back to the first FIFO output register after the last one).
    func readFIFO(_ register: UInt8, bytes count: Int, unit: Int, assembler a: inout SampleAssembler) throws(IMUError) {
        let limit = bus.maximumReadLength.map { max(unit, $0 / unit * unit) } ?? count
        do {
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
                fifoBytes.append(contentsOf: fifoOperations[1].bytes)
                offset += n
            }
        } catch {
            // The chip popped an unknown part of the FIFO: the timeline must be re-anchored.
            a.markDiscontinuity()
            pendingGaps.append(StreamGap(reason: .busError, afterNanoseconds: a.lastSampleNanoseconds,
                                         detectedNanoseconds: clock.nowNanoseconds, lostSamples: nil))
            throw .bus(error)
        }
    }
}

extension LSM6DS {
    /// Standard gravity in m/s² (CGPM 1901), for converting g.
    public static let standardGravity = 9.80665
}
