import Dispatch
import Foundation
import Synchronization
import Testing
import PlumbConfiguration
import PlumbDisplay
import PlumbDrivers
import PlumbFusion
import PlumbHAL
import PlumbOrientation
@testable import PlumbCLI

private let g = 9.80665
private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

private func transform(_ value: String) -> String { "wlr-randr --output HDMI-A-1 --on --transform \(value)" }

/// A kiosk runner whose first `count` turns that `holds` picks stop at a gate: until the test
/// opens it, or for `limit` seconds, after which the turn fails as a tool stopped at its deadline
/// does (``SystemActionRunner/deadline``). Each turn is recorded as it starts and as it ends.
private final class GatedRunner: RotationActionRunner, Sendable {
    private struct State {
        var transcript: [String] = []
        var holdsLeft: Int
        var holding = false
    }
    private let state: Mutex<State>
    private let holds: @Sendable (String) -> Bool
    private let limit: Double
    private let gate = DispatchSemaphore(value: 0)

    init(holding count: Int = 1, limit: Double = 10, where holds: @escaping @Sendable (String) -> Bool) {
        state = Mutex(State(holdsLeft: count))
        self.holds = holds
        self.limit = limit
    }

    /// "start ACTION" and "end ACTION", in order.
    var transcript: [String] { state.withLock { $0.transcript } }
    /// The turns started, in order.
    var started: [String] { transcript.compactMap { $0.hasPrefix("start ") ? String($0.dropFirst(6)) : nil } }
    /// The turns ended, in order.
    var ended: [String] { transcript.compactMap { $0.hasPrefix("end ") ? String($0.dropFirst(4)) : nil } }
    /// A turn waits at the gate now.
    var isHolding: Bool { state.withLock { $0.holding } }

    /// Lets the turn at the gate go on (it succeeds).
    func open() { gate.signal() }

    func perform(_ action: RotationAction) throws {
        let shown = action.description
        let hold = state.withLock { s -> Bool in
            s.transcript.append("start \(shown)")
            guard s.holdsLeft > 0, holds(shown) else { return false }
            s.holdsLeft -= 1
            s.holding = true
            return true
        }
        defer { state.withLock { $0.transcript.append("end \(shown)") } }
        guard hold else { return }
        let opened = gate.wait(timeout: .now() + limit) == .success
        state.withLock { $0.holding = false }
        if !opened {
            throw CLIError.failure("\(shown) did not finish within 3 s and was stopped",
                                   fix: "A turn or a read-back takes milliseconds: check that the compositor or X server answers.")
        }
    }
}

/// Samples at 100 Hz, ten a read, on `clock` (virtual, moved to each read's last sample), with the
/// specific force the test sets; each read also takes half a millisecond of real time, so the
/// loop runs at about 200 × real time instead of spinning.
private final class SteadySource: MotionSampleSource {
    let name = "steady"
    let virtualClock: VirtualClock
    var clock: any MonotonicClock { virtualClock }
    /// m/s², sensor frame.
    var force: SIMD3<Double>
    private(set) var reads = 0
    /// Called at each stop (the session's shutdown).
    var whenStopped: () -> Void = {}
    private var next: UInt64

    init(clock: VirtualClock = VirtualClock(startNanoseconds: Nanoseconds.perSecond), force: SIMD3<Double>) {
        virtualClock = clock
        self.force = force
        next = clock.nowNanoseconds + 10_000_000
    }

    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration { configuration }

    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        reads += 1
        for _ in 0..<10 {
            samples.append(IMUSample(timestampNanoseconds: next, acceleration: force, angularRate: .zero))
            next += 10_000_000
        }
        virtualClock.advance(to: next - 10_000_000)
        Thread.sleep(forTimeInterval: 0.0005)
        return .samples
    }

    func stop() throws(MotionSourceError) { whenStopped() }
}

/// Another output of the daemon: counts what it is given.
private final class CountingOutput: DaemonOutput {
    let name = "counting"
    private(set) var gravityUpdates = 0
    func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws {}
    func gravityUpdated(_ gravity: SIMD3<Double>) throws { gravityUpdates += 1 }
    func restore() throws {}
}

