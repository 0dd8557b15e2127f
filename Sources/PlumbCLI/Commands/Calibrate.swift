import Foundation
import PlumbHAL
import PlumbConfiguration
import PlumbDrivers
import PlumbSimulation

/// `plumb calibrate`: gyroscope bias at rest and accelerometer offset and scale from six
/// positions, saved as JSON for `plumb read --calibration`.
enum Calibrate {
    static let spec = CommandSpec(
        name: "calibrate",
        abstract: "Calibrate the IMU: gyroscope bias, accelerometer offset and scale; save as JSON.",
        discussion: """
        Hold the sensor still on each of its six faces (any order) for --hold seconds; progress and the
        next face to show go to standard error. With --gyro-only, keep it still once: the gyroscope
        bias drifts with temperature, the accelerometer's calibration does not, so an earlier
        calibration of the same part at --output keeps its accelerometer offset, scale and mounting
        (standard error says whether it was kept, and why not). With --simulate the
        emulated chip tours the six faces by itself (profile 'tour'). It measures the raw chip at
        ±2 g and ±250 °/s: no earlier calibration, mounting, rate or range is applied. Without
        --config no plumb.json is read (the chip is found by probing, or --bus, --address, --part);
        --config FILE takes the chip's location from that file (imu.bus, address, part, the
        interrupt line, fifoCompression), each flag given overriding its value. Name the saved
        file in plumb.json's "calibration".
        """,
        options: [
            .option("output", short: "o", value: "FILE", help: "Where to save the calibration (an earlier one there is replaced, another file refused). Default plumb-calibration.json."),
            .flag("gyro-only", help: "Only the gyroscope bias (keep the sensor still); the accelerometer part of an earlier calibration of this part at --output is kept."),
            .option("hold", value: "SECONDS", help: "Stillness needed per face. Default 2."),
            .option("timeout", value: "SECONDS", help: "Give up after this long. Default 180."),
            .option("rate", value: "HZ", help: "Output data rate while calibrating. Default 100."),
            SensorOptions.configOption,
        ] + SensorOptions.specs.map { option in
            // The emulated chip tours the six faces by itself; it rests for --gyro-only.
            guard option.name == "profile" else { return option }
            var profile = option
            profile.help = "The emulated motion: \(MotionProfile.builtInNames.joined(separator: ", ")). Default tour (rest with --gyro-only)."
            return profile
        })

