import PlumbHAL

/// Everything `plumb run` needs, from `/etc/plumb/plumb.json` (or `--config FILE`).
///
/// Every key is optional: an empty object `{}` runs the detected board's IMU at 100 Hz with the
/// Madgwick filter and logs orientation changes. Units are in each field's doc and in the key
/// reference printed by `plumb config example`.
public struct Configuration: Sendable, Equatable {
    /// The default location of the file.
    public static let defaultPath = "/etc/plumb/plumb.json"

    /// A board id from the boards directory, or "auto" to detect it. Default "auto".
    public var board: String = "auto"
    public var imu = IMUSettings()
    /// How the sensor is mounted relative to the device. Default: identity.
    public var mounting = Mounting.identity
    /// The calibration file written by `plumb calibrate`, or `nil` for none. Default `nil`.
    public var calibrationFile: String?
    public var filter = FilterSettings()
    public var orientation = OrientationSettings()
    public var outputs = OutputSettings()
    /// The lowest priority logged. Default `.info`.
    public var logLevel: LogLevel = .info

    public init() {}
}

/// The IMU: where it is and how it runs.
public struct IMUSettings: Sendable, Equatable {
    /// The part keys accepted by `imu.part` (besides "auto"): the variant table rows of the drivers.
    /// (PlumbCLI's tests check this list against the drivers' tables.)
    public static let parts = [
        "mpu6050", "mpu6000", "mpu9150", "mpu6500", "mpu9250", "mpu9255", "mpu6515", "icm20602", "icm20608", "icm20689",
        "lsm6ds3", "lsm6ds3h", "lsm6ds33", "lsm6ds3trc", "lsm6dsl", "lsm6dsm", "ism330dlc",
        "lsm6dso", "lsm6dsox", "lsm6dso32", "lsm6dsr", "ism330dhcx",
    ]
    /// Accelerometer full-scale ranges across the supported parts, in g.
    public static let accelerometerRanges: [Double] = [2, 4, 8, 16, 32]
    /// Gyroscope full-scale ranges across the supported parts, in °/s.
    public static let gyroscopeRanges: [Double] = [125, 250, 500, 1000, 2000, 4000]
    /// Output data rates accepted, in Hz (the driver picks the nearest the chip has): up to the
    /// LSM6DS family's 1666 Hz, the fastest any supported part runs here; the MPU-6050 family's
    /// FIFO stops at 1000 Hz, which its driver (and `plumb config check`, with `imu.part` named) says.
    public static let rateRange: ClosedRange<Double> = 1...1666

    /// The I2C device, or `nil` for the board's. Default `nil`.
    public var bus: String?
    /// The address, or `nil` for the board's default. Default `nil`.
    public var address: I2CAddress?
    /// A part key from ``parts`` to skip WHO_AM_I matching (for clones), or "auto". Default "auto".
    public var part: String = "auto"
    /// Output data rate in Hz. Default 100.
    public var rate: Double = 100
    /// Accelerometer range in g (±). Default 4.
    public var accelerometerRange: Double = 4
    /// Gyroscope range in °/s (±). Default 2000 (see ``IMUConfiguration/gyroscopeRange``).
    public var gyroscopeRange: Double = 2000
    /// The data-ready line: the board's (`.board`), an explicit one, or none (poll). Default `.board`.
    public var interrupt: InterruptChoice = .board
    /// Let LSM6DSO-generation chips compress their FIFO where it pays (PlumbDrivers'
    /// `LSM6DS.fifoCompression`): less than half the bus traffic at high rates. Compression is
    /// modelled from ST's documents and has not yet run on a real chip; `false` turns it off.
    /// Default true.
    public var fifoCompression = true

    public init() {}
}

/// Where the data-ready edge comes from.
public enum InterruptChoice: Sendable, Equatable {
    /// The board file's line (polling if the board has none).
    case board
    /// This chip and line.
    case line(InterruptLocation)
    /// No interrupt: poll the status register at the output data rate.
    case poll
}

