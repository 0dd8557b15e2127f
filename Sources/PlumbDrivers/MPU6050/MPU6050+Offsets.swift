extension MPU6050 {
    /// The chip's offset-cancellation registers: values the chip adds to every output.
    ///
    /// - Gyroscope XG/YG/ZG_OFFS_USR (0x13–0x18, big-endian, 2-byte stride on every part): one
    ///   count is 4 LSB at ±250 °/s, i.e. 1/32.768 °/s ("OffsetDPS = X_OFFS_USR·4/2^FS_SEL /
    ///   Gyro_Sensitivity", MPU-9250 Register Map rev 1.4 §4.3).
    /// - Accelerometer XA/YA/ZA_OFFS (MPU-6050 generation at 0x06/0x08/0x0A; MPU-6500 generation
    ///   at 0x77/0x7A/0x7D, a 3-byte stride, §4.39): a 15-bit value in bits 15:1 in 0.98 mg steps,
    ///   i.e. 2048 per g in the 16-bit register value. Bit 0 of the low byte is reserved and is
    ///   preserved on write (kriswiner/MPU9250#126; i2cdevlib keeps it as `BitZero`). The reset
    ///   value holds the factory trim, so offsets are adjusted relative to what is there.
    public struct Offsets: Sendable, Equatable {
        /// Raw gyroscope offset registers.
        public var gyroscope: SIMD3<Int16>
        /// Raw accelerometer offset registers, bit 0 included.
        public var accelerometer: SIMD3<Int16>

        /// Gyroscope counts per °/s.
        public static let gyroscopeCountsPerDegree = 32.768
        /// Accelerometer register units per g (16-bit form).
        public static let accelerometerCountsPerG = 2048.0
    }

    /// Reads the six offset registers.
    public func readOffsets() throws(IMUError) -> Offsets {
        let v = try requireVariant()
        let g = try readRegisters(Register.gyroOffset, count: 6)
        var a = SIMD3<Int16>()
        for i in 0..<3 {
            let b = try readRegisters(v.accelerometerOffsetRegister + UInt8(i) * v.accelerometerOffsetStride, count: 2)
            a[i] = Int16(bitPattern: UInt16(b[0]) << 8 | UInt16(b[1]))
        }
        func word(_ o: Int) -> Int16 { Int16(bitPattern: UInt16(g[o]) << 8 | UInt16(g[o + 1])) }
        return Offsets(gyroscope: SIMD3(word(0), word(2), word(4)), accelerometer: a)
    }

    /// Writes raw offset registers, preserving bit 0 of each accelerometer low byte.
    public func writeOffsets(_ offsets: Offsets) throws(IMUError) {
        let v = try requireVariant()
        let current = try readOffsets()
        var block: [UInt8] = [Register.gyroOffset]
        for i in 0..<3 {
            let w = UInt16(bitPattern: offsets.gyroscope[i])
            block += [UInt8(w >> 8), UInt8(w & 0xFF)]
        }
        try write(block)
        for i in 0..<3 {
            let keep = UInt16(bitPattern: current.accelerometer[i]) & 1
            let w = UInt16(bitPattern: offsets.accelerometer[i]) & ~1 | keep
            try write([v.accelerometerOffsetRegister + UInt8(i) * v.accelerometerOffsetStride, UInt8(w >> 8), UInt8(w & 0xFF)])
        }
    }

    /// Shifts every output by the given amounts by adjusting the offset registers (for example
    /// `adjustOffsets(angularRate: -bias)` to cancel a gyroscope bias in the chip).
    ///
    /// - Parameters:
    ///   - angularRate: added to the gyroscope output, rad/s.
    ///   - acceleration: added to the accelerometer output, m/s².
    /// - Returns: the registers written. A shift beyond a register's range is clamped to it.
    /// - Throws: ``IMUError/invalidConfiguration(_:)`` for a NaN or infinite shift (a bias
    ///   estimated from corrupted samples), before anything is written.
    @discardableResult
    public func adjustOffsets(angularRate: SIMD3<Double> = .zero, acceleration: SIMD3<Double> = .zero) throws(IMUError) -> Offsets {
        for (name, v) in [("angular rate", angularRate), ("acceleration", acceleration)] where !(v.x.isFinite && v.y.isFinite && v.z.isFinite) {
            throw .invalidConfiguration("offset adjustment for \(address) on \(bus.path): \(name) \(v) is not a finite value; recalibrate")
        }
        var o = try readOffsets()
        // Far beyond any register (16 bits), but within Int: clamped below.
        let limit = 1e9
        for i in 0..<3 {
            let dg = max(-limit, min(limit, (angularRate[i] / MotionConstants.radiansPerDegree * Offsets.gyroscopeCountsPerDegree).rounded()))
            let da = max(-limit, min(limit, (acceleration[i] / MotionConstants.standardGravity * Offsets.accelerometerCountsPerG / 2).rounded() * 2))
            o.gyroscope[i] = Int16(clamping: Int(o.gyroscope[i]) + Int(dg))
            o.accelerometer[i] = Int16(clamping: Int(o.accelerometer[i]) + Int(da))
        }
        try writeOffsets(o)
        return o
    }
}
