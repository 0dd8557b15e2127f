import Foundation
import Testing
@testable import PlumbCLI
import PlumbConfiguration
import PlumbDisplay
import PlumbDrivers
import PlumbHAL
import PlumbLinux
import PlumbOrientation
import PlumbSimulation

private func plumb(_ arguments: [String]) -> (status: Int32, out: String, err: String) {
    let context = CommandContext.capturing()
    let status = PlumbTool.main(arguments, context: context)
    return (status, context.out.captured, context.err.captured)
}

/// The repository's boards/ folder.
private let boardsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("boards").path

/// The live sensor found as for `plumb run`, with the emulator on LinuxI2CBus's place: the real
/// MPU-6050 driver behind the streaming engine, on the emulated chip's bus and data-ready line.
private struct Emulated {
    let sensor: PlumbSimulation.SimulatedSensor
    let source: StreamSampleSource
    let found: LiveSensor.Found

    init(profile: String, address: UInt8 = 0x68) throws {
        sensor = PlumbSimulation.SimulatedSensor(model: SimulatedChips.model("mpu6050")!, profile: MotionProfile.named(profile)!, seed: 1)
        let at = I2CAddress(UInt8(address))
        let imu = try DaemonFactory.makeIMU(bus: sensor.bus, address: at, clock: sensor.clock, part: nil)
        source = StreamSampleSource(name: "emulated MPU-6050", imu: imu, line: sensor.line, clock: sensor.clock)
        let board = BoardSelection(board: Board(id: "rpi4", name: "Raspberry Pi 4", models: [], i2cBus: "/dev/i2c-1", interrupt: nil,
                                                display: nil, leds: [], imuAddress: at), reason: .override)
        var imuConfiguration = DaemonFactory.imuConfiguration(Configuration())
        imuConfiguration.gyroscopeEnabled = true
        found = LiveSensor.Found(setup: DaemonSetup(path: "test.json", configuration: Configuration(), board: board),
                                 imu: imuConfiguration, busPath: "/dev/i2c-1", address: at)
    }
}

@Suite("The board's IMU behind level, kiosk and led")
struct LiveSensorTests {
    @Test func liveGravityFollowsTheSensorUntilTheDurationAndStopsIt() throws {
        let e = try Emulated(profile: "rest")
        let live = LiveGravity(source: e.source, found: e.found, pipeline: DaemonFactory.orientationPipeline(Configuration()),
                               clock: e.sensor.clock, duration: 2, shouldStop: { false })
        var readings: [GravityReading] = []
        while let g = try live.nextGravity() {
            readings.append(g)
            #expect(readings.count < 10_000, "a 2 s run must end")
            if readings.count >= 10_000 { break }
        }
        // At rest, z up: gravity is along z and unit length.
        let last = try #require(readings.last)
        #expect(abs(abs(last.z) - 1) < 0.05)
        #expect(abs(last.x) < 0.05 && abs(last.y) < 0.05)
        #expect(readings.count > 10)
        #expect(last.timestampNanoseconds >= Nanoseconds.seconds(1.8) && last.timestampNanoseconds <= Nanoseconds.seconds(2.2))
        #expect(try live.nextGravity() == nil)
    }

    @Test func liveGravityEndsWhenASignalAsks() throws {
        let e = try Emulated(profile: "rest")
        nonisolated(unsafe) var calls = 0
        let live = LiveGravity(source: e.source, found: e.found, pipeline: DaemonFactory.orientationPipeline(Configuration()),
                               clock: e.sensor.clock, duration: nil, shouldStop: { calls += 1; return calls > 5 })
        var count = 0
        while try live.nextGravity() != nil { count += 1 }
        #expect(count == 5)
    }

