import Foundation
import PlumbDBus
import PlumbLinux
import PlumbOrientation
import Testing
@testable import PlumbCLI

@Suite("power saver from sysfs and power-profiles-daemon together")
struct SystemPowerStateMonitorTests {
    /// A sysfs tree whose power-profiles-daemon state file saved `saved`.
    func tree(saved: String?) throws -> String {
        let root = NSTemporaryDirectory() + "plumb-power-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root + "/sys/class", withIntermediateDirectories: true)
        if let saved {
            try FileManager.default.createDirectory(atPath: root + "/var/lib/power-profiles-daemon", withIntermediateDirectories: true)
            try "[State]\nDriver=placeholder\nProfile=\(saved)\n".write(toFile: root + "/var/lib/power-profiles-daemon/state.ini",
                                                                         atomically: true, encoding: .utf8)
        }
        return root
    }

    func state(saved: String?, live: PowerProfilesReader.Answer) throws -> PowerState {
        let root = try tree(saved: saved)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let monitor = SystemPowerStateMonitor(monitor: SysfsPowerMonitor(settings: .init(root: root)),
                                              activeProfile: { () throws(PowerProfilesError) in live })
        return try monitor.readPowerState()
    }

    @Test func theLiveProfileDecides() throws {
        let saver = try state(saved: "balanced", live: .profile("power-saver"))
        #expect(saver.powerSaver && saver.wantsLowEnergy)
        #expect(saver.reasons == ["power-profiles-daemon ActiveProfile power-saver"])
        // The user switched back since the daemon last saved: the live answer wins.
        #expect(try !state(saved: "power-saver", live: .profile("balanced")).powerSaver)
        #expect(try !state(saved: nil, live: .profile("performance")).powerSaver)
    }

    @Test func aDaemonNotRunningLeavesNoPowerSaverWhateverItSaved() throws {
        #expect(try !state(saved: "power-saver", live: .noDaemon).powerSaver)
    }

    @Test func withoutABusTheSavedProfileStandsIn() throws {
        let s = try state(saved: "power-saver", live: .noBus)
        #expect(s.powerSaver)
        #expect(s.reasons == ["power-profiles-daemon power-saver"])
        #expect(try !state(saved: "balanced", live: .noBus).powerSaver)
    }

    @Test func aRefusedReadIsReportedAndTheOtherSourcesStillCount() throws {
        let root = try tree(saved: "power-saver")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/sys/class/thermal/thermal_zone0", withIntermediateDirectories: true)
        try "90000\n".write(toFile: root + "/sys/class/thermal/thermal_zone0/temp", atomically: true, encoding: .utf8)
        let refusal = PowerProfilesError(.denied, service: .hadess, bus: "the system bus", detail: "org.freedesktop.DBus.Error.AccessDenied: no")
        let monitor = SystemPowerStateMonitor(monitor: SysfsPowerMonitor(settings: .init(root: root)),
                                              activeProfile: { () throws(PowerProfilesError) in throw refusal })
        let s = try monitor.readPowerState()
        #expect(s.hot, "heat is still followed while the daemon refuses")
        #expect(s.powerSaver, "the saved profile stands in for the live one")
        #expect(s.problems == ["the system bus net.hadess.PowerProfiles: \(refusal.description)"])
    }

    @Test func aTreeOtherThanTheRunningSystemNeverAsksTheBus() {
        #expect(SystemPowerStateMonitor.forRoot("/tmp/some-tree").activeProfile == nil)
        #expect(SystemPowerStateMonitor.forRoot("/").activeProfile != nil)
    }

    /// The sensor's thread never asks the daemon or sysfs of the running system itself: that
    /// monitor is read on a poller thread. A tree of test files is read directly, in step with a
    /// simulation's virtual time.
    @Test func theRunningSystemIsReadOffTheSensorThread() throws {
        let system = try #require(SystemPowerStateMonitor.polled(pollInterval: 2) as? BackgroundPowerStateMonitor)
        #expect(system.pollInterval == 2)
        #expect((system.monitor as? SystemPowerStateMonitor)?.activeProfile != nil)
        #expect(system.pollerThreads == 0, "no thread before the first read")
        let tree = SystemPowerStateMonitor.polled(root: "/tmp/some-tree", pollInterval: 2)
        #expect((tree as? SystemPowerStateMonitor)?.activeProfile == nil)
    }
}
