import PlumbDrivers
import PlumbLinux
import PlumbOrientation

/// `orientation.lowEnergy`: when the daemon runs the sensor in its low-energy mode (accelerometer
/// only, slower, fewer wakeups; MotionOrientation's policy and settings).
struct EnergyMode {
    enum Policy: Sendable, Equatable {
        /// Follow the power monitor: power-saver, low battery, heat or throttling.
        case auto(any PowerStateMonitor)
        case always
        case never

        static func == (a: Policy, b: Policy) -> Bool {
            switch (a, b) {
            case (.always, .always), (.never, .never), (.auto, .auto): true
            default: false
            }
        }
    }

    var policy: Policy
    /// The configuration's own settings (normal mode).
    var normal: IMUConfiguration
    /// Accelerometer only at 12.5 Hz (MotionOrientation's low-energy default).
    var lowEnergy: IMUConfiguration = EnergySettings.defaultLowEnergy
    /// How often the monitor is read, nanoseconds (MotionOrientation's 2 s).
    var pollInterval: UInt64 = Self.defaultPollInterval
    static let defaultPollInterval = UInt64(EnergySettings.default.pollInterval * 1e9)

    /// Whether to start in low energy.
    var startsLow: Bool { policy == .always }
}
