#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reads what Linux says about power saving, battery, heat, throttling and display blanking from
/// sysfs (and power-profiles-daemon's state file), for the notifier's low-energy mode.
///
/// Every path lives under ``Settings/root`` (default "/"), so tests point it at a directory tree.
/// A missing file means the condition is absent (no battery, no ACPI profile); a file that exists
/// and cannot be read or parsed is an error naming it.
///
/// | condition | file | on when |
/// |---|---|---|
/// | power saver | `sys/firmware/acpi/platform_profile` | `low-power` (ABI: sysfs-platform_profile) |
/// | power saver | `var/lib/power-profiles-daemon/state.ini` | `Profile=power-saver` (the daemon's saved choice) |
/// | low battery | `sys/class/power_supply/*/{type,status,capacity}` | a `Battery` `Discharging` at or below the threshold (ABI: sysfs-class-power) |
/// | hot | `sys/class/thermal/thermal_zone*/temp` | millidegrees Celsius at or above the threshold |
/// | throttled | `sys/devices/platform/soc/soc:firmware/get_throttled` | any "now" bit 0–3 (under-voltage, ARM capped, throttled, soft temperature limit; Raspberry Pi firmware, raspberrypi/linux#2397) |
/// | display blanked | `sys/class/graphics/fb*/blank` | a level above 0 (FB_BLANK_*); kernels before "fbdev: Track display blanking state" (2025) read empty, taken as unknown |
/// | display blanked | `sys/class/drm/card*-*/{status,dpms}` | every connected connector's `dpms` other than `On` |
///
/// power-profiles-daemon's live `ActiveProfile` is a D-Bus property, read by PlumbDBus's
/// `PowerProfilesReader`; the CLI combines the two and reads the state file the daemon saves
/// only when no bus can be reached (`read(includingSavedProfile:)`).
public final class SysfsPowerMonitor: Sendable {
    /// Thresholds and where to look. Units per field.
    public struct Settings: Sendable, Equatable {
        /// The directory standing for "/". Default "/".
        public var root: String
        /// A discharging battery at or below this charge is low, in percent. Default 20.
        public var lowBatteryPercent: Int
        /// A thermal zone at or above this is hot, in degrees Celsius. Default 75 (the Raspberry
        /// Pi 5's highest fan step, `fan_temp3` 75000 m°C).
        public var hotCelsius: Double

        public init(root: String = "/", lowBatteryPercent: Int = 20, hotCelsius: Double = 75) {
            self.root = root; self.lowBatteryPercent = lowBatteryPercent; self.hotCelsius = hotCelsius
        }
    }

    /// What one reading found.
    public struct Reading: Sendable, Equatable {
        public var powerSaver = false
        public var lowBattery = false
        public var hot = false
        public var throttled = false
        public var displayBlanked = false
        /// Why each flag is set ("platform_profile low-power", "thermal_zone0 82.1 °C").
        public var reasons: [String] = []

        public init() {}
    }

    public let settings: Settings

    public init(settings: Settings = Settings()) { self.settings = settings }