/// One of the sensor's six signed axes.
public enum SignedAxis: String, Sendable, Equatable, CaseIterable {
    case plusX = "+x", minusX = "-x", plusY = "+y", minusY = "-y", plusZ = "+z", minusZ = "-z"

    /// 0, 1 or 2.
    public var index: Int {
        switch self { case .plusX, .minusX: 0; case .plusY, .minusY: 1; case .plusZ, .minusZ: 2 }
    }
    public var sign: Double {
        switch self { case .plusX, .plusY, .plusZ: 1; default: -1 }
    }
}

/// The mounting: which sensor axis each device axis is. A signed permutation (24 proper
/// rotations plus 24 reflections; reflections are refused because they swap handedness).
public struct Mounting: Sendable, Equatable {
    public var x: SignedAxis
    public var y: SignedAxis
    public var z: SignedAxis

    public static let identity = Mounting(x: .plusX, y: .plusY, z: .plusZ)

    public init(x: SignedAxis, y: SignedAxis, z: SignedAxis) { self.x = x; self.y = y; self.z = z }

    /// The rotation taking sensor-frame vectors to device-frame vectors, row-major.
    public var matrix: [[Double]] {
        [x, y, z].map { axis in
            var row = [0.0, 0.0, 0.0]
            row[axis.index] = axis.sign
            return row
        }
    }

    /// The determinant of ``matrix``: +1 for a rotation, -1 for a reflection.
    public var determinant: Double {
        let m = matrix
        return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    }
}

/// The attitude filter and its parameters (PlumbFusion's filters; `nil` keeps a filter's own default).
public struct FilterSettings: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, CaseIterable { case plumb, madgwick, complementary }

    /// Default `.plumb` (PlumbFusion's most accurate filter).
    public var kind: Kind = .plumb
    /// Madgwick gain β in rad/s (gyroscope measurement error); madgwick only. Default `nil` (the
    /// filter's 0.033).
    public var beta: Double?
    /// How long the gyroscope is trusted over the accelerometer, in seconds: the complementary
    /// filter's time constant, or the plumb filter's accelerometer time constant. Not for
    /// madgwick. Default `nil` (the filter's own: 5 s complementary, 3 s plumb).
    public var timeConstant: Double?

    public init() {}
}

/// Interface orientations, named as UIKit names them.
public enum InterfaceOrientationName: String, Sendable, Equatable, CaseIterable {
    case portrait, portraitUpsideDown, landscapeLeft, landscapeRight
}

/// Device orientations, named as UIKit names them (the keys of an LED map).
public enum DeviceOrientationName: String, Sendable, Equatable, CaseIterable {
    case unknown, portrait, portraitUpsideDown, landscapeLeft, landscapeRight, faceUp, faceDown
}

/// How orientation is classified and published.
public struct OrientationSettings: Sendable, Equatable {
    public enum LowEnergy: String, Sendable, Equatable, CaseIterable {
        /// Follow the board's power and thermal state.
        case auto
        /// Always low-energy (accelerometer only, slower rate).
        case on
        /// Never.
        case off
    }

    /// The classifier's tuning to start from (PlumbOrientation's `OrientationClassifier.Settings`).
    public enum Preset: String, Sendable, Equatable, CaseIterable {
        /// Quick to follow a turn (median latency 0.25 s on BROAD), a few spurious changes.
        case responsive
        /// For kiosks and displays that must not flap (0.4 spurious changes a minute on BROAD),
        /// slower (median 0.6 s).
        case steady

        /// The preset has a time cap (``OrientationSettings/maxWait``) in some energy mode:
        /// steady's low-energy mode waits at most 0.6 s. (PlumbCLI's tests check this against
        /// PlumbOrientation's tunings.)
        public var hasTimeCap: Bool { self == .steady }
    }

