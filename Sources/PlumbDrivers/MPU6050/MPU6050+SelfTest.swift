import Foundation
import PlumbHAL

extension MPU6050 {
    /// The factory self-test response a chip's OTP codes promise, per axis, in LSB at the test
    /// ranges (gyroscope ±250 °/s; accelerometer ±8 g on the MPU-6050 generation, ±2 g on the
    /// MPU-6500 generation). `nil` for an axis whose code is 0 (no factory value).
    public struct FactoryTrim: Sendable, Equatable {
        public var gyroscope: [Double?]
        public var accelerometer: [Double?]
    }

    /// MPU-6050 generation factory trim from the SELF_TEST_X/Y/Z/A codes.
    ///
    /// Datasheet: MPU-6000/MPU-6050 Register Map RM-MPU-6000A-00 rev 4.2 §4.1 ("Obtaining the
    /// Gyroscope/Accelerometer Factory Trim (FT) Value"): FT[Xg] = 25·131·1.046^(XG_TEST−1)
    /// (negated for Y), FT[Xa] = 4096·0.34·(0.92/0.34)^((XA_TEST−1)/(2⁵−2)); 0 when the code is 0.
    /// The stored copy of that page shows the formulas as images; InvenSense's own Linux driver
    /// (out-of-tree `inv_mpu`, Android kernel trees) tabulates the same curves: `gyro_6050_st_tb`
    /// starts at 3275 = 25·131 and grows 4.6 % a code, `accel_st_tb` runs 340…919 (×4096/1000 LSB)
    /// for codes 1…31.
    public static func factoryTrim6050(codes: [UInt8]) -> FactoryTrim {
        precondition(codes.count == 4, "SELF_TEST_X, _Y, _Z and _A")
        let gyroCodes = (0..<3).map { codes[$0] & 0x1F }
        let accelCodes = (0..<3).map { i in (codes[i] >> 5) << 2 | (codes[3] >> (4 - 2 * UInt8(i))) & 0x03 }
        let gyro: [Double?] = gyroCodes.enumerated().map { i, c in
            c == 0 ? nil : (i == 1 ? -1 : 1) * 25 * 131 * pow(1.046, Double(c) - 1)
        }
        let accel: [Double?] = accelCodes.map { c in
            c == 0 ? nil : 4096 * 0.34 * pow(0.92 / 0.34, (Double(c) - 1) / 30)
        }
        return FactoryTrim(gyroscope: gyro, accelerometer: accel)
    }

    /// MPU-6500 generation factory trim from the SELF_TEST_*_GYRO / _ACCEL OTP codes:
    /// ST_OTP = 2620·1.01^(code−1) LSB at ±250 °/s and ±2 g.
    ///
    /// Source: InvenSense's own Linux driver (out-of-tree `inv_mpu`, Android kernel trees),
    /// `mpu_6500_st_tb[]`: 2620, 2646, 2672, … (1 % a code), used for both sensors at ±250 °/s and
    /// ±2 g. The application notes that define it (MPU-9250 Accelerometer, Gyroscope and Compass
    /// Self-Test Implementation AN-MPU-9250A-03 rev 1.0 §3; AN-MPU-6500A-02) were found but could
    /// not be opened past their contents page.
    public static func factoryTrim6500(gyroCodes: [UInt8], accelCodes: [UInt8]) -> FactoryTrim {
        func otp(_ c: UInt8) -> Double? { c == 0 ? nil : 2620 * pow(1.01, Double(c) - 1) }
        return FactoryTrim(gyroscope: gyroCodes.map(otp), accelerometer: accelCodes.map(otp))
    }

