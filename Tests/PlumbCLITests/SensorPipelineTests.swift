import Foundation
import Synchronization
import Testing
import PlumbDrivers
import PlumbFusion
import PlumbHAL
import PlumbDisplay
import PlumbLinux
import PlumbOrientation
import PlumbConfiguration
import PlumbSimulation
@testable import PlumbCLI

private final class RecordingOutput: DaemonOutput {
    var name: String { "recorder" }
    var changes: [String] = []
    var gravityUpdates = 0
    var restored = false
    func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws {
        changes.append("\(orientation.rawValue)/\(interface.rawValue)")
    }
    func gravityUpdated(_ gravity: SIMD3<Double>) throws { gravityUpdates += 1 }
    func restore() throws { restored = true }
}

/// 100 Hz samples holding each specific force (m/s², sensor frame) for twenty seconds: with no
/// rotation measured, the complementary filter's 5 s time constant needs several of them to follow.
private func recording(_ phases: [SIMD3<Double>]) -> IMURecording {
    var samples: [IMUSample] = []
    var t: UInt64 = 1_000_000_000
    for force in phases {
        for _ in 0..<2000 {
            samples.append(IMUSample(timestampNanoseconds: t, acceleration: force, angularRate: .zero))
            t += 10_000_000
        }
    }
    return IMURecording(samples: samples)
}

private func run(_ pipeline: SensorPipeline) throws -> [DaemonEvent] {
    var events: [DaemonEvent] = []
    while true {
        do { events += try pipeline.step(timeoutNanoseconds: 100_000_000) } catch let end as DaemonSourceFinished {
            #expect(end == DaemonSourceFinished(name: "recording"))
            return events
        }
    }
}

@Suite struct SensorPipelineTests {
    let g = 9.80665

    @Test func drivesOutputsOnEveryChangeAndRestoresThem() throws {
        let source = RecordingSource(recording: recording([SIMD3(0, 0, g), SIMD3(0, g, 0), SIMD3(g, 0, 0)]), name: "recording")
        let output = RecordingOutput()
        let pipeline = try SensorPipeline(
            source: source, configuration: IMUConfiguration(), orientation: OrientationPipeline(fused: FusionAlgorithm.complementary.makeGravityEstimator()),
            outputs: [output], allowedInterfaces: Set(InterfaceOrientation.allCases), describe: { "rate \(Int($0.outputDataRate.rounded())) Hz" })
        #expect(pipeline.summary == "rate 100 Hz")
        let events = try run(pipeline)
        // Up along +z, then +y, then +x: face up, portrait, landscape left (whose interface is landscape right).
        #expect(output.changes == ["faceUp/portrait", "portrait/portrait", "landscapeLeft/landscapeRight"])
        #expect(events.map(\.message) == ["orientation faceUp (interface portrait)", "orientation portrait (interface portrait)",
                                          "orientation landscapeLeft (interface landscapeRight)"])
        #expect(output.gravityUpdates > 0)
        try pipeline.shutdown()
        #expect(output.restored)
    }

    @Test func mountingAndDisallowedInterfacesApply() throws {
        // The sensor is mounted turned a quarter: device y is sensor -x. Up along sensor -x is device portrait.
        let source = RecordingSource(recording: recording([SIMD3(-g, 0, 0), SIMD3(0, -g, 0)]), name: "recording")
        let output = RecordingOutput()
        let pipeline = try SensorPipeline(
            source: source, configuration: IMUConfiguration(),
            orientation: OrientationPipeline(fused: FusionAlgorithm.complementary.makeGravityEstimator(),
                                             mounting: (SIMD3(0, 1, 0), SIMD3(-1, 0, 0), SIMD3(0, 0, 1))),
            outputs: [output], allowedInterfaces: [.portrait], describe: { _ in "" })
        _ = try run(pipeline)
        // Sensor -y up is device -x up: landscapeRight, whose interface (landscapeLeft) is not allowed: the interface stays portrait.
        #expect(output.changes == ["portrait/portrait", "landscapeRight/portrait"])
    }

    /// A landscape-only configuration: the log line (and the MQTT output, through the same
    /// DaemonFactory.shownInterface) never says portrait, not even before the first allowed face
    /// (lying flat, then upright in portrait): it says the first interface the file lists. The
    /// outputs still get the session's portrait start, which the kiosk (the screen stays) and
    /// D-Bus (the property stays undefined) read as "none yet".
    @Test(arguments: [(["landscapeLeft", "landscapeRight"], "landscapeLeft"), (["landscapeRight", "landscapeLeft"], "landscapeRight"),
                      (["landscapeRight", "portrait"], "portrait")])
    func theLoggedInterfaceIsAlwaysAnAllowedOne(list: [String], initial: String) throws {
        // Up along +z (face up), +y (portrait), then -x (landscapeRight, whose interface is landscapeLeft).
        let source = RecordingSource(recording: recording([SIMD3(0, 0, g), SIMD3(0, g, 0), SIMD3(-g, 0, 0)]), name: "recording")
        let output = RecordingOutput()
        var c = Configuration()
        c.orientation.interfaceOrientations = list.compactMap { InterfaceOrientationName(rawValue: $0) }
        c.filter.kind = .complementary
        c.orientation.lowEnergy = .off
        let pipeline = try DaemonFactory.session(c, source: source, normal: IMUConfiguration(), outputs: [output], correct: nil, pacing: nil,
                                                 powerMonitor: SystemPowerStateMonitor.forRoot("/nonexistent"), describe: { _ in "" })
        let events = try run(pipeline).map(\.message).filter { $0.hasPrefix("orientation ") }
        // landscapeRight shows landscapeLeft where allowed; else the interface stays as it was.
        let last = list.contains("landscapeLeft") ? "landscapeLeft" : initial
        #expect(events == ["orientation faceUp (interface \(initial))", "orientation portrait (interface \(initial))",
                           "orientation landscapeRight (interface \(last))"])
        #expect(output.changes == ["faceUp/portrait", "portrait/portrait", "landscapeRight/\(list.contains("landscapeLeft") ? "landscapeLeft" : "portrait")"])
    }
}

