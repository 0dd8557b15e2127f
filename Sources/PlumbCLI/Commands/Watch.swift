import Foundation
import PlumbConfiguration
import PlumbLinux
import PlumbDrivers
import PlumbFusion
import PlumbHAL
import PlumbMQTT
import PlumbOrientation
import PlumbSimulation

/// `plumb watch`: prints every orientation change.
enum Watch {
    static let spec = CommandSpec(
        name: "watch",
        abstract: "Print every device and interface orientation change.",
        discussion: """
        Runs the orientation notifier (fusion, classifier with hysteresis and settle time) on the
        board's IMU, on the simulated IMU (--simulate), or on a recording (--replay FILE.csv, BROAD
        CSV format, played in virtual time as fast as possible, sensor frame = device frame), and
        prints one line per change. JSON Lines: {"t_s": <seconds>, "deviceOrientation": "...", "interfaceOrientation": "..."}.
        The board's IMU is found and run as 'plumb run' would with the configuration (--config):
        the IMU, calibration, mounting, filter, the orientation tunings (preset, single values, time
        cap), orientation.lowEnergy (auto follows the system's power state) and
        orientation.interfaceOrientations (the interface printed); each flag given replaces the
        file's value, a flag left out leaves it. The simulator and recordings start from the
        defaults the options name.
        --allow LIST prints only these interface orientations, as orientation.interfaceOrientations
        does: the latest allowed one the notifier settled on, and before there is one portrait if
        allowed, else the first LIST names.
        --simulate --replay FILE.csv plays the recording through the emulated chip (--chip) and
        its driver instead: sampled at the chip's rate and scale, with the chip's noise, FIFO
        batches and wake-ups; times are the recording's. Rows more than 60 s apart are refused
        there (the chip would sample every second of the gap): split the file, or leave out --simulate.
        --exec runs CMD through /bin/sh for each change with PLUMB_DEVICE_ORIENTATION and
        PLUMB_INTERFACE_ORIENTATION set, on a thread of its own (printing never waits for it), one
        run at a time: changes that come while it runs are coalesced, the next run getting the
        latest. At the end (duration, end of the recording, Ctrl-C, SIGTERM or a hangup) a running CMD has
        2 s, then its process group gets SIGTERM and 1 s later SIGKILL. When every run exits with
        status 127 (not found) or 126 (not executable), watch exits with status 1.
        --mqtt URL also publishes each change (retained) to <prefix>/<hostname>/orientation and
        gravity to .../gravity, with availability, last will and Home Assistant discovery, as
        'plumb run' does with outputs.mqtt. Credentials and TLS files are read only from
        --mqtt-config FILE (a JSON object with the keys of outputs.mqtt), never from arguments.
        --speed plays the simulated IMU at that many times real time instead of as fast as possible.
        """,
        options: [
            .flag("simulate", help: "Read the simulated IMU (see --profile). Without --simulate or --replay: the board's IMU."),
        ] + LiveSensor.options + [
            .option("profile", value: "NAME", help: "Simulated motion: rest, tour, rotation, shaking, tapping (default tour)."),
            .option("chip", value: "PART", help: "Simulated chip (default mpu6050)."),
            .option("replay", value: "FILE", help: "Play a recording (CSV with t_s, gyr_*, acc_*) in virtual time (with --simulate: through the emulated chip)."),
            .option("duration", value: "SECONDS", help: "Stop after this much sensor time."),
            .option("format", value: "FORMAT", help: "jsonl or text (default: text on a terminal, jsonl otherwise)."),
            .option("exec", value: "CMD", help: "Run CMD for each change (one at a time, the latest next), with PLUMB_DEVICE_ORIENTATION and PLUMB_INTERFACE_ORIENTATION set."),
            AllowOption.spec(help: "Interface orientations to print, comma-separated (default: orientation.interfaceOrientations on the board's IMU, else all four)."),
            .option("rule", value: "RULE", help: "plumb (default) or seed: the seed library's rule, for comparison (--replay only)."),
            .option("filter", value: "NAME", help: "Fusion filter: plumb, madgwick, complementary (default: the configuration's on the board's IMU, else plumb)."),
            .option("hysteresis", value: "DEGREES", help: "Degrees past the 45° boundary before a new face is proposed (default 4)."),
            .option("settle", value: "SECONDS", help: "How long a new face must persist (default 0.05)."),
            .option("max-rate", value: "DEG/S", help: "Propose no face while gravity turns faster (default 60; 0 = no gate)."),
            .option("rate-time-constant", value: "SECONDS", help: "Smoothing of the rotation rate the gate compares (default 0.25)."),
            .option("max-wait", value: "SECONDS", help: "Also accept a face once up has stayed in its 45° cone this long (default: off, 0.6 in low-energy --steady; 0 = off)."),
            .option("dwell-margin", value: "DEGREES", help: "With a time cap (--max-wait, or the configuration's): how far inside the 45° boundary up must be then (default 0, 12 in low-energy --steady)."),
            .option("dwell-max-rate", value: "DEG/S", help: "With a time cap (--max-wait, or the configuration's): accept nothing by waiting while gravity turns faster (default 0 = no gate, 80 in low-energy --steady)."),
            .flag("steady", help: "Steadier classifier settings (18°, 0.03 s, 50 °/s over 0.15 s): fewer spurious changes, slower (the board's IMU: the steady preset under the configuration's values)."),
            .flag("low-energy", help: "Force the low-energy mode (accelerometer only, lower rate); without it the board's IMU follows orientation.lowEnergy."),
            .option("turn-wake", value: "SECONDS", help: "Low-energy mode: wake at least this often while a turn is in progress, but for a time cap's end while a face waits for one (default 0.32; 0 = once a batch)."),
            .option("power-root", value: "DIR", help: "Follow power saver, battery, heat and display blanking read from sysfs under DIR (e.g. /)."),
            .flag("no-blank-pause", help: "Keep the sensor running while the display is blanked (with --power-root)."),
            .option("mqtt", value: "URL", help: "Also publish to this MQTT broker: mqtt://HOST[:PORT] or mqtts://HOST[:PORT]."),
            .option("mqtt-config", value: "FILE", help: "MQTT settings (username, password, caFile, qos, prefix, ...) as in outputs.mqtt."),
            .option("speed", value: "FACTOR", help: "Play the simulated IMU at FACTOR × real time (--simulate; default: as fast as possible)."),
        ])