    /// Reads every source once. `includingSavedProfile` false skips power-profiles-daemon's
    /// state file, for a caller that has the daemon's live answer over D-Bus.
    public func read(includingSavedProfile: Bool = true) throws(SysfsError) -> Reading {
        var r = Reading()
        // Power saver.
        if let profile = try text("sys/firmware/acpi/platform_profile"), Self.isLowPower(platformProfile: profile) {
            r.powerSaver = true
            r.reasons.append("platform_profile \(profile)")
        }
        if includingSavedProfile, let state = try text("var/lib/power-profiles-daemon/state.ini") {
            for _ in 0..<Self.powerSaverLines(stateINI: state) {
                r.powerSaver = true
                r.reasons.append("power-profiles-daemon power-saver")
            }
        }
        // Battery.
        for name in try names("sys/class/power_supply") {
            let base = "sys/class/power_supply/\(name)"
            guard try text("\(base)/type") == "Battery", try text("\(base)/status") == "Discharging",
                  let capacityText = try text("\(base)/capacity") else { continue }
            guard let capacity = Self.percentage(capacity: capacityText) else {
                throw SysfsError(path: path("\(base)/capacity"), errno: 0, message: "'\(capacityText)' is not a percentage")
            }
            if capacity <= settings.lowBatteryPercent {
                r.lowBattery = true
                r.reasons.append("\(name) \(capacity) % discharging")
            }
        }
        // Heat.
        for name in try names("sys/class/thermal") where name.hasPrefix("thermal_zone") {
            guard let milli = try text("sys/class/thermal/\(name)/temp") else { continue }
            guard let celsius = Self.celsius(millidegrees: milli) else {
                throw SysfsError(path: path("sys/class/thermal/\(name)/temp"), errno: 0, message: "'\(milli)' is not millidegrees Celsius")
            }
            if celsius >= settings.hotCelsius {
                r.hot = true
                r.reasons.append("\(name) \(celsius) °C")
            }
        }
        // Raspberry Pi firmware throttling.
        if let (file, flags) = try throttledFlags() {
            guard let value = Self.throttledBits(flags) else {
                throw SysfsError(path: path(file), errno: 0, message: "'\(flags)' is not hexadecimal")
            }
            if value & 0xF != 0 {
                r.throttled = true
                r.reasons.append("get_throttled 0x\(String(value, radix: 16))")
            }
        }
        // Display: fbdev.
        for name in try names("sys/class/graphics") where name.hasPrefix("fb") {
            guard let level = try text("sys/class/graphics/\(name)/blank"), let value = Self.blankLevel(level) else { continue }
            if value > 0 {
                r.displayBlanked = true
                r.reasons.append("\(name) blank \(value)")
            }
        }
        // Display: DRM connectors.
        var connected = 0, off = 0
        for name in try names("sys/class/drm") where name.hasPrefix("card") && name.contains("-") {
            guard try text("sys/class/drm/\(name)/status") == "connected", let dpms = try text("sys/class/drm/\(name)/dpms") else { continue }
            connected += 1
            if Self.isOff(dpms: dpms) { off += 1 }
        }
        if connected > 0, off == connected, !r.displayBlanked {
            r.displayBlanked = true
            r.reasons.append("DRM DPMS off on \(connected) connector\(connected == 1 ? "" : "s")")
        }
        return r
    }

    /// The firmware device's `get_throttled` (its path relative to the root, and its trimmed
    /// content), or nil on other boards.
    ///
    /// The attribute belongs to the device the `raspberrypi-firmware` platform driver binds
    /// (drivers/firmware/raspberrypi.c in raspberrypi/linux), so besides the usual
    /// `soc/soc:firmware` (Pi 1–4 device trees) it is looked up through the driver's directory,
    /// which lists the bound device whatever its device-tree path (not checked on a Pi 5, whose
    /// device tree is laid out differently). The kernel
    /// prints the cached flags in hexadecimal without "0x"; the raspberrypi-hwmon driver refreshes
    /// them every 2 s. The first read after boot logs a one-time "deprecated, use hwmon sysfs
    /// instead" warning in the kernel log: hwmon has only the under-voltage alarm, not the other
    /// flags read here.
    func throttledFlags() throws(SysfsError) -> (file: String, flags: String)? {
        let usual = "sys/devices/platform/soc/soc:firmware/get_throttled"
        if let flags = try text(usual) { return (usual, flags) }
        let driver = "sys/bus/platform/drivers/raspberrypi-firmware"
        for name in try names(driver) {
            let file = "\(driver)/\(name)/get_throttled"
            if let flags = try text(file) { return (file, flags) }
        }
        return nil
    }

    func path(_ relative: String) -> String {
        settings.root.hasSuffix("/") ? settings.root + relative : settings.root + "/" + relative
    }

