import Testing
import PlumbHAL
@testable import PlumbDrivers

/// Inputs that scripts/fuzz found trapping (a Swift runtime failure kills the daemon), each turned
/// into the smallest call that reached the trap. Every one must now give a value, a gap or a typed
/// error. The fuzzer's own inputs are in fuzz/corpus/<target>/ too, so it re-runs them.
@Suite struct FuzzRegressionTests {
    /// fuzz decoders: a sample clock anchored on an edge stamped near the end of the 64-bit range
    /// (a line on another clock, a corrupted event) put the next record past UInt64.max, and
    /// `time(of:)` trapped converting it ("Double value cannot be converted to UInt64 because the
    /// result would be greater than UInt64.max"), inside MPU6050.FIFODecoder.decode.
    @Test func sampleClockPastTheEndOfTime() {
        var clock = SampleClock(nominalPeriodNanoseconds: 1e7)
        clock.anchor(edge: UInt64.max - 1000, index: 0)
        #expect(clock.time(of: 0) >= UInt64.max - 4096)
        #expect(clock.time(of: 1_000_000) == UInt64.max)
        #expect(clock.time(of: Int.max) == UInt64.max)
        #expect(clock.time(of: Int.min) == 0)

        // Through the decoder, as the fuzzer reached it: three records after that anchor.
        let variant = MPU6050.variant(named: "mpu6050")!
        let settings = try! MPU6050.settings(for: IMUConfiguration(outputDataRate: 100), variant: variant)
        let decoder = MPU6050.FIFODecoder(settings: settings, variant: variant)
        let bytes = (0..<(3 * decoder.recordSize)).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        var samples: [IMUSample] = []
        var last: UInt64? = UInt64.max - 10, temperature: Double? = nil
        bytes.withUnsafeBufferPointer { buffer in
            decoder.decode(buffer, records: 3, clock: clock, firstIndex: 5, lastTime: &last, temperature: &temperature, into: &samples)
        }
        #expect(samples.count == 3)
    }

    @Test func sampleClockNanosecondsClamp() {
        #expect(SampleClock.nanoseconds(-1) == 0)
        #expect(SampleClock.nanoseconds(.nan) == 0)
        #expect(SampleClock.nanoseconds(.infinity) == .max)
        #expect(SampleClock.nanoseconds(0x1p64) == .max)
        #expect(SampleClock.nanoseconds(1234.4) == 1234)
    }

    /// fuzz configuration: a calibration file whose mounting matrix held a 1e124 entry trapped
    /// while the error message was being written (the entry rounded through `Int(_:)`). It is
    /// refused with a message naming the rows, as any matrix that is not a rotation is.
    @Test func aHugeMountingEntryIsRefusedNotATrap() {
        let huge = 5.5555555555555555e124
        #expect {
            try Mounting(matrix: [[0, 4, 0], [0, 1, huge], [0, 0, 1]])
        } throws: { error in
            guard case IMUError.invalidConfiguration(let message) = error else { return false }
            return message.contains("e+124]") && message.contains("not a rotation")
        }
        #expect(throws: IMUError.self) { try Mounting(matrix: [[1, 0, 0], [0, 1, 0], [0, 0, -.greatestFiniteMagnitude]]) }
    }
}
