import Testing
import PlumbHAL
@testable import PlumbDrivers
import PlumbSimulation

/// The low-energy mode (accelerometer only) on every MPU row: which clock the chip runs on and
/// whether the gyroscope really stops.
@Suite struct MPU6050LowEnergyTests {
    static let lowEnergy = IMUConfiguration(outputDataRate: 12.5, fifoWatermark: 7, gyroscopeEnabled: false)

    /// Register Map rev 4.2 §4.28: the MPU-60X0 runs "in low power modes with the gyroscopes
    /// disabled" only on the internal oscillator (or an external clock); Linux
    /// `inv_mpu6050_clock_switch` sets CLKSEL = 0 by hand on the MPU-6050/6000/9150 before the
    /// gyro goes to standby, and leaves the MPU-6500 generation's automatic CLKSEL = 1 alone.
    @Test(arguments: MPU6050.variants.map(\.key))
    func accelerometerOnlyStopsTheGyroscopeAndKeepsStreaming(key: String) throws {
        let rig = MPURig(key)
        let v = MPU6050.variant(named: key)!
        _ = try rig.start(Self.lowEnergy)
        let clockSelect: UInt8 = v.generation == .mpu6050 ? 0x00 : 0x01
        #expect(rig.chip.registers[0x6B] == clockSelect)          // PWR_MGMT_1: awake, CLKSEL
        #expect(rig.chip.registers[0x6C] == 0x07)                 // PWR_MGMT_2: STBY_XG | STBY_YG | STBY_ZG
        #expect(rig.chip.registers[0x23] & 0x70 == 0)             // no gyro words in the FIFO
        #expect(!rig.chip.isGyroscopeRunning)
        #expect(try rig.driver.verifyConfiguration())
        rig.clock.sleep(nanoseconds: 1_000_000_000)
        var samples: [IMUSample] = []
        _ = try rig.driver.drain(into: &samples, edges: try rig.line.readQueuedEdges())
        #expect((11...13).contains(samples.count))
    }

    /// Back to normal: the PLL again, and the gyroscope running.
    @Test(arguments: ["mpu6050", "mpu6500", "icm20689"])
    func normalModeRunsOnThePLLWithTheGyroscope(key: String) throws {
        let rig = MPURig(key)
        _ = try rig.start(Self.lowEnergy)
        _ = try rig.driver.apply(.default)
        #expect(rig.chip.registers[0x6B] == 0x01)
        #expect(rig.chip.registers[0x6C] == 0x00)
        #expect(rig.chip.isGyroscopeRunning)
        #expect(try rig.driver.verifyConfiguration())
    }

    /// The MPU-6050 generation selects the gyro PLL only after the gyroscope's start-up time
    /// (Product Specification rev 3.4 §7.15; `inv_mpu6050_switch_engine`: engine on, sleep the
    /// start-up time, then `inv_mpu6050_clock_switch(st, INV_CLK_PLL)`). The PWR_MGMT_1 writes
    /// of one apply, with their times, are the contract.
    @Test func pllIsSelectedAfterTheGyroscopeStarts_MPU6050() throws {
        let rig = MPURig("mpu6050", instantBus: true)
        _ = try rig.driver.identify()
        try rig.driver.reset()
        let t0 = rig.clock.nowNanoseconds
        rig.bus.trace = []
        _ = try rig.driver.apply(.default)
        let writes = rig.bus.trace!.map { "\(($0.timeNanoseconds - t0) / 1_000_000) ms: \($0)" }.filter { $0.contains("w 6b ") }
        #expect(writes == ["0 ms: w 6b 00", "60 ms: w 6b 01"])
    }

    /// The self-test turns the gyroscope on the same way: internal oscillator, start-up time, PLL.
    @Test func selfTestSelectsThePLLAfterTheGyroscopeStarts_MPU6050() throws {
        let rig = MPURig("mpu6050", instantBus: true)
        _ = try rig.driver.identify()
        try rig.driver.reset()
        let t0 = rig.clock.nowNanoseconds
        rig.bus.trace = []
        _ = try rig.driver.selfTest()
        let writes = rig.bus.trace!.map { "\(($0.timeNanoseconds - t0) / 1_000_000) ms: \($0)" }.filter { $0.contains("w 6b ") }
        #expect(Array(writes.prefix(2)) == ["0 ms: w 6b 00", "60 ms: w 6b 01"])
    }

    /// The emulator's side of the fact: gyro standby with a gyro PLL as the clock leaves that
    /// gyro driven on the MPU-6050 generation, not on the MPU-6500 generation.
    @Test func standbyGyroscopeThatIsTheClockReferenceKeepsRunningOnTheMPU6050() throws {
        for (key, running) in [("mpu6050", true), ("mpu6500", false)] {
            let rig = MPURig(key)
            let a = I2CAddress(0x68)!
            try rig.bus.writeRegister(0x6B, 0x01, address: a)
            try rig.bus.writeRegister(0x6C, 0x07, address: a)
            #expect(rig.chip.isGyroscopeRunning == running, "\(key)")
            try rig.bus.writeRegister(0x6B, 0x00, address: a)
            #expect(!rig.chip.isGyroscopeRunning, "\(key)")
        }
    }
}
