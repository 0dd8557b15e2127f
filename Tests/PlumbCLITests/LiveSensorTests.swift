import Foundation
import Synchronization
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
struct Emulated {
    let sensor: PlumbSimulation.SimulatedSensor
    let source: StreamSampleSource
    let found: LiveSensor.Found

    init(profile: String, address: UInt8 = 0x68, configuration: Configuration = Configuration()) throws {
        try self.init(motion: MotionProfile.named(profile)!, address: address, configuration: configuration)
    }

    /// The board at rest standing upright in portrait (the `rest` profile lies face up, and a
    /// kiosk turns nothing before an upright face).
    static let upright = MotionProfile.rest(Rotation(axis: SIMD3(1, 0, 0), angle: .pi / 2))

    init(motion: MotionProfile, address: UInt8 = 0x68, configuration: Configuration = Configuration()) throws {
        sensor = PlumbSimulation.SimulatedSensor(model: SimulatedChips.model("mpu6050")!, profile: motion, seed: 1)
        let at = I2CAddress(UInt8(address))
        let imu = try DaemonFactory.makeIMU(bus: sensor.bus, address: at, clock: sensor.clock, part: nil)
        source = StreamSampleSource(name: "emulated MPU-6050", imu: imu, line: sensor.line, clock: sensor.clock)
        let board = BoardSelection(board: Board(id: "rpi4", name: "Raspberry Pi 4", models: [], i2cBus: "/dev/i2c-1", interrupt: nil,
                                                display: nil, leds: [], imuAddress: at), reason: .override)
        var imuConfiguration = DaemonFactory.imuConfiguration(configuration)
        imuConfiguration.gyroscopeEnabled = true
        found = LiveSensor.Found(setup: DaemonSetup(path: "test.json", configuration: configuration, board: board),
                                 imu: imuConfiguration, busPath: "/dev/i2c-1", address: at)
    }
}

