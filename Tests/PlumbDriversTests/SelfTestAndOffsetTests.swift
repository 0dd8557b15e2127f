import Testing
import Foundation
import PlumbHAL
@testable import PlumbDrivers
import PlumbSimulation

@Suite struct MPU6050SelfTestTests {
    @Test(arguments: ["mpu6050", "mpu6500", "icm20689"])
    func passesWithinLimitsAndRestoresTheConfiguration(key: String) throws {
        let rig = MPURig(key, errorModel: nil)
        _ = try rig.driver.identify()
        try rig.driver.reset()
        let config = IMUConfiguration(outputDataRate: 200, accelerometerRange: 16, gyroscopeRange: 2000)
        try rig.driver.apply(config)
        let result = try rig.driver.selfTest()
        #expect(result.axes.count == 6)
        #expect(result.passed, "\(result.axes)")
        #expect(rig.chip.registers[0x1B] == 0x18) // back to ±2000 °/s, self-test bits clear
        #expect(rig.chip.registers[0x1C] == 0x18)
        #expect(try rig.driver.verifyConfiguration())
    }

    @Test(arguments: ["mpu6050", "mpu6500"])
    func failsWhenTheResponseIsOffByAThird(key: String) throws {
        let rig = MPURig(key, errorModel: nil) { $0.selfTestDeviation = -0.6 }
        _ = try rig.driver.identify()
        try rig.driver.reset()
        try rig.driver.apply(.default)
        let result = try rig.driver.selfTest()
        #expect(!result.passed)
    }

    /// The pass criteria, written out from the sources: MPU-6050 ±14 % of the factory trim
    /// (PS-MPU-6000A-00 rev 3.4 §6.1, §6.2); MPU-6500 gyroscope ≥ 50 % and accelerometer 50–150 %
    /// of the OTP value, or ≥ 60 dps and 225–675 mg when the OTP code is 0 (InvenSense `inv_mpu`).
    @Test func passCriteriaPerGeneration() throws {
        let old = MPURig("mpu6050", errorModel: nil)
        _ = try old.driver.identify()
        try old.driver.reset()
        #expect(try old.driver.selfTest().axes.allSatisfy { $0.limits == -14...14 })

        let new = MPURig("mpu6500", errorModel: nil)
        _ = try new.driver.identify()
        try new.driver.reset()
        let axes = try new.driver.selfTest().axes
        #expect(axes.filter { $0.name.hasPrefix("gyroscope") }.allSatisfy { $0.limits == 50...Double.infinity })
        #expect(axes.filter { $0.name.hasPrefix("accelerometer") }.allSatisfy { $0.limits == 50...150 })

        let blank = MPURig("mpu6500", errorModel: nil) { $0.factoryGyroCodes6500 = [0, 0, 0]; $0.factoryAccelCodes6500 = [0, 0, 0] }
        _ = try blank.driver.identify()
        try blank.driver.reset()
        let absolute = try blank.driver.selfTest()
        #expect(absolute.axes.filter { $0.name.hasPrefix("gyroscope") }.allSatisfy { $0.limits == 60...Double.infinity && $0.unit == "dps" })
        #expect(absolute.axes.filter { $0.name.hasPrefix("accelerometer") }.allSatisfy { $0.limits == 225...675 && $0.unit == "mg" })
        #expect(!absolute.passed) // no OTP codes: the emulator adds no self-test response
    }

    /// Factory trim formulas against values worked out by hand from the register map.
    @Test func factoryTrimFormulas() {
        // MPU-6050: XG_TEST = 1 → 25·131 = 3275; YG negated; XA_TEST = 1 → 4096·0.34 = 1392.64.
        let t = MPU6050.factoryTrim6050(codes: [0b000_00001, 0b000_00001, 0, 0b00_01_00_00])
        #expect(abs(t.gyroscope[0]! - 3275) < 1e-9)
        #expect(abs(t.gyroscope[1]! + 3275) < 1e-9)
        #expect(t.gyroscope[2] == nil)
        #expect(abs(t.accelerometer[0]! - 1392.64) < 1e-9) // XA_TEST = 0b00001 from SELF_TEST_A bits 5:4
        #expect(t.accelerometer[1] == nil)
        // MPU-6500: code 1 → 2620; code 101 → 2620·1.01^100.
        let u = MPU6050.factoryTrim6500(gyroCodes: [1, 101, 0], accelCodes: [1, 0, 1])
        #expect(abs(u.gyroscope[0]! - 2620) < 1e-9)
        #expect(abs(u.gyroscope[1]! - 2620 * pow(1.01, 100)) < 1e-6)
        #expect(u.gyroscope[2] == nil)
    }

