import Foundation
import PlumbDBus
import PlumbFusion
import PlumbHAL
import PlumbLinux
import PlumbOrientation
import PlumbSimulation

/// `plumb dbus`: serves iio-sensor-proxy's `net.hadess.SensorProxy` so desktops rotate the screen.
enum DBus {
    static let spec = CommandSpec(
        name: "dbus",
        abstract: "Serve iio-sensor-proxy's net.hadess.SensorProxy D-Bus interface (screen auto-rotation).",
        discussion: """
        Owns net.hadess.SensorProxy on the system bus (or the bus at --bus-address) and serves its
        accelerometer part, so GNOME, KDE and Phosh rotate the screen: HasAccelerometer,
        AccelerometerOrientation (normal, left-up, bottom-up, right-up, undefined) and
        Claim/ReleaseAccelerometer. The sensor runs only while a client holds a claim. Light and
        proximity are reported absent. Stop iio-sensor-proxy first: only one service can own the name.
        Without --simulate or --script it reads the board's IMU as 'plumb run' does (--config), opening
        it only while a client holds a claim; it fails at start if the IMU does not answer, unless
        --wait-for-sensor is given: it then serves with HasAccelerometer false, checks the IMU every
        second while no client holds a claim, and turns it true once the IMU answers. An IMU another plumb
        process drives is refused at start alike, or with --wait-for-sensor waited for until that process ends.
        Prints one line per event (JSON Lines, or text on a terminal). SIGINT, SIGTERM or SIGHUP stops it.
        """,
        options: [
            .option("bus-address", value: "ADDRESS", help: "A D-Bus address (unix:path=/run/x) instead of the system bus."),
            .option("config", value: "FILE", help: "The configuration: IMU, mounting, calibration, filter, orientation (default /etc/plumb/plumb.json)."),
            BoardSupport.boardOption, BoardSupport.boardsDirectoryOption,
            .flag("simulate", help: "Read the simulated IMU (see --profile)."),
            .option("profile", value: "NAME", help: "Simulated motion: rest, tour, rotation, shaking, tapping (default tour)."),
            .option("chip", value: "KEY", help: "Simulated chip (default mpu6050; see plumb watch --help)."),
            .option("script", value: "STEPS", help: "Play orientations instead of a sensor: normal:3,left-up:3,... (seconds each)."),
            .flag("repeat", help: "Start the --script over after its last step."),
            .option("speed", value: "FACTOR", help: "Play --simulate or --script this many times faster than real time (default 1)."),
            .option("filter", value: "NAME", help: "Fusion filter for --simulate: plumb (default), madgwick, complementary (the live IMU uses the configuration's)."),
            .option("format", value: "FORMAT", help: "jsonl or text (default: text on a terminal, jsonl otherwise)."),
            .flag("wait-for-sensor", help: "When the IMU does not answer at start, or another plumb drives it, serve anyway and take it once it answers (plumb-sensor-proxy.service does; not with --simulate or --script)."),
        ])

