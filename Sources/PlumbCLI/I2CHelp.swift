import Foundation
import PlumbHAL
import PlumbLinux
import PlumbSimulation

/// What the commands that open an I2C bus say when it goes wrong, in the order a beginner meets
/// it: I2C not enabled, the wrong bus, no permission, nothing wired, the wrong address. One place,
/// so `probe`, `read`, `calibrate`, `regs` and the live commands give the same fix.
enum I2CHelp {
    /// I2C is off (no /sys/class/i2c-adapter entries or no /dev/i2c-N nodes).
    static let enableFix = "Enable I2C: on a Raspberry Pi run 'sudo raspi-config nonint do_i2c 0' (or add dtparam=i2c_arm=on to /boot/firmware/config.txt) and reboot; then 'ls /dev/i2c-1' must succeed. Elsewhere load i2c-dev: 'sudo modprobe i2c-dev'."

    /// The user may not open /dev/i2c-N.
    static let permissionFix = "Add yourself to the i2c group: 'sudo usermod -aG i2c $USER', then log out and in again (or run with sudo)."

    /// Nothing acknowledges at the IMU addresses on the Raspberry Pi header's bus, /dev/i2c-1.
    static let wiringFix = wiringFix(bus: nil, address: nil)

    /// Nothing acknowledges at `address` (nil: at any IMU address) on `bus` (a /dev/i2c-N path; nil
    /// or one not so named: the header's /dev/i2c-1). The header's pins are named for /dev/i2c-1
    /// only, and `i2cdetect` is given the bus's number and told the address looked for, so a
    /// configuration at 0x69 on /dev/i2c-0 is not sent to look for 68 on bus 1.
    static func wiringFix(bus: String?, address: I2CAddress?) -> String {
        let number = bus.flatMap { isBusPath($0) ? String($0.dropFirst("/dev/i2c-".count)) : nil } ?? "1"
        let wires = number == "1" ? "VCC to 3.3 V (pin 1), GND (pin 6), SDA to pin 3, SCL to pin 5"
            : "VCC to 3.3 V, GND, SDA and SCL to /dev/i2c-\(number)'s pins"
        let shown: String
        switch address?.rawValue {
        case nil, 0x68: shown = "68 (MPU-6050) or 6a/6b (LSM6DS)"
        case let value?: shown = String(value, radix: 16)
        }
        return "Check the wiring with the power off: \(wires); then 'i2cdetect -y \(number)' should show \(shown)."
    }

    /// Nothing acknowledges on the emulated bus of `--simulate`: there is no wire to check (and no
    /// header pin or `i2cdetect`), so the fix names what decides where the emulated chip answers
    /// (its `--chip`, at the model's address: ``SimulatedChipModel/address``) and the `--faults`
    /// window that silences it on purpose.
    /// - Parameters:
    ///   - addressOption: whether the command takes `--address` (`plumb probe` does not).
    ///   - faultsOption: whether it takes `--faults` (`plumb regs` does not).
    static func simulatedSilenceFix(_ model: SimulatedChipModel, addressOption: Bool = true, faultsOption: Bool = true) -> String {
        var fix = "Nothing is wired under --simulate: the emulated \(model.part) (--chip \(model.key)) answers at \(model.address) only"
        if addressOption { fix += ", so give --address \(model.address) or leave it out" }
        if faultsOption { fix += "; a --faults window such as nack@T+D keeps it silent on purpose" }
        return fix + "."
    }

    /// `--bus`: "/dev/i2c-1", "i2c-1" or "1".
    static func busPath(_ text: String) throws(CLIError) -> String {
        let trimmed = text.trimmingCharacters()
        if trimmed.hasPrefix("/") { return trimmed }
        let number = trimmed.hasPrefix("i2c-") ? String(trimmed.dropFirst(4)) : trimmed
        guard !number.isEmpty, number.allSatisfy(\.isASCII), let n = Int(number), n >= 0 else {
            throw .usage("The value '\(text)' is invalid for '--bus': expected a device such as /dev/i2c-1 (or just 1).")
        }
        return "/dev/i2c-\(n)"
    }

    /// `/sys/class/i2c-adapter` could not be listed: I2C is not in the kernel or not enabled.
    static func noAdapters(_ error: I2CError) -> String {
        error.errno == Errno.ENOENT ? "this machine has no I2C bus (no \(error.bus))" : "cannot list the I2C buses: \(error.description)"
    }