@Suite struct DaemonFactoryTests {
    /// What plumb watch and plumb run's reports show is always an allowed interface: before an
    /// allowed face, portrait when allowed, else the first the configuration lists.
    @Test func theShownInterfaceIsAnAllowedOne() {
        #expect(DaemonFactory.shownInterface(.portrait, allowed: InterfaceOrientation.allCases) == .portrait)
        #expect(DaemonFactory.shownInterface(.portrait, allowed: [.landscapeRight, .landscapeLeft]) == .landscapeRight)
        #expect(DaemonFactory.shownInterface(.landscapeLeft, allowed: [.landscapeRight, .landscapeLeft]) == .landscapeLeft)
        #expect(DaemonFactory.shownInterface(.portrait, allowed: [.portraitUpsideDown, .portrait]) == .portrait)
        #expect(DaemonFactory.shownInterface(.landscapeLeft, allowed: [.portraitUpsideDown]) == .portraitUpsideDown)
        #expect(DaemonFactory.initialInterface([]) == .portrait)
    }

    @Test func configurationPartsAreTheDriversRows() {
        let drivers = MPU6050.variants.map(\.key) + LSM6DS.Variant.all.map(\.key)
        #expect(IMUSettings.parts.sorted() == drivers.sorted())
    }

    @Test func orientationSettingsPickThePresetThenOverrideItInBothModes() throws {
        var o = OrientationSettings()
        #expect(DaemonFactory.classifiers(o) == ClassifierTunings(normal: .default, lowEnergy: .accelerometerOnly))
        o.preset = .steady
        #expect(DaemonFactory.classifiers(o) == ClassifierTunings(normal: .steady, lowEnergy: .steadyAccelerometerOnly))
        o.hysteresis = 10
        o.settleTime = 0.2
        o.maxRotationRate = 0
        let t = DaemonFactory.classifiers(o)
        for c in [t.normal, t.lowEnergy] {
            #expect(c.hysteresisDegrees == 10 && c.settleTime == 0.2 && c.maximumRotationRate == .infinity)
        }
        #expect(t.normal.rateTimeConstant == OrientationClassifier.Settings.steady.rateTimeConstant)
        #expect(t.lowEnergy.rateTimeConstant == OrientationClassifier.Settings.steadyAccelerometerOnly.rateTimeConstant)
        let decoded = try Configuration.decode("{\"orientation\": {\"preset\": \"steady\", \"maxRotationRate\": 45}}", file: "t", knownBoards: [])
        let d = DaemonFactory.classifiers(decoded.orientation)
        #expect(d.normal.maximumRotationRate == 45 && d.lowEnergy.maximumRotationRate == 45)
        #expect(d.normal.hysteresisDegrees == 18 && d.lowEnergy.hysteresisDegrees == 15)
        // The daemon's pipeline switches to the low-energy tuning with the estimator.
        var pipeline = DaemonFactory.orientationPipeline({ var c = Configuration(); c.orientation = o; return c }())
        pipeline.useGyroscope(false)
        #expect(pipeline.classifier.settings == t.lowEnergy)
    }

    @Test func configurationBecomesDriverSettings() throws {
        var c = Configuration()
        c.imu.rate = 400
        c.imu.accelerometerRange = 8
        let imu = DaemonFactory.imuConfiguration(c)
        #expect(imu.outputDataRate == 400)
        #expect(imu.accelerometerRange == 8)
        #expect(imu.gyroscopeEnabled)
        #expect(imu.fifoWatermark == 40)
    }

    @Test func calibrationFileCorrectsSamples() throws {
        let path = NSTemporaryDirectory() + "plumb-cal-\(getpid()).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Calibration(gyroscopeBias: SIMD3(0.01, 0, 0), accelerometerOffset: SIMD3(0, 0, 0.5)).jsonData()
            .write(to: URL(fileURLWithPath: path))
        var c = Configuration()
        c.calibrationFile = path
        let correct = try #require(try DaemonFactory.calibration(c))
        var sample = IMUSample(timestampNanoseconds: 1, acceleration: SIMD3(0, 0, 10.3), angularRate: SIMD3(0.01, 0.2, 0))
        correct(&sample)
        #expect(sample.acceleration == SIMD3(0, 0, 9.8))
        #expect(sample.angularRate == SIMD3(0, 0.2, 0))

        try Calibration(mounting: try PlumbDrivers.Mounting(alignment: "-y,+x,+z")).jsonData().write(to: URL(fileURLWithPath: path))
        c.mounting = PlumbConfiguration.Mounting(x: .minusY, y: .plusX, z: .plusZ)
        #expect(throws: CLIError.failure("both \(path) and the configuration's \"mounting\" rotate the axes",
                                         fix: "Keep one: remove \"mounting\" from the configuration, or recalibrate with the identity mounting.")) {
            try DaemonFactory.calibration(c)
        }
        c.calibrationFile = "/nonexistent/calibration.json"
        #expect(throws: CLIError.self) { try DaemonFactory.calibration(c) }
    }

    @Test func partAndAddressChooseTheDriver() throws {
        let sim = PlumbSimulation.SimulatedSensor(model: SimulatedChips.model("lsm6dsr")!)
        #expect(try DaemonFactory.makeIMU(bus: sim.bus, address: I2CAddress(UInt8(0x6A)), clock: sim.clock, part: nil) is LSM6DS)
        #expect(try DaemonFactory.makeIMU(bus: sim.bus, address: I2CAddress(UInt8(0x68)), clock: sim.clock, part: nil) is MPU6050)
        #expect(try DaemonFactory.makeIMU(bus: sim.bus, address: I2CAddress(UInt8(0x68)), clock: sim.clock, part: "lsm6dsr") is LSM6DS)
        let compressing = try DaemonFactory.makeIMU(bus: sim.bus, address: I2CAddress(UInt8(0x6A)), clock: sim.clock, part: "lsm6dso")
        #expect((compressing as? LSM6DS)?.fifoCompression == true)
        let plain = try DaemonFactory.makeIMU(bus: sim.bus, address: I2CAddress(UInt8(0x6A)), clock: sim.clock, part: "lsm6dso",
                                              fifoCompression: false)
        #expect((plain as? LSM6DS)?.fifoCompression == false)
        let decoded = try Configuration.decode("{\"imu\": {\"fifoCompression\": false}}", file: "t", knownBoards: [])
        #expect(!decoded.imu.fifoCompression)
    }
}

