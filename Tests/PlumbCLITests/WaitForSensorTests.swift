import PlumbConfiguration
import PlumbDBus
import PlumbDrivers
import PlumbFusion
import PlumbHAL
import PlumbOrientation
import PlumbSimulation
import Testing
@testable import PlumbCLI

/// An output that records what the session tells it: the chip's presence and how many batches
/// of samples reached it; it needs the sensor while told (the D-Bus output while claimed).
private final class PresenceOutput: DaemonOutput {
    var name: String { "presence" }
    var needsSensor = true
    var presence: [SensorPresence] = []
    var batches = 0
    func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws {}
    func gravityUpdated(_ gravity: SIMD3<Double>) throws { batches += 1 }
    func sensorPresenceChanged(_ presence: SensorPresence) { self.presence.append(presence) }
    func restore() throws {}
}

/// `plumb run`'s session on `bus`, polling the MPU-6050 family chip at 0x68 as the factory makes
/// it (`imu.part: auto`), with one output; `waits` is `--wait-for-sensor`.
private func session(on bus: any I2CBus, clock: any MonotonicClock, waits: Bool, output: PresenceOutput = PresenceOutput()) throws -> (SensorPipeline, PresenceOutput) {
    let at = I2CAddress(UInt8(0x68))
    let imu = try DaemonFactory.makeIMU(bus: bus, address: at, clock: clock, part: nil)
    let source = StreamSampleSource(name: "IMU at \(at) on /dev/i2c-1, polling", imu: imu, line: nil, clock: clock)
    let pipeline = try SensorPipeline(
        source: source, configuration: IMUConfiguration(), orientation: OrientationPipeline(fused: FusionAlgorithm.complementary.makeGravityEstimator()),
        outputs: [output], allowedInterfaces: Set(InterfaceOrientation.allCases), waitsForSensor: waits,
        describe: { "\(source.name) at \(Int($0.outputDataRate.rounded())) Hz" })
    return (pipeline, output)
}

/// The line the session logs once when it starts without its chip.
private func isWaitLine(_ line: String) -> Bool {
    line.hasPrefix("IMU at 0x68 on /dev/i2c-1, polling does not answer (") && line.hasSuffix("); waiting for it, trying to start it every second")
}

/// `plumb run --wait-for-sensor` (plumb.service) started while its chip does not answer (nothing
/// acknowledges 0x68: a loose cable, a HAT powered up late). It failed the start, and systemd
/// restarted it every 2 s into its start limit; it now starts without the chip, tells the outputs
/// it is absent, tries it every second, and takes it when it answers. Without the flag, and for
/// any other failure, the start still fails at once.
@Suite struct WaitForSensorTests {
    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aChipThatAnswersLaterIsTakenWhenItDoes(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        board.plugged = false
        let (pipeline, output) = try session(on: board, clock: board.clock, waits: true)
        #expect(!pipeline.sensorActive)
        guard case .absent = output.presence.first else { Issue.record("not told absent: \(output.presence)"); return }
        #expect(pipeline.status == "waiting for the IMU at 0x68 on /dev/i2c-1, polling: it does not answer; check its wiring and power ('plumb probe' lists what answers)")

        var log: [String] = []
        func step() throws { log += try pipeline.step(timeoutNanoseconds: 100_000_000).map(\.message) }
        let started = board.clock.nowNanoseconds
        while board.clock.nowNanoseconds &- started < 5 * Nanoseconds.perSecond { try step() }
        #expect(log.filter(isWaitLine).count == 1, "\(log)")
        #expect(log.contains { $0.hasPrefix("fix: Check the wiring with the power off") && $0.hasSuffix("plumb sets it up within a second once it answers.") }, "\(log)")
        #expect(output.presence.count == 1 && output.batches == 0)

        board.plugged = true
        for _ in 0..<100 where output.batches == 0 { try step() }
        #expect(pipeline.sensorActive)
        #expect(output.presence.count == 2 && output.presence.last == .present, "\(output.presence)")
        #expect(output.batches > 0, "no samples after the chip answered: \(log.suffix(10))")
        #expect(log.contains { $0.hasPrefix("IMU at 0x68 on /dev/i2c-1, polling answers after ") && $0.hasSuffix(" s of waiting; sensor started: IMU at 0x68 on /dev/i2c-1, polling at 100 Hz") }, "\(log.suffix(10))")
        #expect(log.contains { $0.hasPrefix("found MPU-6050 (WHO_AM_I 0x68) at 0x68 on /dev/i2c-1") }, "\(log.suffix(10))")
        #expect(pipeline.status == pipeline.summary)
        try pipeline.shutdown()
    }

