import Foundation
import Synchronization
import Testing
import PlumbConfiguration
import PlumbDisplay
import PlumbHAL
@testable import PlumbCLI

/// Records the kiosk's rotations (the daemon's factory takes a Sendable runner).
private final class RotationRecorder: RotationActionRunner, Sendable {
    private let recorded = Mutex<[String]>([])
    var actions: [String] { recorded.withLock { $0 } }
    func perform(_ action: RotationAction) throws { recorded.withLock { $0.append(action.description) } }
}

private final class SilentNotifier: ServiceNotifier {
    func notify(_ state: String) throws {}
    var watchdogIntervalNanoseconds: UInt64? { nil }
}

private func transform(_ value: String, on output: String = "HDMI-A-1") -> String {
    "wlr-randr --output \(output) --on --transform \(value)"
}

/// `plumb run`'s daemon, as `Run` builds it, on the simulated MPU-6050 touring its faces (flat
/// 0–4 s, portrait from about 5.5 s, face down, upside down from about 16.5 s) in virtual time, with a
/// recording kiosk runner: SIGHUP once the screen has turned upside down (180), SIGTERM
/// `runAfter` seconds (virtual) after it. The new configuration's tour starts flat again.
private struct ReloadRun {
    var log = ""
    var status: Int32 = -1
    /// The rotations asked for up to the reload (its own included), `flat` seconds after it
    /// (the board still lying flat in the new session), and by the end (the stop included).
    var atReload: [String] = []
    var whileFlat: [String] = []
    var atEnd: [String] = []

    /// `ledDirectory`: the factory's LED class directory; `onReload`: called as SIGHUP is sent.
    init(_ first: String, then second: String, flat: Double = 3, runAfter: Double = 3,
         ledDirectory: String? = nil, onReload: @escaping () -> Void = {}) throws {
        let board = BoardSelection(board: Board(id: "generic", name: "Generic", models: [], i2cBus: "/dev/i2c-1", interrupt: nil,
                                                display: nil, leds: [], imuAddress: I2CAddress(UInt8(0x68))), reason: .override)
        let configurations = [try Configuration.decode(first, file: "first.json"), try Configuration.decode(second, file: "second.json")]
        let clock = VirtualClock()
        let recorder = RotationRecorder()
        var factory = DaemonFactory(source: .simulated, context: .capturing(), realClock: clock)
        factory.rotationRunner = recorder
        // The tour plays in virtual time as fast as it can: the kiosk's tools run on the loop's
        // thread, so that each turn comes in its phase (a reload during a tool on the kiosk's
        // own thread: KioskThreadTests).
        factory.kioskPlacement = .callersThread
        if let ledDirectory { factory.ledDirectory = ledDirectory }
        let err = Output.capture()
        var loads = 0
        var reloadedAt: UInt64?
        var atReload: [String] = []
        var whileFlat: [String]?
        let daemon = Daemon(
            log: DaemonLog(output: err, format: .plain, level: .info), notifier: SilentNotifier(), clock: clock,
            takeSignals: {
                guard let reloadedAt else {
                    guard recorder.actions.contains(transform("180")) else { return [] }
                    reloadedAt = clock.nowNanoseconds
                    onReload()
                    return [.reload]
                }
                if atReload.isEmpty { atReload = recorder.actions }
                let since = clock.nowNanoseconds &- reloadedAt
                if whileFlat == nil, since >= Nanoseconds.seconds(flat) { whileFlat = recorder.actions }
                return since >= Nanoseconds.seconds(runAfter) ? [.terminate] : []
            },
            load: { () throws(CLIError) -> DaemonSetup in
                defer { loads += 1 }
                return DaemonSetup(path: "plumb.json", configuration: configurations[min(loads, 1)], board: board)
            },
            build: { setup, handover in try factory.build(setup, handover: handover) },
            duration: Nanoseconds.seconds(120))
        status = daemon.run()
        log = err.captured
        self.atReload = atReload
        self.whileFlat = whileFlat ?? []
        atEnd = recorder.actions
    }
}

private let kiosk = #"{"outputs": {"kiosk": {"method": "wlr-randr", "output": "HDMI-A-1"}}}"#

