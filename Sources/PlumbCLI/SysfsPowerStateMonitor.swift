import PlumbLinux
import PlumbOrientation

/// The notifier's power monitor on Linux: PlumbLinux's sysfs reader behind PlumbOrientation's
/// protocol (the two modules do not see each other).
final class SysfsPowerStateMonitor: PowerStateMonitor {
    let monitor: SysfsPowerMonitor

    init(settings: SysfsPowerMonitor.Settings = .init()) {
        monitor = SysfsPowerMonitor(settings: settings)
    }

    /// Over a monitor made elsewhere (the orientation branch's spelling).
    init(monitor: SysfsPowerMonitor) {
        self.monitor = monitor
    }

    func readPowerState() throws(PowerMonitorError) -> PowerState {
        do {
            let r = try monitor.read()
            return PowerState(powerSaver: r.powerSaver, lowBattery: r.lowBattery, hot: r.hot, throttled: r.throttled,
                              displayBlanked: r.displayBlanked, reasons: r.reasons)
        } catch {
            throw PowerMonitorError(path: error.path, message: error.message)
        }
    }
}
