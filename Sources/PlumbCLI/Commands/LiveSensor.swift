import Foundation
import PlumbConfiguration
import PlumbDisplay
import PlumbDrivers
import PlumbHAL
import PlumbLinux
import PlumbOrientation

/// The board's IMU for the commands that show orientation (`plumb watch`, `level`, `kiosk`,
/// `led`) when neither `--simulate` nor `--replay`/`--angle` is given: found as `plumb run` finds
/// it (the configuration file, the detected or named board, `/dev/i2c-N` through LinuxI2CBus, the
/// data-ready line through libgpiod, the driver behind the streaming engine), with `--bus` and
/// `--address` overriding the configuration.
///
/// Each command then runs it as `plumb run` would with the same file: `level`, `led` and `kiosk`
/// through `plumb run`'s own session (``session(_:source:outputs:powerMonitor:)``, that is
/// ``DaemonFactory/session(_:source:normal:outputs:correct:pacing:powerMonitor:explain:describe:)``),
/// `watch` (and `dbus`) through the notifier built by ``DaemonFactory/notifier(_:tunings:normal:source:powerMonitor:)``;
/// the calibration file is applied by ``open(_:context:command:)`` (``calibrated(_:calibration:)``).
/// A command's flag overrides the file only when it is given: the command writes it into
/// ``Found/setup``'s configuration before the session or notifier is built.
enum LiveSensor {
    /// The options every live command shares.
    static let options: [OptionSpec] = [
        .option("config", value: "FILE", help: "The board's IMU is found and run as plumb run would with this file (default /etc/plumb/plumb.json, else the defaults); a flag given overrides its value."),
        BoardSupport.boardOption,
        BoardSupport.boardsDirectoryOption,
        .option("bus", value: "PATH", help: "The live IMU's I2C bus, such as /dev/i2c-1 or just 1 (default: the configuration's, else the board's)."),
        .option("address", value: "ADDR", help: "The live IMU's address, such as 0x68 (default: the configuration's, else the board's)."),
    ]

    /// The names of ``options``, for "needs the live sensor" checks.
    static let optionNames = ["config", "board", "boards-dir", "bus", "address"]

    /// The sensor the configuration, board and options name.
    struct Found: Sendable {
        var setup: DaemonSetup
        /// The configured rate and ranges, the gyroscope on.
        var imu: IMUConfiguration
        var busPath: String
        var address: I2CAddress
        /// Where `busPath` was named: `--bus` (or the board's bus), or the file's `imu.bus`.
        var busSetting: I2CHelp.BusSetting = .option
    }

    /// Rejects the live options beside `--simulate`, `--replay` or `--angle` (`given` names it).
    static func rejectOptions(_ args: ParsedArguments, besides given: String) throws(CLIError) {
        for name in optionNames where args.string(name) != nil {
            throw .usage("'--\(name)' names the board's IMU; it cannot be combined with '--\(given)'.")
        }
    }

    /// Loads the configuration and board, applying `--bus` and `--address`.
    /// `alternatives` ends the fix for a bad configuration ("--simulate or --angle DEG").
    static func find(_ args: ParsedArguments, context: CommandContext,
                     alternatives: String = "--simulate or --replay FILE.csv") throws(CLIError) -> Found {
        // The options first: a usage error needs no configuration.
        let bus = try args.string("bus").map(I2CHelp.busPath)
        let address = try SensorOptions.address(args, context: context)
        let path = args.string("config") ?? Configuration.defaultPath
        let catalog = try BoardSupport.catalog(args, context: context)
        var configuration: Configuration
        var positions: ConfigurationPositions?
        if args.string("config") == nil, !FileManager.default.fileExists(atPath: path) {
            // Not installed yet: the detected board's bus, address and data-ready line, as 'plumb read' probes without one.
            configuration = Configuration()
        } else {
            do throws(ConfigurationError) {
                (configuration, positions) = try Configuration.loadWithPositions(path: path, knownBoards: catalog.ids)
            } catch {
                throw .failure(error.description, fix: Config.loadFix(error, otherwise: "Run 'plumb config check \(path)', or use \(alternatives).", instead: "use \(alternatives)"))
            }
        }
        let busSetting: I2CHelp.BusSetting = bus == nil && configuration.imu.bus != nil ? .configuration(path: path) : .option
        if let bus { configuration.imu.bus = bus }
        if let address { configuration.imu.address = address }
        let board = try BoardSupport.select(args, override: configuration.board, catalog: catalog, context: context)
        var imu = DaemonFactory.imuConfiguration(configuration)
        imu.gyroscopeEnabled = true
        return Found(setup: DaemonSetup(path: path, configuration: configuration, board: board, positions: positions), imu: imu,
                     busPath: configuration.imu.bus ?? board.board.i2cBus,
                     address: configuration.imu.address ?? board.board.imuAddress, busSetting: busSetting)
    }

