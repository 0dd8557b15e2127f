import Testing
@testable import PlumbCLI

/// The LSM6DSO bench's bus figures (virtual time, so they are exact and machine-independent).
@Suite struct LSM6DSOBenchTests {
    @Test func fifoCostsFewTransfersAndWakeups() throws {
        let f = try LSM6DSOBench.fifo(watermark: 32, seconds: 2, compression: false)
        #expect(f.samples > 1600)
        // Uncompressed: one FIFO burst (1 + 7 per word) per watermark, 2 words per sample plus a
        // timestamp word every 32: about 14.3 bytes per sample.
        #expect(f.bytesPerSample > 14.0 && f.bytesPerSample < 12 * 1.2)
        #expect(f.transactionsPerSample < 0.08)
        #expect(f.wakeupsPerSecond <= 833.0 / 32 * 1.05)
    }

    @Test func compressedFIFOMeetsTheTargetAtWatermark16() throws {
        let f = try LSM6DSOBench.fifo(watermark: 16, seconds: 2)
        #expect(f.samples > 1600)
        #expect(f.wireBytesPerSample <= 1.2 * 12)
        #expect(f.wakeupsPerSecond <= 833.0 / 16 * 1.01)
        #expect(f.method == "FIFO, watermark 16, compressed")
        let shaking = try LSM6DSOBench.fifo(watermark: 16, seconds: 2, profile: .shaking())
        #expect(shaking.method == "FIFO, watermark 16, compressed, shaking")
        #expect(shaking.wireBytesPerSample < 14.43)
    }

    @Test func perSampleBurstIsOneTransferOfThirteenBytes() throws {
        let b = try LSM6DSOBench.perSampleBurst(seconds: 1)
        #expect(b.samples > 820)
        #expect(b.bytesPerSample == 13)
        #expect(b.wireBytesPerSample == 15)
        #expect(b.transactionsPerSample == 1)
    }

    @Test func decodeRuns() {
        let d = LSM6DSOBench.decode(samples: 256, repeats: 2)
        #expect(d.samplesDecoded == 256 * 2 * 2 + 252 * 2) // tagged and pattern, two repeats each; compressed: slots 0-251 (252 waits for a later word)
        #expect(d.byteSum > 0)
        #expect(d.tagged > 0 && d.pattern > 0 && d.compressed > 0)
    }
}