    static let command = Command(spec) { args, context in
        let format = try args.choice("format", ["jsonl", "text"]) ?? (context.outputIsTerminal ? "text" : "jsonl")
        let rule = try args.choice("rule", ["plumb", "seed"]) ?? "plumb"
        let filterName = try args.choice("filter", FusionAlgorithm.allCases.map(\.rawValue)) ?? FusionAlgorithm.default.rawValue
        let algorithm = FusionAlgorithm(rawValue: filterName) ?? .default
        // The simulated IMU and recordings: the defaults under the flags. The board's IMU: its
        // configuration under them (liveSettings); its values are only checked here, before the
        // file is read, and the steady preset has a time cap, so that whether --dwell-* has one
        // waits for the file's.
        let isLive = !args.has("simulate") && args.string("replay") == nil
        var defaults = OrientationSettings()
        if isLive { defaults.preset = .steady }
        let tunings = try classifierTunings(args, orientation: defaults)
        let classifier = tunings.normal
        let energy = EnergySettings(lowEnergyClassifier: tunings.lowEnergy, turnWakeInterval: try turnWake(args))
        let duration = try args.double("duration", in: 0...1e7)
        var printer = ChangePrinter(format: format, context: context,
                                    powerRoot: args.string("power-root"), noBlankPause: args.has("no-blank-pause"))
        let speed = try args.double("speed", in: 0.01...1000)
        // On the board's IMU, liveSettings puts it in the configuration's place.
        let allowed = try AllowOption.parse(args) ?? InterfaceOrientation.allCases
        if speed != nil, !args.has("simulate") { throw CLIError.usage("--speed applies to --simulate only.") }
        // --config, --board, --bus and --address name the board's IMU: beside --simulate or
        // --replay they were ignored without a word (as level, led and kiosk refuse them).
        if !isLive { try LiveSensor.rejectOptions(args, besides: args.has("simulate") ? "simulate" : "replay") }
        printer.mqtt = try mqttPublisher(args, context: context)
        defer { printer.mqtt?.stop() }
        if let command = args.string("exec") {
            // Ctrl-C, SIGTERM and a hangup end the watch rather than plumb, so that the command's
            // process group (its own, away from the terminal's Ctrl-C) is given its grace and stopped.
            printer.shouldStop = context.catchesSignals ? try LiveSensor.stopOnSignals() : { false }
            printer.exec = WatchExec(command: command, environment: context.environment, err: context.err)
        }
        do {
            try play(args, context: context, printer: printer, rule: rule, algorithm: algorithm, classifier: classifier,
                     energy: energy, duration: duration, speed: speed, allowed: allowed)
        } catch {
            _ = printer.exec?.finish(shouldHurry: printer.shouldStop ?? { false })
            throw error
        }
        try finishExec(printer)
    }

