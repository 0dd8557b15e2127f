/// How an IMU should run. A driver picks the nearest settings the chip has and reports them back
/// from `apply(_:)`.
public struct IMUConfiguration: Sendable, Equatable {
    /// Output data rate in hertz (samples per second). Default 100.
    public var outputDataRate: Double
    /// Accelerometer full-scale range in g (±). Default 4.
    public var accelerometerRange: Double
    /// Gyroscope full-scale range in degrees per second (±). Default 2000: a hand turns a board
    /// faster than 500 °/s (BROAD's fast-rotation trial 06 reaches 925 °/s on one axis), and a
    /// clipped reading costs the attitude (the filter restarts from the accelerometer). Through
    /// the emulated LSM6DSO, whose ±500 °/s scale clips at 573 °/s, orientation agreement on
    /// BROAD was 99.46 % at ±500 and 99.56 % at ±2000 (`scripts/eval-orientation --chip
    /// lsm6dso`). The resolution left, 0.061 °/s per count on an MPU-6050, is below its noise.
    /// Linux's inv_mpu6050 also starts at ±2000 °/s (inv_mpu_core.c, chip_config_6050.fsr).
    public var gyroscopeRange: Double
    /// Digital low-pass bandwidth in hertz, or `nil` to let the driver choose from the rate
    /// (about ODR/2, as the kernel's inv_mpu6050 does). Default `nil`.
    public var lowPassBandwidth: Double?
    /// Samples collected in the FIFO before the interrupt fires, 1 = every sample. Default 16.
    public var fifoWatermark: Int
    /// Run the gyroscope. `false` is the low-energy mode: accelerometer only, in the chip's
    /// low-power mode where it has one. Default `true`.
    public var gyroscopeEnabled: Bool
    /// The interrupt pin's electrical behaviour.
    public var interrupt: InterruptPinConfiguration

    public init(outputDataRate: Double = 100, accelerometerRange: Double = 4, gyroscopeRange: Double = 2000,
                lowPassBandwidth: Double? = nil, fifoWatermark: Int = 16, gyroscopeEnabled: Bool = true,
                interrupt: InterruptPinConfiguration = .init()) {
        self.outputDataRate = outputDataRate
        self.accelerometerRange = accelerometerRange
        self.gyroscopeRange = gyroscopeRange
        self.lowPassBandwidth = lowPassBandwidth
        self.fifoWatermark = fifoWatermark
        self.gyroscopeEnabled = gyroscopeEnabled
        self.interrupt = interrupt
    }

    public static let `default` = IMUConfiguration()
}

/// The interrupt pin: which one, its active level, its driver, latched or pulsed.
public struct InterruptPinConfiguration: Sendable, Equatable {
    public enum Pin: String, Sendable, Equatable, CaseIterable { case int1, int2 }
    public enum Level: String, Sendable, Equatable, CaseIterable { case activeHigh, activeLow }
    public enum Drive: String, Sendable, Equatable, CaseIterable { case pushPull, openDrain }
    public enum Mode: String, Sendable, Equatable, CaseIterable {
        /// Held until the status register is read (robust against a slow reader). Default.
        case latched
        /// A short pulse per event (about 50 µs on the MPU-6050).
        case pulsed
    }

    /// Default `.int1`. The MPU family has one pin; `.int2` is refused there.
    public var pin: Pin
    /// Default `.activeHigh`.
    public var level: Level
    /// Default `.pushPull`.
    public var drive: Drive
    /// Default `.latched`.
    public var mode: Mode

    public init(pin: Pin = .int1, level: Level = .activeHigh, drive: Drive = .pushPull, mode: Mode = .latched) {
        self.pin = pin; self.level = level; self.drive = drive; self.mode = mode
    }
}