/// A SIGHUP reload of `plumb run` and the kiosk's screen: kept at its rotation while the new
/// configuration turns the same screen, turned upright (as on stop) when it no longer does.
@Suite struct KioskReloadTests {
    /// Before, the reload turned the screen upright and the new output, waiting for an allowed
    /// face while the board lay flat, left it there: [normal, 180, normal] at the reload.
    @Test func aReloadKeepingTheKioskKeepsTheScreensRotation() throws {
        let run = try ReloadRun(kiosk, then: kiosk)
        #expect(run.status == 0, "\(run.log)")
        // Portrait once it stood up, then upside down; nothing at the reload nor while flat.
        #expect(run.atReload == [transform("normal"), transform("180")])
        #expect(run.whileFlat == run.atReload)
        // The new output knew the screen showed 180: it turns it upright on stop.
        #expect(run.atEnd == [transform("normal"), transform("180"), transform("normal")])
        #expect(run.log.contains("plumb: info: kiosk: the screen HDMI-A-1 stays portraitUpsideDown across the reload\n"), "\(run.log)")
    }

    /// The same screen with a new hold-off and allowed set that leaves the kept rotation out: kept
    /// (and said) until an allowed face settles, then turned to it.
    @Test func aKeptRotationTheNewListLeavesOutStaysUntilAnAllowedFace() throws {
        let second = #"{"orientation": {"interfaceOrientations": ["portrait", "landscapeLeft", "landscapeRight"]}, "#
            + #""outputs": {"kiosk": {"method": "wlr-randr", "output": "HDMI-A-1", "holdOff": 0.5}}}"#
        let run = try ReloadRun(kiosk, then: second, runAfter: 9)
        #expect(run.status == 0, "\(run.log)")
        #expect(run.atReload == [transform("normal"), transform("180")])
        #expect(run.whileFlat == run.atReload)
        // The new tour stands up in portrait after about 5.5 s: allowed, and not what is shown.
        #expect(run.atEnd == [transform("normal"), transform("180"), transform("normal")])
        #expect(run.log.contains("plumb: notice: kiosk: the screen HDMI-A-1 stays portraitUpsideDown across the reload, though "
                                 + "orientation.interfaceOrientations no longer allows it: it turns once the board settles in an allowed face\n"),
                "\(run.log)")
    }

    /// A reload without outputs.kiosk puts the screen back upright at once, as a stop does.
    @Test func aReloadRemovingTheKioskRestoresTheScreen() throws {
        let run = try ReloadRun(kiosk, then: "{}")
        #expect(run.status == 0, "\(run.log)")
        #expect(run.atReload == [transform("normal"), transform("180"), transform("normal")])
        #expect(run.atEnd == run.atReload)
        #expect(!run.log.contains("across the reload"))
    }

    /// Another output: the old screen is put back upright; the new one is left as it is until an
    /// allowed face settles.
    @Test func aReloadToAnotherOutputRestoresTheOldScreen() throws {
        let run = try ReloadRun(kiosk, then: #"{"outputs": {"kiosk": {"method": "wlr-randr", "output": "HDMI-A-2"}}}"#)
        #expect(run.status == 0, "\(run.log)")
        #expect(run.atReload == [transform("normal"), transform("180"), transform("normal")])
        #expect(run.atEnd == run.atReload)
    }

    /// A new configuration that cannot be built (its level image is missing) before its kiosk is
    /// made: the previous configuration is built again and takes the screen as it is.
    @Test func aFailedReloadRestartsThePreviousKioskOnTheKeptScreen() throws {
        let broken = #"{"outputs": {"kiosk": {"method": "wlr-randr", "output": "HDMI-A-1"}, "level": {"image": "/nonexistent/plumb-level.png"}}}"#
        let run = try ReloadRun(kiosk, then: broken)
        #expect(run.status == 0, "\(run.log)")
        #expect(run.log.contains("plumb: error: reload failed, restarting the previous configuration: "), "\(run.log)")
        #expect(run.atReload == [transform("normal"), transform("180")])
        #expect(run.atEnd == [transform("normal"), transform("180"), transform("normal")])
    }

    /// A new configuration that fails after its kiosk took the screen (its D-Bus output, made
    /// after the kiosk, cannot reach its bus): the kiosk it made gives the screen back rather than
    /// turning it upright, and the previous configuration, built again, takes it as it is. Before,
    /// the failed build's kiosk turned the screen upright and the rebuilt one, waiting for an
    /// allowed face while the board lay flat, left it there: [normal, 180, normal] at the reload.
    @Test func aReloadFailingAfterItsKioskRestartsThePreviousKioskOnTheKeptScreen() throws {
        let broken = #"{"outputs": {"kiosk": {"method": "wlr-randr", "output": "HDMI-A-1"}, "dbus": {"bus": "unix:path=/nonexistent/plumb-test-bus"}}}"#
        let run = try ReloadRun(kiosk, then: broken)
        #expect(run.status == 0, "\(run.log)")
        #expect(run.log.contains("plumb: error: reload failed, restarting the previous configuration: outputs.dbus: cannot connect"), "\(run.log)")
        #expect(run.atReload == [transform("normal"), transform("180")])
        #expect(run.whileFlat == run.atReload)
        #expect(run.atEnd == [transform("normal"), transform("180"), transform("normal")])
        #expect(run.log.contains("plumb: info: kiosk: the screen HDMI-A-1 stays portraitUpsideDown across the reload\n"), "\(run.log)")
    }

    /// Neither configuration builds: the new one fails after its kiosk took the screen (which it
    /// gives back), the previous one before its kiosk (its LED is gone): the screen is turned
    /// upright once, by the handover (``DaemonHandover/restoreUntaken()``), and the daemon stops.
    @Test func aReloadWhereNeitherConfigurationBuildsTurnsTheScreenUprightOnce() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-kiosk-reload-\(ProcessInfo.processInfo.processIdentifier)")
        let led = root.appendingPathComponent("ACT")
        try FileManager.default.createDirectory(at: led, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        for (file, text) in [("max_brightness", "255\n"), ("brightness", "0\n"), ("trigger", "[none] mmc0\n")] {
            try text.write(to: led.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
        let first = #"{"outputs": {"kiosk": {"method": "wlr-randr", "output": "HDMI-A-1"}, "leds": {"map": {"portrait": "ACT"}}}}"#
        let broken = #"{"outputs": {"kiosk": {"method": "wlr-randr", "output": "HDMI-A-1"}, "dbus": {"bus": "unix:path=/nonexistent/plumb-test-bus"}}}"#
        let run = try ReloadRun(first, then: broken, ledDirectory: root.path, onReload: {
            do { try FileManager.default.removeItem(at: led) } catch { Issue.record("removing \(led.path): \(error)") }
        })
        #expect(run.status != 0, "\(run.log)")
        #expect(run.log.contains("plumb: error: cannot restart the previous configuration: "), "\(run.log)")
        #expect(run.atEnd == [transform("normal"), transform("180"), transform("normal")])
    }

    /// Two reloads in a row, each keeping the screen, and one whose build fails after its kiosk
    /// took the screen: the rotation passes from output to output untouched, and only the last
    /// one to run turns the screen upright, once, on stop.
    @Test func aScreenKeptAcrossTwoReloadsAndAFailedOneIsTurnedUprightOnceAtTheEnd() throws {
        let board = BoardSelection(board: Board(id: "generic", name: "Generic", models: [], i2cBus: "/dev/i2c-1", interrupt: nil,
                                                display: nil, leds: [], imuAddress: I2CAddress(UInt8(0x68))), reason: .override)
        let setup = DaemonSetup(path: "plumb.json", configuration: try Configuration.decode(kiosk, file: "plumb.json"), board: board)
        let backend = KioskBackend(kind: .wlrRandr, output: "HDMI-A-1")
        let recorder = RotationRecorder()
        let clock = VirtualClock()
        // The first output turned the screen to landscapeLeft.
        var handover = DaemonHandover(kiosk: KioskHandover(backend: backend, shown: .landscapeLeft, runner: recorder))
        var output = KioskDaemonOutput(backend: backend, settings: .init(), runner: recorder, clock: clock, kept: handover.kiosk?.take(for: backend))
        for _ in 0..<2 {
            let next = DaemonHandover()
            output.handOver(to: setup, into: next)
            try output.restore()
            handover = next
            #expect(handover.kiosk?.shown == .landscapeLeft)
            output = KioskDaemonOutput(backend: backend, settings: .init(), runner: recorder, clock: clock, kept: handover.kiosk?.take(for: backend))
        }
        // A build that failed after this output was made: it gives the screen back, untouched.
        try output.restoreUnused()
        #expect(recorder.actions.isEmpty)
        output = KioskDaemonOutput(backend: backend, settings: .init(), runner: recorder, clock: clock, kept: handover.kiosk?.take(for: backend))
        #expect(output.applied == .landscapeLeft)
        try handover.restoreUntaken()
        #expect(recorder.actions.isEmpty)
        try output.restore()
        #expect(recorder.actions == [transform("normal")])
    }
}
