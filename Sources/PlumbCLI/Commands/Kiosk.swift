import Foundation
import Synchronization
import PlumbConfiguration
import PlumbDisplay
import PlumbDrivers
import PlumbFusion
import PlumbHAL
import PlumbLinux
import PlumbOrientation
import PlumbSimulation

/// `plumb kiosk`: turns the screen to follow the interface orientation.
enum Kiosk {
    static let spec = CommandSpec(
        name: "kiosk",
        abstract: "Rotate the screen to follow the interface orientation, after a hold-off.",
        discussion: """
            Each interface-orientation change that holds for the hold-off turns the screen: \
            wlr-randr --output NAME --on --transform normal|90|180|270 (labwc, wayfire, sway), xrandr --output NAME \
            --rotate normal|left|inverted|right (X11), echo 0..3 > /sys/class/graphics/fbcon/rotate_all \
            (text console), or your command run with PLUMB_INTERFACE_ORIENTATION, PLUMB_ROTATION_DEGREES, \
            PLUMB_WLR_TRANSFORM, PLUMB_XRANDR_ROTATION and PLUMB_FBCON_ROTATE set. The lock file's \
            existence, or SIGUSR1 (toggle), holds the screen as it is. Over SSH, set WAYLAND_DISPLAY \
            (wlr-randr) or DISPLAY (xrandr) for the session. Without --simulate or --replay it reads the \
            board's IMU, found and run as 'plumb run' would with the configuration (--config): the IMU, \
            calibration, mounting, filter, orientation tunings, orientation.lowEnergy, \
            orientation.interfaceOrientations and outputs.kiosk (method, output, command, holdOff), each \
            flag given in its place; the hold-off is then timed by the system clock. Ctrl-C, SIGTERM or a hangup (SIGHUP) \
            stops it cleanly, on the board's IMU, --simulate or --replay, leaving the screen as it is. As \
            'plumb run' does, a turn that fails (the compositor or X server is not up yet) is tried again \
            after 1, 2, 4 and 8 s and then every 10 s until it works, with one warning and the fix on \
            standard error and an error if it still fails after a minute; every 5 s the output is read \
            back (wlr-randr, xrandr) and a turn it lost (a restarted compositor) is made again. It exits 1 if the screen's \
            turn still fails when it ends.
            """,
        options: [
            .option("backend", value: "NAME", help: "wlr-randr, xrandr, fbcon or command (default: outputs.kiosk.method on the board's IMU, else wlr-randr)."),
            .option("output", value: "NAME", help: "The connector to turn (default: outputs.kiosk.output or the board's on the board's IMU, else HDMI-A-1 for wlr-randr, HDMI-1 for xrandr)."),
            .option("command", value: "CMD", help: "The shell command for --backend command."),
            .option("hold-off", value: "SECONDS", help: "How long a new orientation must hold first (default: outputs.kiosk.holdOff on the board's IMU, else 1)."),
            .option("lock-file", value: "PATH", help: "While this file exists, the screen does not turn."),
            AllowOption.spec(help: "Orientations the screen may take, comma-separated (default: orientation.interfaceOrientations on the board's IMU, else all four)."),
            .flag("reverse-quarter-turns", help: "Swap 90° and 270° (for a screen whose quarter turns come out reversed)."),
            .flag("dry-run", help: "Print each action instead of running it."),
            .flag("simulate", help: "Read the simulated IMU (see --profile). Without --simulate or --replay: the board's IMU."),
            .option("profile", value: "NAME", help: "Simulated motion: rest, tour, rotation, shaking, tapping (default tour)."),
            .option("chip", value: "PART", help: "Simulated chip (default mpu6050)."),
            .option("speed", value: "FACTOR", help: "Play the simulated IMU at FACTOR × real time (--simulate; default: as fast as possible, which turns a real screen many times a second: give 1 with a real --backend)."),
            .option("replay", value: "FILE", help: "Play a recording (CSV with t_s, gyr_*, acc_*) in virtual time."),
            .option("duration", value: "SECONDS", help: "Stop after this much sensor time (wall-clock time on the board's IMU)."),
        ] + LiveSensor.options)

