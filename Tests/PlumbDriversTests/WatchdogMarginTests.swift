import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

@Suite struct WatchdogMarginTests {
    /// The LSM6DSO's threshold counts a timestamp word (2w + 1 words for w instants: one word per
    /// 32 instants), so after a drain that emptied the FIFO the pin rises after w + 1 instants, not
    /// w: two at watermark 1. A watchdog of 1.5 watermarks (120 ms at 12.5 Hz) then fired before
    /// every other edge, and with the chip's oscillator 9 % slow (FREQ_FINE −60) two in a row:
    /// the healthy stream went to polling ("no interrupt ... for 260 ms") and back, over and over.
    @Test(arguments: [1, 2, 3], [0, -60] as [Int8])
    func aHealthyLowRateStreamIsWokenByItsEdges(watermark: Int, frequencyFine: Int8) throws {
        let rig = LSM6DSRig(.lsm6dso, profile: LSM6DSFaultTests.ramp)
        rig.chip.frequencyFine = frequencyFine
        let config = IMUConfiguration(outputDataRate: 12.5, accelerometerRange: 2, fifoWatermark: watermark)
        var gaps: [StreamGap] = []
        var emitted = 0
        let label = "lsm6dso 12.5 Hz watermark \(watermark) FREQ_FINE \(frequencyFine)"
        let stream = try runLSM6DSStream(rig, seconds: 20, config: config, gaps: &gaps, samples: &emitted, label: label)
        let notices = stream.takeNotices().map(\.message)
        #expect(notices.isEmpty, "\(label): \(notices)")
        #expect(stream.mode == .interrupts, "\(label)")
        #expect(stream.statistics.pollingSteps == 0, "\(label): \(stream.statistics)")
        // Every wake-up but the first few (start-up) came from an edge, none from the watchdog.
        #expect(stream.statistics.edges >= stream.statistics.wakeups - 2, "\(label): \(stream.statistics)")
        #expect(gaps.isEmpty, "\(label): \(gaps)")
        #expect(emitted > 20 * 12 * 9 / 10, "\(label): \(emitted) samples")
    }
}
