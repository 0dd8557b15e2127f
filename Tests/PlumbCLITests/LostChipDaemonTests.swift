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