    static let command = Command(spec) { args, context in try run(args, context) }

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws {
        let duration = try args.double("duration", in: 0...1e7)
        let speed = try args.double("speed", in: 0.01...1000)
        if speed != nil, !args.has("simulate") { throw CLIError.usage("'--speed' paces the simulated IMU: give it with --simulate.") }
        var found: LiveSensor.Found?
        if args.string("replay") == nil, !args.has("simulate") {
            for name in ["profile", "chip"] where args.string(name) != nil { throw CLIError.usage("'--\(name)' needs '--simulate'.") }
            // The flags' values are checked first: a usage error needs no configuration (whether
            // --command fits the backend waits for the file's outputs.kiosk.method).
            _ = try args.choice("backend", KioskBackend.Kind.allCases.map(\.rawValue))
            _ = try args.double("hold-off", in: 0...3600)
            _ = try AllowOption.parse(args)
            found = try LiveSensor.find(args, context: context)
        }
        let resolved = try settings(args, live: found)
        var backend = resolved.backend
        let settings = resolved.settings
        found = resolved.live
        if let root = context.environment["PLUMB_SYSFS_GRAPHICS"] { backend.fbconDirectory = root + "/fbcon" }
        let source: any MotionSampleSource
        var live: (found: LiveSensor.Found, shouldStop: @Sendable () -> Bool)?
        if let found {
            try LiveSensor.check(found, context: context)
            source = try LiveSensor.open(found, context: context, command: "kiosk")
            live = (found, try LiveSensor.stopOnSignals())
        } else if let path = args.string("replay") {
            if args.has("simulate") { throw CLIError.usage("--replay and --simulate cannot be combined.") }
            try LiveSensor.rejectOptions(args, besides: "replay")
            source = RecordingSource(recording: try Watch.loadRecording(path), name: URL(fileURLWithPath: path).lastPathComponent)
        } else {
            try LiveSensor.rejectOptions(args, besides: "simulate")
            let profile = try SimulatedIMU.profile(args.string("profile") ?? "tour")
            let simulated = try SimulatedIMU.source(chip: args.string("chip") ?? "mpu6050", profile: profile,
                                                    duration: duration ?? profile.duration ?? 60).source
            source = speed.map { PacedSampleSource(simulated, speed: $0, wall: SystemClock(), counters: SensorCounters()) } ?? simulated
        }

        let runner: any RotationActionRunner & Sendable = args.has("dry-run") ? PrintingRunner(context: context) : SystemActionRunner(environment: context.environment)
        let lock = KioskLock(OrientationLockSources(lockFile: args.string("lock-file")))
        let printer = KioskPrinter(context: context)
        if let live {
            // As plumb run does: a failed turn is tried again until it works, and the screen is
            // read back; the tools run on a thread of their own, so that one that hangs (up to its
            // 3 s deadline and a second to kill it) does not hold the sensor up meanwhile.
            let worker = liveWorker(backend: backend, settings: settings, runner: runner, lock: lock)
            try followLive(source, found: live.found, worker: worker, clock: SystemClock(), duration: duration,
                           powerMonitor: LiveSensor.systemPowerMonitor(), report: LiveSensor.reporter(command: "kiosk", context: context),
                           shouldStop: live.shouldStop, show: printer.show)
            try KioskPrinter.finish(worker)
            return
        }
        // The simulator and recordings run in virtual time as fast as they can, through the same pipeline as the
        // notifier (fusion, then the classifier); the hold-off, the retries' pauses and the
        // read-backs are timed on the samples' clock, ticking at every sample and at each deadline.
        // The tools run in the loop (the worker on its thread would fall behind the samples' time).
        let worker = KioskWorker(backend: backend, settings: settings, runner: runner, lock: lock, shown: nil, placement: .callersThread)
        defer { worker.end(within: 0) }
        var gate = KioskTurns.Gate(allowed: settings.allowed)
        var pipeline = OrientationPipeline(fused: FusionAlgorithm.default.makeGravityEstimator())
        var interface = InterfaceOrientation.portrait
        var samples: [IMUSample] = []
        var last: UInt64 = 0
        var lastDeadline: UInt64?
        var firstT: UInt64?
        // SIGINT, SIGTERM and SIGHUP stop it between reads as they stop the board's IMU: killed,
        // a paced simulation (--speed) or a long recording left its command's screen turned with
        // no end. The screen stays as it is, as at the end.
        let shouldStop = context.catchesSignals ? try LiveSensor.stopOnSignals() : { false }
        var stopped = false
        do {
            _ = try source.start(IMUConfiguration(outputDataRate: 100, fifoWatermark: 10))
            reading: while true {
                if shouldStop() {
                    stopped = true
                    break
                }
                samples.removeAll(keepingCapacity: true)
                if try source.read(into: &samples, timeoutNanoseconds: 100_000_000) == .finished { break }
                for sample in samples {
                    let t = sample.timestampNanoseconds
                    let start = firstT ?? t
                    firstT = start
                    if let duration, Double(t - start) / 1e9 > duration { break reading }
                    last = t
                    // Exactly at a deadline (a hold-off's or a retry's) the first time it passes.
                    if let deadline = worker.nextDeadline, deadline <= t {
                        printer.tick(worker, at: deadline == lastDeadline ? t : deadline)
                        lastDeadline = deadline
                    }
                    if let device = pipeline.process(sample) {
                        if let upright = device.interfaceOrientation { interface = upright }
                        if let shown = gate.interface(for: device, session: interface) {
                            worker.want(shown, at: t)
                            printer.show(worker.takeReports())
                        }
                    }
                    // Every sample, as plumb run ticks after every batch: the screen is read back when that is due.
                    printer.tick(worker, at: t)
                }
            }
            try source.stop()
        } catch {
            throw CLIError.failure(error.description, fix: nil)
        }
        // An orientation still pending when the data ends has held to the end: it turns at its
        // deadline, unless --duration or a signal stops first.
        if !stopped, let deadline = worker.nextDeadline, duration.map({ Double(deadline - (firstT ?? 0)) / 1e9 <= $0 }) ?? true {
            printer.tick(worker, at: max(deadline, last))
        }
        worker.end(within: 0)
        try KioskPrinter.finish(worker)
    }

