import PlumbDrivers

/// What the system says about power, heat and the display, read by a ``PowerStateMonitor``.
///
/// The Linux counterparts of iOS's `isLowPowerModeEnabled`, `thermalState` and the app going to
/// the background (reference/platform.md §4.9, §4.10).
public struct PowerState: Sendable, Equatable {
    /// The system asks to save power: ACPI `platform_profile` `low-power`, or
    /// power-profiles-daemon's `ActiveProfile` `power-saver` (the CLI's monitor asks the daemon
    /// over D-Bus).
    public var powerSaver: Bool
    /// Running on battery with the charge at or below the monitor's threshold.
    public var lowBattery: Bool
    /// A thermal zone is at or above the monitor's threshold.
    public var hot: Bool
    /// The firmware reports the CPU throttled or frequency-capped now (Raspberry Pi `get_throttled`).
    public var throttled: Bool
    /// The display is blanked (fbdev blank or DRM DPMS off).
    public var displayBlanked: Bool
    /// Why each flag is set, for logs ("platform_profile low-power", "thermal_zone0 82.1 °C").
    public var reasons: [String]
    /// Sources that could not be asked this time, for logs (power-profiles-daemon not answering):
    /// the flags above come from the others, so one failing source does not hide the rest.
    public var problems: [String]

    public init(powerSaver: Bool = false, lowBattery: Bool = false, hot: Bool = false, throttled: Bool = false,
                displayBlanked: Bool = false, reasons: [String] = [], problems: [String] = []) {
        self.powerSaver = powerSaver; self.lowBattery = lowBattery; self.hot = hot; self.throttled = throttled
        self.displayBlanked = displayBlanked; self.reasons = reasons; self.problems = problems
    }

    /// True when any condition asks for the low-energy mode (the display is not one of them:
    /// a blanked display stops the sensor instead).
    public var wantsLowEnergy: Bool { powerSaver || lowBattery || hot || throttled }
}

/// Reads the system's ``PowerState``. `SysfsPowerMonitor` in PlumbLinux reads sysfs; tests and
/// other platforms provide their own.
///
/// The notifier and `plumb run` read the monitor on the sensor's thread: one that may block (a
/// daemon over D-Bus, a slow file system) belongs in a ``BackgroundPowerStateMonitor``.
public protocol PowerStateMonitor: AnyObject, Sendable {
    /// Reads the current state. Absent files mean "condition absent", not an error.
    func readPowerState() throws(PowerMonitorError) -> PowerState
    /// A sensor session is about to start reading the monitor (a monitor with a thread of its
    /// own starts reading, so the first read need not wait). Default: nothing.
    func prepare()
    /// The sensor session that read the monitor ended (a monitor with a thread of its own ends
    /// it). Default: nothing.
    func sessionEnded()
}

extension PowerStateMonitor {
    public func prepare() {}
    public func sessionEnded() {}
}

/// A power or thermal file exists but could not be read or understood.
public struct PowerMonitorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// What went wrong, and the fix.
    public var message: String

    public init(path: String, message: String) { self.path = path; self.message = message }

    public var description: String { "\(path): \(message)" }
}

/// The sensor settings of the two energy modes, and how often the system is asked.
public struct EnergySettings: Sendable, Equatable {
    /// Normal mode: gyroscope and accelerometer at 100 Hz, woken every 5 samples (50 ms).
    public var normal: IMUConfiguration
    /// Low-energy mode: accelerometer only (the chip's low-power mode), 12.5 Hz, woken every
    /// 7 samples (0.56 s): 11× fewer wakeups than normal with every change still within 1 s on
    /// the simulated tour (`plumb bench energy`).
    public var lowEnergy: IMUConfiguration
    /// How often the ``PowerStateMonitor`` is read, in seconds. Default 2 (the Raspberry Pi
    /// firmware's `get_throttled_poll_ms` default is 2000 ms). Held, given to the initialiser or
    /// set, to ``minimumPollInterval``…``OrientationClassifier/longestWait`` (0 or less reads
    /// every 10 ms; not a number, the default).
    public var pollInterval: Double { didSet { pollInterval = Self.held(pollInterval: pollInterval) } }
    /// Stop the sensor while the display is blanked and restart it on unblank. Default true.
    public var pausesWhileDisplayBlanked: Bool
    /// The classifier's tuning in low-energy mode, where gravity comes from the accelerometer
    /// alone (the normal mode's is ``MotionOrientation/classifierSettings``). Default
    /// ``OrientationClassifier/Settings/accelerometerOnly``.
    public var lowEnergyClassifier: OrientationClassifier.Settings
    /// In low-energy mode, while a turn is in progress, the reader is woken at least this often
    /// instead of once a batch, in seconds, except while a face dwells under a time cap
    /// (``OrientationClassifier/Settings/maximumWait``), whose end bounds the wait instead;
    /// `nil` never, and no other early wake-up either (``OrientationPipeline/wakeHint``).
    /// Default ``defaultTurnWakeInterval``. Held, given to the initialiser or set, as `plumb
    /// watch --turn-wake` takes it: 0 or less is `nil`, one longer than
    /// ``OrientationClassifier/longestWait`` is that, not a number is the default.
    public var turnWakeInterval: Double? { didSet { turnWakeInterval = Self.held(turnWakeInterval: turnWakeInterval) } }