@Suite struct LevelDaemonOutputTests {
    @Test func drawsTheTiltedImageAndBlanksTheScreenOnRestore() throws {
        let path = NSTemporaryDirectory() + "plumb-fb-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let geometry = FramebufferGeometry(name: "file", width: 64, height: 48, bitsPerPixel: 32,
                                           red: .init(offset: 16, length: 8), green: .init(offset: 8, length: 8), blue: .init(offset: 0, length: 8))
        let framebuffer = try Framebuffer(file: path, geometry: geometry)
        let clock = VirtualClock()
        let output = try LevelDaemonOutput(framebuffer: framebuffer, image: RGBAImage(width: 32, height: 32, color: .white),
                                           imagePath: "white.png", clock: clock, frameRate: 10)
        #expect(output.name == "level white.png on \(path)")
        let tilted = SIMD3(sin(0.3), -cos(0.3), 0.0)
        try output.gravityUpdated(tilted)
        try output.gravityUpdated(SIMD3(sin(0.6), -cos(0.6), 0.0))   // within the frame interval: skipped
        #expect(output.framesDrawn == 1)
        clock.advance(by: 200_000_000)
        try output.gravityUpdated(SIMD3(sin(0.6), -cos(0.6), 0.0))
        #expect(output.framesDrawn == 2)
        func litPixels() -> Int {
            let bytes = UnsafeRawBufferPointer(start: framebuffer.visibleBuffer, count: geometry.bytesPerRow * geometry.height)
            return stride(from: 0, to: bytes.count, by: 4).filter { bytes[$0] != 0 }.count
        }
        #expect(litPixels() > 200)
        try output.restore()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        // Every pixel's red, green and blue bytes are 0 (the fourth byte is padding).
        #expect(data.prefix(geometry.bytesPerRow * geometry.height).enumerated().allSatisfy { $0.offset % 4 == 3 || $0.element == 0 })
    }

    /// A page-flipping framebuffer (two screens of virtual height, as plumb sets on vfb and on a
    /// Raspberry Pi's fb0): close() pans back to row 0, so the blank frame must be on that page too.
    /// Found by scripts/service-vm-test: after `systemctl stop plumb` the last level frame was on
    /// page 0 and stayed on the screen, while the black frame had gone to page 1.
    @Test func blanksBothPagesOfAPageFlippingFramebuffer() throws {
        let path = NSTemporaryDirectory() + "plumb-fb-flip-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let geometry = FramebufferGeometry(name: "file", width: 64, height: 48, virtualHeight: 96, bitsPerPixel: 32,
                                           red: .init(offset: 16, length: 8), green: .init(offset: 8, length: 8), blue: .init(offset: 0, length: 8))
        let framebuffer = try Framebuffer(file: path, geometry: geometry)
        #expect(framebuffer.updateMode == .pageFlip)
        let clock = VirtualClock()
        let output = try LevelDaemonOutput(framebuffer: framebuffer, image: RGBAImage(width: 32, height: 32, color: .white),
                                           imagePath: "white.png", clock: clock, frameRate: 10)
        for frames in 1...2 {   // the last frame on page 1, then on page 0
            try output.gravityUpdated(SIMD3(sin(0.1 * Double(frames)), -cos(0.1 * Double(frames)), 0.0))
            clock.advance(by: 200_000_000)
        }
        #expect(output.framesDrawn == 2)
        try output.restore()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let page = geometry.bytesPerRow * geometry.height
        #expect(data.count == 2 * page)
        func lit(_ bytes: Data) -> Int { stride(from: bytes.startIndex, to: bytes.endIndex, by: 4).filter { bytes[$0] != 0 }.count }
        #expect(lit(data.prefix(page)) == 0, "page 0, shown after close(), still has lit pixels")
        #expect(lit(data.suffix(page)) == 0, "page 1 still has lit pixels")
    }
}


private final class CountingSource: MotionSampleSource {
    let name = "counting"
    let virtualClock = VirtualClock(startNanoseconds: 1_000_000_000)
    var clock: any MonotonicClock { virtualClock }
    var starts: [IMUConfiguration] = []
    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
        starts.append(configuration)
        return configuration
    }
    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        virtualClock.advance(by: 500_000_000)
        samples.append(IMUSample(timestampNanoseconds: virtualClock.nowNanoseconds, acceleration: SIMD3(0, 0, 9.8), angularRate: .zero))
        return .samples
    }
    func stop() throws(MotionSourceError) {}
}