    /// Opens the sensor (not started yet), with the configured calibration applied.
    ///
    /// - Parameter command: the command's name ("watch"): the stream's notices and warnings (an
    ///   interrupt storm, a wrong scale at rest, a bus too slow for the rate, gaps) go to standard
    ///   error as "plumb watch: …" while it runs; `nil` drops them (a check that starts and stops).
    static func open(_ found: Found, context: CommandContext, command: String? = nil) throws(CLIError) -> any MotionSampleSource {
        guard FileManager.default.fileExists(atPath: found.busPath) else {
            throw I2CHelp.openFailure(I2CError(errno: Errno.ENOENT, bus: found.busPath, address: nil), setting: found.busSetting)
        }
        var factory = DaemonFactory(source: .hardware, context: context, realClock: SystemClock())
        factory.eventSink = command.map { printingSink(command: $0, context: context) } ?? { _ in }
        do {
            let calibration = try DaemonFactory.loadCalibration(found.setup.configuration)
            let (source, _) = try factory.makeSource(found.setup, imuConfiguration: found.imu, calibration: calibration)
            return calibrated(source, calibration: calibration)
        } catch let error as CLIError {
            throw error
        } catch {
            throw .failure(String(describing: error), fix: nil)
        }
    }

    /// `source` with the configuration's calibration (``DaemonFactory/loadCalibration(_:)``)
    /// applied to every sample, as `plumb run`'s session applies it (``DaemonFactory/correction(_:)``:
    /// biases, scales, the file's own mounting); `source` itself without one.
    static func calibrated(_ source: any MotionSampleSource, calibration: Calibration?) -> any MotionSampleSource {
        guard let correct = DaemonFactory.correction(calibration) else { return source }
        return CalibratedSampleSource(source, correct: correct)
    }

    /// Prints a live source's notices and warnings to standard error as "plumb COMMAND: …", as
    /// `plumb read` prints its stream's; information (the chip found, the bus clock) is left out.
    static func printingSink(command: String, context: CommandContext) -> @Sendable (DaemonEvent) -> Void {
        let err = context.err
        return { event in
            guard event.level == .notice || event.level == .warning else { return }
            err.line("plumb \(command): \(event.message)")
            err.flush()
        }
    }

    /// Opens and starts the sensor once and stops it again, so that a missing or silent chip
    /// fails at once with one line and the fix, not inside a retry loop.
    static func check(_ found: Found, context: CommandContext) throws(CLIError) {
        let source = try open(found, context: context)
        _ = try start(source, found: found)
        do { try source.stop() } catch { throw failure(error, found: found) }
    }

    /// Starts `source` with the configured settings, naming the bus and address on failure.
    static func start(_ source: any MotionSampleSource, found: Found) throws(CLIError) -> IMUConfiguration {
        do { return try source.start(found.imu) } catch { throw failure(error, found: found) }
    }

