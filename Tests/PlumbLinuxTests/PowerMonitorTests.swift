import Foundation
import Testing
@testable import PlumbLinux

@Suite("SysfsPowerMonitor")
struct PowerMonitorTests {
    /// A throw-away directory tree standing for "/".
    final class Tree {
        let root: String
        init() throws {
            root = NSTemporaryDirectory() + "plumb-power-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }
        func write(_ relative: String, _ text: String) throws {
            let url = URL(fileURLWithPath: root + "/" + relative)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        var monitor: SysfsPowerMonitor { SysfsPowerMonitor(settings: .init(root: root)) }
    }

    @Test func anEmptySystemWantsNothing() throws {
        let tree = try Tree()
        #expect(try tree.monitor.read() == SysfsPowerMonitor.Reading())
    }

    @Test func powerSaverFromACPIAndTheDaemon() throws {
        let tree = try Tree()
        try tree.write("sys/firmware/acpi/platform_profile", "balanced\n")
        #expect(try !tree.monitor.read().powerSaver)
        try tree.write("sys/firmware/acpi/platform_profile", "low-power\n")
        #expect(try tree.monitor.read().powerSaver)
        try tree.write("sys/firmware/acpi/platform_profile", "performance\n")
        try tree.write("var/lib/power-profiles-daemon/state.ini", "[State]\nDriver=placeholder\nProfile=power-saver\n")
        let r = try tree.monitor.read()
        #expect(r.powerSaver)
        #expect(r.reasons == ["power-profiles-daemon power-saver"])
    }

    @Test func lowBatteryOnlyWhileDischarging() throws {
        let tree = try Tree()
        try tree.write("sys/class/power_supply/AC/type", "Mains\n")
        try tree.write("sys/class/power_supply/AC/online", "0\n")
        try tree.write("sys/class/power_supply/BAT0/type", "Battery\n")
        try tree.write("sys/class/power_supply/BAT0/status", "Discharging\n")
        try tree.write("sys/class/power_supply/BAT0/capacity", "35\n")
        #expect(try !tree.monitor.read().lowBattery)
        try tree.write("sys/class/power_supply/BAT0/capacity", "20\n")
        #expect(try tree.monitor.read().reasons == ["BAT0 20 % discharging"])
        try tree.write("sys/class/power_supply/BAT0/status", "Charging\n")
        #expect(try !tree.monitor.read().lowBattery)
    }

    @Test func hotAndThrottled() throws {
        let tree = try Tree()
        try tree.write("sys/class/thermal/thermal_zone0/temp", "48312\n")
        try tree.write("sys/class/thermal/cooling_device0/cur_state", "0\n")
        try tree.write("sys/devices/platform/soc/soc:firmware/get_throttled", "50000\n")
        var r = try tree.monitor.read()
        // 0x50000: under-voltage and throttling happened before, not now.
        #expect(!r.hot && !r.throttled)
        try tree.write("sys/class/thermal/thermal_zone0/temp", "81250\n")
        try tree.write("sys/devices/platform/soc/soc:firmware/get_throttled", "50005\n")
        r = try tree.monitor.read()
        #expect(r.hot && r.throttled)
        #expect(r.reasons == ["thermal_zone0 81.25 °C", "get_throttled 0x50005"])
    }

    @Test func throttlingIsFoundThroughTheFirmwareDriverWhereverTheDeviceTreePutsIt() throws {
        let tree = try Tree()
        // The driver's directory holds its control files and a link per bound device.
        try tree.write("sys/bus/platform/drivers/raspberrypi-firmware/bind", "")
        try tree.write("sys/bus/platform/drivers/raspberrypi-firmware/uevent", "")
        try tree.write("sys/bus/platform/drivers/raspberrypi-firmware/firmware/get_throttled", "4\n")
        let r = try tree.monitor.read()
        #expect(r.throttled)
        #expect(r.reasons == ["get_throttled 0x4"])
        try tree.write("sys/bus/platform/drivers/raspberrypi-firmware/firmware/get_throttled", "zz\n")
        #expect(throws: SysfsError.self) { try tree.monitor.read() }
        do { _ = try tree.monitor.read() } catch {
            #expect(error.path.hasSuffix("sys/bus/platform/drivers/raspberrypi-firmware/firmware/get_throttled"))
        }
    }

    @Test func displayBlankingFromFbdevAndDRM() throws {
        let tree = try Tree()
        // Older kernels read an empty blank file: unknown, not blanked.
        try tree.write("sys/class/graphics/fb0/blank", "")
        #expect(try !tree.monitor.read().displayBlanked)
        try tree.write("sys/class/graphics/fb0/blank", "4\n")
        #expect(try tree.monitor.read().displayBlanked)
        try tree.write("sys/class/graphics/fb0/blank", "0\n")
        try tree.write("sys/class/drm/card1-HDMI-A-1/status", "connected\n")
        try tree.write("sys/class/drm/card1-HDMI-A-1/dpms", "Off\n")
        try tree.write("sys/class/drm/card1-HDMI-A-2/status", "disconnected\n")
        try tree.write("sys/class/drm/card1-HDMI-A-2/dpms", "On\n")
        #expect(try tree.monitor.read().reasons == ["DRM DPMS off on 1 connector"])
        try tree.write("sys/class/drm/card1-HDMI-A-1/dpms", "On\n")
        #expect(try !tree.monitor.read().displayBlanked)
    }

    /// fuzz system (the line ends of NetworkAccessTests.carriageReturnsDoNotJoinLines): a state
    /// file saved with CRLF line ends still says power-saver.
    @Test func aStateFileWithCRLFLineEnds() {
        #expect(SysfsPowerMonitor.powerSaverLines(stateINI: "[State]\r\nDriver=placeholder\r\nProfile=power-saver\r\n") == 1)
        #expect(SysfsPowerMonitor.powerSaverLines(stateINI: "[State]\nProfile=power-saver") == 1)
    }

    @Test func garbageIsAnErrorNamingTheFile() throws {
        let tree = try Tree()
        try tree.write("sys/class/thermal/thermal_zone3/temp", "hot\n")
        #expect {
            _ = try tree.monitor.read()
        } throws: { error in
            (error as? SysfsError)?.path.hasSuffix("sys/class/thermal/thermal_zone3/temp") == true
        }
    }
}
