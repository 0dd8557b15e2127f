import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// A stray edge on the LSM6DSO's watermark pin (noise, or an edge stamped just after a read)
/// with the chip sampling on between the bytes of a burst (``EmulatedI2CBus/timesEachByte``),
/// as the part does. A blind watermark read on such an edge ran past the end of the FIFO: the
/// chip returned zeros there, then the words of the instants that came during the burst, which
/// were taken for corruption (a gap, the samples after it re-anchored, with compression the
/// samples up to the next uncompressed word dropped). Nothing was lost on the chip: the stream
/// must carry every sample, with no gap.
@Suite struct StrayEdgeTests {
    /// 20 rounds at `rate`, watermark 16; each ends with a drain woken by a stray edge `delay`
    /// after the stream's last read (plus a different phase each round). Returns the samples,
    /// the gaps and the rig.
    func run(rate: Double = 833, compression: Bool, delay: UInt64) throws -> (samples: [IMUSample], gaps: [StreamGap], rig: LSM6DSRig) {
        let rig = LSM6DSRig(.lsm6dso, profile: LSM6DSFaultTests.ramp)
        rig.bus.timesEachByte = true
        rig.imu.fifoCompression = compression
        let stream = IMUStream(imu: rig.imu, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: rate, accelerometerRange: 2, gyroscopeRange: 500, fifoWatermark: 16))
        var samples: [IMUSample] = []
        var gaps: [StreamGap] = []
        for round in 0..<20 {
            let until = rig.clock.nowNanoseconds + 150_000_000 + UInt64(round) * 1_300_000
            while rig.clock.nowNanoseconds < until || !rig.imu.taggedStateKnown { gaps += stream.step(into: &samples) }
            rig.clock.sleep(nanoseconds: delay + UInt64(round % 4) * 300_000)
            let edge = EdgeEvent(timestampNanoseconds: rig.clock.nowNanoseconds, kind: .rising)
            gaps += try rig.imu.drain(into: &samples, edges: [edge]).gaps
        }
        let end = rig.clock.nowNanoseconds + 300_000_000
        while rig.clock.nowNanoseconds < end { gaps += stream.step(into: &samples) }
        return (samples, gaps, rig)
    }

    @Test(arguments: [false, true], [UInt64(0), 1_000_000, 3_000_000, 6_000_000, 10_000_000, 15_000_000])
    func aStrayEdgeLosesNoSamples(compression: Bool, delay: UInt64) throws {
        try check(rate: 833, compression: compression, delay: delay)
    }

    /// Slower and faster: at 104 Hz a 33-word burst (5.2 ms) fits between two instants (9.6 ms),
    /// at 1666 Hz it spans nine. (At 104 Hz a compressed watermark 16 would fill in over 125 ms,
    /// so the driver does not compress there.)
    @Test(arguments: [(104.0, UInt64(0), false), (104.0, 40_000_000, false), (104.0, 120_000_000, false),
                      (1666.0, 0, false), (1666.0, 4_000_000, false), (1666.0, 8_000_000, false),
                      (1666.0, 0, true), (1666.0, 4_000_000, true), (1666.0, 12_000_000, true)])
    func aStrayEdgeLosesNoSamplesAtOtherRates(run: (rate: Double, delay: UInt64, compression: Bool)) throws {
        try check(rate: run.rate, compression: run.compression, delay: run.delay)
    }

    func check(rate: Double, compression: Bool, delay: UInt64) throws {
        let r = try run(rate: rate, compression: compression, delay: delay)
        let label = "lsm6dso \(rate) Hz, compression \(compression), stray edge \(delay / 1000) µs after a read"
        if compression { #expect(r.rig.chip.isCompressing, "\(label): the chip did not compress") }
        #expect(r.gaps.isEmpty, "\(label): \(r.gaps.count) gaps, the first \(r.gaps.prefix(1))")
        LSM6DSFaultTests.check(r.samples, origin: r.rig.chip.profileStart, label: label)
        // Every instant from the first sample to the last is there, one period apart.
        let s = r.samples
        let period = 1e9 / rate / (1 + 3 * 0.0015) // the emulated part runs 0.45 % fast
        var missing = 0
        for (a, b) in zip(s, s.dropFirst()) {
            missing += max(0, Int((Double(b.timestampNanoseconds - a.timestampNanoseconds) / period).rounded()) - 1)
        }
        #expect(missing == 0, "\(label): \(missing) instants missing in \(s.count) samples")
        #expect(Double(s.count) > rate * 3, "\(label): \(s.count) samples")
    }
}