    static let command = Command(spec) { given, context in
        // --config FILE: the file's chip location in place of the flags left out.
        let args = try SensorOptions.applyingConfiguration(given, takes: [])
        let output = args.string("output") ?? "plumb-calibration.json"
        let hold = try args.double("hold", in: 0.5...60) ?? 2
        let timeout = try args.double("timeout", in: 1...3600) ?? 180
        let rate = try args.double("rate", in: 10...1000) ?? 100
        let gyroOnly = args.has("gyro-only")
        // Before the user spends minutes turning the sensor: the result must have somewhere to go.
        try checkOutput(output)
        let sensor = try SensorOptions.open(args, context: context, defaultProfile: gyroOnly ? "rest" : "tour")
        for w in sensor.identity.warnings { context.err.line("plumb calibrate: warning: \(w)") }
        let stream = IMUStream(imu: sensor.imu, line: sensor.line, clock: sensor.clock)
        sensor.useBusClock(on: stream, rateSetting: "--rate") { context.err.line("plumb calibrate: warning: \($0)") }
        do { try stream.start(IMUConfiguration(outputDataRate: rate, accelerometerRange: 2, gyroscopeRange: 250)) } catch {
            throw CLIError.failure("\(error)", fix: nil)
        }
        context.err.line("Calibrating \(sensor.identity.part) at \(sensor.identity.address) on \(sensor.identity.bus).")
        var kept: Calibration?
        if gyroOnly {
            let earlier = earlierAccelerometer(output, chip: sensor.identity)
            kept = earlier.calibration
            if let note = earlier.note { context.err.line("plumb calibrate: \(note)") }
            context.err.line("Keep the sensor still for \(hold) s.")
        } else {
            context.err.line("Hold the sensor still on each of its six faces for \(hold) s, in any order. Start with the \(Face.zUp.instruction).")
        }
        context.err.flush()

        var calibrator = SixPositionCalibrator()
        calibrator.holdSeconds = hold
        let deadline = sensor.clock.nowNanoseconds + UInt64(timeout * 1e9)
        var samples: [IMUSample] = []
        var announced = 0
        var stillSince: UInt64?
        var result: Calibration?
        while sensor.clock.nowNanoseconds < deadline {
            samples.removeAll(keepingCapacity: true)
            _ = stream.step(into: &samples)
            for notice in stream.takeNotices() { context.err.line("plumb calibrate: \(notice.message)") }
            for s in samples { calibrator.add(s) }
            let progress = calibrator.progress
            if gyroOnly {
                if progress.current != nil { stillSince = stillSince ?? sensor.clock.nowNanoseconds } else { stillSince = nil }
                if let since = stillSince, Double(sensor.clock.nowNanoseconds - since) / 1e9 >= hold, let bias = calibrator.gyroscopeBias {
                    result = Calibration(gyroscopeBias: bias, accelerometerOffset: kept?.accelerometerOffset ?? .zero,
                                         accelerometerScale: kept?.accelerometerScale ?? SIMD3(1, 1, 1),
                                         mounting: kept?.mounting ?? .identity, part: sensor.identity.partKey)
                    break
                }
                continue
            }
            if progress.done.count > announced {
                announced = progress.done.count
                var line = "  \(progress.done.last!.rawValue) up: done (\(announced)/6)."
                if let next = progress.remaining.first { line += " Next: \(next.instruction)." }
                context.err.line(line)
                context.err.flush()
            }
            if progress.isComplete {
                result = calibrator.result(part: sensor.identity.partKey)
                break
            }
        }
        do { try stream.stop() } catch { context.err.line("plumb calibrate: stopping the stream failed: \(error)") }
        guard let result else {
            let missing = calibrator.progress.remaining.map(\.rawValue).joined(separator: ", ")
            throw CLIError.failure("calibration incomplete after \(timeout) s" + (gyroOnly ? "" : ": faces missing: \(missing)"),
                                   fix: gyroOnly ? "keep the sensor still" : "hold the sensor still on each missing face for \(hold) s")
        }
        let data = try result.jsonData()
        do { try data.write(to: URL(fileURLWithPath: output)) } catch {
            // The calibration took minutes: print it rather than lose it.
            context.out.write(String(decoding: data, as: UTF8.self) + "\n")
            throw CLIError.failure("cannot write \(output): \(error.localizedDescription)",
                                   fix: "The calibration is on standard output above: save it by hand, or calibrate again with another --output.")
        }
        func f(_ v: SIMD3<Double>, _ digits: Int) -> String {
            [v.x, v.y, v.z].map { String(format: "%.\(digits)f", $0) }.joined(separator: " ")
        }
        context.out.line("gyroscope bias (rad/s):        \(f(result.gyroscopeBias, 5))")
        if !gyroOnly {
            context.out.line("accelerometer offset (m/s²):   \(f(result.accelerometerOffset, 4))")
            context.out.line("accelerometer scale:           \(f(result.accelerometerScale, 5))")
        }
        context.out.line("saved to \(output)")
    }