    /// One line and the fix for a sensor that failed. When nothing answers at the address, `probe`
    /// (by default: the IMU addresses of `found.busPath`, read once) says whether an IMU answers at
    /// another one, so the fix can name it, as `plumb read` does.
    static func failure(_ error: MotionSourceError, found: Found,
                        probe: (() -> [ProbeFinding])? = nil) -> CLIError {
        let bus = error.busError
        if let bus, bus.mayMeanNothingAnswers {
            // EREMOTEIO is how a Raspberry Pi reports an empty address (and a transfer cut short):
            // said as what it is, with the same search for the IMU elsewhere and the wiring fix.
            let nothing = bus.kind == .noAcknowledge ? "nothing answers at \(found.address) on \(found.busPath)"
                : "\(found.address) on \(found.busPath) does not answer: remote I/O error (Errno 121), which on a Raspberry Pi means nothing acknowledged the address, or a transfer broke off"
            if let elsewhere = (probe ?? { probeBus(found.busPath) })().first(where: { $0.family != nil && $0.address != found.address }) {
                return .failure("\(nothing), but \(elsewhere.part ?? "an IMU") answers at \(elsewhere.address)",
                                fix: "Give --address \(elsewhere.address), or set imu.address to \"\(elsewhere.address)\" in \(found.setup.path).")
            }
            return .failure(nothing,
                            fix: I2CHelp.wiringFix(bus: found.busPath, address: found.address)
                                + " 'plumb probe' lists what answers; an MPU-6050 with AD0 high is 0x69, an LSM6DS with SA0 low 0x6a.")
        }
        if let bus, bus.kind == .cannotOpen { return I2CHelp.openFailure(bus, setting: found.busSetting) }
        if let fix = DaemonFactory.settingsFix(error, path: found.setup.path) {
            // A rate the chip refuses: at imu.rate's line and column, as 'plumb config check' says it.
            return .failure(DaemonFactory.locatingSettings("the IMU at \(found.address) on \(found.busPath): \(error)", error: error,
                                                           positions: found.setup.positions), fix: fix)
        }
        return .failure("the IMU at \(found.address) on \(found.busPath): \(error)", fix: "Check it with 'plumb probe' and 'plumb read'.")
    }

    /// The IMUs that answer on the bus at `path`; none when the bus cannot be opened or read (the
    /// failure being explained is the one to report, not this).
    static func probeBus(_ path: String) -> [ProbeFinding] {
        do {
            let bus = try LinuxI2CBus(path: path)
            return try IMUFamilies.probe(bus)
        } catch {
            return []
        }
    }

    /// Installs the SIGINT/SIGTERM/SIGHUP handlers; returns the check the loops call between
    /// steps, true once any of them came. Caught, SIGHUP no longer ended the process by itself,
    /// and these commands (unlike `plumb run`, which reloads on it) have nothing to reload: `plumb
    /// watch --exec`, `level`, `led` and `kiosk` ran on after their ssh session dropped, holding
    /// the chip (and the screen, the command) with no one to stop them.
    static func stopOnSignals() throws(CLIError) -> @Sendable () -> Bool {
        do { try SignalMonitor.shared.install() } catch {
            throw .failure(error.description, fix: nil)
        }
        return { !SignalMonitor.shared.take().isEmpty }
    }

    /// The board's IMU as a gravity source for frames paced at `frameRate` by the wall clock
    /// (`plumb level`, `plumb led`): checked now, so that a missing chip fails before the display
    /// or the LEDs are touched, and ending on SIGINT/SIGTERM or after `duration` seconds.
    static func gravity(_ found: Found, context: CommandContext, command: String, frameRate: Double,
                        duration: Double?) throws(CLIError) -> LiveGravity {
        var found = found
        // About one FIFO read per frame.
        found.imu.fifoWatermark = max(1, min(32, Int((found.imu.outputDataRate / frameRate).rounded(.down))))
        try check(found, context: context)
        let source = try open(found, context: context, command: command)
        let stop = try stopOnSignals()
        return LiveGravity(source: source, found: found, clock: SystemClock(), duration: duration, powerMonitor: systemPowerMonitor(),
                           report: reporter(command: command, context: context), shouldStop: stop)
    }

    /// `plumb run`'s session on the opened `source` (calibrated already by ``open(_:context:command:)``):
    /// the configuration's filter, classifier tunings, mounting,
    /// `orientation.interfaceOrientations` and `orientation.lowEnergy` (`auto` follows
    /// `powerMonitor`), `found.imu` as the normal mode; started now. A failure of the sensor is
    /// told as ``failure(_:found:probe:)`` tells it.
    static func session(_ found: Found, source: any MotionSampleSource, outputs: [any DaemonOutput],
                        powerMonitor: any PowerStateMonitor) throws(CLIError) -> SensorPipeline {
        do {
            return try DaemonFactory.session(found.setup.configuration, source: source, normal: found.imu, outputs: outputs, correct: nil, pacing: nil, powerMonitor: powerMonitor,
                                             explain: { failure($0, found: found) }, describe: { _ in source.name })
        } catch let error as CLIError {
            throw error
        } catch {
            throw .failure(String(describing: error), fix: nil)
        }
    }