/// Counts the watchdog pings (every 0.5 s of the daemon's clock, for a 1 s watchdog).
private final class WatchdogNotifier: ServiceNotifier {
    private(set) var pings = 0
    func notify(_ state: String) throws { if state == "WATCHDOG=1" { pings += 1 } }
    var watchdogIntervalNanoseconds: UInt64? { Nanoseconds.perSecond }
}

private let board = BoardSelection(board: Board(id: "generic", name: "Generic", models: [], i2cBus: "/dev/i2c-1", interrupt: nil,
                                                display: nil, leds: [], imuAddress: I2CAddress(UInt8(0x68))), reason: .override)

/// A wlr-randr kiosk on HDMI-A-1 (hold-off 1 s).
private let kioskConfiguration = #"{"filter": {"kind": "complementary"}, "outputs": {"kiosk": {"method": "wlr-randr", "output": "HDMI-A-1"}}}"#

/// Polls `condition` every 10 ms for up to `seconds` (a bound for a loaded machine, not a timing).
private func eventually(_ seconds: Double = 30, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() >= end { return false }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return true
}

/// `plumb run`'s kiosk runs its tools (turns, read-backs, retries) on a thread of its own
/// (``KioskWorker``): they ran inside the daemon's loop, which for as long as a tool took (tens
/// to hundreds of milliseconds for a healthy wlr-randr on a Pi Zero 2 W, up to 4 s for one stopped
/// at its deadline) read no samples (an MPU-6050's FIFO holds less than a second at 100 Hz), fed
/// no other output and sent systemd no watchdog ping. Each test holds a turn at a gate and fails
/// on the loop that waited for it.
@Suite("plumb run's kiosk tools on a thread of their own") struct KioskThreadTests {
    /// While a turn hangs, the daemon's loop goes on reading samples, feeding the other outputs
    /// and pinging the watchdog; the turn's line reaches the log once it ends.
    @Test func theDaemonLoopGoesOnWhileATurnHangs() throws {
        let configuration = try Configuration.decode(kioskConfiguration, file: "plumb.json")
        let runner = GatedRunner { $0 == transform("270") }
        let source = SteadySource(force: SIMD3(g, 0, 0))
        let other = CountingOutput()
        let notifier = WatchdogNotifier()
        let err = Output.capture()
        let giveUp = Date().addingTimeInterval(30)
        var atHold: (reads: Int, gravity: Int, pings: Int)?
        var whileHeld: (reads: Int, gravity: Int, pings: Int)?
        var stillHeld = false
        let daemon = Daemon(
            log: DaemonLog(output: err, format: .plain), notifier: notifier, clock: source.clock,
            takeSignals: {
                if Date() > giveUp { return [.terminate] }
                if whileHeld != nil { return err.captured.contains("kiosk: turned the screen") ? [.terminate] : [] }
                guard runner.isHolding else { return [] }
                let now = (source.reads, other.gravityUpdates, notifier.pings)
                guard let start = atHold else {
                    atHold = now
                    return []
                }
                // Five seconds of samples (at 200 × real time) while the turn still waits.
                if now.0 - start.reads >= 50 {
                    whileHeld = (now.0 - start.reads, now.1 - start.gravity, now.2 - start.pings)
                    stillHeld = runner.isHolding
                    runner.open()
                }
                return []
            },
            load: { () throws(CLIError) -> DaemonSetup in DaemonSetup(path: "plumb.json", configuration: configuration, board: board) },
            build: { setup, _ in
                let kiosk = KioskDaemonOutput(backend: KioskBackend(kind: .wlrRandr, output: "HDMI-A-1"),
                                              settings: KioskController.Settings(allowed: DaemonFactory.allowedInterfaces(setup.configuration.orientation)),
                                              runner: runner, clock: source.clock)
                return try SensorPipeline(source: source, configuration: IMUConfiguration(outputDataRate: 100, fifoWatermark: 10),
                                          orientation: DaemonFactory.orientationPipeline(setup.configuration), outputs: [kiosk, other],
                                          allowedInterfaces: DaemonFactory.allowedInterfaces(setup.configuration.orientation), describe: { _ in "steady" })
            })
        let status = daemon.run()
        let log = err.captured
        #expect(status == 0, "\(log)")
        let held = try #require(whileHeld, "the loop went on while the turn waited at the gate (\(runner.transcript))")
        #expect(stillHeld)
        #expect(held.reads >= 50)
        #expect(held.gravity >= 50)
        // 5 s of the daemon's clock: a ping every 0.5 s.
        #expect(held.pings >= 8, "\(held.pings) watchdog pings")
        #expect(log.contains("plumb: notice: kiosk: turned the screen to landscapeRight (\(transform("270")))\n"), "\(log)")
        #expect(runner.started == [transform("270"), transform("normal")])
    }