private final class ScriptedPower: PowerStateMonitor, @unchecked Sendable {
    var states: [PowerState]
    init(_ states: [PowerState]) { self.states = states }
    func readPowerState() throws(PowerMonitorError) -> PowerState {
        states.count > 1 ? states.removeFirst() : states[0]
    }
}

@Suite struct EnergyModeTests {
    @Test func autoFollowsThePowerMonitor() throws {
        let source = CountingSource()
        let hot = PowerState(hot: true, reasons: ["thermal_zone0 82.0 °C"])
        let power = ScriptedPower([PowerState(), hot, hot, PowerState()])
        let normal = IMUConfiguration(outputDataRate: 100, fifoWatermark: 10)
        let pipeline = try SensorPipeline(
            source: source, configuration: normal, orientation: OrientationPipeline(fused: FusionAlgorithm.complementary.makeGravityEstimator()),
            outputs: [], allowedInterfaces: Set(InterfaceOrientation.allCases),
            energy: EnergyMode(policy: .auto(power), normal: normal), describe: { _ in "" })
        var messages: [String] = []
        for _ in 0..<16 { messages += try pipeline.step(timeoutNanoseconds: 100_000_000).map(\.message) }
        // Reads every 2 s of 0.5 s steps: normal, hot (switch), hot, normal (switch back).
        #expect(source.starts.map(\.gyroscopeEnabled) == [true, false, true])
        #expect(source.starts[1].outputDataRate == 12.5)
        #expect(messages.filter { $0.contains("mode") } == [
            "low-energy mode (thermal_zone0 82.0 °C): accelerometer only at 12.5 Hz",
            "normal mode again: 100 Hz with the gyroscope",
        ])
    }

    /// The daemon's low-energy mode wakes sooner while a turn is in progress, as the notifier
    /// does (OrientationPipeline.wakeHint): a slow turn (30 °/s) from portrait to landscape is
    /// reported sooner than when waking once a 7-sample batch (1.02 s), for at most a few more wake-ups.
    @Test func lowEnergyWakesSoonerDuringATurn() throws {
        // 12.5 Hz: 3 s upright, a turn at 30 °/s to 90°, then 3 s held.
        var samples: [IMUSample] = []
        var t = 0.0, degrees = 0.0
        while t < 9 {
            if t >= 3 { degrees = min(90, degrees + 30 * 0.08) }
            let r = degrees * .pi / 180
            samples.append(IMUSample(timestampNanoseconds: UInt64((t * 1e9).rounded()), acceleration: 9.81 * SIMD3(sin(r), cos(r), 0),
                                     angularRate: .zero))
            t += 0.08
        }
        func run(interval: Double?) throws -> (changedAt: Double?, wakeups: Int) {
            let source = RecordingSource(recording: IMURecording(samples: samples), name: "turn")
            let normal = IMUConfiguration(outputDataRate: 12.5, fifoWatermark: 7)
            let pipeline = try SensorPipeline(
                source: source, configuration: normal,
                orientation: OrientationPipeline(fused: FusionAlgorithm.complementary.makeGravityEstimator(), turnWakeInterval: interval),
                outputs: [], allowedInterfaces: Set(InterfaceOrientation.allCases),
                energy: EnergyMode(policy: .always, normal: normal), describe: { _ in "" })
            var changedAt: Double?
            do {
                while true {
                    let events = try pipeline.step(timeoutNanoseconds: 100_000_000)
                    if changedAt == nil, events.contains(where: { $0.message.hasPrefix("orientation landscapeLeft") }) {
                        changedAt = Double(source.clock.nowNanoseconds) / 1e9
                    }
                }
            } catch is DaemonSourceFinished {}
            return (changedAt, source.wakeups)
        }
        let batched = try run(interval: nil)
        let sooner = try run(interval: 0.32)
        // Up crosses 45° at 4.5 s.
        let late = try #require(batched.changedAt) - 4.5
        let early = try #require(sooner.changedAt) - 4.5
        #expect(early < late - 0.1, "latency \(early) s against \(late) s once a batch")
        #expect(early < 1)
        // The early reads split batches; the run's last, partial batch may absorb a split.
        #expect(sooner.wakeups >= batched.wakeups && sooner.wakeups <= batched.wakeups + 8, "\(sooner.wakeups) against \(batched.wakeups) wake-ups")
    }

    @Test func alwaysStartsLow() throws {
        let source = CountingSource()
        let normal = IMUConfiguration(outputDataRate: 100, fifoWatermark: 10)
        _ = try SensorPipeline(
            source: source, configuration: normal, orientation: OrientationPipeline(fused: FusionAlgorithm.complementary.makeGravityEstimator()),
            outputs: [], allowedInterfaces: [], energy: EnergyMode(policy: .always, normal: normal), describe: { _ in "" })
        #expect(source.starts.map(\.gyroscopeEnabled) == [false])
    }
}

/// Records the turns (Sendable, as the daemon's kiosk takes its runner).
private final class RecordingRunner: RotationActionRunner, Sendable {
    private let recorded = Mutex<[String]>([])
    var actions: [String] { recorded.withLock { $0 } }
    func perform(_ action: RotationAction) throws { recorded.withLock { $0.append(action.description) } }
}

/// A runner whose tool fails as SystemActionRunner reports it, a message and a fix: the first
/// `times` tries (all of them by default).
final class FailingRunner: RotationActionRunner, Sendable {
    static let fix = "Name one of them: --output HEADLESS-1 (or \"output\": \"HEADLESS-1\" in outputs.kiosk)."
    let times: Int
    let message: String
    private let count = Mutex(0)
    var tries: Int { count.withLock { $0 } }
    init(times: Int = .max, message: String = "there is no output HDMI-A-1; wlr-randr lists: HEADLESS-1") {
        self.times = times; self.message = message
    }
    func perform(_ action: RotationAction) throws {
        let tries = count.withLock { n in
            n += 1
            return n
        }
        guard tries <= times else { return }
        throw CLIError.failure(message, fix: Self.fix)
    }
}

