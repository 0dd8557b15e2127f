import Testing
import PlumbConfiguration
import PlumbDrivers
import PlumbHAL
import PlumbOrientation
@testable import PlumbCLI

private final class RecordingNotifier: ServiceNotifier {
    var states: [String] = []
    var watchdogIntervalNanoseconds: UInt64?
    init(watchdog: UInt64? = nil) { watchdogIntervalNanoseconds = watchdog }
    func notify(_ state: String) throws { states.append(state) }
}

private final class FakePipeline: DaemonPipeline {
    let name: String
    let clock: VirtualClock
    var steps = 0
    var shutDown = false
    var failAtStep: Int?
    var finishAtStep: Int?
    init(_ name: String, clock: VirtualClock) { self.name = name; self.clock = clock }
    var summary: String { "pipeline \(name)" }
    func step(timeoutNanoseconds: UInt64) throws -> [DaemonEvent] {
        steps += 1
        clock.advance(by: timeoutNanoseconds)
        if steps == failAtStep { throw CLIError.failure("bus error on /dev/i2c-1") }
        if steps == finishAtStep { throw DaemonSourceFinished(name: "recording motion.csv") }
        return steps == 1 ? [DaemonEvent(level: .notice, message: "orientation portrait")] : []
    }
    func shutdown() throws -> [DaemonEvent] { shutDown = true; return [] }
    func handOver(to next: DaemonSetup) -> DaemonHandover { DaemonHandover() }
}

/// Drives a Daemon with a virtual clock, scripted signals (by step number) and scripted configurations.
private final class Harness {
    let clock = VirtualClock()
    let notifier: RecordingNotifier
    let err = Output.capture()
    var signalsAtStep: [Int: [PlumbDaemonSignal]] = [:]
    var configurations: [Result<Configuration, CLIError>]
    var loads = 0
    var built: [FakePipeline] = []
    var failBuildOf: Set<String> = []
    /// What a build in ``failBuildOf`` throws.
    var buildFailure = CLIError.failure("cannot open /dev/i2c-1")
    var stepFailure: Int?
    var finishAt: Int?

    init(configurations: [Result<Configuration, CLIError>], watchdog: UInt64? = nil) {
        self.configurations = configurations
        notifier = RecordingNotifier(watchdog: watchdog)
    }

    func makeDaemon(duration: UInt64? = nil) -> Daemon {
        let board = BoardSelection(board: Board(id: "rpi4", name: "Raspberry Pi 4", models: [], i2cBus: "/dev/i2c-1", interrupt: nil,
                                                display: nil, leds: [], imuAddress: I2CAddress(UInt8(0x68))), reason: .override)
        return Daemon(
            log: DaemonLog(output: err, format: .journal),
            notifier: notifier, clock: clock,
            takeSignals: { [unowned self] in
                let step = built.map(\.steps).reduce(0, +)
                return signalsAtStep.removeValue(forKey: step) ?? []
            },
            load: { [unowned self] () throws(CLIError) -> DaemonSetup in
                let result = configurations[min(loads, configurations.count - 1)]
                loads += 1
                switch result {
                case .success(let c): return DaemonSetup(path: "/etc/plumb/plumb.json", configuration: c, board: board)
                case .failure(let e): throw e
                }
            },
            build: { [unowned self] setup, _ in
                let name = "\(setup.configuration.imu.rate)"
                if failBuildOf.contains(name) { throw buildFailure }
                let p = FakePipeline(name, clock: clock)
                p.failAtStep = stepFailure
                p.finishAtStep = finishAt
                built.append(p)
                return p
            },
            duration: duration)
    }
}

private func config(rate: Double) -> Configuration {
    var c = Configuration()
    c.imu.rate = rate
    return c
}