    @Test func refusesWhileStreaming() throws {
        let rig = MPURig("mpu6050")
        _ = try rig.start()
        #expect(throws: IMUError.invalidConfiguration("stop streaming before the self-test")) { try rig.driver.selfTest() }
    }
}

@Suite struct MPU6050OffsetTests {
    /// The MPU-6500 generation's accelerometer offsets are 3 bytes apart (0x77, 0x7A, 0x7D),
    /// the MPU-6050's 2 bytes apart (0x06, 0x08, 0x0A); bit 0 of each low byte is kept.
    @Test(arguments: [("mpu6050", [0x06, 0x08, 0x0A] as [UInt8]), ("mpu6500", [0x77, 0x7A, 0x7D]), ("icm20602", [0x77, 0x7A, 0x7D])])
    func accelerometerOffsetRegisters(key: String, addresses: [UInt8]) throws {
        let rig = MPURig(key)
        _ = try rig.driver.identify()
        for a in addresses { try rig.bus.writeRegister(a + 1, 0x01, address: I2CAddress(0x68)) } // reserved bit 0 set
        try rig.driver.writeOffsets(MPU6050.Offsets(gyroscope: SIMD3(100, -200, 300), accelerometer: SIMD3(0x1234, -0x0102, 0x0FFE)))
        let r = rig.chip.registers
        #expect([r[addresses[0]], r[addresses[0] + 1]] == [0x12, 0x35])
        #expect([r[addresses[1]], r[addresses[1] + 1]] == [0xFE, 0xFF])
        #expect([r[addresses[2]], r[addresses[2] + 1]] == [0x0F, 0xFF])
        #expect([r[0x13], r[0x14], r[0x15], r[0x16], r[0x17], r[0x18]] == [0x00, 0x64, 0xFF, 0x38, 0x01, 0x2C])
        let back = try rig.driver.readOffsets()
        #expect(back.gyroscope == SIMD3(100, -200, 300))
        #expect(back.accelerometer == SIMD3(0x1235, -0x0101, 0x0FFF))
    }

    /// A bias estimated from garbage (NaN, infinite, absurdly large) must not trap the Int
    /// conversion: non-finite is refused before anything is written, huge is clamped.
    @Test func adjustingOffsetsByGarbageIsRefusedOrClamped() throws {
        let rig = MPURig("mpu6050")
        _ = try rig.start(IMUConfiguration(outputDataRate: 100))
        let before = try rig.driver.readOffsets()
        #expect(throws: IMUError.invalidConfiguration("offset adjustment for 0x68 on simulated bus: angular rate SIMD3<Double>(nan, 0.0, 0.0) is not a finite value; recalibrate")) {
            try rig.driver.adjustOffsets(angularRate: SIMD3(.nan, 0, 0))
        }
        #expect(throws: IMUError.self) { try rig.driver.adjustOffsets(acceleration: SIMD3(0, .infinity, 0)) }
        #expect(try rig.driver.readOffsets() == before)
        let o = try rig.driver.adjustOffsets(angularRate: SIMD3(1e300, -1e300, 0))
        #expect(o.gyroscope.x == .max && o.gyroscope.y == .min)
    }

    @Test(arguments: ["mpu6050", "mpu9250"])
    func adjustingOffsetsCancelsABias(key: String) throws {
        let bias = SIMD3(0.05, -0.03, 0.02) // rad/s
        let accelBias = SIMD3(0.3, -0.2, 0.15) // m/s²
        let model = SensorErrorModel(gyroscopeBias: bias, accelerometerBias: accelBias)
        let rig = MPURig(key, errorModel: model)
        _ = try rig.start(IMUConfiguration(outputDataRate: 100))
        try rig.driver.adjustOffsets(angularRate: -bias, acceleration: -accelBias)
        rig.clock.advance(by: 100_000_000)
        var samples: [IMUSample] = []
        _ = try rig.driver.drain(into: &samples, edges: [])
        let last = try #require(samples.last)
        #expect(maxAbs(last.angularRate) < 0.002)
        #expect(maxAbs(last.acceleration - SIMD3(0, 0, MotionConstants.standardGravity)) < 0.01)
    }
}

@Suite struct MountingAndCalibrationTests {
    @Test func thereAre24AlignmentsAllProperRotations() throws {
        let all = Mounting.alignments
        #expect(all.count == 24)
        #expect(Set(all.map { $0.alignmentName! }).count == 24)
        for m in all {
            #expect(Mounting.determinant(m.rows) == 1)
            #expect(try Mounting(alignment: m.alignmentName!) == m)
            // Orthonormal: columns map the unit vectors to unit vectors.
            for v in [SIMD3<Double>(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)] {
                #expect(abs((m.apply(v) * m.apply(v)).sum() - 1) < 1e-12)
            }
        }
    }

