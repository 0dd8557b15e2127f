import Foundation
import PlumbConfiguration
import PlumbHAL
import PlumbLinux

/// `plumb run`: the daemon behind plumb.service.
enum Run {
    static let command = Command(CommandSpec(
        name: "run",
        abstract: "Run the daemon: one sensor session driving every configured output.",
        discussion: """
            Reads the configuration (default \(Configuration.defaultPath)), opens the board's IMU and drives the level
            image, kiosk rotation, LEDs, D-Bus sensor proxy (net.hadess.SensorProxy) and MQTT publisher it names. SIGHUP reloads the configuration (a broken file is refused and the
            running one kept; a kiosk screen the new one still turns keeps its rotation); SIGTERM or Ctrl-C stops, restoring the display. Under systemd (Type=notify) it reports
            READY=1, RELOADING=1, STOPPING=1 and WATCHDOG=1, and its log lines carry journald <N> priority prefixes.
            An IMU that does not answer at its address fails the start, unless --wait-for-sensor is given: the daemon then starts without it
            (STATUS says what it waits for), tries it every second and sets it up once it answers. An IMU another plumb process drives (a plumb
            calibrate typed meanwhile) is refused at start, or with --wait-for-sensor waited for alike, untouched, until that process ends.
            Any other sensor failure fails the start.
            An IMU lost while the daemon runs is waited for as well, across a reload too; a stop while it is away warns that it could not be put to sleep.
            """,
        options: [.option("config", value: "FILE", help: "The configuration file (default \(Configuration.defaultPath))."),
                  BoardSupport.boardOption, BoardSupport.boardsDirectoryOption,
                  .flag("simulate", help: "Use the emulated IMU instead of the hardware, paced to real time."),
                  .option("profile", value: "NAME", help: "The simulated motion: rest, tour, rotation, shaking or tapping (default tour)."),
                  .option("replay", value: "FILE", help: "Drive the outputs from a recorded CSV instead of the IMU."),
                  .option("duration", value: "SECONDS", help: "Stop by itself after this long."),
                  .flag("wait-for-sensor", help: "When the IMU does not answer at start, or another plumb drives it, run anyway and set it up once it answers (plumb.service does; not with --simulate or --replay)."),
                  .option("log-format", value: "FORMAT", help: "journal (<N> prefixes) or plain (default: journal under systemd).")])
    ) { args, context in
        let path = args.string("config") ?? Configuration.defaultPath
        let duration = try args.double("duration", in: 0.001...1e9).map(Nanoseconds.seconds)
        let format = try args.choice("log-format", DaemonLog.Format.allCases.map(\.rawValue)).flatMap(DaemonLog.Format.init(rawValue:))
            ?? DaemonLog.defaultFormat(environment: context.environment)
        if args.has("simulate"), args.string("replay") != nil {
            throw CLIError.usage("--simulate and --replay cannot be used together.")
        }
        // It waits for the board's IMU, which the emulator or a recording replaces: it was
        // ignored without a word, as --config beside --simulate is refused by the commands on the IMU.
        if args.has("wait-for-sensor"), let given = args.has("simulate") ? "simulate" : args.string("replay") != nil ? "replay" : nil {
            throw CLIError.usage("'--wait-for-sensor' waits for the board's IMU; it cannot be combined with '--\(given)'.")
        }
        let source: DaemonFactory.SourceChoice = args.has("simulate") ? .simulated : args.string("replay").map { .replay($0) } ?? .hardware
        let catalog = try BoardSupport.catalog(args, context: context)
        let clock = SystemClock()
        var factory = DaemonFactory(source: source, context: context, realClock: clock)
        factory.waitsForSensor = args.has("wait-for-sensor")
        if let profile = args.string("profile") {
            guard args.has("simulate") else { throw CLIError.usage("--profile needs --simulate.") }
            factory.profile = try args.choice("profile", ["rest", "tour", "rotation", "shaking", "tapping"]) ?? profile
        }
        // A log that cannot be written (the journal's pipe gone, a full disk) drops lines: the
        // daemon goes on driving its outputs, and puts them back when it stops.
        let log = DaemonLog(output: context.err.droppingWriteFailures(), format: format)

        do throws(SignalMonitorError) { try SignalMonitor.shared.install() } catch {
            throw CLIError.failure(error.description, fix: nil)
        }
        let notifier = SystemdServiceNotifier()
        let daemon = Daemon(
            log: log, notifier: notifier, clock: clock,
            takeSignals: {
                SignalMonitor.shared.takeReceived().map { $0.action == .reload ? .reload : $0.number == SIGINT ? .interrupt : .terminate }
            },
            load: { () throws(CLIError) -> DaemonSetup in
                let configuration: Configuration, positions: ConfigurationPositions
                do throws(ConfigurationError) {
                    (configuration, positions) = try Configuration.loadWithPositions(path: path, knownBoards: catalog.ids)
                } catch {
                    throw .failure(error.description, fix: Config.loadFix(error, otherwise: "Run 'plumb config check \(path)'; 'plumb config example --keys' lists every key."))
                }
                let board = try BoardSupport.select(args, override: configuration.board, catalog: catalog, context: context)
                return DaemonSetup(path: path, configuration: configuration, board: board, positions: positions)
            },
            build: { setup, handover in try factory.build(setup, handover: handover) },
            duration: duration)
        let status = daemon.run()
        if status != ExitCode.success { throw CLIError.failure("the daemon stopped after an error (see the log above)", fix: nil) }
    }
}

/// sd_notify through libsystemd.
final class SystemdServiceNotifier: ServiceNotifier {
    private let notifier = SystemdNotifier()
    func notify(_ state: String) throws { try notifier.notify(state) }
    var watchdogIntervalNanoseconds: UInt64? { notifier.watchdogIntervalNanoseconds }
}