@Suite("The board's IMU behind level, kiosk and led")
struct LiveSensorTests {
    @Test func liveGravityFollowsTheSensorUntilTheDurationAndStopsIt() throws {
        let e = try Emulated(profile: "rest")
        let live = LiveGravity(source: e.source, found: e.found, clock: e.sensor.clock, duration: 2,
                               powerMonitor: FixedPowerMonitor(PowerState()), shouldStop: { false })
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

    /// A sensor that stops answering before it is stopped (unplugged while plumb level or led
    /// ran) is told as its start and reads are: one line naming the address and bus, and the fix.
    @Test func aSensorGoneAtTheStopIsOneLineWithTheFix() throws {
        let e = try Emulated(profile: "rest")
        let live = LiveGravity(source: e.source, found: e.found, clock: e.sensor.clock, duration: nil,
                               powerMonitor: FixedPowerMonitor(PowerState()), shouldStop: { false })
        _ = try #require(try live.nextGravity())
        e.sensor.bus.nothingAnswersErrno = Errno.ENXIO // a PC adapter (PiAdapterTests: a Raspberry Pi's EREMOTEIO)
        e.sensor.bus.faults.append(FaultRule(.always, effect: .noAcknowledge))
        #expect(throws: CLIError.failure("nothing answers at 0x68 on /dev/i2c-1",
                                         fix: I2CHelp.wiringFix + " 'plumb probe' lists what answers; an MPU-6050 with AD0 high is 0x69, an LSM6DS with SA0 low 0x6a.")) {
            try live.finish()
        }
    }

    @Test func liveGravityEndsWhenASignalAsks() throws {
        let e = try Emulated(profile: "rest")
        nonisolated(unsafe) var calls = 0
        let live = LiveGravity(source: e.source, found: e.found, clock: e.sensor.clock, duration: nil,
                               powerMonitor: FixedPowerMonitor(PowerState()), shouldStop: { calls += 1; return calls > 5 })
        var count = 0
        while try live.nextGravity() != nil { count += 1 }
        #expect(count == 5)
    }

    @Test func nothingAtTheAddressIsOneLineWithTheFix() throws {
        // The emulated chip answers at 0x68 only.
        let e = try Emulated(profile: "rest", address: 0x69)
        e.sensor.bus.nothingAnswersErrno = Errno.ENXIO // a PC adapter (PiAdapterTests: a Raspberry Pi's EREMOTEIO)
        let live = LiveGravity(source: e.source, found: e.found, clock: e.sensor.clock, duration: 1,
                               powerMonitor: FixedPowerMonitor(PowerState()), shouldStop: { false })
        #expect(throws: CLIError.failure("nothing answers at 0x69 on /dev/i2c-1",
                                         fix: I2CHelp.wiringFix(bus: "/dev/i2c-1", address: I2CAddress(0x69)) + " 'plumb probe' lists what answers; an MPU-6050 with AD0 high is 0x69, an LSM6DS with SA0 low 0x6a.")) {
            _ = try live.nextGravity()
        }
    }

    @Test func nothingAtTheAddressNamesTheAddressAnIMUAnswersAt() throws {
        // The emulated MPU-6050 answers at 0x68; the configuration says 0x69.
        let e = try Emulated(profile: "rest", address: 0x69)
        let error = MotionSourceError.imu(.bus(I2CError(errno: Errno.ENXIO, bus: "/dev/i2c-1", address: I2CAddress(0x69))))
        let bus = e.sensor.bus
        #expect(LiveSensor.failure(error, found: e.found, probe: { (try? IMUFamilies.probe(bus)) ?? [] })
                == CLIError.failure("nothing answers at 0x69 on /dev/i2c-1, but MPU-6050 answers at 0x68",
                                    fix: "Give --address 0x68, or set imu.address to \"0x68\" in test.json."))
        // Nothing anywhere: the wiring fix.
        #expect(LiveSensor.failure(error, found: e.found, probe: { [] })
                == CLIError.failure("nothing answers at 0x69 on /dev/i2c-1",
                                    fix: I2CHelp.wiringFix(bus: "/dev/i2c-1", address: I2CAddress(0x69)) + " 'plumb probe' lists what answers; an MPU-6050 with AD0 high is 0x69, an LSM6DS with SA0 low 0x6a."))
    }

    @Test func kioskTurnsTheScreenAfterTheHoldOffOnTheLiveClock() throws {
        let e = try Emulated(profile: "tour")
        let context = CommandContext.capturing()
        let runner = TimedRunner(PrintingRunner(context: context), clock: e.sensor.clock)
        let worker = KioskWorker(backend: KioskBackend(kind: .wlrRandr, output: "HDMI-A-1", command: nil),
                                 settings: .init(holdOff: Nanoseconds.perSecond), runner: runner,
                                 lock: KioskLock(OrientationLockSources(lockFile: nil)), shown: nil, placement: .callersThread)
        let printer = KioskPrinter(context: context)
        var ticks = 0
        try Kiosk.followLive(e.source, found: e.found, worker: worker, clock: e.sensor.clock,
                             duration: 60, powerMonitor: FixedPowerMonitor(PowerState()), shouldStop: { false }, show: { ticks += 1; printer.show($0) })
        let rotations = runner.turns
        // The tour turns the board through its faces: the screen follows, each turn a hold-off after its change.
        #expect(rotations.count >= 2)
        #expect(rotations.allSatisfy { $0.1 >= Nanoseconds.perSecond })
        #expect(context.out.captured.contains("(dry run) wlr-randr --output HDMI-A-1 --on --transform"))
        #expect(context.err.captured == "")
        #expect(ticks > 100)
        #expect(throws: Never.self) { try KioskPrinter.finish(worker) }
    }

    /// plumb kiosk on the board's IMU started before the compositor: the first turn fails three
    /// times and works on the fourth try, 7 s after the first, without the board moving; the
    /// failure is told once, as a warning with its fix.
    @Test func kioskOnTheLiveSensorTriesAFailedTurnAgainUntilItWorks() throws {
        let e = try Emulated(motion: Emulated.upright)
        let context = CommandContext.capturing()
        let runner = FailingRunner(times: 3, message: "wlr-randr cannot reach a Wayland compositor (WAYLAND_DISPLAY=wayland-1, XDG_RUNTIME_DIR=/run/user/1000)")
        let worker = KioskWorker(backend: KioskBackend(kind: .wlrRandr, output: "HDMI-A-1"), settings: .init(holdOff: Nanoseconds.perSecond),
                                 runner: runner, lock: KioskLock(OrientationLockSources(lockFile: nil)), shown: nil, placement: .callersThread)
        let printer = KioskPrinter(context: context)
        try Kiosk.followLive(e.source, found: e.found, worker: worker, clock: e.sensor.clock,
                             duration: 20, powerMonitor: FixedPowerMonitor(PowerState()), shouldStop: { false }, show: printer.show)
        #expect(runner.tries == 4)
        #expect(worker.shownAfterEnd() == .portrait)
        let err = context.err.captured.split(separator: "\n").map(String.init)
        #expect(err.count == 3, "\(err)")
        #expect(err.first == "Warning: could not turn the screen to portrait (wlr-randr --output HDMI-A-1 --on --transform normal); "
                + "trying again in 1 s, then at least every 10 s, until it works: "
                + "wlr-randr cannot reach a Wayland compositor (WAYLAND_DISPLAY=wayland-1, XDG_RUNTIME_DIR=/run/user/1000)")
        #expect(err.dropFirst().first == "Fix: " + FailingRunner.fix)
        // Tries at the hold-off's end and 1, 2 and 4 s later: on the live clock, within the 100 ms between ticks.
        #expect(err.last?.hasPrefix("plumb kiosk: turned the screen to portrait after 3 failed tries in 7") == true, "\(err)")
        let out = context.out.captured.split(separator: "\n").map(String.init)
        #expect(out.count == 2, "\(out)")
        #expect(out.first?.hasSuffix("s  portrait: wlr-randr --output HDMI-A-1 --on --transform normal failed, screen stays") == true)
        #expect(out.last?.hasSuffix("s  portrait: wlr-randr --output HDMI-A-1 --on --transform normal") == true)
        #expect(throws: Never.self) { try KioskPrinter.finish(worker) }
    }

    /// A turn that keeps failing on the board's IMU: a warning, an error after a minute, the
    /// command keeps trying until it is stopped (here by a signal after 80 s), then stops the
    /// sensor and ends with the failure.
    @Test func kioskOnTheLiveSensorKeepsTryingAFailingTurnUntilStopped() throws {
        let e = try Emulated(motion: Emulated.upright)
        let context = CommandContext.capturing()
        let runner = FailingRunner()
        let worker = KioskWorker(backend: KioskBackend(kind: .wlrRandr, output: "HDMI-A-1"), settings: .init(holdOff: Nanoseconds.perSecond),
                                 runner: runner, lock: KioskLock(OrientationLockSources(lockFile: nil)), shown: nil, placement: .callersThread)
        let printer = KioskPrinter(context: context)
        let clock = e.sensor.clock
        try Kiosk.followLive(e.source, found: e.found, worker: worker, clock: clock,
                             duration: nil, powerMonitor: FixedPowerMonitor(PowerState()), shouldStop: { clock.nowNanoseconds >= 80 * Nanoseconds.perSecond }, show: printer.show)
        // After the hold-off, +1, +2, +4, +8 s, then every 10 s: 11 tries in 80 s.
        #expect(runner.tries == 11)
        let err = context.err.captured.split(separator: "\n").map(String.init)
        try #require(err.count == 4, "\(err)")
        #expect(err.first?.hasPrefix("Warning: could not turn the screen to portrait (wlr-randr --output HDMI-A-1 --on --transform normal); trying again in 1 s") == true)
        #expect(err[1] == "Fix: " + FailingRunner.fix)
        #expect(err[2].hasPrefix("Error: still cannot turn the screen to portrait after 10 tries in 6"), "\(err[2])")
        #expect(err[2].hasSuffix("(wlr-randr --output HDMI-A-1 --on --transform normal); trying again every 10 s: there is no output HDMI-A-1; wlr-randr lists: HEADLESS-1"))
        #expect(err[3] == "Fix: " + FailingRunner.fix)
        #expect(context.out.captured.split(separator: "\n").count == 1)
        // The command ends with the failure it kept trying to get past.
        #expect(throws: CLIError.failure("there is no output HDMI-A-1; wlr-randr lists: HEADLESS-1", fix: FailingRunner.fix)) { try KioskPrinter.finish(worker) }
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
        let live = LiveGravity(source: e.source, found: e.found, clock: e.sensor.clock, duration: 12,
                               powerMonitor: FixedPowerMonitor(PowerState()), shouldStop: { false })
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
        let expected = I2CHelp.existingBuses().isEmpty
            ? "Error: there is no I2C bus /dev/i2c-1: I2C is not enabled\nFix: \(I2CHelp.enableFix)\n"
            : "Error: there is no I2C bus /dev/i2c-1; this machine has \(I2CHelp.existingBuses().joined(separator: ", "))\nFix: Give --bus one of those: on a Raspberry Pi the 40-pin header (pins 3 and 5) is /dev/i2c-1. 'plumb probe' shows what answers on each.\n"
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
        #expect(r.err == "Error: /nonexistent/plumb.json: cannot read the file (no such file)\nFix: Check the path; 'plumb config example' prints a file to start from (scripts/install puts a minimal one at /etc/plumb/plumb.json); or use --simulate or --replay FILE.csv.\n")
        r = plumb(["level", "--terminal", "--config", "/nonexistent/plumb.json"])
        #expect(r.status == 1)
        #expect(r.err == "Error: /nonexistent/plumb.json: cannot read the file (no such file)\nFix: Check the path; 'plumb config example' prints a file to start from (scripts/install puts a minimal one at /etc/plumb/plumb.json); or use --simulate or --angle DEG.\n")
        #expect(r.out == "")
        r = plumb(["led", "--bus", "i2c1"])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: The value 'i2c1' is invalid for '--bus': expected a device such as /dev/i2c-1 (or just 1).\n"))
    }
}