    /// Plays the source the arguments name (a recording, the board's IMU or the simulator)
    /// through the notifier and prints each change with `printer`.
    static func play(_ args: ParsedArguments, context: CommandContext, printer: ChangePrinter, rule: String, algorithm: FusionAlgorithm,
                     classifier: OrientationClassifier.Settings, energy: EnergySettings, duration: Double?, speed: Double?,
                     allowed: [InterfaceOrientation]) throws {
        if let path = args.string("replay"), !args.has("simulate") {
            let recording = try loadRecording(path)
            if rule == "seed" {
                runSeedRule(recording, duration: duration, allowedInterfaces: allowed, printer: printer)
                return
            }
            let name = URL(fileURLWithPath: path).lastPathComponent
            let motion = MotionOrientation(source: { RecordingSource(recording: recording, name: name) },
                                           estimator: { algorithm.makeGravityEstimator() }, classifier: classifier, energy: energy)
            if args.has("low-energy") { motion.setLowEnergyModeForcibly(true) }
            try watch(motion, until: duration, allowedInterfaces: allowed, printer: printer)
            return
        }
        if rule == "seed" {
            throw CLIError.usage(args.string("replay") == nil ? "--rule seed needs --replay FILE."
                                 : "--rule seed reads the recording itself: leave out --simulate.")
        }
        guard args.has("simulate") else {
            let (motion, allowed) = try liveMotion(args, context: context)
            var live = printer
            if live.powerRoot == nil { live.powerRoot = "/" }
            try watch(motion, until: duration, origin: SystemClock().nowNanoseconds, wallClock: true, allowedInterfaces: allowed, printer: live)
            return
        }
        let profile: MotionProfile
        if let path = args.string("replay") {
            if args.string("profile") != nil { throw CLIError.usage("Give '--profile' or '--replay', not both.") }
            profile = try SimulatedIMU.recordedProfile(path)
        } else {
            profile = try SimulatedIMU.profile(args.string("profile") ?? "tour")
        }
        let chip = args.string("chip") ?? "mpu6050"
        _ = try SimulatedIMU.source(chip: chip, profile: profile, duration: nil) // validates --chip
        let end = duration ?? profile.duration ?? 60
        let motion = MotionOrientation(source: { () throws(MotionSourceError) -> any MotionSampleSource in
            do {
                let source = try SimulatedIMU.source(chip: chip, profile: profile, duration: end).source
                guard let speed else { return source }
                return PacedSampleSource(source, speed: speed, wall: SystemClock(), counters: SensorCounters())
            } catch {
                throw .other("simulated IMU: \(error)")
            }
        }, estimator: { algorithm.makeGravityEstimator() }, classifier: classifier, energy: energy)
        if args.has("low-energy") { motion.setLowEnergyModeForcibly(true) }
        // The simulator's virtual clock starts at 1 s, when its profile starts; a recording's
        // times are printed as the recording gives them, from its first row's (0 up to
        // RecordingCSV.maximumTimeSeconds: its nanoseconds fit a UInt64, not always an Int64).
        try watch(motion, until: nil, origin: Nanoseconds.perSecond, shift: UInt64((profile.timeOrigin * 1e9).rounded()),
                  allowedInterfaces: allowed, printer: printer)
    }

