import PlumbConfiguration
import PlumbDBus
import PlumbDrivers
import PlumbFusion
import PlumbHAL
import PlumbOrientation
import Testing
@testable import PlumbCLI

/// An output that needs the sensor only when told (the D-Bus output while claimed), and records
/// what the session says about the chip's presence and how many batches reached it.
private final class PausingOutput: DaemonOutput {
    var name: String { "pausing" }
    var needsSensor: Bool
    var presence: [SensorPresence] = []
    var batches = 0
    init(needsSensor: Bool) { self.needsSensor = needsSensor }
    func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws {}
    func gravityUpdated(_ gravity: SIMD3<Double>) throws { batches += 1 }
    func sensorPresenceChanged(_ presence: SensorPresence) { self.presence.append(presence) }
    func restore() throws {}
}

/// `plumb run`'s session on the emulated board whose MPU-6050 at 0x68 can be unplugged, polled,
/// with one output; `waits` is --wait-for-sensor (or a reload's ``DaemonHandover/awaitsSensor``).
private func pausedChipSession(_ board: DBusBoard, output: PausingOutput, waits: Bool = false) throws -> SensorPipeline {
    let at = I2CAddress(UInt8(0x68))
    let imu = try DaemonFactory.makeIMU(bus: board, address: at, clock: board.clock, part: nil)
    let source = StreamSampleSource(name: "IMU at \(at) on /dev/i2c-1, polling", imu: imu, line: nil, clock: board.clock)
    return try SensorPipeline(
        source: source, configuration: IMUConfiguration(), orientation: OrientationPipeline(fused: FusionAlgorithm.complementary.makeGravityEstimator()),
        outputs: [output], allowedInterfaces: Set(InterfaceOrientation.allCases), stallLimit: .max, waitsForSensor: waits, warnsOfSilenceAtShutdown: true,
        describe: { "\(source.name) at \(Int($0.outputDataRate.rounded())) Hz" })
}

private let name = "IMU at 0x68 on /dev/i2c-1, polling"

/// `plumb run` pausing its sensor (the display blanked, no D-Bus claim) while its chip makes and
/// breaks contact: tried every second while away, set up when it answers, paused again, found
/// away by the pause's stop. Each round logged the chip answering, the part found, the chip not
/// answering so paused without its stop, and the sensor stopped: over three lines a second into
/// the journal for as long as the contact flapped. The first loss and return are still logged
/// in full, then one summary a minute with the fix, and the outputs still follow every change.
@Suite struct FlappingWhilePausedTests {
    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aChipThatComesAndGoesWhilePausedIsSummedUpOnceAMinute(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let output = PausingOutput(needsSensor: true)
        let pipeline = try pausedChipSession(board, output: output)
        var log: [(time: UInt64, line: String)] = []
        func step() throws {
            log += try pipeline.step(timeoutNanoseconds: 100_000_000).map { (board.clock.nowNanoseconds, $0.message) }
        }
        try step()
        // Lost while it runs, then paused while away (the display blanked): the first loss.
        board.plugged = false
        for _ in 0..<200 where output.presence.isEmpty { try step() }
        guard case .absent = output.presence.first else { Issue.record("never lost: \(log.map(\.line))"); return }
        output.needsSensor = false
        try step()
        #expect(!pipeline.sensorActive)

        // Five minutes of a contact that breaks whenever the chip was set up, and makes again
        // whenever it was paused.
        let flapping = board.clock.nowNanoseconds
        let before = log.count
        var steps = 0
        while board.clock.nowNanoseconds &- flapping < 300 * Nanoseconds.perSecond, steps < 100_000 {
            board.plugged = !pipeline.sensorActive
            try step()
            steps += 1
        }
        let lines = log[before...].map(\.line)
        #expect(output.presence.count > 200, "the chip did not come and go: \(output.presence.count) changes; \(lines.prefix(20))")
        // The first return in full (the first loss came before the flapping).
        #expect(lines.filter { $0.hasPrefix("\(name) answers after ") }.count == 1, "\(lines.prefix(30))")
        #expect(lines.filter { $0.hasPrefix("found MPU-6050") }.count == 1, "\(lines.prefix(30))")
        // Then one summary a minute, with the fix: 4 or 5 in 300 s (the first window starts with
        // the first loss held).
        let summaries = lines.indices.filter { lines[$0].hasPrefix("\(name) was lost and back ") }
        #expect((4...5).contains(summaries.count), "\(lines)")
        for index in summaries {
            #expect(lines[index].contains(" more times in the last 60 s ("), "\(lines[index])")
            #expect(index + 1 < lines.count && lines[index + 1].hasPrefix("fix: Check the wiring with the power off")
                    && lines[index + 1].hasSuffix(SensorPipeline.flapFix), "\(lines[min(index + 1, lines.count - 1)])")
        }
        // Over three lines a second before: now the first return and the summaries.
        #expect(lines.count <= 2 * summaries.count + 6, "\(lines.count) lines: \(lines)")

