/// One sampling instant as an emulated chip wrote it into its FIFO: the ground truth a
/// differential test compares a driver's output with.
///
/// The emulators append one entry per instant whose data enters the FIFO (a record on the MPU
/// family; the gyroscope and accelerometer data sets or tagged words of one instant on the LSM6DS
/// family, before any compression), with the raw values exactly as written. What happens to the
/// data after that (an overflow, a reset, a compressor flushed before its word was written, a
/// read lost on the bus) is the driver's to find and report; the log does not follow it.
public struct FIFOTruth: Sendable, Equatable {
    /// Running count of instants logged since logging started (0, 1, 2 …).
    public var index: Int
    /// The true sampling instant in virtual nanoseconds (on the chip's own, possibly fast, clock:
    /// the virtual time at which the emulator sampled).
    public var nanoseconds: UInt64
    /// Raw accelerometer value written (LSB), or `nil` when the instant batched none.
    public var accelerometer: SIMD3<Int16>?
    /// Raw gyroscope value written (LSB), or `nil` when the instant batched none.
    public var gyroscope: SIMD3<Int16>?
    /// One accelerometer LSB at the range in effect, m/s².
    public var accelerometerScale: Double
    /// One gyroscope LSB at the range in effect, rad/s.
    public var gyroscopeScale: Double

    public init(index: Int, nanoseconds: UInt64, accelerometer: SIMD3<Int16>?, gyroscope: SIMD3<Int16>?,
                accelerometerScale: Double, gyroscopeScale: Double) {
        self.index = index; self.nanoseconds = nanoseconds
        self.accelerometer = accelerometer; self.gyroscope = gyroscope
        self.accelerometerScale = accelerometerScale; self.gyroscopeScale = gyroscopeScale
    }
}

/// Where an emulator appends its ``FIFOTruth`` entries, when a test asks for them (``nil`` by
/// default, so a simulation that does not look pays nothing).
public final class FIFOTruthLog {
    public private(set) var entries: [FIFOTruth] = []

    public init(reservingCapacity capacity: Int = 0) { entries.reserveCapacity(capacity) }

    func append(nanoseconds: UInt64, accelerometer: SIMD3<Int16>?, gyroscope: SIMD3<Int16>?,
                accelerometerScale: Double, gyroscopeScale: Double) {
        entries.append(FIFOTruth(index: entries.count, nanoseconds: nanoseconds, accelerometer: accelerometer, gyroscope: gyroscope,
                                 accelerometerScale: accelerometerScale, gyroscopeScale: gyroscopeScale))
    }
}
