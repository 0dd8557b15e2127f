import Testing
import PlumbHAL
import PlumbDrivers
@testable import PlumbSimulation

/// The emulated LSM6DS in and out of the accelerometer's high-performance mode, and its filters
/// settling after a sensor starts.
@Suite struct LSM6DSPowerModeTests {
    let a = I2CAddress(UInt8(0x6A))

    /// The x output's standard deviation in mg over 400 samples at 12.5 Hz, ±4 g, at rest.
    func noise(_ variant: LSM6DS.Variant, highPerformanceOff: Bool) throws -> Double {
        let clock = VirtualClock(startNanoseconds: 1_000_000_000)
        let bus = EmulatedI2CBus(clock: clock, bitsPerSecond: nil)
        let chip = LSM6DSEmulator(variant: variant, clock: clock, errorModel: .noiseOnly(.lsm6ds(variant)), seed: 5)
        bus.attach(chip, at: a)
        try bus.writeRegister(0x15, highPerformanceOff ? 0x10 : 0x00, address: a) // CTRL6_C.XL_HM_MODE
        try bus.writeRegister(0x10, 0x18, address: a)                             // 12.5 Hz, ±4 g
        clock.advance(by: 1_000_000_000)
        var values: [Double] = []
        for _ in 0..<400 {
            clock.advance(by: 80_000_000)
            let b = try bus.readRegisters(0x28, count: 2, address: a)
            values.append(Double(Int16(bitPattern: UInt16(b[0]) | UInt16(b[1]) << 8)) * 0.122)
        }
        let mean = values.reduce(0, +) / Double(values.count)
        return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count - 1)).squareRoot()
    }

    /// DS12140 Rev 2 Table 2: 2.0 mg RMS at ±4 g in normal/low-power mode; high-performance is
    /// 70 µg/√Hz × √6.25 Hz ≈ 0.18 mg at 12.5 Hz.
    @Test func lowPowerModeHasTheDatasheetsRMSNoise() throws {
        let low = try noise(.lsm6dso, highPerformanceOff: true)
        let high = try noise(.lsm6dso, highPerformanceOff: false)
        #expect(abs(low - 2.0) < 0.3, "\(low) mg")
        #expect(high < 0.4, "\(high) mg")
    }

    /// The DSL generation's settling: the first 12 gyroscope samples at 104 Hz ramp up to the
    /// signal (the count of Linux `samples_to_discard`), then the signal; the LSM6DS3 has none.
    @Test func gyroscopeSettlesOverTheKernelsCount() throws {
        for (variant, settling) in [(LSM6DS.Variant.lsm6dsl, 12), (.lsm6ds3, 0)] {
            let clock = VirtualClock(startNanoseconds: 1_000_000_000)
            let bus = EmulatedI2CBus(clock: clock, bitsPerSecond: nil)
            let chip = LSM6DSEmulator(variant: variant, clock: clock, errorModel: .ideal)
            chip.profile = MotionProfile(name: "spin") { _ in MotionState(angularRate: SIMD3(1, 0, 0), specificForce: .zero, attitude: nil) }
            bus.attach(chip, at: a)
            try bus.writeRegister(0x11, 0x4C, address: a) // 104 Hz, ±2000 dps
            var xs: [Int16] = []
            for _ in 0..<20 {
                clock.advance(by: 9_615_385)
                let b = try bus.readRegisters(0x22, count: 2, address: a)
                xs.append(Int16(bitPattern: UInt16(b[0]) | UInt16(b[1]) << 8))
            }
            let settled: Int16 = 819 // 57.3 dps / 70 mdps
            let first = xs.firstIndex { $0 == settled } ?? -1
            #expect(first == settling, "\(variant.name): \(xs)")
            #expect(xs[settling...].allSatisfy { $0 == settled }, "\(variant.name): \(xs)")
        }
    }
}