    /// The trimmed content of a file, or nil when it does not exist.
    func text(_ relative: String) throws(SysfsError) -> String? {
        var error: Int32 = 0
        guard let content = Sys.readFile(path(relative), error: &error) else {
            if error == ENOENT || error == ENOTDIR { return nil }
            throw SysfsError(path: path(relative), errno: error, message: Sys.describe(errno: error))
        }
        return Self.trimmed(content)
    }

    /// The entries of a directory, sorted; empty when it does not exist.
    func names(_ relative: String) throws(SysfsError) -> [String] {
        var error: Int32 = 0
        guard let list = Sys.listDirectory(path(relative), error: &error) else {
            if error == ENOENT || error == ENOTDIR { return [] }
            throw SysfsError(path: path(relative), errno: error, message: Sys.describe(errno: error))
        }
        return list.sorted()
    }
}

/// The parsers of the files ``SysfsPowerMonitor/read(includingSavedProfile:)`` reads, apart from
/// the reading (no system calls): for tests and the fuzzer (fuzz/, target `system`). Each takes
/// the file's content as ``trimmed(_:)`` leaves it.
extension SysfsPowerMonitor {
    /// A sysfs file's content without the blanks and line ends around it.
    public static func trimmed(_ content: String) -> String { content.trimmingCharacters(in: " \n\t\r") }

    /// `platform_profile` names the low-power profile (Documentation/ABI/testing/sysfs-platform_profile:
    /// "low-power", "cool", "quiet", "balanced", "balanced-performance", "performance", "custom").
    public static func isLowPower(platformProfile: String) -> Bool { platformProfile == "low-power" }

    /// How many `Profile=power-saver` lines power-profiles-daemon's `state.ini` holds (a key file:
    /// `[State]`, `Driver=…`, `Profile=…`); each is one reason. Any line end ends a line (a file
    /// saved with CRLF too: "\r\n" is one Character, not "\n").
    public static func powerSaverLines(stateINI: String) -> Int {
        stateINI.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("Profile=") && $0.dropFirst("Profile=".count) == "power-saver" }.count
    }

    /// A power supply's `capacity`, in percent (Documentation/ABI/testing/sysfs-class-power:
    /// "Valid values: 0 - 100"; any integer is taken, the threshold compares it), or nil when it is
    /// not an integer.
    public static func percentage(capacity: String) -> Int? { Int(capacity) }

    /// A thermal zone's `temp` in degrees Celsius (Documentation/ABI/testing/sysfs-class-thermal:
    /// "Unit: millidegree Celsius", signed), or nil when it is not an integer.
    public static func celsius(millidegrees: String) -> Double? { Int(millidegrees).map { Double($0) / 1000 } }

    /// The bits of the Raspberry Pi firmware's `get_throttled` (hexadecimal, "0x" optional), or nil.
    public static func throttledBits(_ flags: String) -> UInt32? {
        UInt32(flags.hasPrefix("0x") ? String(flags.dropFirst(2)) : flags, radix: 16)
    }

    /// fbdev's `blank` (FB_BLANK_UNBLANK 0 … FB_BLANK_POWERDOWN 4, <linux/fb.h>), or nil when it is
    /// empty (kernels before the blanking state was tracked) or not an integer.
    public static func blankLevel(_ text: String) -> Int? { Int(text) }

    /// A DRM connector's `dpms` ("On", "Standby", "Suspend", "Off": the kernel's drm_dpms_enum_list)
    /// is anything but On.
    public static func isOff(dpms: String) -> Bool { dpms != "On" }
}

/// A sysfs (or state) file exists but could not be read or understood.
public struct SysfsError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    /// The errno, or 0 for a parse failure.
    public var errno: Int32
    public var message: String

    public init(path: String, errno: Int32, message: String) {
        self.path = path; self.errno = errno; self.message = message
    }

    public var description: String { "\(path): \(message)" }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