    @Test func alignmentNamesReadAsDeviceAxes() throws {
        let m = try Mounting(alignment: "-y,x,z")
        #expect(m.apply(SIMD3(1, 2, 3)) == SIMD3(-2, 1, 3))
        #expect(throws: IMUError.self) { try Mounting(alignment: "x,x,z") }
        #expect(throws: IMUError.self) { try Mounting(alignment: "y,x,z") } // left-handed
        #expect(throws: IMUError.self) { try Mounting(matrix: [[1, 0], [0, 1]]) }
        // A rotation that is not an alignment: 45° about z, entries rounded to 4 digits.
        let general = try Mounting(matrix: [[0.7071, -0.7071, 0], [0.7071, 0.7071, 0], [0, 0, 1]])
        #expect(general.alignmentName == nil)
        #expect(abs(general.apply(SIMD3(1, 0, 0)).y - 0.7071) < 1e-12)
    }

    /// Only rotations are mountings: a singular, scaling, skewed or mirrored matrix used to be
    /// accepted from a calibration file and silently lost an axis or turned rotations around.
    @Test("a matrix that is not a rotation is refused, naming the rows", arguments: [
        ([[1.0, 0, 0], [1, 0, 0], [0, 0, 1]], "rows 1 and 2 point along the same axis (the matrix is singular: it would lose an axis)"),
        ([[1.0, 0, 0], [0, 0, 0], [0, 0, 1]], "row 2 is all zeros (the matrix is singular: it would lose an axis)"),
        ([[0.5, 0, 0], [0, 2, 0], [0, 0, 1]], "row 1 has length 0.5, not 1; row 2 has length 2, not 1"),
        ([[1.0, 0, 0], [0.5, 0.866, 0], [0, 0, 1]], "rows 1 and 2 are 60° apart, not 90°"),
        ([[0.0, 1, 0], [1, 0, 0], [0, 0, 1]], "it is a mirror image (determinant -1); negate one row, for example row 3 to [0,0,-1]"),
    ])
    func notARotation(rows: [[Double]], problem: String) {
        #expect(Mounting.rotationProblem(rows) == problem)
        do {
            _ = try Mounting(matrix: rows)
            Issue.record("accepted \(rows)")
        } catch {
            #expect(error.description.contains("is not a rotation: \(problem). Each row is one device axis in sensor axes"))
        }
    }

    @Test func calibrationRoundTripsThroughJSON() throws {
        let c = Calibration(gyroscopeBias: SIMD3(0.01, -0.02, 0.03), accelerometerOffset: SIMD3(0.1, 0.2, -0.3),
                            accelerometerScale: SIMD3(1.01, 0.99, 1.002), mounting: try Mounting(alignment: "y,-x,z"),
                            part: "mpu6050", temperature: 27.5)
        let back = try JSONDecoder().decode(Calibration.self, from: try c.jsonData())
        #expect(back == c)
        let s = c.apply(IMUSample(timestampNanoseconds: 1, acceleration: SIMD3(1.1, 2.2, 3.3), angularRate: SIMD3(0.01, -0.02, 0.03)))
        #expect(maxAbs(s.angularRate) < 1e-15)
        #expect(maxAbs(s.acceleration - SIMD3(2.2 - 0.2, 0, 0) * SIMD3(0.99, 0, 0) - SIMD3(0, -(1.1 - 0.1) * 1.01, (3.3 + 0.3) * 1.002)) < 1e-12)
    }

    /// A damaged or hand-written calibration is refused with the key that is wrong: a scale of 0
    /// used to erase an axis silently. (The file's shape and positions: PlumbCLI's CalibrationFileTests.)
    @Test func implausibleCalibrationsNameTheKey() {
        #expect(Calibration(accelerometerScale: SIMD3(0, 1, 1)).implausibleValue?.key == "accelerometerScale")
        #expect(Calibration(accelerometerScale: SIMD3(0, 1, 1)).implausibleValue?.message == "[0.0, 1.0, 1.0] is out of range; allowed 0.5...2.0")
        #expect(Calibration(gyroscopeBias: SIMD3(1e308, 0, 0)).implausibleValue?.message == "[1e+308, 0.0, 0.0] is out of range; allowed ±10.0 rad/s")
        #expect(Calibration(accelerometerOffset: SIMD3(0, 0, -20)).implausibleValue?.key == "accelerometerOffset")
        #expect(Calibration.none.implausibleValue == nil)
    }

