import Foundation
import PlumbConfiguration
import PlumbDisplay
import PlumbDrivers
import PlumbHAL
import PlumbLinux
import PlumbOrientation
import PlumbSimulation
import Testing
@testable import PlumbCLI

/// Every command on the board's IMU follows plumb.json as `plumb run` does, except where a flag
/// given on the command line says otherwise: the settings each builds from a configuration,
/// checked on the emulated chip (no hardware).
@Suite("plumb.json on the board's IMU: watch, level, led, kiosk")
struct LiveConfigurationTests {
    static func configuration(_ json: String) throws -> Configuration {
        try Configuration.decode(json, file: "plumb.json")
    }

    static func found(_ json: String) throws -> LiveSensor.Found {
        try Emulated(profile: "rest", configuration: configuration(json)).found
    }

    static let noSensor: MotionOrientation.SourceFactory = { () throws(MotionSourceError) -> any MotionSampleSource in
        throw .other("no sensor in this test")
    }

    // MARK: every command

    /// The calibration file reaches every live command's samples (``LiveSensor/calibrated(_:configuration:)``,
    /// which ``LiveSensor/open(_:context:command:)`` and plumb dbus's claims use), as plumb run applies it.
    @Test func theCalibrationFileCorrectsTheLiveSamples() throws {
        let path = NSTemporaryDirectory() + "plumb-live-cal-\(getpid()).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Calibration(gyroscopeBias: SIMD3(0.1, 0, 0), accelerometerOffset: SIMD3(0, 0, 0.5)).jsonData().write(to: URL(fileURLWithPath: path))
        var c = Configuration()
        c.calibrationFile = path
        let csv = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n0,0.1,0.2,0,0,0,10.3\n0.01,0.1,0.2,0,0,0,10.3\n"
        let recording = try IMURecording.parse(csv: Array(csv.utf8), name: "still.csv")
        let source = LiveSensor.calibrated(RecordingSource(recording: recording, name: "still"), calibration: try DaemonFactory.loadCalibration(c))
        _ = try source.start(IMUConfiguration(outputDataRate: 100))
        var samples: [IMUSample] = []
        while try source.read(into: &samples, timeoutNanoseconds: 100_000_000) != .finished {}
        #expect(samples.count == 2)
        for sample in samples {
            #expect(abs(sample.angularRate.x) < 1e-12 && abs(sample.angularRate.y - 0.2) < 1e-12)
            #expect(abs(sample.acceleration.z - 9.8) < 1e-9)
        }
        // No calibration file: the source as it is.
        let plain = RecordingSource(recording: recording, name: "still")
        #expect(try LiveSensor.calibrated(plain, calibration: DaemonFactory.loadCalibration(Configuration())) === plain)
    }

    // MARK: plumb watch

