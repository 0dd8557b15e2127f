import Foundation
import PlumbDrivers
import PlumbFusion
import PlumbHAL
import PlumbOrientation
import PlumbSimulation

/// `plumb bench energy`: what the notifier's two energy modes cost and how fast they still
/// answer, on the simulated MPU-6050 (real driver and streaming engine, register-level emulator,
/// virtual time).
enum BenchEnergy {
    static let spec = CommandSpec(
        name: "energy",
        abstract: "Wakeups and bus bytes per second of the notifier in normal and low-energy mode (simulator).",
        discussion: """
        Runs the tour profile (every face, held 4 s, turned in 1.5 s) through the simulated chip,
        the streaming engine and the orientation pipeline in each mode, --runs times with
        different noise seeds, and counts the reader's wakeups, the bytes on the I2C bus and the
        latency of each change from the moment the true up vector entered the new face's 45°
        cone. Normal and low-energy settings are the notifier's defaults (EnergySettings); the
        classifier is the responsive preset's, or with --steady the steady preset's (in low-energy
        mode with its 0.6 s time cap: while a face waits for it, the reader wakes for its end, and
        after it for the next sample while up approaches the face's axis).
        """,
        options: [
            .option("chip", value: "PART", help: "Simulated chip (default mpu6050)."),
            .option("runs", value: "N", help: "Tours per mode (default 5)."),
            .option("turn-wake", value: "SECONDS", help: "Low-energy mode: wake at least this often while a turn is in progress, but for a time cap's end while a face waits for one (default 0.32; 0 = once a batch)."),
            .flag("steady", help: "The steady preset's classifier tunings (orientation.preset \"steady\") instead of the responsive ones."),
            .option("format", value: "FORMAT", help: "text or jsonl (default: text on a terminal, jsonl otherwise)."),
        ])

    struct Result {
        var mode: String
        var configuration: IMUConfiguration
        var seconds = 0.0
        var wakeups = 0
        var bytes = 0
        var changes = 0
        var latencies: [Double] = []
        var wrong = 0

        var wakeupsPerSecond: Double { Double(wakeups) / seconds }
        var bytesPerSecond: Double { Double(bytes) / seconds }
        var medianLatency: Double { latencies.isEmpty ? .nan : latencies.sorted()[latencies.count / 2] }
        var maximumLatency: Double { latencies.max() ?? .nan }
    }

    static let command = Command(spec) { args, context in
        let chip = args.string("chip") ?? "mpu6050"
        let runs = try args.int("runs", in: 1...100) ?? 5
        let format = try args.choice("format", ["text", "jsonl"]) ?? (context.outputIsTerminal ? "text" : "jsonl")
        let energy = EnergySettings(turnWakeInterval: try Watch.turnWake(args))
        let tunings = ClassifierTunings(preset: args.has("steady") ? .steady : .responsive)
        var results: [Result] = []
        for (mode, configuration) in [("normal", energy.normal), ("low-energy", energy.lowEnergy)] {
            var result = Result(mode: mode, configuration: configuration)
            for run in 0..<runs {
                try measure(chip: chip, configuration: configuration, tunings: tunings, turnWakeInterval: energy.turnWakeInterval,
                            seed: UInt64(run + 1), into: &result)
            }
            results.append(result)
        }
        let normal = results[0], low = results[1]
        if format == "jsonl" {
            for r in results {
                context.out.line("{\"mode\": \"\(r.mode)\", \"odr_hz\": \(fmt(r.configuration.outputDataRate)), \"fifo_watermark\": \(r.configuration.fifoWatermark), \"gyroscope\": \(r.configuration.gyroscopeEnabled), \"wakeups_per_s\": \(fmt(r.wakeupsPerSecond)), \"bus_bytes_per_s\": \(fmt(r.bytesPerSecond)), \"changes\": \(r.changes), \"wrong_changes\": \(r.wrong), \"median_latency_s\": \(fmt(r.medianLatency)), \"max_latency_s\": \(fmt(r.maximumLatency)), \"seconds\": \(fmt(r.seconds))}")
            }
            context.out.line("{\"wakeup_ratio\": \(fmt(normal.wakeupsPerSecond / low.wakeupsPerSecond)), \"bus_bytes_ratio\": \(fmt(normal.bytesPerSecond / low.bytesPerSecond))}")
            return
        }
        context.out.line("mode        ODR Hz  FIFO  gyro  wakeups/s  bus B/s  changes  wrong  median latency  max latency")
        for r in results {
            let mode = r.mode.padding(toLength: 10, withPad: " ", startingAt: 0)
            let gyro = (r.configuration.gyroscopeEnabled ? "on" : "off").padding(toLength: 4, withPad: " ", startingAt: 0)
            context.out.line(mode + String(format: "  %6.1f  %4d  ", r.configuration.outputDataRate, r.configuration.fifoWatermark) + gyro
                             + String(format: "  %9.2f  %7.0f  %7d  %5d  %12.3f s  %9.3f s", r.wakeupsPerSecond,
                                    r.bytesPerSecond, r.changes, r.wrong, r.medianLatency, r.maximumLatency))
        }
        context.out.line(String(format: "low-energy mode: %.1f× fewer wakeups, %.1f× fewer bus bytes (%d tours of %.0f s per mode, simulated %@, %@ classifier)",
                                normal.wakeupsPerSecond / low.wakeupsPerSecond, normal.bytesPerSecond / low.bytesPerSecond,
                                runs, normal.seconds / Double(runs), chip as NSString, (args.has("steady") ? "steady" : "responsive") as NSString))
    }

