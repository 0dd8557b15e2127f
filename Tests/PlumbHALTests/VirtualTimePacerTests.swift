import Testing
@testable import PlumbHAL

/// A speedup out of range is held: 0 or a negative one is ``VirtualTimePacer/minimumSpeedup`` (a
/// thousandth of real time), an infinite one does not wait, not a number is real time. The
/// initialiser stopped the process on 0 and below (its precondition), and a speedup that is not a
/// number stopped it at the first pace (the wait's conversion). In a process of its own.
@Suite struct VirtualTimePacerTests {
    @Test func aSpeedupOutOfRangeIsHeld() async {
        await #expect(processExitsWith: .success) {
            for (speedup, held) in [(0, 0.001), (-1, 0.001), (-.infinity, 0.001), (.infinity, .infinity), (.nan, 1), (1e-300, 0.001)] as [(Double, Double)] {
                let wall = VirtualClock(startNanoseconds: 5)
                var pacer = VirtualTimePacer(speedup: speedup, wall: wall)
                #expect(pacer.speedup == held, "\(speedup)")
                pacer.pace(virtualNanoseconds: 1_000)
                // A virtual second: a wall second at real time, 1000 s at the slowest, none unpaced.
                pacer.pace(virtualNanoseconds: 1_000 + 1_000_000_000)
                #expect(wall.nowNanoseconds == 5 + (held.isInfinite ? 0 : UInt64((1e9 / held).rounded())), "\(speedup)")
                // At the slowest, virtual time past UInt64's end in wall time waits to its end.
                pacer.pace(virtualNanoseconds: UInt64.max)
            }
        }
    }
}
