import PlumbLinux
import PlumbOrientation

/// The Raspberry Pi's power and thermal state from sysfs, as the notifier's ``PowerStateMonitor``.
final class SysfsPowerStateMonitor: PowerStateMonitor {
    let monitor: SysfsPowerMonitor

    init(monitor: SysfsPowerMonitor = SysfsPowerMonitor()) { self.monitor = monitor }

    func readPowerState() throws(PowerMonitorError) -> PowerState {
        let r: SysfsPowerMonitor.Reading
        do { r = try monitor.read() } catch { throw PowerMonitorError(path: error.path, message: error.message) }
        return PowerState(powerSaver: r.powerSaver, lowBattery: r.lowBattery, hot: r.hot, throttled: r.throttled,
                          displayBlanked: r.displayBlanked, reasons: r.reasons)
    }
}