/// Turns succeed; the listing shows the last turn, but upright at read-back `keptFor + 1` (a
/// compositor that restarted in between).
private final class RestartingScreenRunner: RotationActionRunner, Sendable {
    private struct State {
        var actions: [String] = []
        var listings = 0
    }
    private let state = Mutex(State())
    var actions: [String] { state.withLock { $0.actions } }
    var listings: Int { state.withLock { $0.listings } }
    let keptFor: Int
    init(keptFor: Int) { self.keptFor = keptFor }
    func perform(_ action: RotationAction) throws { state.withLock { $0.actions.append(action.description) } }
    func capture(_ action: RotationAction) throws -> String? {
        let transform = state.withLock { s in
            s.listings += 1
            return s.listings == keptFor + 1 ? "normal" : (s.actions.last?.split(separator: " ").last.map(String.init) ?? "normal")
        }
        return "HDMI-A-1 \"Monitor\"\n  Enabled: yes\n  Modes:\n    1920x1080 px, 60.000000 Hz (current)\n  Position: 0,0\n  Transform: \(transform)\n  Scale: 1.000000\n"
    }
}

@Suite struct KioskDaemonOutputTests {
    let g = 9.80665

    /// The daemon's pipeline from `source` to a wlr-randr kiosk on `output` (hold-off 0.5 s). The
    /// recording plays in virtual time as fast as it can: the kiosk's tools run on the loop's
    /// thread, so that its timeline comes out exactly (its own thread: KioskThreadTests).
    func kioskPipeline(_ source: RecordingSource, runner: any RotationActionRunner & Sendable, output: String,
                       allowed: Set<InterfaceOrientation> = Set(InterfaceOrientation.allCases)) throws -> (KioskDaemonOutput, SensorPipeline) {
        let kiosk = KioskDaemonOutput(backend: KioskBackend(kind: .wlrRandr, output: output),
                                      settings: KioskController.Settings(holdOff: 500_000_000, allowed: allowed), runner: runner, clock: source.clock,
                                      placement: .callersThread)
        let pipeline = try SensorPipeline(
            source: source, configuration: IMUConfiguration(), orientation: OrientationPipeline(fused: FusionAlgorithm.complementary.makeGravityEstimator()),
            outputs: [kiosk], allowedInterfaces: allowed, describe: { _ in "" })
        return (kiosk, pipeline)
    }