/// The errors a beginner meets first (I2C off, the wrong bus, no permission, nothing wired, the
/// wrong address): one line saying what is wrong, and a fix that says what to type.
@Suite struct BeginnerI2CErrorTests {
    @Test func busNumbersAndNamesAreReadAsDevicePaths() throws {
        #expect(try I2CHelp.busPath("1") == "/dev/i2c-1")
        #expect(try I2CHelp.busPath("i2c-20") == "/dev/i2c-20")
        #expect(try I2CHelp.busPath("/dev/i2c-1") == "/dev/i2c-1")
        #expect(throws: CLIError.usage("The value 'one' is invalid for '--bus': expected a device such as /dev/i2c-1 (or just 1).")) {
            try I2CHelp.busPath("one")
        }
    }

    @Test func aMissingBusNamesTheBusesThereAreOrSaysI2CIsOff() {
        let missing = I2CError(errno: Errno.ENOENT, bus: "/dev/i2c-3", address: nil)
        #expect(I2CHelp.openFailure(missing, buses: ["/dev/i2c-1", "/dev/i2c-20"])
                == .failure("there is no I2C bus /dev/i2c-3; this machine has /dev/i2c-1, /dev/i2c-20",
                            fix: "Give --bus one of those: on a Raspberry Pi the 40-pin header (pins 3 and 5) is /dev/i2c-1. 'plumb probe' shows what answers on each."))
        #expect(I2CHelp.openFailure(missing, buses: []) == .failure("there is no I2C bus /dev/i2c-3: I2C is not enabled", fix: I2CHelp.enableFix))
        #expect(I2CHelp.enableFix.contains("sudo raspi-config nonint do_i2c 0"))
    }

    /// A typo in the name ("/dev/i2c1") said "I2C is not enabled" where none is, and a node that
    /// is not an adapter (/dev/null, a directory) had no fix at all.
    @Test func aMistypedBusOrANodeThatIsNoAdapterSaysWhatABusIsCalled() {
        let typo = I2CError(errno: Errno.ENOENT, bus: "/dev/i2c1", address: nil)
        #expect(I2CHelp.openFailure(typo, buses: ["/dev/i2c-1"])
                == .failure("there is no I2C bus /dev/i2c1: an I2C bus is /dev/i2c-N; this machine has /dev/i2c-1",
                            fix: "Give --bus a bus such as /dev/i2c-1 (or just 1): on a Raspberry Pi the 40-pin header (pins 3 and 5) is /dev/i2c-1."))
        #expect(I2CHelp.openFailure(typo, buses: [])
                == .failure("there is no I2C bus /dev/i2c1: an I2C bus is /dev/i2c-N",
                            fix: "Give --bus a bus such as /dev/i2c-1 (or just 1): on a Raspberry Pi the 40-pin header (pins 3 and 5) is /dev/i2c-1. "
                                + "'ls /dev/i2c-*' lists none here: " + I2CHelp.enableFix))
        let r = plumb(["read", "--bus", "/dev/null", "--count", "1"])
        #expect(r.status == 1)
        #expect(r.err == "Error: /dev/null is not an i2c-dev node: I2C_FUNCS failed (Inappropriate ioctl for device)\n"
                + "Fix: Give --bus an I2C adapter's device, /dev/i2c-N ('ls /dev/i2c-*' lists them; on a Raspberry Pi the 40-pin header is /dev/i2c-1).\n")
    }

    /// /dev/i2c-1 itself failing otherwise (ENODEV: the adapter's driver went) was told to give
    /// --bus an I2C adapter's device, /dev/i2c-N: the one it gave.
    @Test func aBusThatFailsOtherwiseIsNotCalledAWrongName() {
        let gone = I2CError(errno: Errno.ENODEV, bus: "/dev/i2c-1", address: nil)
        guard case .failure(_, let fix)? = Optional(I2CHelp.openFailure(gone, buses: ["/dev/i2c-1"])) else { Issue.record("not a failure"); return }
        #expect(fix == "'i2cdetect -l' lists the adapters there are (/dev/i2c-1's may have gone with its driver); 'plumb probe' tries each bus.")
        // A node named like a bus that is no adapter (a regular file) still gets the name's fix.
        let file = I2CError(errno: ENOTTY, bus: "/dev/i2c-1", address: nil)
        guard case .failure(_, let fileFix)? = Optional(I2CHelp.openFailure(file, buses: [])) else { Issue.record("not a failure"); return }
        #expect(fileFix?.hasPrefix("Give --bus an I2C adapter's device") == true)
    }

    @Test func noPermissionSaysWhichGroupAndToLogInAgain() {
        let denied = I2CError(errno: Errno.EACCES, bus: "/dev/i2c-1", address: nil)
        #expect(I2CHelp.openFailure(denied, buses: ["/dev/i2c-1"])
                == .failure("permission denied on /dev/i2c-1",
                            fix: "Add yourself to the i2c group: 'sudo usermod -aG i2c $USER', then log out and in again (or run with sudo)."))
    }

    @Test func theWrongAddressNamesTheRightOne() {
        let r = plumb(["read", "--simulate", "--chip", "lsm6dsr", "--address", "0x6b", "--count", "1"])
        #expect(r.status == 1)
        #expect(r.err == "Error: no IMU answers at 0x6b on simulated bus, but LSM6DSR/ISM330DHCX answers at 0x6a\nFix: Give --address 0x6a, or leave --address out: the address is found by probing.\n")
    }

    @Test func nothingWiredIsTheWiringFix() throws {
        // An emulated bus with no chip on it: nothing acknowledges.
        let bus = EmulatedI2CBus(path: "/dev/i2c-1", clock: VirtualClock())
        #expect(throws: SensorOptions.silence("/dev/i2c-1", at: nil)) {
            _ = try SensorOptions.identify(bus: bus, address: nil, part: nil, clock: VirtualClock())
        }
        #expect(SensorOptions.silence("/dev/i2c-1", at: nil)
                == .failure("no IMU answers on /dev/i2c-1 (nothing acknowledged at 0x68, 0x69, 0x6a or 0x6b)", fix: I2CHelp.wiringFix))
    }
}