    /// Default `.responsive`; the keys below override single values of it.
    public var preset: Preset = .responsive
    /// How long a new orientation must hold before it is published, in seconds, or `nil` for the
    /// preset's (responsive 0.05 s, steady 0.03 s). MotionOrientation on iOS waits 0.19 s.
    public var settleTime: Double?
    /// How far past a boundary gravity must tilt before the orientation changes, in degrees, or
    /// `nil` for the preset's (responsive 4°, steady 18°).
    public var hysteresis: Double?
    /// Gravity turning faster than this proposes no new orientation, in degrees per second, or
    /// `nil` for the preset's (responsive 60, steady 50); 0 turns the gate off.
    public var maxRotationRate: Double?
    /// The time cap, in seconds: a face is also accepted once up has lain in its plain 45° cone
    /// this long, however far short of the hysteresis it stopped (PlumbOrientation's
    /// `OrientationClassifier.Settings.maximumWait`). `nil` for the preset's (none, but 0.6 s in
    /// steady's low-energy mode); 0 turns it off. Like the keys above it applies in both energy
    /// modes.
    public var maxWait: Double?
    /// With a time cap: how far inside the 45° boundary up must lie when the cap accepts, in
    /// degrees, or `nil` for the preset's (0, but 12 in steady's low-energy mode). Both energy modes.
    public var dwellMargin: Double?
    /// With a time cap: the cap accepts nothing while gravity turns faster than this, in degrees
    /// per second, or `nil` for the preset's (no gate, but 80 in steady's low-energy mode); 0 turns
    /// the gate off. Both energy modes.
    public var dwellMaxRotationRate: Double?
    /// Default `.auto`.
    public var lowEnergy: LowEnergy = .auto
    /// The interface orientations the kiosk may take; others are ignored. Default all four.
    public var interfaceOrientations: [InterfaceOrientationName] = InterfaceOrientationName.allCases

    public init() {}

    /// The keys an `orientation` object may hold.
    public static let keys = ["preset", "settleTime", "hysteresis", "maxRotationRate", "maxWait", "dwellMargin", "dwellMaxRotationRate",
                              "lowEnergy", "interfaceOrientations"]
}

/// What the daemon drives.
public struct OutputSettings: Sendable, Equatable {
    public var level: LevelOutput?
    public var kiosk: KioskOutput?
    public var leds: LEDOutput?
    public var dbus: DBusOutput?
    public var mqtt: MQTTOutput?

    public init() {}

    /// The names of the enabled outputs, in a fixed order.
    public var enabledNames: [String] {
        [level.map { _ in "level" }, kiosk.map { _ in "kiosk" }, leds.map { _ in "leds" }, dbus.map { _ in "dbus" },
         mqtt.map { _ in "mqtt" }].compactMap { $0 }
    }
}

/// The interface orientation served as iio-sensor-proxy's `net.hadess.SensorProxy`, so GNOME, KDE
/// and Phosh rotate the desktop (`plumb dbus`'s service inside the daemon).
public struct DBusOutput: Sendable, Equatable {
    /// A D-Bus address ("unix:path=/run/plumb/bus"), or `nil` for the system bus. Default `nil`.
    public var bus: String?

    public init(bus: String? = nil) { self.bus = bus }

    /// The transports a D-Bus address may name (D-Bus Specification, "Server Addresses").
    public static let transports = ["unix", "tcp", "nonce-tcp", "unixexec", "autolaunch", "launchd", "systemd"]
}