    /// A chip that never answers: the session stays up past the stall limit (10 s) for as long as
    /// it runs, says so once, and its shutdown does not touch the chip.
    @Test func aChipThatNeverAnswersKeepsTheSessionUp() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.EREMOTEIO)
        board.plugged = false
        let (pipeline, output) = try session(on: board, clock: board.clock, waits: true)
        var log: [String] = []
        let started = board.clock.nowNanoseconds
        var steps = 0
        while board.clock.nowNanoseconds &- started < 60 * Nanoseconds.perSecond, steps < 10_000 {
            log += try pipeline.step(timeoutNanoseconds: 100_000_000).map(\.message)
            steps += 1
        }
        #expect(board.clock.nowNanoseconds &- started >= 60 * Nanoseconds.perSecond, "the virtual clock did not move: \(steps) steps")
        #expect(log.filter(isWaitLine).count == 1, "\(log)")
        #expect(!log.contains { $0.hasPrefix("no samples from") }, "\(log)")
        #expect(output.presence.count == 1)
        #expect(!pipeline.sensorActive)
        try pipeline.shutdown()
    }

    /// With `dbus` the only output and no desktop claiming (a desktop claims only while
    /// HasAccelerometer is true), the awaited chip is still tried, so that the output learns it
    /// answers; the sensor is then paused until a claim.
    @Test func aChipNoOutputNeedsYetIsStillTriedAndThenPaused() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        board.plugged = false
        let unclaimed = PresenceOutput()
        unclaimed.needsSensor = false
        let (pipeline, output) = try session(on: board, clock: board.clock, waits: true, output: unclaimed)
        var log: [String] = []
        func step() throws { log += try pipeline.step(timeoutNanoseconds: 100_000_000).map(\.message) }
        for _ in 0..<30 { try step() }
        board.plugged = true
        for _ in 0..<100 where output.presence.count < 2 { try step() }
        #expect(output.presence.last == .present, "\(output.presence)")
        try step()
        #expect(!pipeline.sensorActive)
        #expect(log.last == "sensor stopped: no output needs it (no D-Bus claim)", "\(log.suffix(5))")
    }

    /// A chip lost while the session runs shows the same STATUS while it is away (with or
    /// without the flag: the stream waits for it either way), and the summary once it is back.
    @Test func aChipLostDuringTheRunShowsTheWaitingStatus() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        let (pipeline, output) = try session(on: board, clock: board.clock, waits: false)
        #expect(pipeline.status == "IMU at 0x68 on /dev/i2c-1, polling at 100 Hz")
        func step() throws { _ = try pipeline.step(timeoutNanoseconds: 100_000_000) }
        try step()
        board.plugged = false
        for _ in 0..<200 where output.presence.isEmpty { try step() }
        #expect(pipeline.status == "waiting for the IMU at 0x68 on /dev/i2c-1, polling: it does not answer; check its wiring and power ('plumb probe' lists what answers)")
        board.plugged = true
        for _ in 0..<200 where output.presence.count < 2 { try step() }
        #expect(output.presence.last == .present)
        #expect(pipeline.status == "IMU at 0x68 on /dev/i2c-1, polling at 100 Hz")
        try pipeline.shutdown()
    }

    /// Without --wait-for-sensor (`plumb run` typed by hand) the start fails at once, as before.
    @Test func withoutTheFlagTheStartStillFails() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        board.plugged = false
        #expect {
            _ = try session(on: board, clock: board.clock, waits: false)
        } throws: { error in
            guard case CLIError.failure(let message, let fix?) = error else { return false }
            return message.hasPrefix("cannot start IMU at 0x68 on /dev/i2c-1, polling: ") && fix.hasSuffix(SensorPipeline.restartPlumb)
        }
    }

    /// Another chip answering at the address (a WHO_AM_I no driver knows) is not waited for:
    /// waiting would not mend it.
    @Test func aWrongWhoAmIStillFailsTheStart() throws {
        let clock = VirtualClock(startNanoseconds: Nanoseconds.perSecond)
        let bus = EmulatedI2CBus(path: "/dev/i2c-1", clock: clock)
        let chip = MPU6050Emulator(variant: MPU6050.variant(named: "mpu6050")!, profile: Emulated.upright)
        chip.identityOverride = 0x42
        chip.powerOnReset()
        bus.attach(chip, at: I2CAddress(0x68))
        #expect {
            _ = try session(on: bus, clock: clock, waits: true)
        } throws: { error in
            guard case CLIError.failure(let message, _) = error else { return false }
            return message.hasPrefix("cannot start IMU at 0x68 on /dev/i2c-1, polling: ") && message.contains("0x42")
        }
    }
}