    /// The publisher for --mqtt URL (settings from --mqtt-config FILE), started; `nil` without --mqtt.
    static func mqttPublisher(_ args: ParsedArguments, context: CommandContext) throws(CLIError) -> MQTTPublisher? {
        guard let url = args.string("mqtt") else {
            if args.string("mqtt-config") != nil { throw CLIError.usage("--mqtt-config needs --mqtt URL.") }
            return nil
        }
        var output = MQTTOutput()
        if let path = args.string("mqtt-config") {
            do throws(ConfigurationError) { output = try MQTTOutput.load(path: path) } catch {
                throw CLIError.failure(error.description, fix: "Run 'plumb config example --keys' for the keys of outputs.mqtt and their allowed values.")
            }
        }
        let settings = try MQTTSupport.settings(output, url: url, hostname: MQTTSupport.hostname,
                                                credentialsPlace: MQTTSupport.watchCredentials(args.string("mqtt-config")))
        try MQTTSupport.checkNetwork(settings.endpoint, what: "--mqtt")
        let err = context.err
        let publisher: MQTTPublisher
        do throws(MQTTError) {
            publisher = try MQTTPublisher(settings: settings) { report in
                guard report.level != .debug else { return }
                err.line("plumb watch: mqtt: \(report.message)")
                err.flush()
            }
        } catch {
            throw CLIError.failure(error.description, fix: "Check --mqtt-config.")
        }
        publisher.start()
        return publisher
    }

    /// Reads a CSV recording (`plumb watch`, `kiosk` and `run` with `--replay`): a file that cannot
    /// be read, or a line that breaks ``RecordingCSV``'s rules, is one sentence naming the file
    /// (and the line and column), and the fix.
    static func loadRecording(_ path: String) throws(CLIError) -> IMURecording {
        let data: Data
        do { data = try InputFile.read(path) } catch {
            throw CLIError.failure("\(path): cannot read the recording (\(error.reason)).",
                                   fix: "Give the path of a CSV file with the columns t_s, gyr_x, gyr_y, gyr_z, acc_x, acc_y, acc_z.")
        }
        do {
            return try IMURecording.parse(csv: [UInt8](data), name: path)
        } catch {
            throw CLIError.failure(error.description + ".", fix: error.fix)
        }
    }

