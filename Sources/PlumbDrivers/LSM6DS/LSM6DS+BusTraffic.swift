extension LSM6DS {
    /// The stream's bus traffic at `configuration`, as ``drain(into:edges:)`` reads the FIFO; the
    /// reader drains once per watermark interrupt.
    ///
    /// - DSO generation (tagged FIFO): 7-byte words, one per sensor per sample, a timestamp word
    ///   every 32 samples (DEC_TS_BATCH = 3) and a temperature word 1.6 times a second
    ///   (ODR_T_BATCH = 1). In steady state a watermark read takes exactly the threshold's words
    ///   with no status read; FIFO_STATUS1/2 (2 bytes) is read every
    ///   ``watermarkReadsPerStatusRead`` drains, and on every drain below an 8-word threshold.
    ///   With FIFO compression a word can hold up to three samples, but how many depends on the
    ///   signal: the uncompressed size is counted, an upper bound.
    /// - DS3 generation (pattern FIFO): 6-byte data sets, gyroscope and accelerometer per sample
    ///   and a timestamp set every ``Variant/timestampDecimation`` samples, after FIFO_STATUS1–4
    ///   (4 bytes) on every drain, and OUT_TEMP (2 bytes) once a second.
    ///
    /// `nil` before ``identify()`` or for a configuration ``apply(_:)`` would refuse.
    public func streamTraffic(for configuration: IMUConfiguration) -> StreamTraffic? {
        guard let v = variant else { return nil }
        let p: Plan
        do {
            p = try Self.plan(configuration, for: v, compression: fifoCompression,
                              maximumCompressedBatchNanoseconds: maximumCompressedBatchNanoseconds)
        } catch {
            return nil
        }
        let sensors = p.effective.gyroscopeEnabled ? 2.0 : 1.0
        let rate = p.dataRate.hertz
        let samples = p.effective.fifoWatermark
        switch v.generation {
        case .dso:
            let wordsPerSample = sensors + 1 / Double(p.timestampDecimation)
            let drains = rate / Double(samples)
            let everyDrain = p.watermarkWords < 8
            let statusPerSecond = everyDrain ? 0 : drains / Double(Self.watermarkReadsPerStatusRead)
            return StreamTraffic(
                part: v.name, outputDataRate: rate, samplesPerDrain: samples,
                bytesPerSample: wordsPerSample * Double(TaggedFIFO.wordLength),
                extraFIFOBytesPerSecond: 1.6 * Double(TaggedFIFO.wordLength), fifoReadUnit: TaggedFIFO.wordLength,
                perDrain: everyDrain ? [.registerRead(2)] : [],
                periodic: statusPerSecond > 0 ? [.init(.registerRead(2), perSecond: statusPerSecond)] : [])
        case .ds3, .dsl:
            let setsPerSample = sensors + 1 / Double(p.timestampDecimation)
            return StreamTraffic(
                part: v.name, outputDataRate: rate, samplesPerDrain: samples,
                bytesPerSample: setsPerSample * Double(PatternFIFO.setLength), fifoReadUnit: PatternFIFO.setLength,
                perDrain: [.registerRead(4)],
                periodic: [.init(.registerRead(2), perSecond: 1)])
        }
    }
}