    /// The power monitor `orientation.lowEnergy: auto` follows, as `plumb run`'s: the running
    /// system's sysfs, read on a poller thread.
    static func systemPowerMonitor() -> any PowerStateMonitor {
        SystemPowerStateMonitor.polled(pollInterval: Double(EnergyMode.defaultPollInterval) / 1e9)
    }

    /// Prints what a session reports worth a user's eye (a stall, a switch to or from the
    /// low-energy mode, a warning) to standard error as "plumb COMMAND: …"; orientation changes
    /// and information are left out (the command shows those its own way).
    static func reporter(command: String, context: CommandContext) -> ([DaemonEvent]) -> Void {
        let err = context.err
        return { events in
            var printed = false
            for event in events where event.level >= .notice && !event.isOrientationChange {
                err.line("plumb \(command): \(event.message)")
                printed = true
            }
            if printed { err.flush() }
        }
    }

    /// Takes SIGINT/SIGTERM back after the console or terminal clean-up installed its own
    /// handlers (which end the process at once): the loop then ends, and its `defer`s restore.
    static func reclaimSignals() throws(CLIError) {
        do { try SignalMonitor.shared.install() } catch { throw .failure(error.description, fix: nil) }
    }
}

/// Gravity from the board's IMU through `plumb run`'s session (``LiveSensor/session(_:source:outputs:powerMonitor:)``),
/// one estimate per call: each ``nextGravity()`` takes what the sensor has delivered since the
/// last (waiting for the first sample), so frames paced by the wall clock show the board as it
/// is now. It ends (nil) when `shouldStop` says so (SIGINT/SIGTERM), when `duration` of `clock`
/// time has passed, or when the source ends; the session is shut down then (the sensor stopped).
final class LiveGravity: GravitySource {
    let name: String
    private let source: any MotionSampleSource
    private let found: LiveSensor.Found
    private let clock: any MonotonicClock
    private let powerMonitor: any PowerStateMonitor
    private let report: ([DaemonEvent]) -> Void
    private let shouldStop: () -> Bool
    private let duration: UInt64?
    private let latest = LatestGravity()
    private var session: SensorPipeline?
    private var origin: UInt64 = 0
    private var ended = false

    /// - Parameters:
    ///   - powerMonitor: what `orientation.lowEnergy: auto` follows.
    ///   - report: takes the session's events after every read (``LiveSensor/reporter(command:context:)``).
    init(source: any MotionSampleSource, found: LiveSensor.Found, clock: any MonotonicClock, duration: Double?,
         powerMonitor: any PowerStateMonitor, report: @escaping ([DaemonEvent]) -> Void = { _ in },
         shouldStop: @escaping () -> Bool) {
        self.source = source
        self.found = found
        self.clock = clock
        self.powerMonitor = powerMonitor
        self.report = report
        self.shouldStop = shouldStop
        self.duration = duration.map(Nanoseconds.seconds)
        name = source.name
    }

    /// The latest device orientation the session classified.
    var deviceOrientation: DeviceOrientation? { latest.device }

    func nextGravity() throws -> GravityReading? {
        guard !ended else { return nil }
        if session == nil {
            session = try LiveSensor.session(found, source: source, outputs: [latest], powerMonitor: powerMonitor)
            origin = clock.nowNanoseconds
        }
        guard let session else { return nil }
        repeat {
            if shouldStop() || duration.map({ clock.nowNanoseconds &- origin >= $0 }) ?? false {
                try finish()
                return nil
            }
            do { report(try session.step(timeoutNanoseconds: 100_000_000)) } catch is DaemonSourceFinished {
                try finish()
                return nil
            }
        } while latest.gravity == nil
        let g = latest.gravity ?? .zero
        return GravityReading(x: g.x, y: g.y, z: g.z, timestampNanoseconds: clock.nowNanoseconds &- origin)
    }

    /// Shuts the session down, stopping the sensor (idempotent).
    func finish() throws {
        guard !ended else { return }
        ended = true
        try session?.shutdown()
    }
}

/// The session's output for ``LiveGravity``: keeps the latest gravity and device orientation.
final class LatestGravity: DaemonOutput {
    let name = "gravity"
    private(set) var gravity: SIMD3<Double>?
    private(set) var device: DeviceOrientation?

    func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws { device = orientation }
    func gravityUpdated(_ gravity: SIMD3<Double>) throws { self.gravity = gravity }
    func restore() throws {}
}
