import Testing
import Foundation
@testable import PlumbSimulation
import PlumbDrivers

private func norm(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }

@Suite struct MotionProfileTests {
    @Test func restIsGravityOnZ() {
        let s = MotionProfile.rest().state(at: 12.3)
        #expect(s.specificForce == SIMD3(0, 0, MotionProfile.standardGravity))
        #expect(s.angularRate == .zero)
    }

    @Test func tourVisitsTheSixFacesInOrder() throws {
        let hold = 4.0, turn = 1.5
        let tour = MotionProfile.tour(hold: hold, turn: turn)
        let expected: [SIMD3<Double>] = [SIMD3(0, 0, 1), SIMD3(0, 1, 0), SIMD3(0, 0, -1), SIMD3(0, -1, 0), SIMD3(-1, 0, 0), SIMD3(1, 0, 0)]
        let turns = [turn, turn, turn, turn, 2 * turn]
        var t = hold / 2
        for (i, up) in expected.enumerated() {
            let s = tour.state(at: t)
            #expect(norm(s.specificForce / MotionProfile.standardGravity - up) < 1e-9, "face \(i)")
            #expect(norm(try #require(s.up) - up) < 1e-9)
            #expect(s.angularRate == .zero)
            if i < turns.count { t += hold + turns[i] }
        }
        #expect(tour.duration == 6 * hold + 6 * turn)
    }

    /// The angular rate must be the derivative of the attitude: q(t+dt) ≈ q(t) ⊗ exp(ω dt / 2).
    @Test(arguments: ["tour", "rotation", "shaking", "tapping"])
    func angularRateIntegratesToTheAttitude(name: String) throws {
        let profile = try #require(MotionProfile.named(name))
        let dt = 1e-5
        var t = 0.0
        while t < 12 {
            let a = profile.state(at: t), b = profile.state(at: t + dt)
            let mid = profile.state(at: t + dt / 2)
            let predicted = try #require(a.attitude) * Rotation(axis: mid.angularRate, angle: norm(mid.angularRate) * dt)
            let actual = try #require(b.attitude)
            let dot = abs(predicted.w * actual.w + predicted.x * actual.x + predicted.y * actual.y + predicted.z * actual.z)
            #expect(dot > 1 - 1e-12, "\(name) at t = \(t)")
            t += 0.0137
        }
    }

    @Test func specificForceIsGravityPlusLinearAcceleration() {
        // Shaking: |f| differs from g only by the shake; the up vector stays within the rocking tilt.
        let p = MotionProfile.shaking(amplitude: 4, frequency: 5, tilt: 0.15)
        for i in 0..<200 {
            let s = p.state(at: Double(i) * 0.0101)
            #expect(abs(norm(s.specificForce) - MotionProfile.standardGravity) <= 4.01)
            #expect(s.up!.z > cos(0.151))
        }
    }

    @Test func replaysBroadRecordings() throws {
        let path = "/work/shared/data/broad/01_undisturbed_slow_rotation_A.csv"
        let csv = try String(contentsOfFile: path, encoding: .utf8)
        let p = try MotionProfile.replay(csv: csv, name: path)
        let s0 = p.state(at: 0)
        #expect(s0.angularRate == SIMD3(-0.001064651, -0.004260349, 0.005326745))
        #expect(s0.specificForce == SIMD3(-0.2361874, -0.3631649, 9.919315))
        // Halfway between the first two rows.
        let s1 = p.state(at: 0.00175)
        #expect(abs(s1.angularRate.y - (-0.004260349 + 0.002131047) / 2) < 1e-12)
        // The truth's up agrees with the measured specific force at rest (within a few degrees).
        let up = try #require(s0.up)
        let f = s0.specificForce / norm(s0.specificForce)
        #expect((up * f).sum() > cos(5 * Double.pi / 180))
        #expect(try #require(p.duration) > 100)
    }