    /// Six still positions from the tour recover the emulated part's bias and scale errors.
    @Test func sixPositionsRecoverBiasOffsetAndScale() throws {
        let model = SensorErrorModel(gyroscopeNoiseDensity: 0.005 * .pi / 180, accelerometerNoiseDensity: 400e-6 * 9.80665,
                                     gyroscopeBias: SIMD3(0.02, -0.015, 0.01), accelerometerBias: SIMD3(0.2, -0.15, 0.3),
                                     gyroscopeScaleError: .zero, accelerometerScaleError: SIMD3(0.02, -0.01, 0.015))
        let profile = MotionProfile.tour(hold: 4, turn: 1.5)
        let rig = MPURig("mpu6050", profile: profile, errorModel: model)
        let stream = IMUStream(imu: rig.driver, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: 200, accelerometerRange: 2, gyroscopeRange: 250))
        var calibrator = SixPositionCalibrator()
        var samples: [IMUSample] = []
        while rig.clock.nowNanoseconds < 40_000_000_000, !calibrator.progress.isComplete {
            samples.removeAll(keepingCapacity: true)
            _ = stream.step(into: &samples)
            for s in samples { calibrator.add(s) }
        }
        #expect(calibrator.progress.done == [.zUp, .yUp, .zDown, .yDown, .xDown, .xUp])
        let c = try #require(calibrator.result(part: "mpu6050"))
        #expect(maxAbs(c.gyroscopeBias - model.gyroscopeBias) < 0.001)
        // Offset: reading = (1+s)·f + b, so offset = b and scale = 1/(1+s).
        #expect(maxAbs(c.accelerometerOffset - model.accelerometerBias) < 0.01)
        #expect(maxAbs(c.accelerometerScale - 1 / (1 + model.accelerometerScaleError)) < 0.002)
    }
}

@Suite struct SampleClockTests {
    @Test func estimatesThePeriodFromEdges() {
        var clock = SampleClock(nominalPeriodNanoseconds: 1_000_000)
        let truePeriod = 1_000_000 / 1.02
        clock.anchor(edge: 5_000_000, index: 0)
        for k in 1...100 { clock.observe(edge: UInt64(5_000_000 + Double(k) * truePeriod), newestIndex: k) }
        #expect(abs(clock.period - truePeriod) < 1)
        #expect(abs(Double(clock.time(of: 150)) - (5_000_000 + 150 * truePeriod)) < 100)
        // An edge half-way between samples fits no record and is ignored.
        #expect(clock.observe(edge: UInt64(5_000_000 + 100.5 * truePeriod), newestIndex: 101) == nil)
    }

    /// Each record gives one edge, before its count is read: a second edge near a record already
    /// matched, or one near a record not counted yet (it found no data), is stray and leaves the
    /// timeline and the period alone. Taken, strays a third of a period off moved the period by
    /// 0.1-0.7 % in a slow storm, and the timeline drifted while the reader polled.
    @Test func strayEdgesLeaveTheTimelineAlone() {
        var clock = SampleClock(nominalPeriodNanoseconds: 1_000_000)
        clock.anchor(edge: 5_000_000, index: 0)
        for k in 1...20 { clock.observe(edge: UInt64(5_000_000 + k * 1_000_000), newestIndex: k) }
        let period = clock.period, time = clock.time(of: 30)
        #expect(clock.observe(edge: 25_300_000, newestIndex: 20) == nil)   // record 20 again
        #expect(clock.observe(edge: 25_700_000, newestIndex: 20) == nil)   // record 21, not counted
        #expect(clock.period == period)
        #expect(clock.time(of: 30) == time)
        #expect(clock.observe(edge: 26_000_000, newestIndex: 21) == 21)    // its own edge
        #expect(clock.time(of: 30) == 35_000_000)
    }
}

/// A sample stamped before its block's start: the calibrator took the difference with wrapping
/// arithmetic (about 584 years), so the block closed at once and, being still, counted as held
/// long enough: one stamp stepping back captured the face after 0.2 s. Now the block's start
/// moves back to the earlier stamp, and a face needs ``SixPositionCalibrator/holdSeconds`` of
/// stamps.
@Suite struct SixPositionCalibratorClockTests {
    static func still(at t: UInt64) -> IMUSample {
        IMUSample(timestampNanoseconds: t, acceleration: SIMD3(0, 0, MotionConstants.standardGravity), angularRate: .zero)
    }