    /// Without --filter, the configuration's filter and its parameters; --filter names another
    /// (with its own defaults), or the same one (the file's parameters kept).
    @Test(arguments: [
        ([String](), FilterSettings.Kind.complementary, 2.0 as Double?),
        (["--filter", "madgwick"], .madgwick, nil),
        (["--filter", "complementary"], .complementary, 2.0),
    ])
    func watchTakesTheConfigurationsFilterUnlessTold(arguments: [String], kind: FilterSettings.Kind, timeConstant: Double?) throws {
        let c = try Self.configuration(#"{"filter": {"kind": "complementary", "timeConstant": 2}}"#)
        let settings = try Watch.liveSettings(try parse(arguments, spec: Watch.spec), configuration: c)
        #expect(settings.configuration.filter.kind == kind)
        #expect(settings.configuration.filter.timeConstant == timeConstant)
    }

    /// `orientation.lowEnergy` decides the mode as for `plumb run`; --low-energy forces it on.
    @Test(arguments: [
        ("auto", [String](), true, true), ("auto", [], false, false), ("on", [], false, true),
        ("off", [], true, false), ("off", ["--low-energy"], false, true),
    ])
    func watchFollowsTheConfigurationsLowEnergySetting(setting: String, arguments: [String], powerSaver: Bool, expectLow: Bool) throws {
        let found = try Self.found(#"{"orientation": {"lowEnergy": "\#(setting)"}}"#)
        let source = IdleSource()
        let (motion, _) = try Watch.liveNotifier(found, args: try parse(arguments, spec: Watch.spec), source: { source },
                                                 powerMonitor: FixedPowerMonitor(PowerState(powerSaver: powerSaver)))
        motion.start()
        defer { motion.stop() }
        let started = try #require(source.firstStart())
        #expect(started.gyroscopeEnabled == !expectLow)
        #expect(started.outputDataRate == (expectLow ? EnergySettings.defaultLowEnergy.outputDataRate : found.imu.outputDataRate))
    }

    /// The configuration's tunings (preset and single values, in both modes), then the flags
    /// given; --steady sets the preset under the file's single values.
    @Test func watchTakesTheConfigurationsTuningsUnderItsFlags() throws {
        let json = #"{"orientation": {"preset": "responsive", "hysteresis": 10, "maxRotationRate": 75}}"#
        let found = try Self.found(json)
        let (motion, _) = try Watch.liveNotifier(found, args: try parse(["--settle", "0.2"], spec: Watch.spec), source: Self.noSensor, powerMonitor: nil)
        var expected = DaemonFactory.classifiers(try Self.configuration(json).orientation)
        expected.override(hysteresis: nil, settleTime: 0.2, maximumRotationRate: nil, rateTimeConstant: nil)
        #expect(motion.classifierSettings == expected.normal)
        #expect(motion.energySettings.lowEnergyClassifier == expected.lowEnergy)
        #expect(motion.classifierSettings.hysteresisDegrees == 10)

        let (steady, _) = try Watch.liveNotifier(found, args: try parse(["--steady"], spec: Watch.spec), source: Self.noSensor, powerMonitor: nil)
        var steadyFile = try Self.configuration(json).orientation
        steadyFile.preset = .steady
        #expect(steady.classifierSettings == DaemonFactory.classifiers(steadyFile).normal)
        #expect(steady.energySettings.lowEnergyClassifier == DaemonFactory.classifiers(steadyFile).lowEnergy)
    }

    /// A time cap in the file counts for --dwell-margin; without one anywhere it is a usage error.
    @Test func watchsDwellFlagsSeeTheConfigurationsTimeCap() throws {
        let args = try parse(["--dwell-margin", "5"], spec: Watch.spec)
        let (motion, _) = try Watch.liveNotifier(try Self.found(#"{"orientation": {"maxWait": 0.8}}"#), args: args,
                                                 source: Self.noSensor, powerMonitor: nil)
        #expect(motion.classifierSettings.maximumWait == 0.8)
        #expect(motion.classifierSettings.dwellMarginDegrees == 5)
        #expect(throws: CLIError.self) { _ = try Watch.liveNotifier(try Self.found("{}"), args: args, source: Self.noSensor, powerMonitor: nil) }
    }

    @Test func watchTakesTheConfigurationsMountingAndRate() throws {
        let found = try Self.found(#"{"mounting": {"x": "-y", "y": "+x"}, "imu": {"rate": 200}}"#)
        let (motion, _) = try Watch.liveNotifier(found, args: try parse([], spec: Watch.spec), source: Self.noSensor, powerMonitor: nil)
        #expect(motion.mounting.0 == SIMD3(0, -1, 0) && motion.mounting.1 == SIMD3(1, 0, 0) && motion.mounting.2 == SIMD3(0, 0, 1))
        #expect(motion.energySettings.normal.outputDataRate == 200)
    }

    /// The interface printed keeps to `orientation.interfaceOrientations`: the emulated tour turns
    /// the board through every face, and only the landscape ones show, from the first line on (the
    /// first the file lists until an allowed face is seen; never portrait).
    @Test func watchPrintsOnlyTheConfigurationsInterfaceOrientations() throws {
        func interfaces(_ json: String) throws -> [String] {
            let source: MotionOrientation.SourceFactory = { () throws(MotionSourceError) -> any MotionSampleSource in
                do {
                    return try SimulatedIMU.source(chip: "mpu6050", profile: try SimulatedIMU.profile("tour"), duration: 40).source
                } catch {
                    throw .other("simulated IMU: \(error)")
                }
            }
            let (motion, allowed) = try Watch.liveNotifier(try Self.found(json), args: try parse([], spec: Watch.spec),
                                                           source: source, powerMonitor: nil)
            let context = CommandContext.capturing()
            try Watch.watch(motion, until: nil, allowedInterfaces: allowed, printer: ChangePrinter(format: "jsonl", context: context))
            return try context.out.captured.split(separator: "\n").map { line in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return try #require(object["interfaceOrientation"] as? String)
            }
        }
        let all = try interfaces("{}")
        #expect(Set(all).count >= 3, "\(all)")
        #expect(all.first == "portrait", "\(all)")
        let landscape = try interfaces(#"{"orientation": {"interfaceOrientations": ["landscapeLeft", "landscapeRight"]}}"#)
        #expect(landscape.first == "landscapeLeft", "\(landscape)")
        #expect(landscape.allSatisfy { $0 == "landscapeLeft" || $0 == "landscapeRight" }, "\(landscape)")
        #expect(Set(landscape) == ["landscapeLeft", "landscapeRight"], "\(landscape)")
        #expect(landscape.count == all.count)
        let reversed = try interfaces(#"{"orientation": {"interfaceOrientations": ["landscapeRight", "landscapeLeft"]}}"#)
        #expect(reversed.first == "landscapeRight", "\(reversed)")
        #expect(!reversed.contains("portrait"), "\(reversed)")
    }

    /// --allow replaces `orientation.interfaceOrientations` on the board's IMU, in the order given,
    /// as plumb kiosk's does; without it the file's list stays.
    @Test func watchsAllowReplacesTheConfigurationsInterfaceOrientations() throws {
        let found = try Self.found(#"{"orientation": {"interfaceOrientations": ["portrait", "portraitUpsideDown"]}}"#)
        let (_, file) = try Watch.liveNotifier(found, args: try parse([], spec: Watch.spec), source: Self.noSensor, powerMonitor: nil)
        #expect(file == [.portrait, .portraitUpsideDown])
        let flag = try parse(["--allow", "landscapeRight,landscapeLeft,landscapeRight"], spec: Watch.spec)
        let (_, allowed) = try Watch.liveNotifier(found, args: flag, source: Self.noSensor, powerMonitor: nil)
        #expect(allowed == [.landscapeRight, .landscapeLeft])
        #expect(try Watch.liveSettings(flag, configuration: found.setup.configuration).configuration.orientation.interfaceOrientations
                == [.landscapeRight, .landscapeLeft])
    }

    // MARK: plumb level and plumb led

    /// `orientation.lowEnergy` runs the board's IMU for level and led as for `plumb run`: on, the
    /// accelerometer alone at the low-energy rate; auto, after the power monitor says power saver;
    /// off, never. Gravity still comes.
    @Test(arguments: [("on", false, [false]), ("auto", true, [true, false]), ("auto", false, [true]), ("off", true, [true])])
    func levelAndLEDFollowTheConfigurationsLowEnergySetting(setting: String, powerSaver: Bool, gyroscope: [Bool]) throws {
        let e = try Emulated(profile: "rest", configuration: try Self.configuration(#"{"orientation": {"lowEnergy": "\#(setting)"}}"#))
        let source = StartLog(e.source)
        let live = LiveGravity(source: source, found: e.found, clock: e.sensor.clock, duration: 5,
                               powerMonitor: FixedPowerMonitor(PowerState(powerSaver: powerSaver)), shouldStop: { false })
        var last: GravityReading?
        while let g = try live.nextGravity() { last = g }
        #expect(source.started.map(\.gyroscopeEnabled) == gyroscope)
        if gyroscope.last == false { #expect(source.started.last?.outputDataRate == EnergySettings.defaultLowEnergy.outputDataRate) }
        let g = try #require(last)
        #expect(abs(abs(g.z) - 1) < 0.05)
    }

    /// `outputs.level` gives plumb level on the board's IMU its picture and framebuffer (else the
    /// board's display), as plumb run shows them; --image and --fb replace each.
    @Test func levelTakesTheConfigurationsPictureAndFramebufferUnlessTold() throws {
        let json = #"{"outputs": {"level": {"image": "/srv/picture.png", "framebuffer": "/dev/fb1"}}}"#
        let file = Level.picture(try parse([], spec: Level.spec), live: try Self.found(json))
        #expect(file.image == "/srv/picture.png" && file.framebuffer == "/dev/fb1")
        let flags = Level.picture(try parse(["--image", "mine.jpg", "--fb", "2"], spec: Level.spec), live: try Self.found(json))
        #expect(flags.image == "mine.jpg" && flags.framebuffer == "2")
        // No framebuffer in the file: the board's display, else /dev/fb0.
        var imageOnly = try Self.found(#"{"outputs": {"level": {"image": "/srv/p.png"}}}"#)
        let noDevice = Level.picture(try parse([], spec: Level.spec), live: imageOnly)
        #expect(noDevice.image == "/srv/p.png" && noDevice.framebuffer == "/dev/fb0")
        imageOnly.setup.board.board.display = DisplayLocation(framebuffer: "/dev/fb3", connector: "DSI-1")
        #expect(Level.picture(try parse([], spec: Level.spec), live: imageOnly).framebuffer == "/dev/fb3")
        // No outputs.level, or not the board's IMU: the test pattern on /dev/fb0.
        let none = Level.picture(try parse([], spec: Level.spec), live: try Self.found("{}"))
        #expect(none.image == nil && none.framebuffer == "/dev/fb0")
        #expect(Level.picture(try parse(["--simulate"], spec: Level.spec), live: nil).image == nil)
    }

    // MARK: plumb kiosk

    /// The screen takes only `orientation.interfaceOrientations`, in the session and in the
    /// controller, as `plumb run`'s kiosk output does; --allow replaces the set in both.
    @Test func kioskKeepsToTheConfigurationsInterfaceOrientations() throws {
        let json = #"{"orientation": {"interfaceOrientations": ["landscapeLeft", "landscapeRight"]}}"#
        let resolved = try Kiosk.settings(try parse([], spec: Kiosk.spec), live: try Self.found(json))
        #expect(resolved.settings.allowed == [.landscapeLeft, .landscapeRight])
        let allowFlag = try Kiosk.settings(try parse(["--allow", "portrait"], spec: Kiosk.spec), live: try Self.found(json))
        #expect(allowFlag.settings.allowed == [.portrait])
        #expect(allowFlag.live?.setup.configuration.orientation.interfaceOrientations == [.portrait])

        let e = try Emulated(profile: "tour", configuration: try Self.configuration(json))
        let context = CommandContext.capturing()
        let runner = TimedRunner(PrintingRunner(context: context), clock: e.sensor.clock)
        let worker = KioskWorker(backend: KioskBackend(kind: .wlrRandr, output: "HDMI-A-1"), settings: resolved.settings, runner: runner,
                                 lock: KioskLock(OrientationLockSources(lockFile: nil)), shown: nil, placement: .callersThread)
        try Kiosk.followLive(e.source, found: resolved.live ?? e.found, worker: worker, clock: e.sensor.clock, duration: 60,
                             powerMonitor: FixedPowerMonitor(PowerState()), shouldStop: { false }, show: { _ in })
        let shown = runner.turns.map { "\($0.0)" }
        #expect(!shown.isEmpty)
        #expect(shown.allSatisfy { $0.hasSuffix("--transform 90") || $0.hasSuffix("--transform 270") }, "\(shown)")
    }

    /// `outputs.kiosk` gives plumb kiosk on the board's IMU its backend, output and hold-off; each
    /// flag given replaces its value, and another backend drops the file's output.
    @Test func kioskTakesTheConfigurationsKioskOutputUnlessTold() throws {
        let json = #"{"outputs": {"kiosk": {"method": "xrandr", "output": "HDMI-2", "holdOff": 2.5}}}"#
        let file = try Kiosk.settings(try parse([], spec: Kiosk.spec), live: try Self.found(json))
        #expect(file.backend.kind == .xrandr && file.backend.output == "HDMI-2")
        #expect(file.settings.holdOff == Nanoseconds.seconds(2.5))
        let flags = try Kiosk.settings(try parse(["--hold-off", "1", "--output", "HDMI-1"], spec: Kiosk.spec), live: try Self.found(json))
        #expect(flags.backend.kind == .xrandr && flags.backend.output == "HDMI-1")
        #expect(flags.settings.holdOff == Nanoseconds.perSecond)
        let other = try Kiosk.settings(try parse(["--backend", "wlr-randr"], spec: Kiosk.spec), live: try Self.found(json))
        #expect(other.backend.kind == .wlrRandr && other.backend.output == nil)
        #expect(other.settings.holdOff == Nanoseconds.seconds(2.5))
        // No output in the file: the board's display connector, as plumb run takes it.
        var board = try Self.found(#"{"outputs": {"kiosk": {"method": "wlr-randr"}}}"#)
        board.setup.board.board.display = DisplayLocation(framebuffer: "/dev/fb0", connector: "DSI-1")
        #expect(try Kiosk.settings(try parse([], spec: Kiosk.spec), live: board).backend.output == "DSI-1")
        // The file's command backend: --command replaces its command without --backend.
        let command = try Self.found(#"{"outputs": {"kiosk": {"method": "command", "command": "rotate $PLUMB_ROTATION_DEGREES"}}}"#)
        #expect(try Kiosk.settings(try parse([], spec: Kiosk.spec), live: command).backend.command == "rotate $PLUMB_ROTATION_DEGREES")
        let replaced = try Kiosk.settings(try parse(["--command", "echo"], spec: Kiosk.spec), live: command).backend
        #expect(replaced.kind == .command && replaced.command == "echo")
        #expect(throws: CLIError.usage("'--command' needs '--backend command'.")) {
            try Kiosk.settings(try parse(["--command", "echo"], spec: Kiosk.spec), live: try Self.found("{}"))
        }
        // Without outputs.kiosk: the command's defaults.
        let none = try Kiosk.settings(try parse([], spec: Kiosk.spec), live: try Self.found("{}"))
        #expect(none.backend.kind == .wlrRandr && none.backend.output == nil && none.settings == KioskController.Settings())
    }
}

/// A source that notes every configuration it is started with, then passes on to `inner`.
final class StartLog: MotionSampleSource {
    let inner: any MotionSampleSource
    private(set) var started: [IMUConfiguration] = []
    init(_ inner: any MotionSampleSource) { self.inner = inner }
    var name: String { inner.name }
    var clock: any MonotonicClock { inner.clock }
    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
        started.append(configuration)
        return try inner.start(configuration)
    }
    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        try inner.read(into: &samples, timeoutNanoseconds: timeoutNanoseconds)
    }
    func stop() throws(MotionSourceError) { try inner.stop() }
    func wake(bySampleAt sampleNanoseconds: UInt64) { inner.wake(bySampleAt: sampleNanoseconds) }
}