    /// The classifier tunings of both energy modes: `orientation`'s (``DaemonFactory/classifiers(_:)``,
    /// with the steady preset under its single values with --steady), then each value the
    /// command line sets, in both. The simulated IMU and recordings start from the defaults.
    static func classifierTunings(_ args: ParsedArguments, orientation: OrientationSettings) throws(CLIError) -> ClassifierTunings {
        var orientation = orientation
        if args.has("steady") { orientation.preset = .steady }
        var tunings = DaemonFactory.classifiers(orientation)
        tunings.override(hysteresis: try args.double("hysteresis", in: 0...44),
                         settleTime: try args.double("settle", in: 0...10),
                         maximumRotationRate: try args.double("max-rate", in: 0...1e6).map { $0 == 0 ? .infinity : $0 },
                         rateTimeConstant: try args.double("rate-time-constant", in: 0...10))
        if let wait = try args.double("max-wait", in: 0...60) {
            tunings.overrideDwell(maximumWait: wait == 0 ? .some(nil) : .some(wait))
        }
        let margin = try args.double("dwell-margin", in: 0...44)
        let dwellRate = try args.double("dwell-max-rate", in: 0...1e6)
        // Without a time cap in either mode they would do nothing: say so rather than ignore them.
        if tunings.normal.maximumWait == nil, tunings.lowEnergy.maximumWait == nil,
           let given = margin != nil ? "dwell-margin" : dwellRate != nil ? "dwell-max-rate" : nil {
            throw CLIError.usage("'--\(given)' acts only with a time cap, and none is on: add '--max-wait SECONDS' (or '--steady', whose low-energy mode waits at most 0.6 s).")
        }
        tunings.overrideDwell(margin: margin, maximumRotationRate: dwellRate.map { $0 == 0 ? .infinity : $0 })
        return tunings
    }

    /// `--turn-wake SECONDS`: the low-energy mode's wake interval during turns; 0 turns it off.
    static func turnWake(_ args: ParsedArguments) throws(CLIError) -> Double? {
        guard let seconds = try args.double("turn-wake", in: 0...10) else { return EnergySettings.defaultTurnWakeInterval }
        return seconds > 0 ? seconds : nil
    }

    /// The notifier on the board's IMU, as `plumb run` finds it (the configuration file, the
    /// detected board, the driver behind the streaming engine on /dev/i2c-N and the data-ready
    /// line) and runs it (``liveNotifier(_:args:source:powerMonitor:)``), and the interface
    /// orientations to print (`orientation.interfaceOrientations`).
    static func liveMotion(_ args: ParsedArguments, context: CommandContext) throws(CLIError)
        -> (MotionOrientation, [InterfaceOrientation]) {
        let found = try LiveSensor.find(args, context: context)
        // The flags first: a usage error before the sensor is touched.
        _ = try liveSettings(args, configuration: found.setup.configuration)
        // Fail here, with one line and the fix, rather than in the reader's retry loop.
        try LiveSensor.check(found, context: context)
        return try liveNotifier(found, args: args, source: { () throws(MotionSourceError) -> any MotionSampleSource in
            do throws(CLIError) { return try LiveSensor.open(found, context: context, command: "watch") } catch {
                if case .failure(let message, let fix) = error { throw .other(message + (fix.map { " (\($0))" } ?? "")) }
                throw .other(String(describing: error))
            }
        }, powerMonitor: nil)
    }

    /// The configuration `plumb watch` on the board's IMU runs, and its classifier tunings: the
    /// file's, with each flag given in its place: --filter (the file's beta and time constant
    /// kept only for the file's own filter), --low-energy (`orientation.lowEnergy: on`), --steady
    /// (the steady preset), --allow (`orientation.interfaceOrientations`, in its order) and the
    /// classifier values (``classifierTunings(_:orientation:)``).
    /// A flag not given leaves the file's value.
    static func liveSettings(_ args: ParsedArguments, configuration: Configuration) throws(CLIError)
        -> (configuration: Configuration, tunings: ClassifierTunings) {
        var c = configuration
        if let name = try args.choice("filter", FilterSettings.Kind.allCases.map(\.rawValue)),
           let kind = FilterSettings.Kind(rawValue: name), kind != c.filter.kind {
            c.filter = FilterSettings()
            c.filter.kind = kind
        }
        if args.has("low-energy") { c.orientation.lowEnergy = .on }
        if args.has("steady") { c.orientation.preset = .steady }
        if let allowed = try AllowOption.parse(args) { AllowOption.apply(allowed, to: &c.orientation) }
        return (c, try classifierTunings(args, orientation: c.orientation))
    }

