import Foundation
import PlumbConfiguration
import PlumbDisplay
import PlumbDrivers
import PlumbOrientation

/// `plumb config`: check a configuration file, or print a complete example.
enum Config {
    static let command = Command(group: CommandSpec(name: "config", abstract: "Check or print the daemon's configuration file."),
                                 subcommands: [check, example])

    static let check = Command(CommandSpec(
        name: "check",
        abstract: "Validate a configuration file and show what it sets.",
        options: [BoardSupport.boardsDirectoryOption],
        positionals: [PositionalSpec("file", help: "The file to check (default \(Configuration.defaultPath)).", optional: true)])
    ) { args, context in
        let path = args.positionals.first ?? Configuration.defaultPath
        let catalog = try BoardSupport.catalog(args, context: context)
        let c: Configuration, positions: ConfigurationPositions
        do throws(ConfigurationError) { (c, positions) = try Configuration.loadWithPositions(path: path, knownBoards: catalog.ids) } catch {
            throw CLIError.failure(error.description, fix: loadFix(error, otherwise: "Run 'plumb config example --keys' for every key and its allowed values."))
        }
        try checkPartSettings(c, positions: positions)
        context.out.line("\(path): OK")
        for line in summary(c) { context.out.line("  " + line) }
        for note in fileNotes(c, positions: positions) { context.out.line("  note: " + note) }
        if c.outputs.mqtt != nil, let note = networkNote(systemdDirectory: context.environment["PLUMB_SYSTEMD_DIR"] ?? "/etc/systemd/system") {
            context.out.line("  note: " + note)
        }
    }

    /// The fix for a configuration file that cannot be used, as every command that reads one
    /// says it: a file that is not there (or a directory) has no key to look up, so the fix says
    /// where one comes from; a syntax error is JSON to correct, which the key reference does not
    /// help with; any other error is `otherwise` (the key reference, or the command's way round it).
    /// `instead` ("use --simulate") ends the fix for a file that is not there.
    static func loadFix(_ error: ConfigurationError, otherwise: String, instead: String? = nil) -> String {
        if error.position == nil, error.message.hasSuffix("(no such file)") || error.message.hasSuffix("(it is a directory, not a file)") {
            return "Check the path; 'plumb config example' prints a file to start from (scripts/install puts a minimal one at \(Configuration.defaultPath))"
                + (instead.map { "; or \($0)." } ?? ".")
        }
        if error.position == nil, error.message.hasSuffix("(permission denied)") {
            // The key reference was given here, which does not help a file that cannot be read.
            return "Check the file's owner and mode ('ls -l \(error.file)'): plumb.service reads it as its own user (plumb); run the check as that user, or with sudo."
        }
        if error.message.hasPrefix("syntax error: the file is empty") {
            return "Write the settings there: 'plumb config example' prints a file to start from."
        }
        if error.message.hasPrefix("syntax error") {
            return "Correct the JSON there: keys and strings in double quotes, a comma between members and none after the last, no comments; 'plumb config example' prints a valid file."
        }
        return otherwise
    }

    /// Refuses the settings the part named by `imu.part` would refuse at start, as its driver
    /// works them out (``DaemonFactory/imuConfiguration(_:)``, then `MPU6050.settings(for:variant:)`
    /// or `LSM6DS.plan(_:for:)`): a rate the file format allows (1...1666 Hz) outside the MPU-6050
    /// family's 3.9...1000 Hz (every LSM6DS part runs the format's rates). The error is at
    /// imu.rate's line and column, as the file's other errors are (it named the file alone). With
    /// `imu.part` "auto" the part is unknown until the chip answers, so nothing is refused here.
    static func checkPartSettings(_ c: Configuration, positions: ConfigurationPositions) throws(CLIError) {
        let imu = DaemonFactory.imuConfiguration(c)
        do throws(IMUError) {
            if let variant = MPU6050.variant(named: c.imu.part) {
                _ = try MPU6050.settings(for: imu, variant: variant)
            } else if let variant = LSM6DS.Variant.named(c.imu.part) {
                _ = try LSM6DS.plan(imu, for: variant, compression: c.imu.fifoCompression)
            }
        } catch {
            throw CLIError.failure(positions.error("imu.rate", "\(error) (imu.part \"\(c.imu.part)\")").description,
                                   fix: "Set imu.rate within the range named above.")
        }
    }