    /// Three orientations wanted while a turn hangs: one more turn once it ends, to the newest of
    /// them (no backlog of turns).
    @Test func turnsWantedDuringAHungTurnMakeOneMoreToTheNewest() throws {
        let runner = GatedRunner { $0 == transform("270") }
        let clock = VirtualClock(startNanoseconds: Nanoseconds.perSecond)
        let kiosk = KioskDaemonOutput(backend: KioskBackend(kind: .wlrRandr, output: "HDMI-A-1"), settings: KioskController.Settings(holdOff: 0),
                                      runner: runner, clock: clock)
        func turn(to device: DeviceOrientation) throws {
            clock.advance(by: Nanoseconds.perSecond)
            try kiosk.orientationChanged(device, interface: try #require(device.interfaceOrientation))
            try kiosk.gravityUpdated(.zero)
        }
        try turn(to: .landscapeLeft)
        #expect(eventually { runner.isHolding }, "the turn to 270 waits at the gate (\(runner.transcript))")
        try turn(to: .portrait)
        try turn(to: .landscapeRight)
        try turn(to: .portraitUpsideDown)
        #expect(runner.isHolding, "the loop passed three orientations on while the turn waited")
        runner.open()
        #expect(eventually { runner.ended.count == 2 }, "\(runner.transcript)")
        // Ticks after it: nothing more is due.
        for _ in 0..<20 {
            clock.advance(by: 100_000_000)
            try kiosk.gravityUpdated(.zero)
            Thread.sleep(forTimeInterval: 0.005)
        }
        var logged: [DaemonEvent] = []
        #expect(eventually {
            logged += kiosk.takeEvents()
            return logged.count >= 2
        })
        #expect(runner.started == [transform("270"), transform("180")])
        #expect(logged.map(\.message) == ["kiosk: turned the screen to landscapeRight (\(transform("270")))",
                                         "kiosk: turned the screen to portraitUpsideDown (\(transform("180")))"])
        try kiosk.restore()
        #expect(runner.started == [transform("270"), transform("180"), transform("normal")])
    }

    /// How the turn at the gate ends: let go (it worked), or stopped at the deadline (it failed).
    enum HungTurnEnd: String, CaseIterable, Sendable {
        case opened, deadline
    }

    /// A stop while a turn hangs waits for it (within its deadline), then turns the screen
    /// upright; the turn's report is in the stop's log, and no tool runs after.
    @Test(arguments: HungTurnEnd.allCases)
    func aStopDuringAHungTurnWaitsForItThenTurnsTheScreenUpright(_ end: HungTurnEnd) throws {
        let runner = GatedRunner(limit: end == .deadline ? 1 : 30) { $0 == transform("180") }
        let source = SteadySource(force: SIMD3(g, 0, 0))
        let kiosk = KioskDaemonOutput(backend: KioskBackend(kind: .wlrRandr, output: "HDMI-A-1"),
                                      settings: KioskController.Settings(holdOff: 500_000_000), runner: runner, clock: source.clock)
        let pipeline = try SensorPipeline(source: source, configuration: IMUConfiguration(outputDataRate: 100, fifoWatermark: 10),
                                          orientation: OrientationPipeline(fused: FusionAlgorithm.complementary.makeGravityEstimator()),
                                          outputs: [kiosk], allowedInterfaces: Set(InterfaceOrientation.allCases), describe: { _ in "steady" })
        var events: [DaemonEvent] = []
        let giveUp = Date().addingTimeInterval(30)
        while runner.ended != [transform("270")], Date() < giveUp { events += try pipeline.step(timeoutNanoseconds: 100_000_000) }
        source.force = SIMD3(0, -g, 0)
        while !runner.isHolding, Date() < giveUp { events += try pipeline.step(timeoutNanoseconds: 100_000_000) }
        try #require(runner.isHolding, "the step returned while the turn to 180 waited at the gate (\(runner.transcript))")
        if end == .opened { DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { runner.open() } }
        events += try pipeline.shutdown()
        // The turn upright came after the hung one ended.
        #expect(runner.transcript == ["start \(transform("270"))", "end \(transform("270"))", "start \(transform("180"))", "end \(transform("180"))",
                                      "start \(transform("normal"))", "end \(transform("normal"))"])
        let told = events.map(\.message).filter { $0.hasPrefix("kiosk:") }
        switch end {
        case .opened:
            #expect(told == ["kiosk: turned the screen to landscapeRight (\(transform("270")))",
                             "kiosk: turned the screen to portraitUpsideDown (\(transform("180")))"])
        case .deadline:
            #expect(told.count == 2)
            #expect(told.last?.hasPrefix("kiosk: could not turn the screen to portraitUpsideDown (\(transform("180"))); trying again in 1 s") == true, "\(told)")
        }
        // Stopped: nothing turns any more.
        try kiosk.orientationChanged(.landscapeRight, interface: .landscapeLeft)
        try kiosk.gravityUpdated(.zero)
        Thread.sleep(forTimeInterval: 0.1)
        #expect(runner.started.count == 3)
    }

    /// A reload while a turn hangs waits for it (within its deadline) and hands over what the
    /// screen then shows: the turn's rotation when it worked, which the new kiosk keeps; nothing
    /// when it failed, and the new kiosk makes the turn itself.
    @Test(arguments: HungTurnEnd.allCases)
    func aReloadDuringAHungTurnHandsOverWhatTheScreenShows(_ end: HungTurnEnd) throws {
        let configuration = try Configuration.decode(kioskConfiguration, file: "plumb.json")
        let runner = GatedRunner(limit: end == .deadline ? 1 : 30) { $0 == transform("270") }
        let clock = VirtualClock(startNanoseconds: Nanoseconds.perSecond)
        var factory = DaemonFactory(source: .simulated, context: .capturing(), realClock: clock)
        factory.rotationRunner = runner
        let err = Output.capture()
        let giveUp = Date().addingTimeInterval(30)
        var reloadedWhileHeld = false
        var reloadedAt: UInt64?
        let daemon = Daemon(
            log: DaemonLog(output: err, format: .plain), notifier: WatchdogNotifier(), clock: clock,
            takeSignals: {
                if Date() > giveUp { return [.terminate] }
                guard let reloadedAt else {
                    guard runner.isHolding else { return [] }
                    reloadedWhileHeld = true
                    if end == .opened { DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { runner.open() } }
                    return [.reload]
                }
                // The new kiosk: nothing to turn (it kept the turn), or the turn itself.
                switch end {
                case .opened: return clock.nowNanoseconds &- reloadedAt >= 5 * Nanoseconds.perSecond ? [.terminate] : []
                case .deadline: return runner.ended.count == 2 ? [.terminate] : []
                }
            },
            load: { () throws(CLIError) -> DaemonSetup in DaemonSetup(path: "plumb.json", configuration: configuration, board: board) },
            build: { setup, handover in
                if handover != nil { reloadedAt = clock.nowNanoseconds }
                let outputs = try factory.makeOutputs(setup, handover: handover)
                return try SensorPipeline(source: SteadySource(clock: clock, force: SIMD3(g, 0, 0)),
                                          configuration: IMUConfiguration(outputDataRate: 100, fifoWatermark: 10),
                                          orientation: DaemonFactory.orientationPipeline(setup.configuration), outputs: outputs,
                                          allowedInterfaces: DaemonFactory.allowedInterfaces(setup.configuration.orientation), describe: { _ in "steady" })
            })
        let status = daemon.run()
        let log = err.captured
        #expect(status == 0, "\(log)")
        #expect(reloadedWhileHeld, "the loop took the reload while the turn waited at the gate (\(runner.transcript))")
        let lines = log.split(separator: "\n").map(String.init)
        let reloaded = try #require(lines.firstIndex(of: "plumb: info: reloaded plumb.json; board generic (chosen by --board or the configuration)"), "\(log)")
        switch end {
        case .opened:
            #expect(runner.started == [transform("270"), transform("normal")])
            let turned = try #require(lines.firstIndex(of: "plumb: notice: kiosk: turned the screen to landscapeRight (\(transform("270")))"), "\(log)")
            let kept = try #require(lines.firstIndex(of: "plumb: info: kiosk: the screen HDMI-A-1 stays landscapeRight across the reload"), "\(log)")
            #expect(turned < reloaded && reloaded < kept)
        case .deadline:
            #expect(runner.started == [transform("270"), transform("270"), transform("normal")])
            let failed = try #require(lines.firstIndex { $0.hasPrefix("plumb: warning: kiosk: could not turn the screen to landscapeRight") }, "\(log)")
            let turned = try #require(lines.firstIndex(of: "plumb: notice: kiosk: turned the screen to landscapeRight (\(transform("270")))"), "\(log)")
            #expect(failed < reloaded && reloaded < turned)
            #expect(!log.contains("across the reload"))
        }
    }

    // MARK: plumb kiosk on the board's IMU

    /// The session `plumb kiosk` runs on the board's IMU (``Kiosk/followLive(_:found:worker:clock:duration:powerMonitor:report:shouldStop:show:)``),
    /// with the worker the command makes (``Kiosk/liveWorker(backend:settings:runner:lock:)``), on
    /// `source`; `shouldStop` is asked between steps.
    private func followLive(_ source: SteadySource, runner: GatedRunner, shouldStop: () -> Bool,
                            show: ([KioskTurns.Report]) -> Void) throws -> KioskWorker {
        let worker = Kiosk.liveWorker(backend: KioskBackend(kind: .wlrRandr, output: "HDMI-A-1"), settings: KioskController.Settings(holdOff: 500_000_000),
                                      runner: runner, lock: NoOrientationLock())
        let found = LiveSensor.Found(setup: DaemonSetup(path: "plumb.json", configuration: try Configuration.decode(#"{"filter": {"kind": "complementary"}}"#, file: "plumb.json"),
                                                        board: board),
                                     imu: IMUConfiguration(outputDataRate: 100, fifoWatermark: 10), busPath: "/dev/i2c-1", address: I2CAddress(UInt8(0x68)))
        try Kiosk.followLive(source, found: found, worker: worker, clock: source.clock, duration: nil,
                             powerMonitor: FixedPowerMonitor(PowerState()), shouldStop: shouldStop, show: show)
        return worker
    }

    /// `plumb kiosk` on the board's IMU runs its tools on a thread of its own too: while a turn
    /// hangs, its loop goes on reading the sensor (five seconds of samples here), and the turn's
    /// line is printed once it ends. The loop ran the tool itself and read nothing meanwhile: up
    /// to 4 s for a tool stopped at its deadline, while an MPU-6050's FIFO holds less than a
    /// second at 100 Hz.
    @Test func plumbKiosksLoopGoesOnReadingWhileATurnHangs() throws {
        let runner = GatedRunner { $0 == transform("270") }
        let source = SteadySource(force: SIMD3(g, 0, 0))
        let giveUp = Date().addingTimeInterval(30)
        var shown: [KioskTurns.Report] = []
        var atHold: Int?
        var readWhileHeld: Int?
        var stillHeld = false
        let worker = try followLive(source, runner: runner, shouldStop: {
            if Date() > giveUp { return true }
            if readWhileHeld != nil { return !shown.isEmpty }
            guard runner.isHolding else { return false }
            guard let start = atHold else {
                atHold = source.reads
                return false
            }
            // Five seconds of samples (at 200 × real time) while the turn still waits.
            if source.reads - start >= 50 {
                readWhileHeld = source.reads - start
                stillHeld = runner.isHolding
                runner.open()
            }
            return false
        }, show: { shown += $0 })
        let read = try #require(readWhileHeld, "the loop went on reading while the turn waited at the gate (\(runner.transcript))")
        #expect(read >= 50)
        #expect(stillHeld)
        #expect(shown.count == 1)
        if case .rotated(let o, let action, _)? = shown.first?.event {
            #expect(o == .landscapeRight && action == transform("270"))
        } else {
            Issue.record("\(shown)")
        }
        // plumb kiosk leaves the screen as it is: no turn upright at the end.
        #expect(runner.started == [transform("270")])
        #expect(worker.shownAfterEnd() == .landscapeRight)
        #expect(throws: Never.self) { try KioskPrinter.finish(worker) }
    }

    /// A stop (SIGINT, SIGTERM, SIGHUP) while a turn hangs stops the sensor at once, then waits
    /// for the tool (within its deadline) before the command ends, printing its line. The loop
    /// that ran the tool saw the signal only once the tool had ended.
    @Test func aStopWhileATurnHangsStopsTheSensorAtOnce() throws {
        let runner = GatedRunner { $0 == transform("270") }
        let source = SteadySource(force: SIMD3(g, 0, 0))
        var stoppedWhileHeld: Bool?
        source.whenStopped = {
            stoppedWhileHeld = runner.isHolding
            // The tool ends a little later (a tool that answers late).
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { runner.open() }
        }
        let giveUp = Date().addingTimeInterval(30)
        var shown: [KioskTurns.Report] = []
        _ = try followLive(source, runner: runner, shouldStop: { Date() > giveUp || runner.isHolding }, show: { shown += $0 })
        #expect(stoppedWhileHeld == true, "the sensor was stopped while the turn waited at the gate (\(runner.transcript))")
        #expect(runner.ended == [transform("270")])
        #expect(shown.count == 1, "\(shown)")
    }

    /// `plumb run` reloaded 30 times, its kiosk turning the screen through a command: each
    /// reload's kiosk thread ends with its output, so the process has as many threads after the
    /// 30th reload as after the first (give or take the pool that runs the command's process).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: plumbBinary), "needs the plumb binary (swift build)"))
    func thirtyReloadsLeaveNoKioskThreadBehind() throws {
        let dir = NSTemporaryDirectory() + "plumb-kiosk-threads-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/plumb.json"
        try #"{"board": "generic", "imu": {"rate": 50}, "filter": {"kind": "complementary"}, "#
            .appending(#""outputs": {"kiosk": {"method": "command", "command": "true", "holdOff": 0}}}"#)
            .write(toFile: config, atomically: true, encoding: .utf8)
        // 120 s on the long edge at 50 Hz, played in real time: the kiosk turns to landscapeRight.
        var csv = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        for i in 0..<6000 { csv += "\(Double(i) / 50),0,0,0,\(g),0,0\n" }
        try csv.write(toFile: dir + "/motion.csv", atomically: true, encoding: .utf8)
        try #require(FileManager.default.createFile(atPath: dir + "/log", contents: nil))
        let notify = try FakeNotifySocket(path: dir + "/notify.sock")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: plumbBinary)
        process.arguments = ["run", "--config", config, "--replay", dir + "/motion.csv", "--boards-dir", repository + "/boards"]
        // ASAN_OPTIONS passed on: scripts/test.d/60-asan turns leak checks off (detect_leaks=0) for the
        // tests and the plumb they start; without it LeakSanitizer's report at exit made the status 1.
        process.environment = ["NOTIFY_SOCKET": notify.path, "PATH": "/usr/bin:/bin",
                               "ASAN_OPTIONS": ProcessInfo.processInfo.environment["ASAN_OPTIONS"] ?? ""]
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/log"))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { signalAndAwaitExit(process, SIGKILL) } }
        let threads = { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/task").count) ?? 0 }
        let log = { (try? String(contentsOfFile: dir + "/log", encoding: .utf8)) ?? "" }
        try #require(notify.receive()?.hasPrefix("READY=1\n") == true)
        #expect(eventually { log().contains("kiosk: turned the screen to landscapeRight (sh -c true)") }, "\(log())")
        var afterFirst = 0
        for reload in 1...30 {
            kill(process.processIdentifier, SIGHUP)
            #expect(notify.receive() == "RELOADING=1")
            #expect(notify.receive()?.hasPrefix("READY=1\n") == true)
            Thread.sleep(forTimeInterval: 0.05)
            if reload == 1 {
                Thread.sleep(forTimeInterval: 0.5)
                afterFirst = threads()
            }
        }
        Thread.sleep(forTimeInterval: 0.5)
        let afterLast = threads()
        #expect(afterFirst > 0)
        #expect(afterLast <= afterFirst + 3, "\(afterFirst) threads after the first reload, \(afterLast) after the 30th")
        signalAndAwaitExit(process, SIGTERM)
        #expect(process.terminationStatus == 0)
        let text = log()
        #expect(text.components(separatedBy: "plumb: info: reloaded ").count - 1 == 30, "\(text)")
        #expect(text.components(separatedBy: "plumb: info: kiosk: the screen stays landscapeRight across the reload\n").count - 1 == 30)
        #expect(text.hasSuffix("plumb: info: stopping on SIGTERM\nplumb: info: stopped\n"), "\(text)")
    }
}