    @Test func aTurnLostToARestartedCompositorIsMadeAgain() throws {
        // 20 s on the long edge; the screen is read back every 5 s and comes back upright after the second read.
        let source = RecordingSource(recording: recording([SIMD3(g, 0, 0)]), name: "recording")
        let runner = RestartingScreenRunner(keptFor: 2)
        let (_, pipeline) = try kioskPipeline(source, runner: runner, output: "HDMI-A-1")
        let events = try run(pipeline).filter { $0.message.hasPrefix("kiosk:") }
        #expect(runner.actions == ["wlr-randr --output HDMI-A-1 --on --transform 270", "wlr-randr --output HDMI-A-1 --on --transform 270"])
        #expect(events.map(\.message) == [
            "kiosk: turned the screen to landscapeRight (wlr-randr --output HDMI-A-1 --on --transform 270)",
            "kiosk: the screen HDMI-A-1 shows normal, not 270 (the compositor restarted, or the screen was plugged in again?): turning it to landscapeRight again",
            "kiosk: turned the screen to landscapeRight (wlr-randr --output HDMI-A-1 --on --transform 270)",
        ])
        #expect(events[1].level == .notice)
        // Read back at about 5, 10, 15 s after the turn (the third found it upright, the fourth the turn again).
        #expect((3...4).contains(runner.listings), "\(runner.listings)")
        try pipeline.shutdown()
    }

    @Test func turnsTheScreenAfterTheHoldOffAndBackOnRestore() throws {
        let source = RecordingSource(recording: recording([SIMD3(0, g, 0), SIMD3(g, 0, 0)]), name: "recording")
        let runner = RecordingRunner()
        let (kiosk, pipeline) = try kioskPipeline(source, runner: runner, output: "HDMI-A-1")
        #expect(kiosk.name == "kiosk via wlr-randr on HDMI-A-1")
        let events = try run(pipeline)
        // Portrait first (the screen turns to it once, as nothing was applied yet), then device
        // landscapeLeft, whose interface is landscapeRight: 270° counter-clockwise.
        #expect(runner.actions == ["wlr-randr --output HDMI-A-1 --on --transform normal", "wlr-randr --output HDMI-A-1 --on --transform 270"])
        #expect(events.map(\.message).filter { $0.hasPrefix("kiosk:") } == [
            "kiosk: turned the screen to portrait (wlr-randr --output HDMI-A-1 --on --transform normal)",
            "kiosk: turned the screen to landscapeRight (wlr-randr --output HDMI-A-1 --on --transform 270)",
        ])
        try pipeline.shutdown()
        #expect(runner.actions.last == "wlr-randr --output HDMI-A-1 --on --transform normal")
    }

    /// Started lying face up, the session's interface is only its portrait start: the screen is
    /// left as it is (no turn to portrait, and nothing to restore) until an upright face settles.
    @Test func aKioskStartedFaceUpLeavesTheScreenUntilAnUprightFace() throws {
        let source = RecordingSource(recording: recording([SIMD3(0, 0, g), SIMD3(g, 0, 0)]), name: "recording")
        let runner = RecordingRunner()
        let (_, pipeline) = try kioskPipeline(source, runner: runner, output: "HDMI-A-1")
        let events = try run(pipeline)
        #expect(runner.actions == ["wlr-randr --output HDMI-A-1 --on --transform 270"])
        #expect(!events.contains { $0.message.hasPrefix("kiosk:") && $0.message.contains("portrait") }, "\(events.map(\.message))")
        try pipeline.shutdown()

        // Face up the whole run: nothing turned, nothing restored.
        let flat = RecordingSource(recording: recording([SIMD3(0, 0, g)]), name: "recording")
        let untouched = RecordingRunner()
        let (_, flatPipeline) = try kioskPipeline(flat, runner: untouched, output: "HDMI-A-1")
        _ = try run(flatPipeline)
        try flatPipeline.shutdown()
        #expect(untouched.actions == [])
    }

    /// Standing first in an upright face the configuration does not allow (upside down, with
    /// portraitUpsideDown left out), the session's interface is still only its portrait start:
    /// the screen is left as it is, and the log names the face the board is in, until an allowed
    /// face settles. (The upright-face gate alone let the portrait start through here.)
    @Test func aKioskStartedInAFaceNotAllowedLeavesTheScreenUntilAnAllowedFace() throws {
        let allowed: Set<InterfaceOrientation> = [.portrait, .landscapeLeft, .landscapeRight]
        let upsideDown = RecordingSource(recording: recording([SIMD3(0, -g, 0)]), name: "recording")
        let untouched = RecordingRunner()
        let (_, pipeline) = try kioskPipeline(upsideDown, runner: untouched, output: "HDMI-A-1", allowed: allowed)
        let events = try run(pipeline).filter { $0.message.hasPrefix("kiosk:") }.map(\.message)
        try pipeline.shutdown()
        #expect(untouched.actions == [])
        #expect(events == ["kiosk: portraitUpsideDown is not in orientation.interfaceOrientations; the screen stays"])

        // Then on its long edge: that turn only.
        let turned = RecordingSource(recording: recording([SIMD3(0, -g, 0), SIMD3(g, 0, 0)]), name: "recording")
        let runner = RecordingRunner()
        let (_, turning) = try kioskPipeline(turned, runner: runner, output: "HDMI-A-1", allowed: allowed)
        _ = try run(turning)
        #expect(runner.actions == ["wlr-randr --output HDMI-A-1 --on --transform 270"])
        try turning.shutdown()
    }

    @Test func aFailedTurnIsLoggedWithItsFixAndTriedAgain() throws {
        let source = RecordingSource(recording: recording([SIMD3(0, g, 0)]), name: "recording")
        let runner = FailingRunner()
        let (_, pipeline) = try kioskPipeline(source, runner: runner, output: "HDMI-A-1")
        let events = try run(pipeline)
        // Logged once (the same failure again is not), as a warning: it is tried again.
        #expect(events.filter { $0.message.hasPrefix("kiosk:") }.map(\.message) == [
            "kiosk: could not turn the screen to portrait (wlr-randr --output HDMI-A-1 --on --transform normal); "
                + "trying again in 1 s, then at least every 10 s, until it works: "
                + "there is no output HDMI-A-1; wlr-randr lists: HEADLESS-1 Fix: Name one of them: --output HEADLESS-1 (or \"output\": \"HEADLESS-1\" in outputs.kiosk).",
        ])
        #expect(events.first { $0.message.hasPrefix("kiosk:") }?.level == .warning)
        // 20 s of portrait: tries after the hold-off and 1, 2, 4 and 8 s later.
        #expect(runner.tries == 5)
        try pipeline.shutdown()
    }

    /// plumb.service started before the compositor (found by scripts/service-vm-test): the turn
    /// works once the compositor is up, without the device moving.
    @Test func aTurnWorksOnceTheCompositorIsUp() throws {
        let source = RecordingSource(recording: recording([SIMD3(0, g, 0)]), name: "recording")
        let runner = FailingRunner(times: 3, message: "wlr-randr cannot reach a Wayland compositor (WAYLAND_DISPLAY=wayland-1, XDG_RUNTIME_DIR=/run/user/1000)")
        let (_, pipeline) = try kioskPipeline(source, runner: runner, output: "HEADLESS-1")
        let events = try run(pipeline).filter { $0.message.hasPrefix("kiosk:") }
        #expect(runner.tries == 4)
        #expect(events.count == 2)
        #expect(events.first?.level == .warning)
        #expect(events.first?.message.hasPrefix("kiosk: could not turn the screen to portrait (wlr-randr --output HEADLESS-1 --on --transform normal); "
                                                + "trying again in 1 s, then at least every 10 s, until it works: "
                                                + "wlr-randr cannot reach a Wayland compositor (WAYLAND_DISPLAY=wayland-1, XDG_RUNTIME_DIR=/run/user/1000) Fix: ") == true)
        #expect(events.last?.level == .notice)
        // Tries after the hold-off and 1, 2 and 4 s later: the fourth works 7 s after the first.
        let last = events.last?.message ?? ""
        #expect(last.hasPrefix("kiosk: turned the screen to portrait (wlr-randr --output HEADLESS-1 --on --transform normal) after 3 failed tries in 7"), "\(last)")
        try pipeline.shutdown()
    }

    /// A turn that keeps failing for a minute is logged once more, as an error.
    @Test func aTurnFailingForAMinuteIsAnError() throws {
        let source = RecordingSource(recording: recording(Array(repeating: SIMD3(0, g, 0), count: 4)), name: "recording")
        let runner = FailingRunner()
        let (_, pipeline) = try kioskPipeline(source, runner: runner, output: "HDMI-A-1")
        let events = try run(pipeline).filter { $0.message.hasPrefix("kiosk:") }
        #expect(events.map(\.level) == [.warning, .error])
        #expect(events.last?.message.hasPrefix("kiosk: still cannot turn the screen to portrait after 10 tries in 6") == true, "\(events.last?.message ?? "")")
        #expect(events.last?.message.contains("(wlr-randr --output HDMI-A-1 --on --transform normal); trying again every 10 s: there is no output HDMI-A-1") == true)
        // 80 s: after the hold-off, +1, +2, +4, +8, then every 10 s.
        #expect(runner.tries == 11)
        try pipeline.shutdown()
    }
}

