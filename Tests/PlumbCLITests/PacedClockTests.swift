import PlumbHAL
import PlumbSimulation
import Testing
@testable import PlumbCLI

/// A paced simulation's clock takes its sleeps in wall time too: the notifier's reader sleeps on
/// its source's clock while the display is blanked, and on the virtual clock alone that passed at
/// once (`plumb watch --simulate --speed 1 --power-root DIR`, blanked: 95 % of a core, 25 000
/// reads of DIR a second, `--duration` used up before the display came back).
@Suite struct PacedClockTests {
    @Test(arguments: [1.0, 2.0, 0.5])
    func aSleepOnThePacedSourcesClockTakesWallTime(speed: Double) throws {
        let simulated = try SimulatedIMU.source(chip: "mpu6050", profile: .rest(), duration: 100).source
        let wall = VirtualClock()
        let paced = PacedSampleSource(simulated, speed: speed, wall: wall, counters: SensorCounters())
        let virtualStart = paced.clock.nowNanoseconds, wallStart = wall.nowNanoseconds
        paced.clock.sleep(nanoseconds: 100_000_000)
        #expect(paced.clock.nowNanoseconds - virtualStart == 100_000_000, "virtual time moves as before")
        #expect(simulated.clock.nowNanoseconds == paced.clock.nowNanoseconds, "the source's own time")
        #expect(wall.nowNanoseconds - wallStart == UInt64(100_000_000 / speed))
    }
}