    public init(normal: IMUConfiguration = EnergySettings.defaultNormal,
                lowEnergy: IMUConfiguration = EnergySettings.defaultLowEnergy,
                pollInterval: Double = 2, pausesWhileDisplayBlanked: Bool = true,
                lowEnergyClassifier: OrientationClassifier.Settings = .accelerometerOnly,
                turnWakeInterval: Double? = EnergySettings.defaultTurnWakeInterval) {
        self.normal = normal; self.lowEnergy = lowEnergy
        self.pollInterval = Self.held(pollInterval: pollInterval); self.pausesWhileDisplayBlanked = pausesWhileDisplayBlanked
        self.lowEnergyClassifier = lowEnergyClassifier
        self.turnWakeInterval = Self.held(turnWakeInterval: turnWakeInterval)
    }

    /// The shortest ``pollInterval``, in seconds: a shorter one (0 or less too) is read as this.
    /// Reading the monitor takes one of the reader's wakeups, so the interval must not be 0.
    public static let minimumPollInterval = 0.01

    /// `seconds` held to ``minimumPollInterval``…``OrientationClassifier/longestWait``; the
    /// default when it is not a number.
    static func held(pollInterval seconds: Double) -> Double {
        seconds.isNaN ? 2 : min(max(seconds, minimumPollInterval), OrientationClassifier.longestWait)
    }

    /// `seconds` as ``turnWakeInterval`` takes it: `nil` for 0 or less, at most
    /// ``OrientationClassifier/longestWait``, the default when it is not a number.
    static func held(turnWakeInterval seconds: Double?) -> Double? {
        guard let seconds else { return nil }
        if seconds.isNaN { return defaultTurnWakeInterval }
        return seconds > 0 ? min(seconds, OrientationClassifier.longestWait) : nil
    }

    /// While a turn is in progress in low-energy mode, the reader is woken at least this often
    /// instead of once a batch, in seconds (``OrientationPipeline/wakeHint``): 0.32 s, four
    /// samples at 12.5 Hz. Measured on the BROAD trials in low-energy mode, directly and through
    /// both emulated chips (`scripts/eval-orientation [--chip PART] -- --low-energy --turn-wake S`):
    /// every change within 1 s (max 0.96 s), median 0.51–0.54 s, against 7 changes over 1 s and
    /// a median of 0.75 s waking once a batch. Three samples (0.24 s) and five (0.40 s) each left
    /// one change at 1.01–1.05 s, held back by the classifier's rate gate rather than by the wait.
    /// On the tour (`plumb bench energy`) it costs 1 % more wake-ups on the MPU-6050 (11.2× →
    /// 11.05× fewer than normal mode) and 3.5 % on the LSM6DSO (10.68× → 10.31×).
    public static let defaultTurnWakeInterval: Double? = 0.32

    public static let defaultNormal = IMUConfiguration(outputDataRate: 100, fifoWatermark: 5, gyroscopeEnabled: true)
    public static let defaultLowEnergy = IMUConfiguration(outputDataRate: 12.5, fifoWatermark: 7, gyroscopeEnabled: false)

    public static let `default` = EnergySettings()
}