    /// The backend and controller settings: each flag given (--backend, --output, --command,
    /// --hold-off, --allow, --reverse-quarter-turns), else on the board's IMU (`live` not nil) the
    /// configuration's `outputs.kiosk` (method, output or the board's connector, command, hold-off;
    /// output and command only while the backend is the file's) and `orientation.interfaceOrientations`,
    /// else the defaults (wlr-randr, its default output, 1 s, all four). A given --allow is
    /// written into the configuration of `live` (returned), so that the session keeps to it as the
    /// controller does.
    static func settings(_ args: ParsedArguments, live: LiveSensor.Found?) throws(CLIError)
        -> (backend: KioskBackend, settings: KioskController.Settings, live: LiveSensor.Found?) {
        var live = live
        let flagKind = try args.choice("backend", KioskBackend.Kind.allCases.map(\.rawValue)).flatMap(KioskBackend.Kind.init(rawValue:))
        let holdOff = try args.double("hold-off", in: 0...3600)
        let allowed = try AllowOption.parse(args)
        let file = live?.setup.configuration.outputs.kiosk
        var backend: KioskBackend
        if let live, let file, flagKind == nil || flagKind == DaemonFactory.kioskKind(file.method) {
            backend = DaemonFactory.kioskBackend(file, board: live.setup.board.board)
        } else {
            backend = KioskBackend(kind: flagKind ?? .wlrRandr)
        }
        if let output = args.string("output") { backend.output = output }
        if let command = args.string("command") {
            if backend.kind != .command { throw CLIError.usage("'--command' needs '--backend command'.") }
            backend.command = command
        }
        if backend.kind == .command && backend.command == nil { throw CLIError.usage("'--backend command' needs '--command CMD'.") }
        backend.quarterTurnsReversed = args.has("reverse-quarter-turns")
        var settings = KioskController.Settings()
        if let seconds = holdOff ?? file?.holdOff { settings.holdOff = Nanoseconds.seconds(seconds) }
        if let allowed, var found = live {
            AllowOption.apply(allowed, to: &found.setup.configuration.orientation)
            live = found
        }
        if let live {
            settings.allowed = DaemonFactory.allowedInterfaces(live.setup.configuration.orientation)
        } else if let allowed {
            settings.allowed = Set(allowed)
        }
        return (backend, settings, live)
    }