    /// The I2C buses this machine has, as /dev paths; empty when I2C is off.
    static func existingBuses() -> [String] {
        do { return try I2CAdapter.list().map(\.devicePath).filter { FileManager.default.fileExists(atPath: $0) } } catch {
            return []
        }
    }

    /// Where the bus being opened was named, so that the fix says what to change.
    enum BusSetting: Equatable, Sendable {
        /// `--bus` (or nothing: the bus found by probing or the board's).
        case option
        /// `imu.bus` in the configuration file at `path` (`--config`, /etc/plumb/plumb.json).
        case configuration(path: String)

        /// "Give --bus WHAT" or "Set imu.bus in FILE to WHAT"; `orNumber` adds "(or just 1)",
        /// which only `--bus` takes (the file wants the device path).
        func give(_ what: String, orNumber: Bool = false) -> String {
            switch self {
            case .option: "Give --bus \(what)" + (orNumber ? " (or just 1)" : "")
            case .configuration(let path): "Set imu.bus in \(path) to \(what)"
            }
        }
    }

    /// Another plumb process holds the chip (``I2CDeviceClaim``): which, and how to stop it.
    static func inUse(_ error: I2CDeviceInUse) -> CLIError {
        .failure("\(error)",
                 // Said alike whoever is refused: a service (in its journal) as well as a command
                 // typed while the service runs.
                 fix: "One plumb drives one IMU: stop the other one first. 'pgrep -a plumb' lists the plumb processes; "
                    + "'systemctl status plumb plumb-sensor-proxy' shows whether one is a service ('sudo systemctl stop plumb', or plumb-sensor-proxy).")
    }

    /// A bus that could not be opened: the message and the fix for its errno.
    /// - Parameter setting: where the bus was named: the fix changes `--bus` or the file's `imu.bus`.
    static func openFailure(_ error: I2CError, buses: @autoclosure () -> [String] = existingBuses(),
                            setting: BusSetting = .option) -> CLIError {
        let path = error.bus
        switch error.errno {
        case Errno.ENOENT where !isBusPath(path):
            // A typo ("/dev/i2c1", "/dev/i2c-a"): the name is wrong, whether I2C is on or not.
            let others = buses().filter { $0 != path }
            return .failure("there is no I2C bus \(path): an I2C bus is /dev/i2c-N" + (others.isEmpty ? "" : "; this machine has \(others.joined(separator: ", "))"),
                            fix: setting.give("a bus such as /dev/i2c-1", orNumber: true) + ": on a Raspberry Pi the 40-pin header (pins 3 and 5) is /dev/i2c-1."
                                + (others.isEmpty ? " 'ls /dev/i2c-*' lists none here: " + enableFix : ""))
        case Errno.ENOENT:
            let others = buses().filter { $0 != path }
            if others.isEmpty {
                return .failure("there is no I2C bus \(path): I2C is not enabled", fix: enableFix)
            }
            return .failure("there is no I2C bus \(path); this machine has \(others.joined(separator: ", "))",
                            fix: setting.give("one of those") + ": on a Raspberry Pi the 40-pin header (pins 3 and 5) is /dev/i2c-1. 'plumb probe' shows what answers on each.")
        case Errno.EACCES, Errno.EPERM:
            return .failure("permission denied on \(path)", fix: permissionFix)
        default:
            if isBusPath(path), error.errno != ENOTTY, error.errno != EISDIR {
                // The right name whose adapter failed otherwise (ENODEV: its driver was unloaded):
                // "give --bus an adapter's device" would send the user round to the same one.
                return .failure(error.description, fix: "'i2cdetect -l' lists the adapters there are (\(path)'s may have gone with its driver); 'plumb probe' tries each bus.")
            }
            // Not an I2C adapter's node at all (/dev/null: I2C_FUNCS fails; a directory: EISDIR).
            return .failure(error.description, fix: setting.give("an I2C adapter's device, /dev/i2c-N") + " ('ls /dev/i2c-*' lists them; on a Raspberry Pi the 40-pin header is /dev/i2c-1).")
        }
    }

    /// "/dev/i2c-" and digits: the name i2c-dev gives an adapter's node.
    static func isBusPath(_ path: String) -> Bool {
        guard path.hasPrefix("/dev/i2c-") else { return false }
        let number = path.dropFirst("/dev/i2c-".count)
        return !number.isEmpty && number.allSatisfy { $0.isASCII && $0.isNumber }
    }
}