    @Test func replayErrorsNameTheLine() {
        #expect(throws: ReplayError(source: "x.csv", line: 1, message: "no column 'acc_z' in the header (t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y)")) {
            try MotionProfile.replay(csv: "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y\n0,0,0,0,0,0\n", name: "x.csv")
        }
        #expect(throws: ReplayError(source: "x.csv", line: 3, column: 3, message: "gyr_x: 'oops' is not a decimal number", fix: RecordingCSV.numberFix)) {
            try MotionProfile.replay(csv: "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n0,0,0,0,0,0,9.8\n1,oops,0,0,0,0,9.8\n", name: "x.csv")
        }

    }

    @Test func aRowWithAMissingReadingIsInterpolatedAcrossNotPlayedAsFullScale() throws {
        // nan in gyr_x used to reach the emulator, which read it as the full-scale rate.
        let csv = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n0,0.2,0,0,0,0,9.8\n0.01,nan,0,0,0,0,9.8\n0.02,0.4,0,0,0,0,9.8\n"
        let p = try MotionProfile.replay(csv: csv, name: "x.csv")
        #expect(abs(p.state(at: 0.01).angularRate.x - 0.3) < 1e-12)
        #expect(p.duration == 0.02)
    }

    @Test func replayRowsWithoutTheTruthColumnsHaveNoTruth() throws {
        // The header names true_q*, the rows stop before them: this used to index past the row.
        let csv = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,true_qw,true_qx,true_qy,true_qz\n0,0,0,0,0,0,9.8\n0.01,0,0,0,0,0,9.8,1,0,0,0\n"
        let p = try MotionProfile.replay(csv: csv, name: "x.csv")
        #expect(p.state(at: 0).attitude == nil)
        #expect(p.state(at: 0.01).attitude != nil)
    }

    @Test func replayRejectsTimesThatAreNotNumbersAndCountsBlankLines() {
        #expect(throws: ReplayError(source: "x.csv", line: 3, column: 1, message: "t_s: nan is not a time", fix: "Every line needs its time in seconds in t_s; delete lines without one.")) {
            try MotionProfile.replay(csv: "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n0,0,0,0,0,0,9.8\nnan,0,0,0,0,0,9.8\n1,0,0,0,0,0,9.8\n", name: "x.csv")
        }
        #expect(throws: ReplayError(source: "x.csv", line: 3, column: 1, message: "t_s: 'inf' is infinite; no sensor reads that", fix: RecordingCSV.numberFix)) {
            try MotionProfile.replay(csv: "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\r\n0,0,0,0,0,0,9.8\r\ninf,0,0,0,0,0,9.8\r\n", name: "x.csv")
        }
        #expect(throws: ReplayError(source: "x.csv", line: 5, column: 1, message: "t_s: 'abc' is not a decimal number", fix: RecordingCSV.numberFix)) {
            try MotionProfile.replay(csv: "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n\n0,0,0,0,0,0,9.8\n\nabc\n", name: "x.csv")
        }
    }
}

@Suite struct SensorErrorModelTests {
    @Test func noiseMatchesTheDatasheetDensity() {
        let model = SensorErrorModel.noiseOnly(.mpu6050)
        var random = SeededRandom(seed: 3)
        let state = MotionProfile.rest().state(at: 0)
        var sum = SIMD3<Double>.zero, squares = SIMD3<Double>.zero
        let n = 20_000
        for _ in 0..<n {
            let m = model.measure(state, bandwidth: 100, random: &random)
            sum += m.angularRate
            squares += m.angularRate * m.angularRate
        }
        let sigma = (squares.x / Double(n) - (sum.x / Double(n)) * (sum.x / Double(n))).squareRoot()
        let expected = 0.005 * Double.pi / 180 * 10
        #expect(abs(sigma / expected - 1) < 0.03)
    }