        // The contact holds: a last summary once its minute is over, then quiet; a loss after a
        // quiet minute is logged in full again.
        board.plugged = true
        let settled = log.count
        let steady = board.clock.nowNanoseconds
        while board.clock.nowNanoseconds &- steady < 130 * Nanoseconds.perSecond { try step() }
        #expect(!pipeline.sensorActive)
        let after = log[settled...].map(\.line)
        #expect(after.filter { $0.hasPrefix("\(name) was lost and back ") }.count == 1, "the held changes are summed up once: \(after)")
        output.needsSensor = true
        for _ in 0..<20 { try step() }
        board.plugged = false
        for _ in 0..<200 where output.presence.last == .present { try step() }
        output.needsSensor = false
        for _ in 0..<3 { try step() }
        let again = log[settled...].map(\.line)
        #expect(again.contains { $0.hasPrefix("\(name) does not answer, so it is paused without its stop (") || $0.hasPrefix("\(name) still does not answer, so it is paused without its stop (") },
                "\(again)")
        try pipeline.shutdown()
    }
}

/// A chip unplugged while the sensor is paused (nothing reads it, so nothing notices), then a
/// desktop's claim: the restart found nothing answering and ended `plumb run` ("cannot restart
/// …"). It is taken as lost, as one the stream loses while it runs: the outputs told absent,
/// the STATUS waiting, the chip tried every second and set up once it answers.
@Suite struct ResumeWhileAwayTests {
    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aClaimAfterTheChipWentWhilePausedWaitsForIt(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let output = PausingOutput(needsSensor: false)
        let pipeline = try pausedChipSession(board, output: output)
        var log: [String] = []
        func step() throws { log += try pipeline.step(timeoutNanoseconds: 100_000_000).map(\.message) }
        try step()
        #expect(!pipeline.sensorActive)
        board.plugged = false
        for _ in 0..<5 { try step() }
        #expect(output.presence.isEmpty, "a paused chip is not read: \(output.presence)")

        output.needsSensor = true
        for _ in 0..<30 { try step() }
        #expect(!pipeline.sensorActive)
        guard case .absent = output.presence.first else { Issue.record("not told absent: \(output.presence) \(log)"); return }
        #expect(pipeline.status.hasPrefix("waiting for the IMU at 0x68"), "\(pipeline.status)")
        #expect(log.filter { $0.hasPrefix("\(name) went while the sensor was paused: it does not answer its restart (") }.count == 1, "\(log)")
        #expect(log.contains { $0.hasPrefix("fix: Check the wiring with the power off") }, "\(log)")

        board.plugged = true
        for _ in 0..<100 where output.batches == 0 { try step() }
        #expect(pipeline.sensorActive)
        #expect(output.presence.last == .present, "\(output.presence)")
        #expect(output.batches > 0, "\(log.suffix(10))")
        #expect(pipeline.status == pipeline.summary)
        try pipeline.shutdown()
    }
}

/// A SIGHUP reload of `plumb run` (without --wait-for-sensor) after its chip was unplugged while
/// the sensor was paused: nothing had read the chip, so the handover said nothing was lost, the
/// new configuration's start and the previous one's failed on the silent address, and the daemon
/// ended ("cannot restart the previous configuration"). A chip lost while the sensor runs is
/// awaited across a reload; the paused one now is too, found away by the reload's stop.
@Suite struct ReloadWhilePausedAndAwayTests {
    final class Notifier: ServiceNotifier {
        var states: [String] = []
        var watchdogIntervalNanoseconds: UInt64? { nil }
        func notify(_ state: String) throws { states.append(state) }
    }

    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aReloadAfterTheChipWentWhilePausedAwaitsIt(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let notifier = Notifier()
        let err = Output.capture()
        let selection = BoardSelection(board: Board(id: "generic", name: "Generic", models: [], i2cBus: "/dev/i2c-1", interrupt: nil,
                                                    display: nil, leds: [], imuAddress: I2CAddress(UInt8(0x68))), reason: .override)
        var turn = 0
        var reloaded = false
        var builds: [Bool] = []
        let daemon = Daemon(
            log: DaemonLog(output: err, format: .plain), notifier: notifier, clock: board.clock,
            takeSignals: {
                turn += 1
                if turn == 5 { board.plugged = false }
                if turn == 10 { reloaded = true; return [.reload] }
                if turn == 40 { board.plugged = true }
                return turn > 40 && err.captured.contains("answers after") ? [.terminate] : turn > 400 ? [.terminate] : []
            },
            load: { () throws(CLIError) -> DaemonSetup in DaemonSetup(path: "plumb.json", configuration: Configuration(), board: selection) },
            build: { _, handover in
                builds.append(handover?.awaitsSensor == true)
                return try pausedChipSession(board, output: PausingOutput(needsSensor: false), waits: handover?.awaitsSensor == true)
            })
        let status = daemon.run()
        let log = err.captured
        #expect(reloaded)
        #expect(status == ExitCode.success, "\(log)")
        #expect(builds == [false, true], "\(builds)")
        #expect(log.contains("plumb: warning: \(name) went while the sensor was paused: it does not answer ("), "\(log)")
        #expect(log.contains("plumb: info: reloaded plumb.json; board generic"), "\(log)")
        #expect(!log.contains("reload failed") && !log.contains("plumb: error:"), "\(log)")
        let reloading = notifier.states.firstIndex(of: "RELOADING=1")
        #expect(reloading.map { notifier.states[($0 + 1)...].first?.hasPrefix("READY=1\nSTATUS=waiting for the \(name): it does not answer") } == true, "\(notifier.states)")
        #expect(log.contains("plumb: notice: \(name) answers after "), "\(log)")
        #expect(notifier.states.last == "STOPPING=1")
    }

