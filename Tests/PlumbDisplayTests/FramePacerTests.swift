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

/// A rate out of range is held, as ``EnergySettings`` holds its intervals: 0 or a negative one is
/// the slowest (a frame a day), an infinite one the fastest (1 ns apart), not a number the default
/// 60 Hz. The initialiser stopped the process on 0 and below (its precondition) and on a rate that
/// is not a number (its interval's conversion); an infinite rate made the interval 0, and the
/// next frame after a late one divided by it. In a process of its own.
@Suite struct FramePacerRangeTests {
    @Test func aRateOutOfRangeIsHeld() async {
        await #expect(processExitsWith: .success) {
            for (rate, interval) in [(0, 86_400_000_000_000), (-1, 86_400_000_000_000), (-.infinity, 86_400_000_000_000),
                                     (.infinity, 1), (.nan, 16_666_667), (1e300, 1)] as [(Double, UInt64)] {
                let clock = VirtualClock(startNanoseconds: 1_000)
                let pacer = FramePacer(clock: clock, rate: rate)
                #expect(pacer.interval == interval, "\(rate)")
                #expect(pacer.waitForNextFrame() == 1_000)
                clock.advance(by: 5)  // late for the fastest
                let due = pacer.waitForNextFrame()
                #expect(due == (interval == 1 ? 1_005 : 1_000 + interval), "\(rate)")
            }
        }
    }
}