@Suite struct LEDDaemonOutputTests {
    func makeLEDs(_ dir: String) throws {
        for (led, trigger, brightness) in [("ACT", "none [mmc0] timer heartbeat", "0"), ("PWR", "[none] default-on", "255")] {
            try FileManager.default.createDirectory(atPath: "\(dir)/\(led)", withIntermediateDirectories: true)
            try "\(trigger)\n".write(toFile: "\(dir)/\(led)/trigger", atomically: false, encoding: .utf8)
            try "\(brightness)\n".write(toFile: "\(dir)/\(led)/brightness", atomically: false, encoding: .utf8)
            try "255\n".write(toFile: "\(dir)/\(led)/max_brightness", atomically: false, encoding: .utf8)
        }
    }

    func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func lightsTheMappedLEDAndRestoresTriggers() throws {
        let dir = NSTemporaryDirectory() + "plumb-leds-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try makeLEDs(dir)
        let output = try LEDDaemonOutput(map: [.faceUp: "ACT", .portrait: "PWR"], root: dir)
        #expect(output.name == "LEDs ACT, PWR")
        #expect(try read("\(dir)/ACT/trigger") == "none\n")          // taken over
        try output.orientationChanged(.faceUp, interface: .portrait)
        #expect(try read("\(dir)/ACT/brightness") == "255\n")
        #expect(try read("\(dir)/PWR/brightness") == "0\n")
        try output.orientationChanged(.landscapeLeft, interface: .landscapeRight)
        #expect(try read("\(dir)/ACT/brightness") == "0\n")
        try output.restore()
        #expect(try read("\(dir)/ACT/trigger") == "mmc0\n")       // the SD-card trigger again
        #expect(try read("\(dir)/PWR/brightness") == "255\n")     // no trigger: the old brightness
    }

    @Test func anUnknownLEDNamesTheOnesPresent() throws {
        let dir = NSTemporaryDirectory() + "plumb-leds2-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try makeLEDs(dir)
        #expect(throws: CLIError.failure("no LED \"led0\" in \(dir) (found: ACT, PWR)",
                                         fix: "Name LEDs that 'ls \(dir)' lists in outputs.leds.map; writing them needs the udev rule from scripts/install (gpio group).")) {
            try LEDDaemonOutput(map: [.faceUp: "led0"], root: dir)
        }
    }
}

/// A source that counts starts, stops and reads, one sample per read.
private final class DemandSource: MotionSampleSource {
    let name = "demand"
    let virtualClock = VirtualClock(startNanoseconds: 1_000_000_000)
    var clock: any MonotonicClock { virtualClock }
    var starts: [IMUConfiguration] = []
    var stops = 0
    var reads = 0
    /// Thrown by every stop when set.
    var stopError: MotionSourceError?
    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
        starts.append(configuration)
        return configuration
    }
    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        reads += 1
        virtualClock.advance(by: 100_000_000)
        samples.append(IMUSample(timestampNanoseconds: virtualClock.nowNanoseconds, acceleration: SIMD3(0, 9.8, 0), angularRate: .zero))
        return .samples
    }
    func stop() throws(MotionSourceError) {
        stops += 1
        if let stopError { throw stopError }
    }
}

/// An output that needs the sensor only when told (as the D-Bus output while claimed).
private final class OnDemandOutput: DaemonOutput {
    var name: String { "on demand" }
    var needsSensor = false
    var changes = 0
    func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws { changes += 1 }
    func restore() throws {}
}

@Suite struct SensorDemandTests {
    private func pipeline(_ source: DemandSource, _ outputs: [any DaemonOutput],
                          explain: ((MotionSourceError) -> CLIError)? = nil) throws -> SensorPipeline {
        try SensorPipeline(source: source, configuration: IMUConfiguration(outputDataRate: 100, fifoWatermark: 10),
                           orientation: OrientationPipeline(fused: FusionAlgorithm.complementary.makeGravityEstimator()),
                           outputs: outputs, allowedInterfaces: Set(InterfaceOrientation.allCases), explain: explain, describe: { _ in "" })
    }

