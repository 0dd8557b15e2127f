import Foundation
import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// One fault at a time on the low-energy mode's configuration (12.5 Hz, watermark 7, accelerometer
/// only, woken early at random): what it costs, as the longest stretch of sampling instants with
/// no sample emitted, against what the fault itself takes. The differential test's integrity
/// checks hold throughout.
///
/// | fault (seeds 1–3) | MPU-6050 before → now | LSM6DSO before → now | what is inherent |
/// |---|---|---|---|
/// | `reset@` (brown-out) | 16–19 → 9–12 | 22–26 → 7–13 | the FIFO's content, and the time until a read finds it empty |
/// | 3 zeroed FIFO reads | 21 → 21 | 29–33 → 20–21 | the three batches the chip popped |
///
/// (`PLUMB_FAULT_COST=all swift test --filter LowRateFaultCostProbe` prints every fault kind;
/// lost edges, storms, SDA held low or high and NACK windows cost no sample at this rate.)
///
/// Before, a brown-out was found by the once-a-second read-back, or on the LSM6DSO after a
/// watchdog of three watermarks (1.7 s); a drain that finds the FIFO empty when a batch was due
/// now reads the configuration back at once, and the watchdog is 1.5 watermarks
/// (``IMUStream``). After a zeroed read the LSM6DSO's samples waited up to 32 instants (2.56 s)
/// for a timestamp word to time them, and were dropped meanwhile; at this rate the tagged FIFO
/// now carries one per instant (``LSM6DS/taggedTimestampDecimation(rate:samples:gyroscope:compression:variant:)``).
@Suite struct LowRateFaultCostTests {
    typealias Differential = MotionFaultDifferentialTests

    static func setup(_ chip: String) -> Differential.Setup {
        .init(chip: chip, rate: 12.5, watermark: 7, gyroscope: false, earlyWakes: true)
    }

    /// The most sampling instants between two consecutive samples.
    static func longestStretch(_ samples: [IMUSample], period: Double) -> Int {
        var longest = 0
        for i in samples.indices.dropFirst() {
            let missing = Int((Double(samples[i].timestampNanoseconds - samples[i - 1].timestampNanoseconds) / period).rounded()) - 1
            longest = max(longest, missing)
        }
        return longest
    }

    struct Cost: Sendable, CustomTestStringConvertible {
        var chip: String
        var seed: UInt64
        var plan: String
        var zeroedReads = 0
        /// The most instants in a row the fault may cost.
        var bound: Int
        var testDescription: String { "\(chip) seed \(seed): \(plan.isEmpty ? "" : plan) \(zeroedReads > 0 ? "\(zeroedReads) zeroed reads" : "") at most \(bound)" }
    }

    /// A brown-out costs the FIFO's content and the time until it is found: on the MPU-6050 the
    /// next drain that was due (at most a watermark, 7 instants, after the last), on the LSM6DSO,
    /// which gives no edge then, the watchdog (1.5 watermarks, 10.5 instants, after the last
    /// drain); then the re-initialisation (the MPU's 100 ms reset pause, the LSM6DSO's settling
    /// samples). At most 13 measured; 14 allowed. Three zeroed reads cost the three batches they
    /// popped, 3 × 7 (and one more for an instant an early wake-up split off).
    static let cases: [Cost] = ["mpu6050", "lsm6dso"].flatMap { chip in
        (1...3).flatMap { seed in
            ["reset@5.03s", "reset@5.25s", "reset@5.47s"].map { Cost(chip: chip, seed: UInt64(seed), plan: $0, bound: 14) }
                + [Cost(chip: chip, seed: UInt64(seed), plan: "", zeroedReads: 3, bound: 22)]
        }
    }

    @Test(arguments: cases)
    func aSingleFaultAtLowRateCostsWhatItTakes(_ c: Cost) throws {
        var faults = Differential.Faults(plan: c.plan)
        if c.zeroedReads > 0 { faults.zeroed = [(5.03, c.zeroedReads)] }
        let r = try Differential.run(Self.setup(c.chip), seed: c.seed, faults: faults)
        for f in r.check.failures { Issue.record("\(r.label): \(f)") }
        let stretch = Self.longestStretch(r.samples, period: 80_000_000)
        #expect(stretch <= c.bound, "\(r.label): \(stretch) instants in a row without a sample; gaps \(r.gaps.map { "\($0.reason):\($0.lostSamples ?? -1)" })")
        #expect(r.check.missing > 0 || !c.plan.isEmpty, "\(r.label): the zeroed reads took effect")
        #expect(!r.gaps.contains { $0.reason == .stall }, "\(r.label): \(r.gaps)")
    }

    /// A watermark edge lost on the LSM6DSO at 12.5 Hz (watermark 7, 0.56 s) holds back the data
    /// the chip has until the watchdog: 1.5 watermarks now, 0.85 s, so no sample is emitted
    /// more than a second after it was taken (the low-energy mode's promise). With three
    /// watermarks (1.69 s) the oldest was 1.7 s old.
    @Test func aLostEdgeHoldsTheLowEnergyStreamBackLessThanASecond() throws {
        let model = try #require(SimulatedChips.model("lsm6dso"))
        let sensor = SimulatedSensor(model: model, profile: BroadSlice.profile, seed: 1)
        let imu = LSM6DS(bus: sensor.bus, address: model.address, clock: sensor.clock)
        let stream = IMUStream(imu: imu, line: sensor.line, clock: sensor.clock)
        try stream.start(IMUConfiguration(outputDataRate: 12.5, accelerometerRange: 8, fifoWatermark: 7, gyroscopeEnabled: false))
        try FaultPlan(parsing: "lost=0.15").install(on: sensor)
        var samples: [IMUSample] = []
        var oldest = 0.0
        let end = sensor.clock.nowNanoseconds + 12 * Nanoseconds.perSecond
        while sensor.clock.nowNanoseconds < end {
            let before = samples.count
            _ = stream.step(into: &samples)
            let now = sensor.clock.nowNanoseconds
            for s in samples[before...] { oldest = max(oldest, Double(now &- s.timestampNanoseconds) / 1e9) }
        }
        #expect(oldest < 1.0, "the oldest sample emitted was \(oldest) s old")
        #expect(samples.count > 140, "\(samples.count) samples")
        // Edges were lost: the watchdog, not an edge, woke the reader at least once.
        #expect(stream.statistics.edges < stream.statistics.wakeups, "\(stream.statistics)")
    }
}