    static let command = Command(spec) { args, given in
        // A service: output that cannot be written (the journal's pipe gone, a full disk) drops
        // lines rather than ending the sensor and the bus name (``Output/droppingWriteFailures()``).
        var context = given
        context.out = given.out.droppingWriteFailures()
        context.err = given.err.droppingWriteFailures()
        defer { context.out.flush(); context.err.flush() }
        let format = try args.choice("format", ["jsonl", "text"]) ?? (context.outputIsTerminal ? "text" : "jsonl")
        let speed = try args.double("speed", in: 0.001...1000) ?? 1
        let address = args.string("bus-address")
        let counters = SensorCounters()
        let simulated = args.has("simulate")
        // It waits for the board's IMU, which --script and --simulate replace: it was ignored
        // without a word (`plumb run` refuses it beside --simulate or --replay alike).
        if args.has("wait-for-sensor"), let given = args.string("script") != nil ? "script" : simulated ? "simulate" : nil {
            throw CLIError.usage("'--wait-for-sensor' waits for the board's IMU; it cannot be combined with '--\(given)'.")
        }

        let source: any OrientationSource
        if let script = args.string("script") {
            if simulated { throw CLIError.usage("--script and --simulate cannot be combined.") }
            let steps: [ScriptedOrientationSource.Step]
            do throws(ScriptedOrientationSource.ParseError) {
                steps = try ScriptedOrientationSource.parse(script)
            } catch {
                throw CLIError.usage("The value '\(script)' is invalid for '--script': \(error.description).")
            }
            source = ScriptedOrientationSource(steps: steps.map { .init($0.orientation, for: $0.duration / speed) },
                                               repeats: args.has("repeat"), clock: SystemClock())
        } else if simulated {
            let profile = try SimulatedIMU.profile(args.string("profile") ?? "tour")
            let chip = args.string("chip") ?? "mpu6050"
            _ = try SimulatedIMU.source(chip: chip, profile: profile, duration: nil) // validates --chip
            let filterName = try args.choice("filter", FusionAlgorithm.allCases.map(\.rawValue)) ?? FusionAlgorithm.default.rawValue
            let algorithm = FusionAlgorithm(rawValue: filterName) ?? .default
            source = MotionOrientationSource(motion: simulatedMotion(chip: chip, profile: profile, speed: speed,
                                                                     algorithm: algorithm, counters: counters))
        } else {
            source = try DBusLiveSensor.source(args, context: context, waitsForSensor: args.has("wait-for-sensor"))
        }

        let printer = EventPrinter(format: format, bus: address ?? SensorProxyError.systemBus,
                                   counters: simulated ? counters : nil, context: context)
        let awaited = (source as? DBusSensorWait).flatMap { $0.absentAtStart == nil ? nil : $0 }
        let service = SensorProxyService(source: source, busAddress: address, absentAtStart: awaited?.absentAtStart) { printer.print($0) }
        let err = context.err
        let waiting = awaited.map { awaited in
            DBusSensorWaitThread(awaited: awaited, service: service, said: { line in
                err.line("plumb dbus: " + line)
                err.flush()
            })
        }
        // The checking thread ends before the command does, however the service's run ended: a
        // check under way stops the chip it started.
        let waitFailure = waiting?.stopAndJoin
        do throws(SensorProxyError) {
            try service.runUntilSignalled()
        } catch {
            _ = waitFailure?()
            throw CLIError.failure(error.description, fix: error.fix)
        }
        if let failure = waitFailure?() { throw failure }
        printer.printExit()
    }

    /// The notifier on the simulated IMU (the real driver against the register-level emulator)
    /// playing `profile`, held at its last state when it ends, at `speed` × real time. Each claim
    /// session makes a new simulated sensor, so the profile starts over.
    static func simulatedMotion(chip: String, profile: MotionProfile, speed: Double, algorithm: FusionAlgorithm,
                                counters: SensorCounters) -> MotionOrientation {
        let wall = SystemClock()
        return MotionOrientation(source: { () throws(MotionSourceError) -> any MotionSampleSource in
            let simulated: (source: IMUStreamSource, sensor: SimulatedSensor)
            do {
                simulated = try SimulatedIMU.source(chip: chip, profile: profile, duration: nil)
            } catch {
                throw .other("simulated IMU: \(error)")
            }
            let bus = simulated.sensor.bus
            return PacedSampleSource(simulated.source, speed: speed, wall: wall, counters: counters,
                                     busTransactions: { bus.counters.transactions })
        }, estimator: { algorithm.makeGravityEstimator() })
    }
}

/// Writes `plumb dbus` events as JSON Lines or text, flushed line by line.
struct EventPrinter: Sendable {
    var format: String
    var bus: String
    /// The simulated sensor's counters, printed with sensor events when present.
    var counters: SensorCounters?
    var context: CommandContext

