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
    /// 20 rounds at 833 Hz, watermark 16; each ends with a drain woken by a stray edge `delay`
    /// after the stream's last read (plus a different phase each round). Returns the samples,
    /// the gaps and the rig.
    func run(compression: Bool, delay: UInt64) throws -> (samples: [IMUSample], gaps: [StreamGap], rig: LSM6DSRig) {
        let rig = LSM6DSRig(.lsm6dso, profile: LSM6DSFaultTests.ramp)
        rig.bus.timesEachByte = true
        rig.imu.fifoCompression = compression
        let stream = IMUStream(imu: rig.imu, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: 833, accelerometerRange: 2, gyroscopeRange: 500, fifoWatermark: 16))
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
        let r = try run(compression: compression, delay: delay)
        let label = "lsm6dso 833 Hz, compression \(compression), stray edge \(delay / 1000) µs after a read"
        if compression { #expect(r.rig.chip.isCompressing, "\(label): the chip did not compress") }
        #expect(r.gaps.isEmpty, "\(label): \(r.gaps.count) gaps, the first \(r.gaps.prefix(1))")
        LSM6DSFaultTests.check(r.samples, origin: r.rig.chip.profileStart, label: label)
        // Every instant from the first sample to the last is there, one period apart.
        let s = r.samples
        let period = 1e9 / 833 / (1 + 3 * 0.0015) // the emulated part runs 0.45 % fast
        var missing = 0
        for (a, b) in zip(s, s.dropFirst()) {
            missing += max(0, Int((Double(b.timestampNanoseconds - a.timestampNanoseconds) / period).rounded()) - 1)
        }
        #expect(missing == 0, "\(label): \(missing) instants missing in \(s.count) samples")
        #expect(s.count > 833 * 3, "\(label): \(s.count) samples")
    }
}
