import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// A rate above the part's fastest is refused when the driver is configured, naming the part and
/// its rates, as the MPU-6050 family refuses one above its 1000 Hz. It used to run at the fastest
/// (1666 or 1667 Hz) without a word: `plumb read --rate 5000` streamed 1666 Hz as if 5000.
@Suite struct LSM6DSTopRateTests {
    /// Every part: the fastest rate, and up to 0.1 % above it, runs at it; 0.2 % above is refused.
    @Test(arguments: LSM6DS.Variant.all)
    func aRateAboveTheFastestIsRefused(_ variant: LSM6DS.Variant) throws {
        let fastest: Double = variant.generation == .dso ? 1667 : 1666   // Datasheets: 1.66 kHz (DS3, DSL), 1667 Hz (DSO)
        #expect(try LSM6DS.plan(IMUConfiguration(outputDataRate: fastest), for: variant).dataRate.hertz == fastest)
        #expect(try LSM6DS.plan(IMUConfiguration(outputDataRate: fastest * 1.001), for: variant).dataRate.hertz == fastest)
        let rates = variant.generation == .dso ? "12.5, 26, 52, 104, 208, 417, 833 and 1667" : "12.5, 26, 52, 104, 208, 416, 833 and 1666"
        #expect(throws: IMUError.invalidConfiguration("output data rate \(fastest * 1.002) Hz: the \(variant.name) runs at up to \(Int(fastest)) Hz "
                                                      + "(its rates are \(rates) Hz; a rate between them runs at the next one up)")) {
            try LSM6DS.plan(IMUConfiguration(outputDataRate: fastest * 1.002), for: variant)
        }
    }

    /// Through the emulator: apply refuses before it writes a register, so the chip stays powered down.
    @Test func applyRefusesItAndLeavesTheChipPoweredDown() throws {
        let rig = LSM6DSRig(.lsm6dso)
        try rig.imu.identify()
        try rig.imu.reset()
        #expect(throws: IMUError.invalidConfiguration("output data rate 5000.0 Hz: the LSM6DSO runs at up to 1667 Hz "
                                                      + "(its rates are 12.5, 26, 52, 104, 208, 417, 833 and 1667 Hz; a rate between them runs at the next one up)")) {
            try rig.imu.apply(IMUConfiguration(outputDataRate: 5000))
        }
        #expect(rig.chip.registers[0x10] == 0x00)   // CTRL1_XL: ODR_XL power-down
        #expect(rig.chip.registers[0x11] == 0x00)   // CTRL2_G: ODR_G power-down
    }
}