/// Orientation and gravity published to an MQTT broker (PlumbMQTT), with Home Assistant discovery.
/// The credentials and TLS files live here only: `plumb watch --mqtt URL` reads them from
/// `--mqtt-config FILE` (an object with these keys), never from its arguments.
public struct MQTTOutput: Sendable, Equatable, CustomStringConvertible {
    /// `mqtt://host[:port]` or `mqtts://host[:port]`, without credentials. Required in plumb.json.
    public var url: String?
    /// Topics are `<prefix>/<hostname>/...`. Default "plumb".
    public var prefix: String = "plumb"
    /// 0, 1 or 2. Default 1.
    public var qos: Int = 1
    /// The client id, or `nil` for "plumb-<hostname>". Default `nil`.
    public var clientID: String?
    public var username: String?
    public var password: String?
    /// PEM files: the CA that signed the broker's certificate (required for mqtts://), and an
    /// optional client certificate with its key.
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    /// Keep-alive in seconds (5...3600). Default 30.
    public var keepAlive: Int = 30
    /// Orientation changes kept while disconnected (1...100000). Default 100.
    public var queueSize: Int = 100
    /// Gravity/attitude messages per second (0...100; 0 = none). Default 1.
    public var gravityRate: Double = 1
    /// Publish Home Assistant MQTT discovery configs. Default true.
    public var homeAssistant: Bool = true
    /// Default "homeassistant".
    public var discoveryPrefix: String = "homeassistant"
    /// First and longest reconnect delay in seconds (doubling in between). Default 1 and 60.
    public var reconnectMinimum: Double = 1
    public var reconnectMaximum: Double = 60

    public init() {}

    /// One line for `plumb config check`; says whether a password is set, never what it is.
    public var description: String {
        var text = "\(url ?? "URL from --mqtt"), prefix \(prefix), QoS \(qos)"
        if let username { text += ", user \(username)\(password == nil ? "" : " (password set)")" }
        if let caFile { text += ", CA \(caFile)" }
        if let certFile { text += ", client certificate \(certFile)" }
        text += ", gravity \(format(gravityRate)) Hz, queue \(queueSize), Home Assistant discovery \(homeAssistant ? "on" : "off")"
        return text
    }

    /// The keys an `outputs.mqtt` object (or a `--mqtt-config` file) may hold.
    public static let keys = ["enabled", "url", "prefix", "qos", "clientId", "username", "password", "caFile", "certFile", "keyFile",
                              "keepAlive", "queueSize", "gravityRate", "homeAssistant", "discoveryPrefix",
                              "reconnectMinimum", "reconnectMaximum"]
}

/// An image kept level on a framebuffer.
public struct LevelOutput: Sendable, Equatable {
    /// The PNG or JPEG to draw.
    public var image: String
    /// The framebuffer, or `nil` for the board's. Default `nil`.
    public var framebuffer: String?
}

/// A screen rotated to match the interface orientation.
public struct KioskOutput: Sendable, Equatable {
    public enum Method: String, Sendable, Equatable, CaseIterable {
        /// The text console (`/sys/class/graphics/fbcon/rotate_all`).
        case fbcon
        /// A wlroots compositor such as labwc (Raspberry Pi OS since 2024-10).
        case wlrRandr = "wlr-randr"
        /// An X11 session.
        case xrandr
        /// A shell command of your own; it sees PLUMB_INTERFACE_ORIENTATION, PLUMB_ROTATION_DEGREES,
        /// PLUMB_WLR_TRANSFORM, PLUMB_XRANDR_ROTATION and PLUMB_FBCON_ROTATE.
        case command
    }
    /// Default `.wlrRandr`.
    public var method: Method = .wlrRandr
    /// The connector ("HDMI-A-1"), or `nil` for the board's. Default `nil`.
    public var output: String?
    /// The command for `.command` (required then, refused otherwise).
    public var command: String?
    /// How long a new orientation must hold before the screen turns, in seconds. Default 1.
    public var holdOff: Double = 1
}

/// LEDs that show the device orientation.
public struct LEDOutput: Sendable, Equatable {
    /// Which LED (a name under /sys/class/leds) lights for which device orientation.
    public var map: [DeviceOrientationName: String]
}

/// Syslog priorities as journald reads them from a `<N>` line prefix (sd-daemon(3)).
public enum LogLevel: String, Sendable, Equatable, CaseIterable, Comparable {
    case debug, info, notice, warning, error

    /// The syslog priority number: 7 debug ... 3 error.
    public var priority: Int {
        switch self { case .debug: 7; case .info: 6; case .notice: 5; case .warning: 4; case .error: 3 }
    }

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.priority > b.priority }
}