    /// The chip still there at the reload: not awaited (a new address where nothing answers
    /// still fails the reload at once), and the reload's stop of the paused chip says nothing.
    @Test func aReloadWhilePausedWithTheChipThereIsPlain() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        let notifier = Notifier()
        let err = Output.capture()
        let selection = BoardSelection(board: Board(id: "generic", name: "Generic", models: [], i2cBus: "/dev/i2c-1", interrupt: nil,
                                                    display: nil, leds: [], imuAddress: I2CAddress(UInt8(0x68))), reason: .override)
        var turn = 0
        var builds: [Bool] = []
        let daemon = Daemon(
            log: DaemonLog(output: err, format: .plain), notifier: notifier, clock: board.clock,
            takeSignals: {
                turn += 1
                return turn == 10 ? [.reload] : turn == 20 ? [.terminate] : []
            },
            load: { () throws(CLIError) -> DaemonSetup in DaemonSetup(path: "plumb.json", configuration: Configuration(), board: selection) },
            build: { _, handover in
                builds.append(handover?.awaitsSensor == true)
                return try pausedChipSession(board, output: PausingOutput(needsSensor: false), waits: handover?.awaitsSensor == true)
            })
        #expect(daemon.run() == ExitCode.success)
        #expect(builds == [false, false])
        #expect(!err.captured.contains("plumb: warning:") && !err.captured.contains("plumb: error:"), "\(err.captured)")
    }
}

/// The same contact flapping while the sensor runs (an output needs it throughout): the stream
/// finds the chip gone after five failed reads, re-initialises it until it answers, and goes on.
/// The losses and returns were summed up once a minute, but each loss's "5 failed reads in a row
/// (nothing answers …); re-initialising the chip" was still logged: ten lines a minute for a
/// contact that breaks every 6 s. It is part of the loss now, held with it.
@Suite struct FlappingWhileRunningTests {
    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aChipThatComesAndGoesWhileRunningIsSummedUpOnceAMinute(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let output = PausingOutput(needsSensor: true)
        let pipeline = try pausedChipSession(board, output: output)
        var log: [String] = []
        func step() throws { log += try pipeline.step(timeoutNanoseconds: 100_000_000).map(\.message) }
        for _ in 0..<20 { try step() }
        // Five minutes of a contact that breaks and makes every 3 s.
        let flapping = board.clock.nowNanoseconds
        let before = log.count
        var steps = 0
        while board.clock.nowNanoseconds &- flapping < 300 * Nanoseconds.perSecond, steps < 100_000 {
            board.plugged = (board.clock.nowNanoseconds &- flapping) / (3 * Nanoseconds.perSecond) % 2 == 1
            try step()
            steps += 1
        }
        let lines = Array(log[before...])
        #expect(output.presence.count > 60, "the chip did not come and go: \(output.presence.count) changes; \(lines.prefix(20))")
        let summaries = lines.filter { $0.hasPrefix("\(name) was lost and back ") }
        #expect((4...5).contains(summaries.count), "\(lines.prefix(60))")
        // Each summary with its fix, the stream's gap summary a minute (``GapLog``), and the first
        // loss in full.
        let gapSummaries = lines.filter { $0.hasPrefix("gap in the stream from \(name): ") && $0.contains(" more in the last 60 s") }
        #expect(lines.count <= 2 * summaries.count + gapSummaries.count + 6, "\(lines.count) lines: \(lines.prefix(60))")
        #expect(lines.filter { $0.contains("failed reads in a row") }.count <= 2, "\(lines.prefix(60))")
        try pipeline.shutdown()
    }
}
