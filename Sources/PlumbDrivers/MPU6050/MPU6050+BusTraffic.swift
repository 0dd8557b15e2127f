extension MPU6050 {
    /// The stream's bus traffic at `configuration` (see ``drain(into:edges:)``): per drain
    /// INT_STATUS (1 byte) and FIFO_COUNT (2 bytes), then one burst of whole records from FIFO_R_W
    /// (12 bytes a sample with the gyroscope, 6 without, 2 more where the part requires the
    /// temperature in the FIFO); TEMP_OUT (2 bytes) once a second otherwise. The reader drains
    /// once per watermark (the family has no watermark interrupt: it sleeps until one is due).
    /// `nil` before ``identify()`` or for a configuration ``apply(_:)`` would refuse.
    public func streamTraffic(for configuration: IMUConfiguration) -> StreamTraffic? {
        guard let v = variant else { return nil }
        let s: Settings
        do { s = try Self.settings(for: configuration, variant: v) } catch { return nil }
        let temperatureInFIFO = s.fifoEnable & Bits.fifoTemperature != 0
        return StreamTraffic(
            part: v.part, outputDataRate: s.effective.outputDataRate, samplesPerDrain: s.effective.fifoWatermark,
            bytesPerSample: Double(s.recordSize), fifoReadUnit: 1,
            perDrain: [.registerRead(1), .registerRead(2)],
            periodic: temperatureInFIFO ? [] : [.init(.registerRead(2), perSecond: 1)])
    }
}
