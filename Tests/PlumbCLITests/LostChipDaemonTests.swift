import Foundation
import PlumbConfiguration
import PlumbHAL
import Testing
@testable import PlumbCLI

private final class RecordingNotifier: ServiceNotifier {
    var states: [String] = []
    var watchdogIntervalNanoseconds: UInt64? { nil }
    func notify(_ state: String) throws { states.append(state) }
}

/// systemd's STATUS while the session waits for the emulated board's chip.
private let waiting = "STATUS=waiting for the IMU at 0x68 on /dev/i2c-1, polling: it does not answer; check its wiring and power ('plumb probe' lists what answers)"

/// An LED class directory with one LED, ACT, whose trigger is mmc0 (the SD card's activity, as
/// on a Raspberry Pi): the LED output sets it to none, and restoring it writes mmc0 back.
private final class LEDDirectory {
    let root: URL
    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-lost-chip-\(ProcessInfo.processInfo.processIdentifier)-\(UInt64.random(in: 0 ... .max))")
        let led = root.appendingPathComponent("ACT")
        try FileManager.default.createDirectory(at: led, withIntermediateDirectories: true)
        for (file, text) in [("max_brightness", "255\n"), ("brightness", "0\n"), ("trigger", "none [mmc0]\n")] {
            try text.write(to: led.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
    }
    deinit { try? FileManager.default.removeItem(at: root) }

    /// The trigger file as the output left it: "mmc0\n" once restored, "none\n" while it runs.
    /// (A plain file reads back what was written, not the kernel's list with the selected one in
    /// brackets: an output made after a restore, as at a reload, finds no trigger to save.)
    func trigger() throws -> String { try String(contentsOf: root.appendingPathComponent("ACT/trigger"), encoding: .utf8) }
}

private let leds = #"{"outputs": {"leds": {"map": {"portrait": "ACT"}}}}"#

/// `plumb run` as `Run` builds it — the daemon, ``DaemonFactory``'s hardware source and LED
/// output — on the emulated board whose MPU-6050 at 0x68 can be unplugged (``DBusBoard``, polled,
/// on its virtual clock). `configurations` are the file at the start and at each reload (the
/// last one repeats; one that does not decode fails the load); `script` is asked for the signals
/// at every turn of the daemon's loop, given the turn's number, and may unplug the chip.
private struct LostChipRun {
    var status: Int32 = -1
    var log = ""
    var states: [String] = []
    /// The LED's trigger file after the daemon ended.
    var trigger = ""