    @Test func partErrorsStayInsideTheTolerances() {
        for seed in 0..<50 as Range<UInt64> {
            let m = SensorErrorModel.part(.mpu6050, fraction: 1, seed: seed)
            #expect(abs(m.gyroscopeBias.x) <= 20 * Double.pi / 180 + 1e-12)
            #expect(abs(m.accelerometerBias.z) <= 0.080 * MotionProfile.standardGravity + 1e-12)
            #expect(abs(m.accelerometerScaleError.y) <= 0.03)
        }
        #expect(SensorErrorModel.part(.mpu6500, seed: 1) == SensorErrorModel.part(.mpu6500, seed: 1))
        #expect(SensorErrorModel.part(.mpu6500, seed: 1) != SensorErrorModel.part(.mpu6500, seed: 2))
    }

    /// The datasheet figures, written out by hand from the cited tables (never read back from the
    /// table under test): gyro °/s/√Hz, accel µg/√Hz, ZRO ±°/s, zero-g ±mg (x, y, z), scale ±fraction.
    @Test(arguments: [
        // PS-MPU-6000A-00 rev 3.4 §6.1, §6.2.
        ("mpu6050", SensorErrorModel.Figures.mpu6050, [0.005, 400, 20, 50, 50, 80, 0.03]),
        // PS-MPU-9250A-01 rev 1.0 Tables 1 and 2 (the MPU-6500 die).
        ("mpu6500", .mpu6500, [0.01, 300, 5, 60, 60, 80, 0.03]),
        // LSM6DS3 DocID026899 Rev 7 Table 3; ±1 % assumed (the table has none).
        ("lsm6ds3", .lsm6ds3, [0.007, 90, 10, 40, 40, 40, 0.01]),
        // LSM6DSL DocID028475 Rev 7 Table 3.
        ("lsm6dsl", .lsm6dsl, [0.004, 80, 3, 40, 40, 40, 0.01]),
        // LSM6DSO DS12140 Table 2.
        ("lsm6dso", .lsm6dso, [0.0038, 70, 1, 20, 20, 20, 0.01]),
        // LSM6DSR datasheet Table 2.
        ("lsm6dsr", .lsm6dsr, [0.005, 60, 1, 10, 10, 10, 0.01]),
        // LSM6DSO32 DocID032891 Rev 1 Table 2.
        ("lsm6dso32", .lsm6dso32, [0.0038, 120, 0.5, 20, 20, 20, 0.005]),
    ])
    func datasheetFigures(part: String, figures: SensorErrorModel.Figures, expected: [Double]) {
        let got = [figures.gyroscopeNoiseDensityDegrees, figures.accelerometerNoiseDensityMicroG,
                   figures.gyroscopeZeroRateTolerance, figures.accelerometerZeroGTolerance.x,
                   figures.accelerometerZeroGTolerance.y, figures.accelerometerZeroGTolerance.z, figures.scaleTolerance]
        #expect(got == expected, "\(part)")
    }

    /// Each LSM6DS generation gets its own figures: the DSL generation (LSM6DS3TR-C, LSM6DSL,
    /// LSM6DSM, ISM330DLC) is not simulated with the LSM6DSO's lower noise and offsets.
    @Test func lsm6dsFiguresFollowTheGeneration() {
        #expect(SensorErrorModel.Figures.lsm6ds(.lsm6ds33) == .lsm6ds3)
        #expect(SensorErrorModel.Figures.lsm6ds(.lsm6ds3trc) == .lsm6dsl)
        #expect(SensorErrorModel.Figures.lsm6ds(.ism330dlc) == .lsm6dsl)
        #expect(SensorErrorModel.Figures.lsm6ds(.ism330dhcx) == .lsm6dsr)
        #expect(SensorErrorModel.Figures.lsm6ds(.lsm6dsr) == .lsm6dsr)
        #expect(SensorErrorModel.Figures.lsm6ds(.lsm6dsox) == .lsm6dso)
        #expect(SensorErrorModel.Figures.lsm6ds(.lsm6dso32) == .lsm6dso32)
        let chip = LSM6DSEmulator(variant: .lsm6dsl)
        #expect(abs(chip.errorModel.gyroscopeNoiseDensity - 0.004 * Double.pi / 180) < 1e-15)
        #expect(abs(chip.errorModel.accelerometerNoiseDensity - 80e-6 * MotionProfile.standardGravity) < 1e-15)
    }
}