    /// The worker that runs the turns on the board's IMU (``followLive(_:found:worker:clock:duration:powerMonitor:report:shouldStop:show:)``):
    /// on a thread of its own, as `plumb run`'s kiosk runs them.
    static func liveWorker(backend: KioskBackend, settings: KioskController.Settings, runner: any RotationActionRunner & Sendable,
                           lock: any OrientationLock & Sendable) -> KioskWorker {
        KioskWorker(backend: backend, settings: settings, runner: runner, lock: lock, shown: nil, placement: .ownThread)
    }

    /// The board's IMU in wall-clock time, through `plumb run`'s session
    /// (``LiveSensor/session(_:source:outputs:powerMonitor:)``: the configuration's filter,
    /// classifier, mounting, `orientation.interfaceOrientations` and `orientation.lowEnergy`,
    /// `auto` following `powerMonitor`): each interface-orientation change is passed on to
    /// `worker` at `clock`'s time (seconds since the start), and the worker is ticked after every
    /// read (at least every 100 ms), so the hold-off is timed by `clock`; what its ticks reported
    /// goes to `show`. Ends when `shouldStop` says so (SIGINT/SIGTERM), after `duration` seconds,
    /// or when the source ends; stops the sensor, then ends the worker (the tool under way is
    /// waited for, at most ``KioskWorker/endWait``) and shows its last reports.
    ///
    /// On its own thread (``KioskWorker/Placement/ownThread``) a tool that hangs does not hold up
    /// the loop: the sensor is read meanwhile (an MPU-6050's FIFO holds less than a second at
    /// 100 Hz), and a signal stops it at once. The loop ran the tools itself, held up for as long
    /// as one took: up to its 3 s deadline and a second to kill it.
    static func followLive(_ source: any MotionSampleSource, found: LiveSensor.Found, worker: KioskWorker, clock: any MonotonicClock,
                           duration: Double?, powerMonitor: any PowerStateMonitor, report: ([DaemonEvent]) -> Void = { _ in },
                           shouldStop: () -> Bool, show: ([KioskTurns.Report]) -> Void) throws(CLIError) {
        let observer = KioskObserver(worker: worker, clock: clock)
        let session: SensorPipeline
        do { session = try LiveSensor.session(found, source: source, outputs: [observer], powerMonitor: powerMonitor) } catch {
            // Nothing ran: the worker's thread ends.
            worker.close()
            throw error
        }
        let origin = clock.nowNanoseconds
        observer.origin = origin
        let end = duration.map(Nanoseconds.seconds)
        var failure: CLIError?
        while !shouldStop() {
            if let end, clock.nowNanoseconds &- origin >= end { break }
            do { report(try session.step(timeoutNanoseconds: 100_000_000)) } catch is DaemonSourceFinished {
                break
            } catch {
                failure = error as? CLIError ?? .failure(String(describing: error), fix: nil)
                break
            }
            worker.tick(at: clock.nowNanoseconds &- origin)
            show(worker.takeReports())
        }
        do { try session.shutdown() } catch {
            failure = failure ?? (error as? CLIError ?? .failure(String(describing: error), fix: nil))
        }
        let ended = worker.end(within: KioskWorker.endWait)
        show(worker.takeReports())
        if let failure { throw failure }
        guard ended else {
            throw .failure("kiosk: its tool still ran \(Int(KioskWorker.endWait)) s after the stop began",
                           fix: "Check that the compositor or X server answers, and that --command returns at once.")
        }
    }

    /// `plumb kiosk`'s output in the session: each interface orientation the session settles on
    /// (one `orientation.interfaceOrientations` allows, through ``KioskTurns/Gate``) goes to the
    /// worker at the time since `origin`; the command ticks the worker and prints what it reports.
    final class KioskObserver: DaemonOutput {
        let name = "kiosk"
        let worker: KioskWorker
        let clock: any MonotonicClock
        var origin: UInt64 = 0
        private var gate: KioskTurns.Gate