    init(_ board: DBusBoard, _ configurations: [String], waits: Bool = false,
         script: @escaping (_ turn: Int, _ states: [String]) -> [PlumbDaemonSignal]) throws {
        let directory = try LEDDirectory()
        let selection = BoardSelection(board: Board(id: "generic", name: "Generic", models: [], i2cBus: "/dev/i2c-1", interrupt: nil,
                                                    display: nil, leds: [], imuAddress: I2CAddress(UInt8(0x68))), reason: .override)
        var factory = DaemonFactory(source: .hardware, context: .capturing(), realClock: board.clock)
        factory.ledDirectory = directory.root.path
        factory.sysfsRoot = directory.root.appendingPathComponent("no-sysfs").path
        factory.waitsForSensor = waits
        factory.openBus = { path in
            guard path == "/dev/i2c-1" else { throw CLIError.failure("no emulated bus \(path)") }
            return (board, board.clock)
        }
        let notifier = RecordingNotifier()
        let err = Output.capture()
        var loads = 0
        var turn = 0
        let daemon = Daemon(
            log: DaemonLog(output: err, format: .plain, level: .info), notifier: notifier, clock: board.clock,
            takeSignals: {
                turn += 1
                return script(turn, notifier.states)
            },
            load: { () throws(CLIError) -> DaemonSetup in
                defer { loads += 1 }
                let json = configurations[min(loads, configurations.count - 1)]
                do {
                    return DaemonSetup(path: "plumb.json", configuration: try Configuration.decode(json, file: "plumb.json"), board: selection)
                } catch {
                    throw .failure("plumb.json: \(error)")
                }
            },
            build: { setup, handover in try factory.build(setup, handover: handover) },
            duration: Nanoseconds.seconds(120))
        status = daemon.run()
        log = err.captured
        states = notifier.states
        trigger = try directory.trigger()
    }
}

/// Whether the chip is lost as systemd sees it: the latest STATUS is the waiting one (after a
/// failed reload with what failed after it).
private func waitingNow(_ states: [String]) -> Bool {
    states.last { $0.contains("STATUS=") }?.contains(waiting) == true
}

/// `plumb run` stopped (`systemctl stop`: SIGTERM; Ctrl-C: SIGINT) while its stream has lost the
/// running chip: the shutdown's stop of the chip found nothing answering, and the daemon logged
/// "could not restore the outputs: cannot stop …" and exited 1, so systemd showed the unit
/// failed. The outputs are put back all the same, the chip's silence is one warning (it could
/// not be put to sleep; it comes up asleep from its power-on reset), and the exit is 0.
@Suite struct LostChipStopTests {
    @Test(arguments: [(Errno.ENXIO, PlumbDaemonSignal.terminate), (Errno.EREMOTEIO, .interrupt), (Errno.ENXIO, .interrupt), (Errno.EREMOTEIO, .terminate)])
    func aStopWhileTheChipIsLostRestoresTheOutputsAndExitsZero(errno: Int32, signal: PlumbDaemonSignal) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let run = try LostChipRun(board, [leds]) { turn, states in
            if turn == 10 { board.plugged = false }
            return turn > 10 && waitingNow(states) ? [signal] : []
        }
        #expect(run.status == ExitCode.success, "\(run.log)")
        #expect(run.log.contains(signal == .terminate ? "plumb: info: stopping on SIGTERM\n" : "plumb: info: stopping on SIGINT\n"), "\(run.log)")
        let warning = run.log.split(separator: "\n").filter { $0.contains("could not be put to sleep") }
        #expect(warning.count == 1 && warning[0].hasPrefix("plumb: warning: IMU at 0x68 on /dev/i2c-1, polling was not answering, so it could not be put to sleep ("),
                "\(run.log)")
        #expect(!run.log.contains("plumb: error:"), "\(run.log)")
        #expect(run.log.hasSuffix("plumb: info: stopped\n"), "\(run.log)")
        #expect(run.states.last == "STOPPING=1")
        #expect(run.trigger == "mmc0\n", "the LED was not put back")
    }

    /// A stop the chip refuses otherwise (EIO: it answers, so it may go on running, which a failed
    /// unit shows) still exits 1, after the outputs were put back; the line said "could not
    /// restore the outputs", though they were.
    @Test func aStopTheChipRefusesOtherwiseStillFailsAfterRestoringTheOutputs() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        let run = try LostChipRun(board, [leds]) { turn, _ in
            guard turn == 10 else { return [] }
            board.failEveryTransfer(errno: Errno.EIO)
            return [.terminate]
        }
        #expect(run.status == ExitCode.failure, "\(run.log)")
        #expect(run.log.contains("plumb: error: could not stop cleanly: cannot stop IMU at 0x68 on /dev/i2c-1, polling (at shutdown): "), "\(run.log)")
        #expect(!run.log.contains("could not restore the outputs"), "\(run.log)")
        #expect(run.trigger == "mmc0\n", "the LED was not put back")
    }

    /// A chip awaited since the start (--wait-for-sensor) is not stopped: a stop while it is away
    /// is clean and says nothing about it.
    @Test func aStopWhileTheChipIsAwaitedIsClean() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.EREMOTEIO)
        board.plugged = false
        let run = try LostChipRun(board, [leds], waits: true) { turn, _ in turn == 30 ? [.terminate] : [] }
        #expect(run.status == ExitCode.success, "\(run.log)")
        #expect(run.states.first == "READY=1\n" + waiting)
        #expect(!run.log.contains("could not be put to sleep") && !run.log.contains("plumb: error:"), "\(run.log)")
        #expect(run.trigger == "mmc0\n")
    }
}

/// A SIGHUP reload of `plumb run` (without --wait-for-sensor) while its stream has lost the chip:
/// the reload built the new configuration, whose start failed as nothing answers, then the
/// previous one, which failed alike, and the daemon ended ("cannot restart the previous
/// configuration"), though it had been riding the loss out. The chip was lost before the reload:
/// the new configuration is built and its chip awaited as with --wait-for-sensor (READY with the
/// waiting STATUS, tried every second), and taken once it answers.
@Suite struct LostChipReloadTests {
    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aReloadWhileTheChipIsLostAwaitsItInTheNewConfiguration(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let second = #"{"imu": {"rate": 50}, "outputs": {"leds": {"map": {"portrait": "ACT"}}}}"#
        var reloadedAt: Int?
        let run = try LostChipRun(board, [leds, second]) { turn, states in
            if turn == 10 { board.plugged = false }
            guard let at = reloadedAt else {
                guard turn > 10, waitingNow(states) else { return [] }
                reloadedAt = turn
                return [.reload]
            }
            // About 3 s (of 100 ms steps) away after the reload, then back.
            if turn == at + 30 { board.plugged = true }
            return states.last?.hasPrefix("STATUS=IMU at 0x68 on /dev/i2c-1, polling at 50 Hz") == true ? [.terminate] : []
        }
        #expect(run.status == ExitCode.success, "\(run.log)")
        let reloading = run.states.firstIndex(of: "RELOADING=1")
        #expect(reloading.map { run.states[($0 + 1)...].first } == "READY=1\n" + waiting, "\(run.states)")
        #expect(run.log.contains("plumb: info: reloaded plumb.json; board generic"), "\(run.log)")
        #expect(!run.log.contains("reload failed") && !run.log.contains("plumb: error:"), "\(run.log)")
        let waits = run.log.split(separator: "\n").filter { $0.contains("waiting for it, trying to start it every second") }
        #expect(waits.count == 1 && waits[0].hasPrefix("plumb: warning: IMU at 0x68 on /dev/i2c-1, polling does not answer ("), "\(run.log)")
        #expect(run.log.contains("IMU at 0x68 on /dev/i2c-1, polling answers after "), "\(run.log)")
        #expect(run.states.last == "STOPPING=1")
    }