    /// What `plumb run` would refuse at start among the files the configuration names, read as it
    /// reads them: the calibration (missing, not one, or made on another part than `imu.part`
    /// names) and the enabled level image. Notes, not
    /// errors: the file may be checked before calibrating, or away from the board, and scripts
    /// check files whose paths are the target's; but 'OK' alone sent the user to a daemon that
    /// stopped with "cannot start". The one that weighs two settings against each other (the
    /// calibration's part against imu.part) is at the line and column of "calibration", as the
    /// file's errors are.
    static func fileNotes(_ c: Configuration, positions: ConfigurationPositions) -> [String] {
        var notes: [String] = []
        do {
            // With imu.part named the chip's part is known now: a calibration made on a part that
            // does not answer as it (``Calibration/fits(partKey:whoAmI:)``) is refused at start.
            if let calibration = try DaemonFactory.loadCalibration(c), let made = calibration.part, let path = c.calibrationFile,
               c.imu.part != "auto", !calibration.fits(partKey: c.imu.part) {
                notes.append(positions.error("calibration", "\(path) was made on an \(IMUFamilies.name(ofPart: made)), but imu.part is an \(IMUFamilies.name(ofPart: c.imu.part)), so plumb run will not start: "
                    + Calibrate.anotherPartFix(IMUFamilies.row(forPart: c.imu.part)?.part ?? c.imu.part, setting: "point \"calibration\" at the file made on it")).description)
            }
        } catch {
            var text = "calibration: \(error), so plumb run will not start"
            if let path = c.calibrationFile, deniedToThisUser(path) {
                // The check runs as whoever typed it; plumb.service reads the file as its own user.
                text = "calibration: you cannot read \(path) (permission denied); plumb run reads it as plumb.service's user (plumb, or the one its drop-in names), "
                    + "who needs to: check its owner and mode with 'ls -l \(path)'."
            } else if case .failure(let message, let fix)? = error as? CLIError {
                text = "calibration: \(message), so plumb run will not start" + (fix.map { ": \($0)" } ?? "")
            }
            notes.append(text)
        }
        if let level = c.outputs.level {
            do { _ = try ImageFile.load(level.image) } catch {
                if deniedToThisUser(level.image) {
                    notes.append("outputs.level.image: you cannot read \(level.image) (permission denied); plumb run reads it as plumb.service's user (plumb, or the one its drop-in names), "
                        + "who needs to: check its owner and mode with 'ls -l \(level.image)'.")
                } else {
                    notes.append("outputs.level.image: \(error), so plumb run will not start: point it at a PNG or JPEG file the plumb user can read.")
                }
            }
        }
        return notes
    }

    /// Whether the user running this may not read `path` for want of permission (EACCES from
    /// `access(2)`, on the file or a directory above it), which says nothing of another user.
    static func deniedToThisUser(_ path: String) -> Bool {
        access(path, R_OK) != 0 && errno == EACCES
    }

    /// A warning when outputs.mqtt is set but the installed plumb.service keeps the network out (no
    /// network drop-in): the daemon would refuse to start the output. `nil` when plumb.service is not
    /// installed there or has the drop-in. `$PLUMB_SYSTEMD_DIR` stands in for /etc/systemd/system in tests.
    static func networkNote(systemdDirectory: String) -> String? {
        let files = FileManager.default
        guard files.fileExists(atPath: systemdDirectory + "/plumb.service"),
              !files.fileExists(atPath: systemdDirectory + "/plumb.service.d/network.conf") else { return nil }
        return "outputs.mqtt needs the network, which the installed plumb.service keeps out: "
            + "run 'sudo scripts/install --binary .build/release/plumb --network' in the plumb source folder before starting it."
    }

    static let example = Command(CommandSpec(
        name: "example",
        abstract: "Print an example configuration file (--keys: every key, its allowed values and default).",
        options: [.flag("keys", help: "Print the key reference (allowed values and defaults) instead.")])
    ) { args, context in
        context.out.write(args.has("keys") ? Configuration.keyReference : Configuration.exampleText)
    }

    /// What a configuration sets, one line per section, as `config check` and `run` print it.
    static func summary(_ c: Configuration) -> [String] {
        let imu = c.imu
        var interrupt: String
        switch imu.interrupt {
        case .board: interrupt = "the board's data-ready line"
        case .poll: interrupt = "polling"
        case .line(let location): interrupt = "\(location)"
        }
        var lines = [
            "board: \(c.board)",
            "imu: \(imu.bus ?? "the board's bus") at \(imu.address?.description ?? "the board's address"), part \(imu.part), \(format(imu.rate)) Hz, ±\(format(imu.accelerometerRange)) g, ±\(format(imu.gyroscopeRange)) °/s, \(interrupt)\(imu.fifoCompression ? "" : ", no FIFO compression")",
            "mounting: x \(c.mounting.x.rawValue), y \(c.mounting.y.rawValue), z \(c.mounting.z.rawValue)",
            "calibration: \(c.calibrationFile ?? "none")",
        ]
        var filter = "filter: \(c.filter.kind.rawValue)"
        if let beta = c.filter.beta { filter += ", beta \(format(beta)) rad/s" }
        if let tau = c.filter.timeConstant { filter += ", time constant \(format(tau)) s" }
        lines.append(filter)
        let tunings = DaemonFactory.classifiers(c.orientation)
        func describe(_ t: OrientationClassifier.Settings) -> String {
            let gate = t.maximumRotationRate.isFinite ? "\(format(t.maximumRotationRate)) °/s over \(format(t.rateTimeConstant)) s" : "off"
            var line = "hysteresis \(format(t.hysteresisDegrees))°, settle \(format(t.settleTime)) s, rate gate \(gate)"
            if let wait = t.maximumWait {
                let dwellGate = t.dwellMaximumRotationRate.isFinite ? "\(format(t.dwellMaximumRotationRate)) °/s" : "no rate gate"
                line += ", maximum wait \(format(wait)) s (\(format(t.dwellMarginDegrees))° inside the boundary, \(dwellGate))"
            }
            return line
        }
        lines.append("orientation: \(c.orientation.preset.rawValue): \(describe(tunings.normal)); in low-energy mode \(describe(tunings.lowEnergy)); low energy \(c.orientation.lowEnergy.rawValue), interface \(c.orientation.interfaceOrientations.map(\.rawValue).joined(separator: ", "))")
        lines.append("outputs: \(c.outputs.enabledNames.isEmpty ? "none (orientation is logged only)" : c.outputs.enabledNames.joined(separator: ", "))")
        if let m = c.outputs.mqtt { lines.append("mqtt: \(m)") }
        lines.append("log level: \(c.logLevel.rawValue)")
        return lines
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
