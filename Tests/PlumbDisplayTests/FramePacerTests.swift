import PlumbHAL
import Testing
@testable import PlumbDisplay

@Suite struct FramePacerTests {
    @Test func pacesAtTheRateAndSkipsMissedFrames() {
        let clock = VirtualClock(startNanoseconds: 1_000)
        let pacer = FramePacer(clock: clock, rate: 50)  // 20 ms
        #expect(pacer.waitForNextFrame() == 1_000)
        clock.advance(by: 5_000_000)  // a 5 ms frame
        #expect(pacer.waitForNextFrame() == 20_001_000)
        #expect(clock.nowNanoseconds == 20_001_000)
        clock.advance(by: 45_000_000)  // a 45 ms frame: the frames due at 40 and 60 ms are missed
        #expect(pacer.waitForNextFrame() == 80_001_000)
        #expect(pacer.missedFrames == 2)
        #expect(pacer.waitForNextFrame() == 100_001_000)
    }
}