    /// A stop that fails when the sensor is paused (no D-Bus claim) is told as the other sensor
    /// failures are: with the command's explanation (a live command's: the address, the bus, the
    /// fix), and in `plumb run` (none) with the sensor's name, what the stop was for and a fix.
    /// (A stop that finds nothing answering pauses and awaits the chip: PauseWhileLostTests.)
    @Test func aStopThatFailsWhilePausingNamesTheSensorAndTheFix() throws {
        let eio = MotionSourceError.bus(I2CError(errno: Errno.EIO, bus: "/dev/i2c-1", address: I2CAddress(0x68)))
        for (error, fix) in [(eio, "Check the IMU with 'plumb probe' and 'plumb read'; then restart plumb (systemctl restart plumb).")] {
            let source = DemandSource()
            source.stopError = error
            let paused = try pipeline(source, [OnDemandOutput()])
            #expect(throws: CLIError.failure("cannot stop demand (to pause it: no output needs it): \(error.description)", fix: fix)) {
                _ = try paused.step(timeoutNanoseconds: 100_000_000)
            }
        }
        // A live command's explanation, as for a failed start, read or stop at shutdown.
        let source = DemandSource()
        source.stopError = eio
        let explained = CLIError.failure("the IMU at 0x68 on /dev/i2c-1: bus error", fix: "Check it with 'plumb probe' and 'plumb read'.")
        let live = try pipeline(source, [OnDemandOutput()], explain: { _ in explained })
        #expect(throws: explained) { _ = try live.step(timeoutNanoseconds: 100_000_000) }
    }

    /// The same at shutdown with the sensor running (`plumb run`: no explanation).
    @Test func aStopThatFailsAtShutdownNamesTheSensorAndTheFix() throws {
        let source = DemandSource()
        let eio = MotionSourceError.bus(I2CError(errno: Errno.EIO, bus: "/dev/i2c-1", address: I2CAddress(0x68)))
        let running = try pipeline(source, [RecordingOutput()])
        _ = try running.step(timeoutNanoseconds: 100_000_000)
        source.stopError = eio
        #expect(throws: CLIError.failure("cannot stop demand (at shutdown): \(eio.description)",
                                         fix: "Check the IMU with 'plumb probe' and 'plumb read'; then restart plumb (systemctl restart plumb).")) {
            try running.shutdown()
        }
    }

    @Test func theSensorRunsOnlyWhileAnOutputNeedsIt() throws {
        let source = DemandSource()
        let output = OnDemandOutput()
        let pipeline = try pipeline(source, [output])
        #expect(source.starts.count == 1)   // started once to find the sensor and its rate

        // Nobody needs it: stopped at the first step; then steps only wait, for longer than the
        // stall limit (10 s) without counting as a failure.
        #expect(try pipeline.step(timeoutNanoseconds: 100_000_000).map(\.message) == ["sensor stopped: no output needs it (no D-Bus claim)"])
        #expect(source.stops == 1)
        #expect(!pipeline.sensorActive)
        let idleStart = source.virtualClock.nowNanoseconds
        for _ in 0..<150 { #expect(try pipeline.step(timeoutNanoseconds: 100_000_000).isEmpty) }
        #expect(source.reads == 0)
        #expect(source.virtualClock.nowNanoseconds - idleStart == 15_000_000_000)

        // A claim: started again with the same settings, samples flow to the output.
        output.needsSensor = true
        let resumed = try pipeline.step(timeoutNanoseconds: 100_000_000).map(\.message)
        #expect(resumed.first == "sensor started: an output needs it")
        #expect(source.starts.count == 2)
        #expect(source.starts[1] == source.starts[0])
        for _ in 0..<20 { _ = try pipeline.step(timeoutNanoseconds: 100_000_000) }
        #expect(source.reads == 21)
        #expect(output.changes >= 1)

        // Released: stopped again; shutdown does not stop a stopped sensor twice.
        output.needsSensor = false
        _ = try pipeline.step(timeoutNanoseconds: 100_000_000)
        #expect(source.stops == 2)
        try pipeline.shutdown()
        #expect(source.stops == 2)
    }

    @Test func anotherOutputKeepsTheSensorRunning() throws {
        let source = DemandSource()
        let pipeline = try pipeline(source, [OnDemandOutput(), RecordingOutput()])
        for _ in 0..<10 { _ = try pipeline.step(timeoutNanoseconds: 100_000_000) }
        #expect(source.stops == 0)
        #expect(source.reads == 10)
        try pipeline.shutdown()
        #expect(source.stops == 1)
    }

    @Test func noOutputsLogsOrientationWithTheSensorRunning() throws {
        let source = DemandSource()
        let pipeline = try pipeline(source, [])
        for _ in 0..<5 { _ = try pipeline.step(timeoutNanoseconds: 100_000_000) }
        #expect(source.stops == 0)
        #expect(source.reads == 5)
    }
}

@Suite struct DBusDaemonOutputTests {
    @Test func aBusThatIsNotThereStopsTheDaemonFromStartingWithTheKeyInTheFix() {
        let address = "unix:path=/nonexistent/plumb-test-bus"
        #expect(throws: CLIError.failure("outputs.dbus: cannot connect to \(address): No such file or directory",
                                         fix: "Check outputs.dbus.bus (for example unix:path=/run/dbus/system_bus_socket) and that the bus is running.")) {
            _ = try DBusDaemonOutput(settings: DBusOutput(bus: address))
        }
    }
}

@Suite struct KioskTurnsMemoryTests {
    /// A kiosk whose turn never works, for a day: a try every 10 s, and nothing piles up in the
    /// controller (its events were kept for good before, one per try, in a daemon meant to run
    /// for months).
    @Test func aDayOfFailingTurnsKeepsNothing() {
        let runner = FailingRunner()
        let turns = KioskTurns(backend: KioskBackend(kind: .wlrRandr, output: "HDMI-A-1"), settings: .init(holdOff: 0), runner: runner)
        turns.observe(.landscapeLeft, at: 0)
        var told = 0
        var t: UInt64 = 0
        while t <= 86_400 * Nanoseconds.perSecond {
            told += turns.tick(at: t).count
            #expect(turns.controller.events.isEmpty)
            if !turns.controller.events.isEmpty { break }
            t += Nanoseconds.perSecond
        }
        #expect(runner.tries > 8_000)
        #expect(told == runner.tries)
        #expect(turns.isFailing)
    }
}