        init(worker: KioskWorker, clock: any MonotonicClock) {
            self.worker = worker
            self.clock = clock
            gate = KioskTurns.Gate(allowed: worker.allowed)
        }

        func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws {
            guard let shown = gate.interface(for: orientation, session: interface) else { return }
            worker.want(shown, at: clock.nowNanoseconds &- origin)
        }

        /// The screen stays as the command left it (as before the session: plumb kiosk does not turn it back).
        func restore() throws {}
    }

    static func seconds(_ t: UInt64) -> String {
        let s = fixed(Double(t) / 1e9, 3)
        return String(repeating: " ", count: max(0, 9 - s.count)) + s
    }
}

/// The lock file and SIGUSR1 toggle as the kiosk's lock (read on the kiosk's thread).
final class KioskLock: OrientationLock, Sendable {
    let sources: OrientationLockSources
    init(_ sources: OrientationLockSources) { self.sources = sources }
    var isLocked: Bool { sources.isLocked }
}

/// Prints actions instead of running them (--dry-run), from the kiosk's thread too (``Output`` is
/// shared safely).
final class PrintingRunner: RotationActionRunner, Sendable {
    let context: CommandContext
    init(context: CommandContext) { self.context = context }
    func perform(_ action: RotationAction) throws {
        if case .shell(_, let environment) = action {
            let variables = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            context.out.line("  (dry run) \(variables) \(action)")
        } else {
            context.out.line("  (dry run) \(action)")
        }
    }
}

/// Runs rotation actions for real: programs found on PATH, sysfs writes. Holds nothing that
/// changes, so `plumb run`'s kiosk thread may run it (``KioskWorker``).
final class SystemActionRunner: RotationActionRunner, Sendable {
    let environment: [String: String]
    init(environment: [String: String]) { self.environment = environment }

    func perform(_ action: RotationAction) throws {
        switch action {
        case .run(let program, let arguments, let extra):
            try runTool(program, path: try path(of: program), arguments: arguments, extra: extra, shown: action.description)
        case .shell(let command, let extra):
            try execute("/bin/sh", ["-c", command], extra: extra, shown: command)
        case .write(let path, let contents):
            guard let handle = FileHandle(forWritingAtPath: path) else {
                throw CLIError.failure("cannot write \(path)",
                                       fix: "Run as root, and check that the kernel has framebuffer console rotation (CONFIG_FRAMEBUFFER_CONSOLE_ROTATION).")
            }
            // Closed on both paths; the first error (write, else close) is the one reported.
            var failure: (any Error)?
            do { try handle.write(contentsOf: Data((contents + "\n").utf8)) } catch { failure = error }
            do { try handle.close() } catch { failure = failure ?? error }
            if let failure {
                throw CLIError.failure("cannot write \(path): \(failure.localizedDescription)")
            }
        }
    }

    /// Runs a listing (wlr-randr, xrandr --query) and returns what it printed; a program that is
    /// missing or fails throws, as a turn would.
    func capture(_ action: RotationAction) throws -> String? {
        guard case .run(let program, let arguments, let extra) = action else { return nil }
        let (status, text) = try launch(try path(of: program), arguments, environment: environment.merging(extra) { $1 }, capture: true)
        guard status == 0 else { throw CLIError.failure("'\(action)' exited with status \(status)") }
        return text
    }

    /// Runs wlr-randr or xrandr with its output captured; on failure (or xrandr's "not found;
    /// ignoring", which exits 0) lists the outputs with the same tool and throws one clear error
    /// naming them and the fix (``RotationToolDiagnosis``).
    private func runTool(_ program: String, path: String, arguments: [String], extra: [String: String], shown: String) throws {
        let environment = self.environment.merging(extra) { $1 }
        let (status, text) = try launch(path, arguments, environment: environment, capture: true)
        guard status != 0 || RotationToolDiagnosis.failedDespiteSuccess(program: program, text: text) else { return }
        var outputs: [String]?
        // The listing only sharpens the message: if it cannot be had, the message says so.
        do {
            let listing = try launch(path, program == "xrandr" ? ["--query"] : [], environment: environment, capture: true)
            if listing.status == 0 { outputs = RotationToolDiagnosis.outputNames(program: program, listing: listing.text) }
        } catch {
            outputs = nil
        }
        let output = arguments.firstIndex(of: "--output").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        let diagnosis = RotationToolDiagnosis.diagnose(program: program, output: output, text: text, status: status,
                                                       shown: shown, outputs: outputs, environment: environment)
        throw CLIError.failure(diagnosis.message, fix: diagnosis.fix)
    }