    @Test func aSampleStampedBeforeItsBlockDoesNotCloseItOrHoldTheFace() {
        var calibrator = SixPositionCalibrator()
        let start: UInt64 = 10_000_000_000, period: UInt64 = 10_000_000  // 100 Hz from t = 10 s
        for k in 0..<20 { calibrator.add(Self.still(at: start + UInt64(k) * period)) }
        calibrator.add(Self.still(at: start - 100_000_000))                // 9.9 s, before the block's start
        #expect(calibrator.progress.done == [])
        #expect(calibrator.progress.current == nil, "no block closed yet: it started at 9.9 s")
        // Still samples go on from 10.2 s: the face counts once 2 s of stamps lie behind the
        // block's start (9.9 s), never earlier, and it does count.
        var t = start + 20 * period
        var capturedAt: UInt64?
        while t < 13_000_000_000, capturedAt == nil {
            calibrator.add(Self.still(at: t))
            if calibrator.progress.done == [.zUp] { capturedAt = t }
            t += period
        }
        let captured = capturedAt ?? 0
        #expect(captured >= start - 100_000_000 + 2_000_000_000, "captured at \(captured) ns")
        #expect(capturedAt != nil, "still on +z for 3 s of stamps")
    }

    /// A step back inside a block that already holds samples from later stamps: the block is
    /// judged whole, and a still face's held time is the span of its stamps.
    @Test func heldTimeIsTheSpanOfTheStamps() {
        var calibrator = SixPositionCalibrator()
        let period: UInt64 = 10_000_000
        for k in 0..<10 { calibrator.add(Self.still(at: 5_000_000_000 + UInt64(k) * period)) }
        calibrator.add(Self.still(at: 4_800_000_000))
        var t: UInt64 = 5_100_000_000
        while t <= 5_300_000_000 { calibrator.add(Self.still(at: t)); t += period }   // closes at 5.3 s: 0.5 s after 4.8 s
        #expect(calibrator.progress.current == .zUp)
        #expect(abs(calibrator.progress.heldSeconds - 0.5) < 1e-9)
    }
}

/// A step back across a block boundary: a sample of the second block stamped before the first
/// block's end moved the second block's start back over time the first block had already
/// counted, so the run counted that stretch twice (0.5 s + 0.61 s held for 0.91 s of stamps),
/// and a face could be captured with less than ``SixPositionCalibrator/holdSeconds`` of stamps.
@Suite struct SixPositionCalibratorBoundaryTests {
    @Test func aStepBackAcrossABlockBoundaryIsNotCountedTwice() {
        var calibrator = SixPositionCalibrator()
        let period: UInt64 = 10_000_000
        // Block one: 10.00 s … 10.50 s (closes on the sample at 10.50 s).
        for k in 0...50 { calibrator.add(SixPositionCalibratorClockTests.still(at: 10_000_000_000 + UInt64(k) * period)) }
        #expect(abs(calibrator.progress.heldSeconds - 0.5) < 1e-9)
        // Block two: 10.51 s … 10.90 s, one sample stamped 10.30 s, then 10.91 s closes it.
        for k in 51...90 { calibrator.add(SixPositionCalibratorClockTests.still(at: 10_000_000_000 + UInt64(k) * period)) }
        calibrator.add(SixPositionCalibratorClockTests.still(at: 10_300_000_000))
        calibrator.add(SixPositionCalibratorClockTests.still(at: 10_910_000_000))
        #expect(calibrator.progress.current == .zUp)
        // The stamps span 10.00 s … 10.91 s.
        #expect(abs(calibrator.progress.heldSeconds - 0.91) < 1e-9, "held \(calibrator.progress.heldSeconds) s")
    }

    /// Stamps that step back by 0.3 s at every block's start (a stream restarted on an
    /// overlapping time base again and again): the face is captured only once 2 s of distinct
    /// stamps are behind it.
    @Test func repeatedStepsBackDoNotCaptureTheFaceEarly() {
        var calibrator = SixPositionCalibrator()
        let period: UInt64 = 10_000_000
        var t: UInt64 = 10_000_000_000
        var latest = t
        for _ in 0..<4 {
            for _ in 0...50 { calibrator.add(SixPositionCalibratorClockTests.still(at: t)); latest = max(latest, t); t += period }
            t -= 300_000_000
        }
        // Four blocks of 0.5 s each, overlapping by 0.29 s: 10.00 s … 11.13 s of stamps.
        #expect(latest - 10_000_000_000 < 2_000_000_000)
        #expect(calibrator.progress.done == [], "held \(calibrator.progress.heldSeconds) s")
    }
}