extension BeginnerI2CErrorTests {
    /// Before 'scripts/install' there is no /etc/plumb/plumb.json: the live commands find the IMU
    /// as 'plumb read' does instead of failing on the missing file.
    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/etc/plumb/plumb.json") && !FileManager.default.fileExists(atPath: "/dev/i2c-7"),
                   "an installed configuration or a /dev/i2c-7 is present"))
    func withoutAnInstalledConfigurationTheLiveCommandsStillLookForTheBus() {
        let r = plumb(["watch", "--bus", "7"])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: there is no I2C bus /dev/i2c-7"))
    }
}

/// A runner that notes when each turn was made (the printer takes the controller's events).
final class TimedRunner: RotationActionRunner, Sendable {
    let inner: any RotationActionRunner & Sendable
    let clock: any MonotonicClock
    private let made = Mutex<[(RotationAction, UInt64)]>([])
    var turns: [(RotationAction, UInt64)] { made.withLock { $0 } }
    init(_ inner: any RotationActionRunner & Sendable, clock: any MonotonicClock) { self.inner = inner; self.clock = clock }
    func perform(_ action: RotationAction) throws {
        made.withLock { $0.append((action, clock.nowNanoseconds)) }
        try inner.perform(action)
    }
    func capture(_ action: RotationAction) throws -> String? { try inner.capture(action) }
}