    /// Runs `path` and waits for it; with `capture`, its stdout and stderr go to one pipe and
    /// come back as the text, otherwise to plumb's own.
    private func launch(_ path: String, _ arguments: [String], environment: [String: String], capture: Bool) throws -> (status: Int32, text: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        let pipe = capture ? Pipe() : nil
        if let pipe {
            process.standardOutput = pipe
            process.standardError = pipe
            process.standardInput = FileHandle.nullDevice
        }
        do {
            try process.run()
        } catch {
            throw CLIError.failure("cannot run \(path): \(error.localizedDescription)")
        }
        // Read and waited for on a thread of its own, so that one that hangs (a compositor that
        // froze, a command stuck on something) is stopped at the deadline instead of holding up
        // the caller for ever: the kiosk thread of `plumb run` and of `plumb kiosk` on the board's
        // IMU (whose stop and reload wait for it), or `plumb kiosk`'s loop in virtual time.
        let result = Mutex<Result<Data, CLIError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let shown = path
        DispatchQueue.global().async {
            var outcome: Result<Data, CLIError> = .success(Data())
            if let pipe {
                do { outcome = .success(try pipe.fileHandleForReading.readToEnd() ?? Data()) } catch {
                    outcome = .failure(.failure("cannot read the output of \(shown): \(error.localizedDescription)"))
                }
            }
            process.waitUntilExit()
            result.withLock { $0 = outcome }
            done.signal()
        }
        if done.wait(timeout: .now() + Self.deadline) == .timedOut {
            // Foundation's Process starts the program in a process group of its own: the group
            // takes the signals, so what it started (the sleep of a script) ends too and lets go of
            // the pipe. SIGKILL a second after SIGTERM for one that ignores it.
            let group = -process.processIdentifier
            kill(group, SIGTERM)
            if done.wait(timeout: .now() + 1) == .timedOut {
                kill(group, SIGKILL)
                _ = done.wait(timeout: .now() + 1)
            }
            throw CLIError.failure("\(([path] + arguments).joined(separator: " ")) did not finish within \(Int(Self.deadline)) s and was stopped",
                                   fix: "A turn or a read-back takes milliseconds: check that the compositor or X server answers, "
                                       + "and that a --command returns at once (start anything slow in the background: 'long-task &').")
        }
        let data = try result.withLock { $0 }?.get() ?? Data()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// How long a rotation tool, read-back or command may run before it is stopped (s): far
    /// beyond the milliseconds they take, and short enough that a stop or reload of `plumb run`,
    /// or the end of `plumb kiosk`, which wait for the tool under way on the kiosk's thread
    /// (``KioskWorker/endWait``), and `plumb kiosk`'s loop in virtual time (`--simulate`,
    /// `--replay`), held up meanwhile, are not held up for long.
    static let deadline = 3.0

    private func execute(_ path: String, _ arguments: [String], extra: [String: String], shown: String) throws {
        let status = try launch(path, arguments, environment: environment.merging(extra) { $1 }, capture: false).status
        guard status == 0 else {
            throw CLIError.failure("'\(shown)' exited with status \(status)")
        }
    }

    /// Where `program` is on PATH; a missing one throws with the package that has it.
    private func path(of program: String) throws -> String {
        guard let path = Self.find(program, in: environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin") else {
            throw CLIError.failure("\(program) is not on PATH",
                                   fix: program == "wlr-randr" ? "sudo apt install wlr-randr" : program == "xrandr" ? "sudo apt install x11-xserver-utils" : nil)
        }
        return path
    }

    static func find(_ program: String, in searchPath: String) -> String? {
        if program.contains("/") { return program }
        for directory in searchPath.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(directory)/\(program)") {
            return "\(directory)/\(program)"
        }
        return nil
    }
}