    /// The notifier `plumb watch` runs on the board's IMU: `plumb run`'s
    /// (``DaemonFactory/notifier(_:tunings:normal:source:powerMonitor:)``) with ``liveSettings(_:configuration:)``
    /// over `found`'s configuration, `found.imu` as the normal mode, and --turn-wake; and the
    /// interface orientations it prints (`orientation.interfaceOrientations` in the file's order,
    /// ``DaemonFactory/interfaceOrientations(_:)``).
    static func liveNotifier(_ found: LiveSensor.Found, args: ParsedArguments, source: @escaping MotionOrientation.SourceFactory,
                             powerMonitor: (any PowerStateMonitor)?) throws(CLIError) -> (MotionOrientation, [InterfaceOrientation]) {
        let resolved = try liveSettings(args, configuration: found.setup.configuration)
        let motion = DaemonFactory.notifier(resolved.configuration, tunings: resolved.tunings, normal: found.imu,
                                            source: source, powerMonitor: powerMonitor)
        var energy = motion.energySettings
        energy.turnWakeInterval = try turnWake(args)
        motion.energySettings = energy
        return (motion, DaemonFactory.interfaceOrientations(resolved.configuration.orientation))
    }

    /// Runs `motion` until its source ends (or `duration` seconds pass) and prints each change;
    /// the interface printed is the latest of `allowedInterfaces`, and until one is seen
    /// ``DaemonFactory/initialInterface(_:)`` (portrait if allowed, else the first listed), as
    /// `plumb run`'s outputs take it: never one outside `allowedInterfaces`. Times are printed in
    /// seconds since `origin` (the source's clock) plus `shift` nanoseconds (a recording's start).
    static func watch(_ motion: MotionOrientation, until duration: Double?, origin: UInt64 = 0, shift: UInt64 = 0, wallClock: Bool = false,
                      allowedInterfaces: [InterfaceOrientation] = InterfaceOrientation.allCases,
                      printer: ChangePrinter) throws(CLIError) {
        if let root = printer.powerRoot {
            motion.powerMonitor = SystemPowerStateMonitor.polled(root: root, pollInterval: motion.energySettings.pollInterval)
            var energy = motion.energySettings
            energy.pausesWhileDisplayBlanked = !printer.noBlankPause
            motion.energySettings = energy
        }
        // The time printed: since `origin` (negative before it), plus `shift`; exact, as the
        // sum, below 2^53 ns. Unsigned: a recording's times reach RecordingCSV.maximumTimeSeconds,
        // 1.8·10¹⁹ ns, past Int64's 9.2·10¹⁸ (printed as -1446744073.620 s for 1.7·10¹⁰ s).
        @Sendable func seconds(_ nanoseconds: UInt64) -> Double {
            let since = nanoseconds >= origin ? Double(nanoseconds - origin) : -Double(origin - nanoseconds)
            return (since + Double(shift)) / 1e9
        }
        // An observer, not a stream: this runs in synchronous code, possibly on a thread of the
        // cooperative pool, which must not block waiting for a task.
        let done = DispatchSemaphore(value: 0)
        let queue = DispatchQueue(label: "plumb.watch")
        // Touched only on `queue`, where the observer runs.
        nonisolated(unsafe) var interface = DaemonFactory.initialInterface(allowedInterfaces)
        let token = motion.addObserver(queue: queue) { event in
            switch event {
            case .changed(let change):
                let t = seconds(change.publishedNanoseconds)
                if let duration, t > duration { return }
                if allowedInterfaces.contains(change.interfaceOrientation) { interface = change.interfaceOrientation }
                printer.emit(t: t, device: change.deviceOrientation, interface: interface)
            case .finished:
                done.signal()
            }
        }
        defer { motion.removeObserver(token) }
        var gravityTimer: DispatchSourceTimer?
        if let mqtt = printer.mqtt, mqtt.settings.gravityRate > 0 {
            // Gravity at the configured rate in wall time (the notifier reports changes only),
            // stamped with its sample's time on the changes' timeline: the sensor's clock, which
            // is virtual with --simulate and --replay (the wall clock's time there was 900 s off).
            let wall = SystemClock()
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now(), repeating: 1 / mqtt.settings.gravityRate)
            timer.setEventHandler {
                guard motion.isSensorRunning, let (g, sampled) = motion.latestGravity else { return }
                mqtt.publishGravity(g.x, g.y, g.z, t: seconds(sampled), nowNanoseconds: wall.nowNanoseconds)
            }
            timer.resume()
            gravityTimer = timer
        }
        defer { gravityTimer?.cancel() }
        motion.start()
        if let shouldStop = printer.shouldStop {
            // With --exec, SIGINT, SIGTERM and SIGHUP end the watch (checked every 0.1 s).
            let deadline: DispatchTime = wallClock ? duration.map { .now() + $0 } ?? .distantFuture : .distantFuture
            while done.wait(timeout: min(deadline, .now() + 0.1)) == .timedOut {
                if shouldStop() || DispatchTime.now() >= deadline { break }
            }
        } else if wallClock, let duration {
            // A live sensor never ends by itself: stop after the duration in wall time.
            _ = done.wait(timeout: .now() + duration)
        } else {
            done.wait()
        }
        motion.stop()
        if let mqtt = printer.mqtt, !mqtt.waitUntilDelivered(timeout: 10) {
            printer.context.err.line("plumb watch: mqtt: not every change reached \(mqtt.settings.endpoint) within 10 s of the end")
        }
        if let error = motion.lastError {
            throw CLIError.failure(error, fix: nil)
        }
    }

    /// The seed library's rule over a recording, for comparison with the notifier; the interface
    /// printed keeps to `allowedInterfaces` as ``watch(_:until:origin:shift:wallClock:allowedInterfaces:printer:)``'s does.
    static func runSeedRule(_ recording: IMURecording, duration: Double?, allowedInterfaces: [InterfaceOrientation] = InterfaceOrientation.allCases,
                            printer: ChangePrinter) {
        var rule = SeedOrientationRule()
        var interface = DaemonFactory.initialInterface(allowedInterfaces)
        for sample in recording.samples {
            if let duration, sample.timeSeconds > duration { break }
            guard let device = rule.update(acceleration: sample.acceleration, timeNanoseconds: sample.timestampNanoseconds) else { continue }
            if let i = device.interfaceOrientation, allowedInterfaces.contains(i) { interface = i }
            printer.emit(t: sample.timeSeconds, device: device, interface: interface)
        }
    }
}