    /// Runs the self-test: averages the outputs with and without the self-test bits, compares
    /// the response with the factory trim, and restores the configuration.
    ///
    /// Criteria: MPU-6050 generation, the response within −14…+14 % of the factory trim
    /// (Product Specification PS-MPU-6000A-00 rev 3.4, §6.1 and §6.2, "Self-Test Response,
    /// Relative, Change from factory trim"), at ±250 °/s and ±8 g. MPU-6500 generation, at ±250 °/s
    /// and ±2 g with DLPF 2 (92 Hz): response / OTP at least 0.5 for the gyroscope and within
    /// 0.5–1.5 for the accelerometer, or absolute limits when an OTP code is 0 (gyro ≥ 60 °/s,
    /// accel 225–675 mg). Source: InvenSense's own Linux driver (`inv_mpu`), "MPU6500 Self Test
    /// Pass/Fail Criteria": DEF_6500_GYRO_CT_SHIFT_DELTA and DEF_6500_ACCEL_ST_SHIFT_DELTA 500
    /// (‰), DEF_GYRO_ST_AL 60 dps, DEF_ACCEL_ST_AL_MIN/MAX 225/675 mg ("only used when ST_OTP = 0").
    /// Not checked here: that driver's further gyro-offset limit (DEF_GYRO_OFFSET_MAX 20 dps).
    /// Code that cites AN-MPU-9250A-03 averages 200 samples for each half; this averages 50.
    ///
    /// - Throws: ``IMUError/invalidConfiguration(_:)`` while streaming; bus errors.
    public func selfTest() throws(IMUError) -> SelfTestResult {
        let v = try requireVariant()
        guard !isStreaming else { throw .invalidConfiguration("stop streaming before the self-test") }
        let saved = settings == nil ? IMUConfiguration.default : configuration
        let is6050 = v.generation == .mpu6050
        let accelCode: UInt8 = is6050 ? 2 : 0 // ±8 g or ±2 g
        var block: [UInt8] = [Register.sampleRateDivider, 0, 2, 0, accelCode << 3] // 1 kHz, DLPF 2
        if !is6050 { block.append(2) }
        // The gyro PLL once the gyroscope runs, on the MPU-6050 generation (see `apply(_:)`).
        try writeRegister(Register.powerManagement1, is6050 ? Bits.clockInternal : Bits.clockPLL)
        try writeRegister(Register.powerManagement2, 0)
        try write(block)
        clock.sleep(nanoseconds: UInt64(v.gyroscopeStartupMilliseconds) * Nanoseconds.perMillisecond)
        if is6050 { try writeRegister(Register.powerManagement1, Bits.clockPLL) }
        clock.sleep(nanoseconds: 20 * Nanoseconds.perMillisecond)
        let normal = try averageRaw(count: 50)
        try write([Register.gyroConfig, Bits.selfTestXYZ, Bits.selfTestXYZ | accelCode << 3])
        clock.sleep(nanoseconds: 20 * Nanoseconds.perMillisecond)
        let testing = try averageRaw(count: 50)
        try write([Register.gyroConfig, 0, accelCode << 3])

        let trim: FactoryTrim
        if is6050 {
            trim = MPU6050.factoryTrim6050(codes: try readRegisters(Register.selfTestX, count: 4))
        } else {
            trim = MPU6050.factoryTrim6500(gyroCodes: try readRegisters(Register.selfTestXGyro, count: 3),
                                           accelCodes: try readRegisters(Register.selfTestX, count: 3))
        }
        var axes: [SelfTestResult.Axis] = []
        let names = ["x", "y", "z"]
        for i in 0..<3 {
            let gyroResponse = testing.gyro[i] - normal.gyro[i]
            let accelResponse = testing.accel[i] - normal.accel[i]
            if is6050 {
                axes.append(relative6050("gyroscope \(names[i])", response: gyroResponse, trim: trim.gyroscope[i]))
                axes.append(relative6050("accelerometer \(names[i])", response: accelResponse, trim: trim.accelerometer[i]))
            } else {
                if let otp = trim.gyroscope[i] {
                    axes.append(.init(name: "gyroscope \(names[i])", response: abs(gyroResponse) / otp * 100, limits: 50...Double.infinity, unit: "% of factory trim"))
                } else {
                    axes.append(.init(name: "gyroscope \(names[i])", response: abs(gyroResponse) / 131, limits: 60...Double.infinity, unit: "dps"))
                }
                if let otp = trim.accelerometer[i] {
                    axes.append(.init(name: "accelerometer \(names[i])", response: abs(accelResponse) / otp * 100, limits: 50...150, unit: "% of factory trim"))
                } else {
                    axes.append(.init(name: "accelerometer \(names[i])", response: abs(accelResponse) / 16384 * 1000, limits: 225...675, unit: "mg"))
                }
            }
        }
        if settings != nil { try apply(saved) }
        return SelfTestResult(axes: axes)
    }

    private func relative6050(_ name: String, response: Double, trim: Double?) -> SelfTestResult.Axis {
        guard let trim, trim != 0 else {
            // No factory value (code 0): nothing to compare with, so the axis cannot pass.
            return .init(name: name, response: .nan, limits: -14...14, unit: "% change from factory trim (no factory code)")
        }
        return .init(name: name, response: (response - trim) / trim * 100, limits: -14...14, unit: "% change from factory trim")
    }

    /// Averages `count` raw readings of the data registers, one per millisecond.
    private func averageRaw(count: Int) throws(IMUError) -> (accel: [Double], gyro: [Double]) {
        var accel = [0.0, 0.0, 0.0], gyro = [0.0, 0.0, 0.0]
        for _ in 0..<count {
            clock.sleep(nanoseconds: Nanoseconds.perMillisecond)
            let b = try readRegisters(Register.accelXOutH, count: 14)
            for i in 0..<3 {
                accel[i] += Double(Int16(bitPattern: UInt16(b[2 * i]) << 8 | UInt16(b[2 * i + 1])))
                gyro[i] += Double(Int16(bitPattern: UInt16(b[8 + 2 * i]) << 8 | UInt16(b[9 + 2 * i])))
            }
        }
        return (accel.map { $0 / Double(count) }, gyro.map { $0 / Double(count) })
    }
}
