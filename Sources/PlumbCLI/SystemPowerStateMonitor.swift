import PlumbDBus
import PlumbLinux
import PlumbOrientation

/// The notifier's power monitor on Linux: PlumbLinux's sysfs reader and, for the real system,
/// power-profiles-daemon's live `ActiveProfile` over D-Bus, behind PlumbOrientation's protocol
/// (the modules do not see each other).
///
/// Power saver comes from ACPI's `platform_profile` and from the daemon: its live answer when it
/// is on the bus, the profile it saved on disk only when no bus can be reached (a sandbox
/// without the system bus's socket). A daemon that is installed but not running means no
/// power-profiles power saver, whatever its state file says.
final class SystemPowerStateMonitor: PowerStateMonitor {
    let monitor: SysfsPowerMonitor
    /// Asks the daemon; nil when the sysfs tree is not the running system's (tests, --power-root DIR).
    let activeProfile: (@Sendable () throws(PowerProfilesError) -> PowerProfilesReader.Answer)?

    /// The running system: sysfs under "/" and the system bus.
    convenience init() {
        let reader = PowerProfilesReader(clock: SystemClock())
        self.init(monitor: SysfsPowerMonitor(), activeProfile: { () throws(PowerProfilesError) in try reader.activeProfile() })
    }

    /// Over a monitor made elsewhere; the daemon is asked when `activeProfile` is given.
    init(monitor: SysfsPowerMonitor,
         activeProfile: (@Sendable () throws(PowerProfilesError) -> PowerProfilesReader.Answer)? = nil) {
        self.monitor = monitor
        self.activeProfile = activeProfile
    }

    /// The monitor for `--power-root ROOT`: the running system for "/", the tree alone otherwise.
    static func forRoot(_ root: String) -> SystemPowerStateMonitor {
        if root == "/" { return SystemPowerStateMonitor() }
        return SystemPowerStateMonitor(monitor: SysfsPowerMonitor(settings: .init(root: root)))
    }

    /// What the sensor's thread reads for `--power-root ROOT`, polled every `pollInterval`
    /// seconds: the running system's monitor ("/") on a poller thread of its own, since asking the
    /// daemon and reading sysfs may block (``BackgroundPowerStateMonitor``); another tree (tests,
    /// a copy of a board's files) read directly, in step with a simulation's virtual time.
    static func polled(root: String = "/", pollInterval: Double) -> any PowerStateMonitor {
        let monitor = forRoot(root)
        guard root == "/" else { return monitor }
        return BackgroundPowerStateMonitor(monitor, pollInterval: pollInterval)
    }

    func readPowerState() throws(PowerMonitorError) -> PowerState {
        // A tree that is not the running system, or no bus: the daemon's saved profile stands in.
        var answer = PowerProfilesReader.Answer.noBus
        var problems: [String] = []
        if let activeProfile {
            do throws(PowerProfilesError) {
                answer = try activeProfile()
            } catch {
                // The daemon misbehaves: its saved profile stands in, and battery, heat,
                // throttling and blanking are still followed.
                problems.append("\(error.bus) \(error.service.name): \(error.description)")
            }
        }
        do {
            var r = try monitor.read(includingSavedProfile: answer == .noBus)
            if answer == .profile("power-saver") {
                r.powerSaver = true
                r.reasons.append("power-profiles-daemon ActiveProfile power-saver")
            }
            return PowerState(powerSaver: r.powerSaver, lowBattery: r.lowBattery, hot: r.hot, throttled: r.throttled,
                              displayBlanked: r.displayBlanked, reasons: r.reasons, problems: problems)
        } catch {
            throw PowerMonitorError(path: error.path, message: error.message)
        }
    }
}