    /// What `--gyro-only` keeps of the calibration already at `path` (`--output`): the whole
    /// earlier calibration, whose accelerometer offset, scale and mounting go into the new one,
    /// when it is a valid calibration made on `chip`'s part or one answering as it
    /// (``Calibration/fits(_:)``); and the line that says what was kept, or why nothing was.
    ///
    /// Recalibrating the gyroscope alone is what --gyro-only is for (its bias drifts with
    /// temperature); it wrote zeros and ones over the six-face accelerometer calibration without
    /// a word. Nothing is said when there is no file, or an empty one, to keep. The temperature is
    /// not kept: it was the earlier calibration's.
    /// Only a regular file is read (through a symlink), as ``checkReplaceable(_:)`` reads: a
    /// terminal, a pipe (`--output /dev/stdout | jq`) or a FIFO would block the read for ever.
    static func earlierAccelerometer(_ path: String, chip: IMUIdentity) -> (calibration: Calibration?, note: String?) {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return (nil, nil) }
        let data: Data
        do { data = try InputFile.read(path) } catch {
            return (nil, "the accelerometer calibration in \(path) is not kept: cannot read it (\(error.reason))")
        }
        if data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) { return (nil, nil) }
        let earlier: Calibration
        do { earlier = try Calibration.read(data, file: path) } catch {
            return (nil, "the accelerometer calibration in \(path) is not kept: \(error)")
        }
        if !earlier.fits(chip), let part = earlier.part {
            return (nil, "the accelerometer calibration in \(path) is not kept: it was made on an \(IMUFamilies.name(ofPart: part)), not this \(chip.part); "
                + "calibrate all six faces (without --gyro-only) for this chip's")
        }
        return (earlier, "keeping the accelerometer offset, scale and mounting of \(path); only the gyroscope bias is measured")
    }

    /// The fix for a calibration made on another part than the chip's, `part` ("LSM6DSO";
    /// ``Calibration/fits(_:)``): calibrate this chip, or `setting` ("give --calibration the file made on it").
    static func anotherPartFix(_ part: String, setting: String) -> String {
        "Calibrate this \(part) ('plumb calibrate --output FILE' with it connected), or \(setting)."
    }

    /// Refuses to replace a file that holds something other than a calibration: `plumb read
    /// --calibration plumb.json` used to answer "run 'plumb calibrate --output plumb.json' again",
    /// and calibrate wrote over the configuration. An earlier calibration (a JSON object with
    /// `gyroscopeBias`, even one whose values are refused or whose JSON was cut short) and an empty
    /// file may be replaced.
    /// Only a regular file is looked at: `--output /dev/stdout` (a terminal or a pipe) is written, never read.
    /// A symbolic link is followed (stat(2), not lstat(2), which FileManager's attributes use): the
    /// write goes through it, so `--output` naming a link to plumb.json would replace plumb.json.
    static func checkReplaceable(_ path: String) throws(CLIError) {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return }
        let data: Data
        do { data = try InputFile.read(path, limit: 1 << 20) } catch {
            throw CLIError.failure("\(path) exists and cannot be read (\(error.reason)), so it cannot be told apart from a file to keep.",
                                   fix: "Choose another path with --output, or remove \(path) first if it may go.")
        }
        if data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) { return }
        let object: Any?
        do { object = try JSONSerialization.jsonObject(with: data) } catch { object = nil }
        if let dictionary = object as? [String: Any], dictionary["gyroscopeBias"] != nil { return }
        // A calibration cut short (a full disk, a write interrupted) is no JSON but still one:
        // plumb run's fix for it is to calibrate again into it.
        if object == nil, String(decoding: data, as: UTF8.self).hasPrefix("{"), data.range(of: Data("\"gyroscopeBias\"".utf8)) != nil { return }
        var what = "something other than a Plumb calibration"
        if let dictionary = object as? [String: Any], !Set(dictionary.keys).isDisjoint(with: ["imu", "outputs", "orientation", "board"]) {
            what = "a configuration (plumb.json), not a calibration"
        }
        throw CLIError.failure("\(path) exists and holds \(what); saving the calibration would replace it.",
                               fix: "Choose another path with --output (the calibration goes in its own file, which plumb.json's \"calibration\" names), or remove \(path) first if it may go.")
    }

    /// Refuses an `--output` that cannot be written: a directory, or a file in a directory that
    /// does not exist or is not writable, or a file that is not an earlier calibration
    /// (``checkReplaceable(_:)``).
    static func checkOutput(_ path: String) throws(CLIError) {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue {
                throw CLIError.failure("\(path) is a directory, not a file to save the calibration in.",
                                       fix: "Give --output a file name, such as \(path.hasSuffix("/") ? path : path + "/")plumb-calibration.json.")
            }
            guard files.isWritableFile(atPath: path) else {
                throw CLIError.failure("\(path) cannot be written (permission denied).", fix: "Choose another path with --output.")
            }
            try checkReplaceable(path)
            return
        }
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard files.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CLIError.failure("\(path) cannot be created: there is no directory \(parent).",
                                   fix: "Create the directory first, or choose another path with --output.")
        }
        guard files.isWritableFile(atPath: parent) else {
            throw CLIError.failure("\(path) cannot be created: \(parent) is not writable.", fix: "Choose another path with --output.")
        }
    }
}
