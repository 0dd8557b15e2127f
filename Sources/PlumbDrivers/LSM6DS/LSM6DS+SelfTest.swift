import PlumbHAL

/// The built-in self-test: an electrostatic force on the proof masses, measured against the limits.
extension LSM6DS {
    /// Runs the accelerometer and gyroscope self-tests as ST's examples do, then restores the
    /// configuration (and streaming, if it was running).
    ///
    /// Accelerometer at 52 Hz, ±4 g; gyroscope at 208 Hz, ±2000 dps. For each: wait (see
    /// ``selfTestSettleMilliseconds(for:)``), discard one sample, average five with self-test off;
    /// enable positive self-test (CTRL5_C ST_XL = 01, ST_G = 01), wait, discard one, average five;
    /// the response is |on − off| per axis in mg
    /// or dps, compared with ``Variant/selfTestLimits`` (sources per part in `LSM6DS+Variants.swift`).
    /// The procedure is ST-C `lsm6dso_self_test.c` and its siblings; the limits are datasheet
    /// LSM6DSO DS12140 Rev 2 Table 2 "Vst", which notes that the accelerometer limits do not depend
    /// on the full scale.
    ///
    /// - Throws: ``IMUError/timeout(waitingFor:)`` when data-ready never rises; bus errors.
    public func selfTest() throws(IMUError) -> SelfTestResult {
        let v = try requireVariant()
        let saved = configuration
        let wasStreaming = streaming
        streaming = false
        try writeRegister(Register.fifoModeControl, 0)
        try writeRegister(Register.int1Control, 0)
        try writeRegister(Register.int2Control, 0)
        try writeRegister(Register.control3C, Control3.blockDataUpdate | Control3.autoIncrement)
        try writeRegister(Register.control6C, 0)
        try writeRegister(Register.control5C, 0)
        // CTRL4_C as after reset, as ST's self-test examples run: no DRDY_MASK (set by apply on
        // the DSO generation), so the waits below see the output registers, not settling marks.
        if let mask = v.dataReadyMask { try writeRegister(mask.address, 0) }

        // Accelerometer.
        let xl = v.accelerometerRange(for: 4)
        try writeRegister(Register.control2G, 0)
        try writeRegister(Register.control1XL, 3 << 4 | xl.code << 2)
        let wait = LSM6DS.selfTestSettleMilliseconds(for: v.generation)
        let xlOff = try settledAverage(Register.outAccelerometer, flag: 0x01, what: "XLDA", settleMilliseconds: wait.accelerometer)
        try writeRegister(Register.control5C, 0x01)
        let xlOn = try settledAverage(Register.outAccelerometer, flag: 0x01, what: "XLDA", settleMilliseconds: wait.accelerometer)
        try writeRegister(Register.control5C, 0)
        try writeRegister(Register.control1XL, 0)

        // Gyroscope.
        let gy = v.gyroscopeRange(for: 2000)
        try writeRegister(Register.control2G, v.gyroscopeRangeField.insert(gy.code, into: 5 << 4))
        let gyOff = try settledAverage(Register.outGyroscope, flag: 0x02, what: "GDA", settleMilliseconds: wait.gyroscope)
        try writeRegister(Register.control5C, 0x04)
        let gyOn = try settledAverage(Register.outGyroscope, flag: 0x02, what: "GDA", settleMilliseconds: wait.gyroscopeSelfTest)
        try writeRegister(Register.control5C, 0)
        try writeRegister(Register.control2G, 0)

        let xlDelta = xlOn - xlOff, gyDelta = gyOn - gyOff
        let xlResponse = SIMD3(abs(xlDelta.x), abs(xlDelta.y), abs(xlDelta.z)) * xl.milliGPerLSB
        let gyResponse = SIMD3(abs(gyDelta.x), abs(gyDelta.y), abs(gyDelta.z)) * (gy.milliDPSPerLSB / 1000)
        var axes: [SelfTestResult.Axis] = []
        for (i, axis) in ["x", "y", "z"].enumerated() {
            axes.append(.init(name: "accelerometer \(axis)", response: xlResponse[i],
                              limits: v.selfTestLimits.accelerometerMilliG, unit: "mg"))
        }
        for (i, axis) in ["x", "y", "z"].enumerated() {
            axes.append(.init(name: "gyroscope \(axis)", response: gyResponse[i],
                              limits: v.selfTestLimits.gyroscopeDPS, unit: "dps"))
        }
        try apply(saved)
        if wasStreaming { try startStreaming() }
        return SelfTestResult(axes: axes)
    }

    /// How long the self-test waits for the output to settle, milliseconds: after enabling the
    /// accelerometer and after switching its self-test on; after enabling the gyroscope; after
    /// switching the gyroscope's self-test on. ST's examples, per generation (ST-C
    /// `lsm6ds3_self_test.c` WAIT_TIME_A 200, WAIT_TIME_G_01 800, WAIT_TIME_G_02 60;
    /// `lsm6ds3tr_c_self_test.c` and `ism330dlc_self_test.c` 100, 150, 50; `lsm6dso_self_test.c`
    /// 100 throughout).
    public static func selfTestSettleMilliseconds(for generation: Generation)
        -> (accelerometer: UInt64, gyroscope: UInt64, gyroscopeSelfTest: UInt64) {
        switch generation {
        case .ds3: (200, 800, 60)
        case .dsl: (100, 150, 50)
        case .dso: (100, 100, 100)
        }
    }

    /// Waits `settleMilliseconds`, discards one sample, returns the mean of the next five (raw LSB).
    func settledAverage(_ register: UInt8, flag: UInt8, what: String, settleMilliseconds: UInt64) throws(IMUError) -> SIMD3<Double> {
        clock.sleep(nanoseconds: settleMilliseconds * 1_000_000)
        try waitForData(flag, what: what)
        _ = try readRegisters(register, count: 6)
        var sum = SIMD3<Double>.zero
        for _ in 0..<5 {
            try waitForData(flag, what: what)
            let v = LSM6DS.vector(try readRegisters(register, count: 6), 0)
            sum += SIMD3(Double(v.x), Double(v.y), Double(v.z))
        }
        return sum / 5
    }

    /// Polls STATUS_REG (0x1E) until `flag` is set, re-reading it every pass, at most
    /// ``pollAttempts`` times ``pollIntervalNanoseconds`` × 5 (100 ms and more at 52 Hz).
    func waitForData(_ flag: UInt8, what: String) throws(IMUError) {
        for _ in 0..<pollAttempts {
            if try readRegister(Register.status) & flag != 0 { return }
            clock.sleep(nanoseconds: pollIntervalNanoseconds * 5)
        }
        throw .timeout(waitingFor: "\(what) in STATUS_REG (0x1E) at \(address) on \(bus.path)")
    }
}