/// The daemon around a session waiting for its chip: READY at once with the waiting STATUS,
/// watchdog pings while it waits, the summary as STATUS once the chip answers.
@Suite struct WaitForSensorDaemonTests {
    final class Notifier: ServiceNotifier {
        var states: [String] = []
        var watchdogIntervalNanoseconds: UInt64? { 2 * Nanoseconds.perSecond }
        func notify(_ state: String) throws { states.append(state) }
    }

    @Test func readyAtOnceWithTheWaitingStatusThenTheSummary() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.EREMOTEIO)
        board.plugged = false
        let notifier = Notifier()
        let err = Output.capture()
        let boardSelection = BoardSelection(board: Board(id: "rpi4", name: "Raspberry Pi 4", models: [], i2cBus: "/dev/i2c-1", interrupt: nil,
                                                         display: nil, leds: [], imuAddress: I2CAddress(UInt8(0x68))), reason: .override)
        let start = board.clock.nowNanoseconds
        let daemon = Daemon(
            log: DaemonLog(output: err, format: .plain), notifier: notifier, clock: board.clock,
            takeSignals: {
                if board.clock.nowNanoseconds &- start >= 8 * Nanoseconds.perSecond { board.plugged = true }
                return []
            },
            load: { () throws(CLIError) -> DaemonSetup in DaemonSetup(path: "/etc/plumb/plumb.json", configuration: Configuration(), board: boardSelection) },
            build: { _, _ in try session(on: board, clock: board.clock, waits: true).0 },
            duration: 12 * Nanoseconds.perSecond)
        #expect(daemon.run() == ExitCode.success)
        let waiting = "STATUS=waiting for the IMU at 0x68 on /dev/i2c-1, polling: it does not answer; check its wiring and power ('plumb probe' lists what answers)"
        #expect(notifier.states.first == "READY=1\n" + waiting)
        let running = notifier.states.firstIndex(of: "STATUS=IMU at 0x68 on /dev/i2c-1, polling at 100 Hz")
        #expect(running != nil, "\(notifier.states)")
        // Pinged every second (half the watchdog interval) while waiting 8 s.
        #expect(notifier.states.prefix(running ?? 0).filter { $0 == "WATCHDOG=1" }.count >= 6, "\(notifier.states)")
        #expect(notifier.states.last == "STOPPING=1")
    }
}