@Suite struct DaemonTests {
    @Test func startsNotifiesReadyAndStopsCleanlyOnSIGTERM() {
        let h = Harness(configurations: [.success(config(rate: 100))])
        h.signalsAtStep = [3: [.terminate]]
        #expect(h.makeDaemon().run() == 0)
        #expect(h.notifier.states == ["READY=1\nSTATUS=pipeline 100.0", "STOPPING=1"])
        #expect(h.built.count == 1)
        #expect(h.built[0].steps == 3)
        #expect(h.built[0].shutDown)
        #expect(h.err.captured == """
            <6>started with /etc/plumb/plumb.json; board rpi4 (chosen by --board or the configuration)
            <6>pipeline 100.0
            <5>orientation portrait
            <6>stopping on SIGTERM
            <6>stopped

            """)
    }

    /// Ctrl-C stopped the same way but was logged as "stopping on SIGTERM".
    @Test func ctrlCStopsAlikeAndIsLoggedAsSIGINT() {
        let h = Harness(configurations: [.success(config(rate: 100))])
        h.signalsAtStep = [2: [.interrupt]]
        #expect(h.makeDaemon().run() == 0)
        #expect(h.notifier.states == ["READY=1\nSTATUS=pipeline 100.0", "STOPPING=1"])
        #expect(h.built[0].shutDown)
        #expect(h.err.captured.hasSuffix("<6>stopping on SIGINT\n<6>stopped\n"))
    }

    @Test func sighupReloadsIntoANewPipeline() {
        let h = Harness(configurations: [.success(config(rate: 100)), .success(config(rate: 200))])
        h.signalsAtStep = [2: [.reload], 4: [.terminate]]
        #expect(h.makeDaemon().run() == 0)
        #expect(h.notifier.states == ["READY=1\nSTATUS=pipeline 100.0", "RELOADING=1", "READY=1\nSTATUS=pipeline 200.0", "STOPPING=1"])
        #expect(h.built.map(\.name) == ["100.0", "200.0"])
        #expect(h.built.allSatisfy { $0.shutDown })
        #expect(h.err.captured.contains("<6>reloaded /etc/plumb/plumb.json; board rpi4"))
    }

    @Test func anInvalidReloadKeepsTheRunningPipeline() {
        let bad = CLIError.failure("/etc/plumb/plumb.json:3:13: imu.rate: 5000 is out of range; allowed 1...1666 (Hz)")
        let h = Harness(configurations: [.success(config(rate: 100)), .failure(bad)])
        h.signalsAtStep = [2: [.reload], 3: [.terminate]]
        #expect(h.makeDaemon().run() == 0)
        #expect(h.built.count == 1)
        #expect(h.built[0].steps == 3)
        #expect(h.err.captured.contains("<3>reload failed, keeping the running configuration: /etc/plumb/plumb.json:3:13: imu.rate: 5000 is out of range; allowed 1...1666 (Hz)\n"))
        #expect(h.notifier.states[1] == "RELOADING=1")
        #expect(h.notifier.states[2].hasPrefix("READY=1\nSTATUS=pipeline 100.0 (reload failed: "))
    }

    @Test func aFailedReloadLogsItsFix() {
        let bad = CLIError.failure("outputs.mqtt: plumb cannot reach the broker mqtt://broker.lan:1883", fix: "Install the network drop-in.")
        let h = Harness(configurations: [.success(config(rate: 100)), .failure(bad)])
        h.signalsAtStep = [2: [.reload], 3: [.terminate]]
        #expect(h.makeDaemon().run() == 0)
        #expect(h.err.captured.contains("""
            <3>reload failed, keeping the running configuration: outputs.mqtt: plumb cannot reach the broker mqtt://broker.lan:1883
            <3>fix: Install the network drop-in.

            """))
    }

    @Test func aReloadThatCannotBuildRestartsThePreviousConfiguration() {
        let h = Harness(configurations: [.success(config(rate: 100)), .success(config(rate: 200))])
        h.failBuildOf = ["200.0"]
        h.signalsAtStep = [1: [.reload], 2: [.terminate]]
        #expect(h.makeDaemon().run() == 0)
        #expect(h.built.map(\.name) == ["100.0", "100.0"])
        #expect(h.err.captured.contains("<3>reload failed, restarting the previous configuration: cannot open /dev/i2c-1\n"))
    }

    @Test func pingsTheWatchdogAtHalfItsInterval() {
        let h = Harness(configurations: [.success(config(rate: 100))], watchdog: 1_000_000_000)
        let daemon = h.makeDaemon(duration: 3_000_000_000)
        #expect(daemon.run() == 0)
        // Steps of 100 ms (the step timeout, under a quarter of the watchdog) for 3 s: a ping every 500 ms.
        #expect(h.notifier.states.filter { $0 == "WATCHDOG=1" }.count == 6)
        #expect(h.err.captured.contains("<6>stopping after 3.0 s (--duration)\n"))
    }

    @Test func aConfigurationErrorAtStartExitsOneWithThePriorityThreeLine() {
        let h = Harness(configurations: [.failure(.failure("/etc/plumb/plumb.json: cannot read the file (no such file)", fix: "Run 'plumb config example'."))])
        #expect(h.makeDaemon().run() == 1)
        #expect(h.err.captured == """
            <3>cannot start: /etc/plumb/plumb.json: cannot read the file (no such file)
            <3>fix: Run 'plumb config example'.

            """)
        #expect(h.notifier.states == ["STATUS=cannot start: /etc/plumb/plumb.json: cannot read the file (no such file)"])
    }

    /// A sensor that does not start says "cannot start" itself (SensorPipeline.startFailure), also
    /// at imu.rate's line and column: the log and systemd's STATUS said "cannot start: cannot
    /// start IMU at 0x68 …" and "cannot start: FILE:3:19: imu.rate: cannot start …".
    @Test func aSensorThatCannotStartIsToldOnce() {
        let error = MotionSourceError.imu(.bus(I2CError(errno: Errno.ENXIO, bus: "/dev/i2c-1", address: I2CAddress(0x68))))
        let plain = SensorPipeline.startFailure(error, source: "IMU at 0x68 on /dev/i2c-1, polling", configurationPath: "/etc/plumb/plumb.json")
        guard case .failure(let message, let fix?) = plain else {
            Issue.record("\(plain)")
            return
        }
        #expect(message.hasPrefix("cannot start IMU at 0x68 on /dev/i2c-1, polling: "))
        let located = "/etc/plumb/plumb.json:3:19: imu.rate: cannot start IMU at 0x68 on /dev/i2c-1, polling: output data rate 2.0 Hz: the MPU-6050 FIFO runs at 3.9...1000 Hz"
        for (failure, told) in [(plain, message), (CLIError.failure(located, fix: fix), located)] {
            let h = Harness(configurations: [.success(config(rate: 100))])
            h.failBuildOf = ["100.0"]
            h.buildFailure = failure
            #expect(h.makeDaemon().run() == 1)
            #expect(h.err.captured == "<3>\(told)\n<3>fix: \(fix)\n", "\(h.err.captured)")
            #expect(h.notifier.states == ["STATUS=\(told)"])
        }
        // Any other failure is headed by what failed.
        let h = Harness(configurations: [.success(config(rate: 100))])
        h.failBuildOf = ["100.0"]
        #expect(h.makeDaemon().run() == 1)
        #expect(h.err.captured == "<3>cannot start: cannot open /dev/i2c-1\n")
    }

    @Test func aSensorFailureShutsDownAndExitsOne() {
        let h = Harness(configurations: [.success(config(rate: 100))])
        h.stepFailure = 2
        #expect(h.makeDaemon().run() == 1)
        #expect(h.built[0].shutDown)
        #expect(h.err.captured.contains("<3>the sensor session failed: bus error on /dev/i2c-1\n"))
    }

    @Test func theEndOfARecordingStopsCleanlyWithExitZero() {
        let h = Harness(configurations: [.success(config(rate: 100))])
        h.finishAt = 4
        #expect(h.makeDaemon().run() == 0)
        #expect(h.built[0].shutDown)
        #expect(h.notifier.states.last == "STOPPING=1")
        #expect(h.err.captured.hasSuffix("<6>stopping: recording motion.csv has no more data\n<6>stopped\n"))
        #expect(!h.err.captured.contains("<3>"))
    }

    @Test func plainFormatOffATerminal() {
        let out = Output.capture()
        let log = DaemonLog(output: out, format: DaemonLog.defaultFormat(environment: [:]), level: .info)
        log.debug("hidden")
        log.warning("line one\nline two")
        #expect(out.captured == "plumb: warning: line one\nplumb: warning: line two\n")
        #expect(DaemonLog.defaultFormat(environment: ["JOURNAL_STREAM": "8:12345"]) == .journal)
    }
}