    @Test func nothingAtTheAddressIsOneLineWithTheFix() throws {
        // The emulated chip answers at 0x68 only.
        let e = try Emulated(profile: "rest", address: 0x69)
        let live = LiveGravity(source: e.source, found: e.found, pipeline: DaemonFactory.orientationPipeline(Configuration()),
                               clock: e.sensor.clock, duration: 1, shouldStop: { false })
        #expect(throws: CLIError.failure("nothing answers at 0x69 on /dev/i2c-1",
                                         fix: "Check the wiring (3.3 V, GND, SDA, SCL) and the address (AD0/SDO pin); 'plumb probe' lists what answers.")) {
            _ = try live.nextGravity()
        }
    }

    @Test func kioskTurnsTheScreenAfterTheHoldOffOnTheLiveClock() throws {
        let e = try Emulated(profile: "tour")
        let context = CommandContext.capturing()
        let controller = KioskController(backend: KioskBackend(kind: .wlrRandr, output: "HDMI-A-1", command: nil),
                                         settings: .init(holdOff: Nanoseconds.perSecond), runner: PrintingRunner(context: context),
                                         lock: KioskLock(OrientationLockSources(lockFile: nil)))
        var pipeline = DaemonFactory.orientationPipeline(Configuration())
        var ticks = 0
        try Kiosk.followLive(e.source, found: e.found, pipeline: &pipeline, controller: controller, clock: e.sensor.clock,
                             duration: 60, shouldStop: { false }, tick: { t in ticks += 1; #expect(throws: Never.self) { try controller.tick(at: t) } })
        let rotations = controller.events.compactMap { event -> (InterfaceOrientation, UInt64)? in
            if case .rotated(let o, _, let t) = event { return (o, t) }
            return nil
        }
        // The tour turns the board through its faces: the screen follows, each turn a hold-off after its change.
        #expect(rotations.count >= 2)
        #expect(rotations.allSatisfy { $0.1 >= Nanoseconds.perSecond })
        #expect(context.out.captured.contains("(dry run) wlr-randr --output HDMI-A-1 --transform"))
        #expect(ticks > 100)
    }

    @Test func ledsFollowTheLiveSensorAndGoOffAtTheEnd() throws {
        let root = NSTemporaryDirectory() + "plumb-led-live-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let names = ["x1", "x2", "y1", "y2", "z1", "z2"]
        for name in names {
            try FileManager.default.createDirectory(atPath: "\(root)/\(name)", withIntermediateDirectories: true)
            try "1\n".write(toFile: "\(root)/\(name)/max_brightness", atomically: true, encoding: .utf8)
            try "0\n".write(toFile: "\(root)/\(name)/brightness", atomically: true, encoding: .utf8)
            try "none\n".write(toFile: "\(root)/\(name)/trigger", atomically: true, encoding: .utf8)
        }
        let outputs: [any DigitalOutput] = try names.map { try SysfsLED($0, root: root) }
        let e = try Emulated(profile: "tour")
        let live = LiveGravity(source: e.source, found: e.found, pipeline: DaemonFactory.orientationPipeline(Configuration()),
                               clock: e.sensor.clock, duration: 12, shouldStop: { false })
        let context = CommandContext.capturing()
        try LED.drive(live, outputs: outputs, mode: .faces, frames: nil, pacer: FramePacer(clock: VirtualClock(), rate: 10), context: context)
        // The same faces as the simulated tour's first 12 s, on the emulator's clock.
        #expect(context.out.captured.split(separator: "\n").map { $0.split(separator: " ").last.map(String.init) ?? "" } == ["+z", "+y", "-z"])
        for name in names {
            #expect(try String(contentsOfFile: "\(root)/\(name)/brightness", encoding: .utf8) == "0\n")
        }
    }

    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/dev/i2c-1"), "a real /dev/i2c-1 is present"))
    func withoutABusEachCommandSaysSoAndHowToFixIt() throws {
        let config = NSTemporaryDirectory() + "plumb-live-\(UUID().uuidString).json"
        try #"{"board": "rpi4", "imu": {"rate": 100}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let expected = "Error: there is no I2C bus /dev/i2c-1\nFix: Enable I2C (dtparam=i2c_arm=on in config.txt, then reboot), list the buses with 'i2cdetect -l' and give --bus, or use --simulate.\n"
        for command in [["level", "--png", "/nonexistent/x.png"], ["kiosk", "--dry-run"], ["led", "--leds", "ACT"], ["watch"]] {
            let r = plumb(command + ["--config", config, "--boards-dir", boardsDirectory])
            #expect(r.status == 1, "\(command)")
            #expect(r.err == expected, "\(command)")
            #expect(r.out == "", "\(command)")
        }
    }

    @Test func liveOptionsAreCheckedLikeWatchs() throws {
        var r = plumb(["level", "--simulate", "--bus", "/dev/i2c-1"])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: '--bus' names the board's IMU; it cannot be combined with '--simulate'.\n"))
        r = plumb(["led", "--angle", "30", "--address", "0x68"])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: '--address' names the board's IMU; it cannot be combined with '--angle'.\n"))
        r = plumb(["kiosk", "--replay", "x.csv", "--config", "a.json"])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: '--config' names the board's IMU; it cannot be combined with '--replay'.\n"))
        r = plumb(["kiosk", "--bus", "/dev/i2c-1", "--config", "/nonexistent/plumb.json"])
        #expect(r.status == 1)
        #expect(r.err == "Error: /nonexistent/plumb.json: cannot read the file (no such file)\nFix: Run 'plumb config check /nonexistent/plumb.json', or use --simulate or --replay FILE.csv.\n")
        r = plumb(["level", "--terminal", "--config", "/nonexistent/plumb.json"])
        #expect(r.status == 1)
        #expect(r.err == "Error: /nonexistent/plumb.json: cannot read the file (no such file)\nFix: Run 'plumb config check /nonexistent/plumb.json', or use --simulate or --angle DEG.\n")
        #expect(r.out == "")
        r = plumb(["led", "--bus", "i2c-1"])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: The value 'i2c-1' is invalid for '--bus': expected a path such as /dev/i2c-1.\n"))
    }
}
