import Testing
import PlumbHAL
import PlumbDrivers
@testable import PlumbSimulation

@Suite struct FaultPlanTests {
    @Test func parsesEveryKindAndInstallsRelativeToNow() throws {
        let plan = try FaultPlan(parsing: "errors=0.01, reg=0x3a, reset@2s, reset@500ms, lost=0.1, silent@1s+250ms, stuck@3+0.2, nack@4s+1s, low@5s+1s, high@7s+2s, storm@6s+100ms, storm@8s+2s/50Hz")
        #expect(plan.resets == [0.5, 2])
        #expect(plan.lostEdgeProbability == 0.1)
        let sensor = SimulatedSensor(model: SimulatedChips.model("mpu6050")!, startNanoseconds: 10_000_000_000)
        plan.install(on: sensor)
        #expect(sensor.chip.scheduledResets == [10_500_000_000, 12_000_000_000])
        #expect(sensor.line.silentWindows == [11_000_000_000...11_250_000_000])
        #expect(sensor.bus.faults == [
            FaultRule(.rate(0.01), effect: .errno(Errno.EREMOTEIO)),
            FaultRule(.register(0x3A), effect: .errno(Errno.EIO)),
            FaultRule(.always, effect: .stuck, window: 13_000_000_000...13_200_000_000),
            FaultRule(.always, effect: .noAcknowledge, window: 14_000_000_000...15_000_000_000),
            FaultRule(.always, effect: .reads(0x00), window: 15_000_000_000...16_000_000_000),
            FaultRule(.always, effect: .reads(0xFF), window: 17_000_000_000...19_000_000_000),
        ])
        #expect(sensor.line.storms == [.init(window: 16_000_000_000...16_100_000_000, periodNanoseconds: 20_000),
                                       .init(window: 18_000_000_000...20_000_000_000, periodNanoseconds: 20_000_000)])
    }

    @Test(arguments: ["errors=1.5", "reg=0x1ff", "reset@soon", "stuck@1s", "storm@1s", "storm@1s+1s/0Hz", "storm@1s+1s/fast", "low@1s+0s", "melt@1s", "lost=-1"])
    func refusesBadItems(spec: String) {
        #expect(throws: FaultPlan.ParseError.self) { try FaultPlan(parsing: spec) }
    }

    /// Times that do not fit the nanosecond clock are refused; they used to trap in `install(on:)`.
    @Test(arguments: ["reset@inf", "reset@nan", "reset@99999999999999999999s", "silent@1e30s+1s", "stuck@1s+1e30ms", "nack@0+inf"])
    func refusesTimesPastTheClock(spec: String) {
        #expect(throws: FaultPlan.ParseError.self) { try FaultPlan(parsing: spec) }
    }

    @Test func theLatestTimeStillInstalls() throws {
        let plan = try FaultPlan(parsing: "reset@1e9s, silent@1e9+1e9")
        let sensor = SimulatedSensor(model: SimulatedChips.model("mpu6050")!, startNanoseconds: 10_000_000_000)
        plan.install(on: sensor)
        #expect(sensor.chip.scheduledResets == [1_000_000_010_000_000_000])
        #expect(sensor.line.silentWindows == [1_000_000_010_000_000_000...2_000_000_010_000_000_000])
    }
}