/// Writes one change as JSON Lines or text, and hands it to the --exec command's runner.
struct ChangePrinter: Sendable {
    var format: String
    var context: CommandContext
    /// Runs the --exec command for the changes, off the printing path.
    var exec: WatchExec? = nil
    /// True once SIGINT, SIGTERM or SIGHUP came (installed with --exec, outside tests that run plumb in their own process).
    var shouldStop: (@Sendable () -> Bool)? = nil
    /// Where sysfs is, when the power monitor should run.
    var powerRoot: String? = nil
    var noBlankPause = false
    /// Publishes every change too (--mqtt).
    var mqtt: MQTTPublisher? = nil

    func emit(t: Double, device: DeviceOrientation, interface: InterfaceOrientation) {
        mqtt?.publishOrientation(device: device.rawValue, interface: interface.rawValue, t: t)
        if format == "jsonl" {
            context.out.line("{\"t_s\": \(String(format: "%.6f", t)), \"deviceOrientation\": \"\(device.rawValue)\", \"interfaceOrientation\": \"\(interface.rawValue)\"}")
        } else {
            context.out.line("\(String(format: "%10.3f", t)) s  device \(device.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0)) interface \(interface.rawValue)")
        }
        context.out.flush()
        exec?.submit(device: device, interface: interface)
    }
}
