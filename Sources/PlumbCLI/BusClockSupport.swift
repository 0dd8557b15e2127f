import PlumbDrivers
import PlumbHAL
import PlumbLinux

/// The I2C bus clock as the commands use it: read from the device tree (``I2CBusClock``), shown
/// by `plumb probe`, and handed to the stream so that it can say when its rate needs more of the
/// bus than is safe (``IMUStream/BusClock``, ``BusBudget``).
enum BusClockSupport {
    /// What reading the clock of one bus gave: the clock (possibly unknown), or the error that
    /// stopped it, which leaves the clock unknown.
    struct Reading: Sendable, Equatable {
        var busPath: String
        var clock: I2CBusClock?
        var error: SysfsError?

        /// "100 kHz (device tree)", "unknown (…)", or "unknown (cannot read …: …)".
        var text: String {
            if let clock { return clock.description }
            return "unknown (" + (error.map { "cannot read \($0.path): \($0.message)" } ?? "not read") + ")"
        }
    }

    /// Reads the clock of `busPath`; an error reading it is kept, not thrown (the clock only advises).
    static func read(busPath: String, sysfsRoot: String = "/sys") -> Reading {
        do throws(SysfsError) {
            return Reading(busPath: busPath, clock: try I2CBusClock.read(busPath: busPath, sysfsRoot: sysfsRoot), error: nil)
        } catch {
            return Reading(busPath: busPath, clock: nil, error: error)
        }
    }

    /// The clock for the stream's budget check, or `nil` when it is unknown.
    ///
    /// - Parameters:
    ///   - rateSetting: where the user sets the rate ("imu.rate", "--rate").
    ///   - model: the device-tree model string, which says whether the board is a Raspberry Pi
    ///     (``raiseInstruction(busPath:model:)``).
    static func streamClock(_ reading: Reading, maximumReadLength: Int?, rateSetting: String, model: String?) -> IMUStream.BusClock? {
        guard let clock = reading.clock, let hertz = clock.hertz else { return nil }
        return IMUStream.BusClock(hertz: Double(hertz), source: "device tree", maximumReadLength: maximumReadLength,
                                  rateSetting: rateSetting, raiseInstruction: raiseInstruction(busPath: clock.busPath, model: model))
    }

    /// How to run `busPath` at 400 kHz.
    ///
    /// On a Raspberry Pi the header bus, /dev/i2c-1 on every model (`i2c_arm`), takes
    /// `dtparam=i2c_arm_baudrate=400000` in /boot/firmware/config.txt (the firmware's
    /// /boot/overlays/README: "i2c_arm_baudrate  Set the baudrate of the ARM's i2c interface
    /// (default "100000")"); on a Pi 3 or Zero 2 W the controller's clock follows the VPU core
    /// clock, so `core_freq=250` keeps it at the rate set (raspberrypi/firmware#1281). Elsewhere
    /// the bus's device-tree node takes `clock-frequency = <400000>` (an overlay, or the board
    /// vendor's setting).
    static func raiseInstruction(busPath: String, model: String?) -> String {
        guard let model, model.hasPrefix("Raspberry Pi"), busPath == "/dev/i2c-1" else {
            return "set clock-frequency = <400000> in the device-tree node of \(busPath) (an overlay) and reboot"
        }
        let core = model.contains("Pi 3") || model.contains("Zero 2") ? " with core_freq=250" : ""
        return "set dtparam=i2c_arm_baudrate=400000\(core) in /boot/firmware/config.txt and reboot"
    }

    /// The device-tree model string, or `nil` (no device tree, or it cannot be read: then the fix
    /// is the generic one).
    static func model() -> String? {
        do throws(DeviceTreeError) { return try DeviceTreeModel.read() } catch { return nil }
    }
}