    func print(_ event: SensorProxyService.Event) {
        switch event {
        case .ready(let name):
            emit(["event": .string("ready"), "bus": .string(bus), "name": .string(name)],
                 text: "serving net.hadess.SensorProxy on \(bus) as \(name)")
        case .claimed(let sensor, let client):
            emit(["event": .string("claimed"), "sensor": .string(sensor.rawValue), "client": .string(client)],
                 text: "\(client) claimed the \(sensor.rawValue)")
        case .released(let sensor, let client, let left):
            emit(["event": .string("released"), "sensor": .string(sensor.rawValue), "client": .string(client),
                  "reason": .string(left ? "client-left" : "released")],
                 text: "\(client) \(left ? "left the bus, releasing" : "released") the \(sensor.rawValue)")
        case .sensorStarted:
            emitSensor("started")
        case .sensorStopped:
            emitSensor("stopped")
        case .sensorFailed(let message):
            emit(["event": .string("sensor"), "state": .string("failed"), "message": .string(message)],
                 text: "sensor failed: \(message)")
        case .sensorLost(let message):
            emit(["event": .string("sensor"), "state": .string("lost"), "message": .string(message)],
                 text: "sensor lost (HasAccelerometer false until it answers): \(message)")
        case .sensorBack:
            emit(["event": .string("sensor"), "state": .string("back")], text: "sensor answers again (HasAccelerometer true)")
        case .orientationChanged(let orientation):
            emit(["event": .string("orientation"), "value": .string(orientation.rawValue)],
                 text: "AccelerometerOrientation = \(orientation.rawValue)")
        }
    }

    /// The last line, after the service stopped: the simulated sensor's totals.
    func printExit() {
        emitWithCounters(["event": .string("exit")], text: "stopped") { values in
            " (simulated sensor: \(values.starts) starts, \(values.stops) stops, \(values.samples) samples, \(values.busTransactions) bus transactions)"
        }
    }

    private func emitSensor(_ state: String) {
        emitWithCounters(["event": .string("sensor"), "state": .string(state)], text: "sensor \(state)") { values in
            " (simulated sensor so far: \(values.samples) samples, \(values.busTransactions) bus transactions)"
        }
    }

    /// Emits `fields` and `text`, with the simulated sensor's counters added when there are any
    /// (`suffix` words them for the text line).
    private func emitWithCounters(_ fields: [String: JSONValue], text: String,
                                  suffix: (SensorCounters.Values) -> String) {
        var fields = fields
        var text = text
        if let values = counters?.snapshot {
            fields["sensorStarts"] = .number(values.starts)
            fields["sensorStops"] = .number(values.stops)
            fields["samples"] = .number(values.samples)
            fields["busTransactions"] = .number(values.busTransactions)
            text += suffix(values)
        }
        emit(fields, text: text)
    }

    enum JSONValue: Sendable {
        case string(String)
        case number(Int)

        var json: String {
            switch self {
            case .number(let n): return String(n)
            case .string(let s):
                var out = "\""
                for scalar in s.unicodeScalars {
                    switch scalar {
                    case "\"": out += "\\\""
                    case "\\": out += "\\\\"
                    case "\n": out += "\\n"
                    case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                    default: out.unicodeScalars.append(scalar)
                    }
                }
                return out + "\""
            }
        }
    }

    private func emit(_ fields: [String: JSONValue], text: String) {
        if format == "jsonl" {
            let order = ["event", "state", "sensor", "client", "reason", "value", "bus", "name", "message",
                         "sensorStarts", "sensorStops", "samples", "busTransactions"]
            let body = order.compactMap { key in fields[key].map { "\"\(key)\": \($0.json)" } }
            context.out.line("{" + body.joined(separator: ", ") + "}")
        } else {
            context.out.line(text)
        }
        context.out.flush()
    }
}