    /// A reload while the chip is lost to a file that passes the check but cannot be built (its
    /// LED is not there): the previous configuration is started again, waiting for its chip (it
    /// failed too, and the daemon ended).
    @Test func aReloadThatCannotBeBuiltWhileTheChipIsLostRestartsThePreviousAwaitingIt() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        let missing = #"{"outputs": {"leds": {"map": {"portrait": "NOPE"}}}}"#
        var reloadedAt: Int?
        let run = try LostChipRun(board, [leds, missing]) { turn, states in
            if turn == 10 { board.plugged = false }
            guard let at = reloadedAt else {
                guard turn > 10, waitingNow(states) else { return [] }
                reloadedAt = turn
                return [.reload]
            }
            if turn == at + 30 { board.plugged = true }
            return turn > at + 30 && !waitingNow(states) ? [.terminate] : []
        }
        #expect(run.status == ExitCode.success, "\(run.log)")
        #expect(run.log.contains("plumb: error: reload failed, restarting the previous configuration: "), "\(run.log)")
        #expect(!run.log.contains("cannot restart the previous configuration"), "\(run.log)")
        #expect(run.states.contains("READY=1\n" + waiting + " (reload failed)"), "\(run.states)")
        #expect(run.log.contains("IMU at 0x68 on /dev/i2c-1, polling answers after "), "\(run.log)")
    }

    /// A reload whose file does not load while the chip is lost keeps the running session, which
    /// goes on waiting for its chip.
    @Test func aReloadThatDoesNotLoadWhileTheChipIsLostKeepsTheRunningSession() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        var reloadedAt: Int?
        let run = try LostChipRun(board, [leds, "{"]) { turn, states in
            if turn == 10 { board.plugged = false }
            guard let at = reloadedAt else {
                guard turn > 10, waitingNow(states) else { return [] }
                reloadedAt = turn
                return [.reload]
            }
            if turn == at + 10 { board.plugged = true }
            return turn > at + 10 && !waitingNow(states) ? [.terminate] : []
        }
        #expect(run.status == ExitCode.success, "\(run.log)")
        #expect(run.log.contains("plumb: error: reload failed, keeping the running configuration: plumb.json"), "\(run.log)")
        #expect(run.states.contains { $0.hasPrefix("READY=1\n" + waiting + " (reload failed: ") }, "\(run.states)")
        #expect(run.states.last { $0.hasPrefix("STATUS=") }?.hasPrefix("STATUS=IMU at 0x68 on /dev/i2c-1, polling at 100 Hz") == true, "\(run.states)")
    }

    /// A reload while the chip answers, to an address where nothing does: not awaited (the chip
    /// was not lost, and a wrong address should be said at once), the reload fails and the
    /// previous configuration runs again, as before.
    @Test func aReloadToAnAddressWhereNothingAnswersWhileTheChipIsPresentRestartsThePrevious() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        let elsewhere = #"{"imu": {"address": "0x69"}, "outputs": {"leds": {"map": {"portrait": "ACT"}}}}"#
        let run = try LostChipRun(board, [leds, elsewhere]) { turn, _ in
            turn == 10 ? [.reload] : turn == 20 ? [.terminate] : []
        }
        #expect(run.status == ExitCode.success, "\(run.log)")
        #expect(run.log.contains("plumb: error: reload failed, restarting the previous configuration: cannot start IMU at 0x69 on /dev/i2c-1, polling: nothing answers at 0x69 on /dev/i2c-1"),
                "\(run.log)")
        #expect(!run.log.contains("waiting for it"), "\(run.log)")
        #expect(run.states.contains { $0.hasPrefix("READY=1\nSTATUS=IMU at 0x68 on /dev/i2c-1, polling at 100 Hz") && $0.hasSuffix(" (reload failed)") }, "\(run.states)")
    }
}

/// A reload the moment the chip goes, before the stream noticed (its next read would have): the
/// handover said nothing was lost (it is made before the shutdown), the shutdown's stop found
/// nothing answering (a warning), and both builds then failed on the silent address: the daemon
/// ended with exit 1, though the shutdown had just seen the chip away. It is awaited now.
@Suite struct ReloadAsTheChipGoesTests {
    @Test func aReloadAsTheChipGoesAwaitsIt() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        let run = try LostChipRun(board, [leds]) { turn, states in
            if turn == 10 { board.plugged = false; return [.reload] }
            return turn > 10 && waitingNow(states) ? [.terminate] : []
        }
        #expect(run.status == ExitCode.success, "\(run.log)")
        #expect(run.log.contains("could not be put to sleep"), "\(run.log)")
        #expect(!run.log.contains("reload failed") && !run.log.contains("plumb: error:"), "\(run.log)")
        let reloading = run.states.firstIndex(of: "RELOADING=1")
        #expect(reloading.map { run.states[($0 + 1)...].first } == "READY=1\n" + waiting, "\(run.states)")
    }
}
