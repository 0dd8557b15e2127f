import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// An interrupt line whose timestamps jump by `offset` (signed, nanoseconds) from `from` on: a
/// line on another clock than the reader's, or a clock that was stepped.
final class ShiftedLine: InterruptLine {
    let inner: SimulatedInterruptLine
    let from: UInt64
    let offset: Int64
    init(_ inner: SimulatedInterruptLine, from: UInt64, offset: Int64) { self.inner = inner; self.from = from; self.offset = offset }
    var name: String { inner.name }
    func shift(_ e: EdgeEvent) -> EdgeEvent {
        guard e.timestampNanoseconds >= from else { return e }
        return EdgeEvent(timestampNanoseconds: UInt64(Int64(e.timestampNanoseconds) + offset), kind: e.kind)
    }
    func waitForEdge(timeoutNanoseconds: UInt64) throws(GPIOError) -> EdgeEvent? {
        try inner.waitForEdge(timeoutNanoseconds: timeoutNanoseconds).map(shift)
    }
    func readQueuedEdges() throws(GPIOError) -> [EdgeEvent] { try inner.readQueuedEdges().map(shift) }
}

@Suite struct EdgeClockTests {
    /// Edge timestamps that jump back by 1 or 1.9 s, or on by 1 s or 1 h, mid-stream: the MPU's sample times must stay on
    /// the reader's clock (edges that fit no sample are ignored), and edges waiting for a later
    /// drain must not pile up.
    @Test(arguments: [-1_900_000_000, -1_000_000_000, 1_000_000_000, 3_600_000_000_000] as [Int64])
    func mpuSampleTimesSurviveAnEdgeClockJump(offset: Int64) throws {
        let rig = MPURig("mpu6050", profile: RampTiming.profile)
        let line = ShiftedLine(rig.line, from: 2_000_000_000, offset: offset)
        let stream = IMUStream(imu: rig.driver, line: line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: 500, accelerometerRange: 2, fifoWatermark: 16))
        var samples: [IMUSample] = []
        var mostPending = 0
        var gaps: [StreamGap] = []
        while rig.clock.nowNanoseconds < 30_000_000_000 {
            gaps += stream.step(into: &samples)
            mostPending = max(mostPending, rig.driver.pendingEdges.count)
        }
        let worst = RampTiming.worstError(samples.dropFirst(200), on: rig.sensor)
        #expect(worst < 1e-3, "offset \(offset): worst timing error \(worst * 1e3) ms")
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $1.timestampNanoseconds - $0.timestampNanoseconds > 1_000_000 },
                "offset \(offset): samples crowded together")
        #expect(samples.count > 29 * 500 - 100, "offset \(offset): \(samples.count) samples, gaps \(gaps.map { "\($0.reason) \($0.lostSamples ?? -1)" })")
        #expect(mostPending < 64, "offset \(offset): \(mostPending) edges waiting")
    }
}
