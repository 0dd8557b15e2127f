import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// The first samples after the sensors start are their digital filters settling, not the signal.
/// Linux `st_lsm6dsx` drops a count of them on the LSM6DSM-like parts (`samples_to_discard`,
/// commit db3c490503be) and, on the LSM6DSO-like parts, sets CTRL4_C.DRDY_MASK and drops the words
/// the chip marks (x ≥ 0x7FFD, `st_lsm6dsx_push_tagged_data`).
@Suite struct LSM6DSSettlingTests {
    static let rate = SIMD3<Double>(0.5, -0.25, 1.0)        // rad/s
    static let force = SIMD3<Double>(1.0, -2.0, 9.5)         // m/s²

    /// Every sample from the start of a stream is the signal (within 1 % of it), on every part.
    @Test(arguments: LSM6DS.Variant.all)
    func noSettlingSampleReachesTheStream(variant: LSM6DS.Variant) throws {
        for gyroscope in [true, false] {
            let rig = LSM6DSRig(variant, profile: constant(force: Self.force, rate: Self.rate))
            let c = IMUConfiguration(outputDataRate: gyroscope ? 104 : 12.5, fifoWatermark: 4, gyroscopeEnabled: gyroscope)
            try rig.start(c)
            var samples: [IMUSample] = []
            var discarded = 0
            for _ in 0..<40 {
                let edge = try rig.line.waitForEdge(timeoutNanoseconds: 2_000_000_000)
                let r = try rig.imu.drain(into: &samples, edge: edge)
                #expect(r.gaps.isEmpty, "\(variant.name): \(r.gaps)")
                discarded += r.settlingDiscards
            }
            #expect(samples.count > 100, "\(variant.name)")
            for s in samples {
                let a = s.acceleration - Self.force
                #expect(max(abs(a.x), abs(a.y), abs(a.z)) < 0.01 * 9.80665, "\(variant.name) gyro \(gyroscope): \(s.acceleration)")
                if gyroscope {
                    let w = s.angularRate - Self.rate
                    #expect(max(abs(w.x), abs(w.y), abs(w.z)) < 0.01, "\(variant.name): \(s.angularRate)")
                }
            }
            // The kernel's counts on the DSL generation: 12 gyroscope samples at 104 Hz, one
            // accelerometer sample at 12.5 Hz.
            if variant.generation == .dsl { #expect(discarded == (gyroscope ? 12 : 1), "\(variant.name)") }
            if variant.generation == .ds3 { #expect(discarded == 0) }
            if variant.generation == .dso { #expect(discarded > 0, "\(variant.name)") }
        }
    }

    /// DRDY_MASK is set on the DSO generation only (CTRL4_C written by hand here, so a wrong
    /// constant in the driver is caught).
    @Test(arguments: LSM6DS.Variant.all)
    func drdyMaskOnTheDSOGenerationOnly(variant: LSM6DS.Variant) throws {
        let rig = LSM6DSRig(variant)
        try rig.start(.default)
        #expect(rig.chip.registers[0x13] == (variant.generation == .dso ? 0x08 : 0x00))
    }

    /// The self-test runs with CTRL4_C as after reset, as ST's examples do (no DRDY_MASK), and
    /// the stream's configuration, DRDY_MASK included, is back afterwards.
    @Test func selfTestRunsWithoutTheMaskAndRestoresIt() throws {
        let rig = LSM6DSRig(.lsm6dso)
        try rig.start(.default)
        rig.recorder.log = []
        let result = try rig.imu.selfTest()
        #expect(result.passed)
        let writes = rig.recorder.log.filter { $0.hasPrefix("w 13 ") || $0.hasPrefix("w 10 ") }
        #expect(writes.first == "w 13 00", "\(writes)")
        #expect(rig.chip.registers[0x13] == 0x08)
    }

    /// The kernel's table, read back (`samples_to_discard` for the LSM6DSM-like entry).
    @Test func settlingCountsAreTheKernelsOnTheDSLGeneration() {
        let v = LSM6DS.Variant.lsm6dsl
        let gyro = v.dataRates.prefix(6).map { v.settlingInstants(rate: $0, gyroscope: true) }
        let accel = v.dataRates.prefix(6).map { v.settlingInstants(rate: $0, gyroscope: false) }
        #expect(gyro == [2, 5, 7, 12, 20, 36])
        #expect(accel == [1, 1, 1, 2, 2, 2])
        #expect(LSM6DS.Variant.lsm6dso.settlingInstants(rate: v.dataRates[3], gyroscope: true) == 0)
        #expect(LSM6DS.Variant.lsm6ds3.settlingInstants(rate: v.dataRates[3], gyroscope: true) == 0)
    }

    /// A marked word counts only before the sensor's first valid word: a saturated x later in
    /// the stream is a sample, not a settling mark.
    @Test func aSaturatedSampleAfterSettlingIsKept() {
        var a = LSM6DS.SampleAssembler(accelerometerScale: 1, gyroscopeScale: 1, gyroscopeEnabled: false,
                                       temperatureLSBPerDegree: 256,
                                       timebase: LSM6DS.Timebase(bits: 32, frequencyFine: 0, originNanoseconds: 0),
                                       nominalPeriodTicks: 400)
        a.dropsMaskedSettlingWords = true
        let marked = SIMD3<Int16>(repeating: 0x7FFE)
        let words: [LSM6DS.FIFOWord] = [
            .init(slot: 0, entry: .timestamp(0)),
            .init(slot: 0, entry: .accelerometer(marked)),
            .init(slot: 1, entry: .accelerometer(marked)),
            .init(slot: 2, entry: .accelerometer(SIMD3(100, 0, 0))),
            .init(slot: 3, entry: .accelerometer(SIMD3(0x7FFF, 0, 0))),
            .init(slot: 0, entry: .accelerometer(SIMD3(5, 0, 0))),
        ]
        var samples: [IMUSample] = []
        let lost = a.consume(words, into: &samples)
        #expect(lost == 0)
        #expect(samples.map(\.acceleration.x) == [100, 32767, 5])
        #expect(a.takeSettlingDrops() == 2)
    }
}