    static func fmt(_ x: Double) -> String { x.isFinite ? String(format: "%.4g", x) : "null" }

    /// One tour through the simulated chip and the pipeline, added to `result`.
    static func measure(chip: String, configuration: IMUConfiguration, tunings: ClassifierTunings = ClassifierTunings(preset: .responsive),
                        turnWakeInterval: Double?, seed: UInt64, into result: inout Result) throws(CLIError) {
        let profile = MotionProfile.tour()
        let duration = (profile.duration ?? 33) + 2
        let (source, sensor) = try SimulatedIMU.source(chip: chip, profile: profile, duration: duration, seed: seed)
        let effective: IMUConfiguration
        do {
            effective = try source.start(configuration)
        } catch {
            throw CLIError.failure("simulated \(chip): \(error)", fix: nil)
        }
        result.configuration = effective
        sensor.bus.resetCounters()
        let wakeupsBefore = source.stream.statistics.wakeups
        let startTime = sensor.clock.nowNanoseconds
        var pipeline = OrientationPipeline(fused: FusionAlgorithm.default.makeGravityEstimator(), classifier: tunings.normal,
                                           accelerometerOnlyClassifier: tunings.lowEnergy, usesGyroscope: effective.gyroscopeEnabled,
                                           turnWakeInterval: turnWakeInterval)
        var samples: [IMUSample] = []
        samples.reserveCapacity(256)
        var changes: [(time: Double, face: DeviceOrientation)] = []
        while true {
            samples.removeAll(keepingCapacity: true)
            let read: MotionSourceRead
            // The low-energy mode wakes sooner during a turn, as MotionOrientation's reader does.
            if let hint = pipeline.wakeHint { source.wake(bySampleAt: hint) }
            do {
                read = try source.read(into: &samples, timeoutNanoseconds: 0)
            } catch {
                throw CLIError.failure("simulated \(chip): \(error)", fix: nil)
            }
            if read == .finished { break }
            let now = sensor.profileTime(sensor.clock.nowNanoseconds)
            for sample in samples {
                if let face = pipeline.process(sample) { changes.append((now, face)) }
            }
        }
        result.seconds += Double(sensor.clock.nowNanoseconds - startTime) / 1e9
        result.wakeups += source.stream.statistics.wakeups - wakeupsBefore
        result.bytes += sensor.bus.counters.bytes
        // Latency: from the true up vector entering the new face's 45° cone to the change.
        for change in changes where change.time > 1 {
            guard let axis = change.face.upAxis else { continue }
            result.changes += 1
            func inCone(_ t: Double) -> Bool {
                guard let up = profile.state(at: t).up else { return false }
                return (up * axis).sum() >= 0.5.squareRoot()
            }
            guard inCone(change.time) || inCone(change.time - 0.5) else { result.wrong += 1; continue }
            var t = change.time
            while t > 0, inCone(t - 0.001) { t -= 0.001 }
            result.latencies.append(change.time - t)
        }
    }
}
