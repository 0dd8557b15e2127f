import PlumbConfiguration
import PlumbHAL

/// `--config FILE` for the sensor tools (`plumb read`, `plumb calibrate`): the IMU that
/// plumb.json describes instead of the one probing finds.
///
/// Without `--config` these commands read no file (they work before one is installed). With it,
/// each setting the file gives takes the place of the flag left out, as if it had been given:
/// `imu.bus` (`--bus`), `imu.address` (`--address`), `imu.part` other than "auto" (`--part`),
/// `imu.interrupt` naming a line (`--interrupt CHIP:LINE`; "board" and "poll" poll, as these
/// commands do without --interrupt), `imu.fifoCompression: false` (`--no-fifo-compression`) and,
/// where the command takes them (``Takes``), `imu.rate`, the ranges and `mounting`. A flag given
/// wins over the file; a setting the file leaves out is found as without `--config` (probing).
extension SensorOptions {
    static let configOption = OptionSpec.option(
        "config", value: "FILE",
        help: "Take the IMU from this plumb.json (imu.bus, address, part, interrupt line, fifoCompression); a flag given overrides it. Default: no file, the chip is found by probing.")

    /// The settings besides the chip's location a command takes from the file.
    struct Takes: OptionSet, Sendable {
        let rawValue: Int
        /// `imu.rate` (`--rate`), `imu.accelerometerRange` (`--accel-range`), `imu.gyroscopeRange` (`--gyro-range`).
        static let rateAndRanges = Takes(rawValue: 1)
        /// `mounting` (`--mount`).
        static let mounting = Takes(rawValue: 2)
    }

    /// `args` with `--config FILE`'s settings in place of the flags left out (see the type's
    /// discussion); `args` itself without `--config`. The file is read with the configuration
    /// loader, whose errors name the file, the line and the key.
    static func applyingConfiguration(_ args: ParsedArguments, takes: Takes) throws(CLIError) -> ParsedArguments {
        guard let path = args.string("config") else { return args }
        if args.has("simulate") {
            throw .usage("'--config' names the board's IMU; it cannot be combined with '--simulate'.")
        }
        let c: Configuration, positions: ConfigurationPositions
        do throws(ConfigurationError) { (c, positions) = try Configuration.loadWithPositions(path: path) } catch {
            throw .failure(error.description, fix: Config.loadFix(error, otherwise: "Run 'plumb config check \(path)', or leave --config out: the chip is then found by probing.",
                                                      instead: "leave --config out: the chip is then found by probing"))
        }
        var merged = applying(c.imu, mounting: c.mounting, takes: takes, to: args)
        if args.string("bus") == nil, c.imu.bus != nil { merged.fromConfiguration["bus"] = path }
        if takes.contains(.rateAndRanges), args.string("rate") == nil { merged.fromConfiguration["rate"] = path }
        merged.configurationPositions = positions
        return merged
    }

    /// `args` with `imu`'s settings (and `mounting`, if taken) written in as flags where none was given.
    static func applying(_ imu: IMUSettings, mounting: PlumbConfiguration.Mounting, takes: Takes,
                         to args: ParsedArguments) -> ParsedArguments {
        var merged = args
        func put(_ name: String, _ value: String?) {
            guard let value, merged.values[name] == nil else { return }
            merged.values[name] = [value]
        }
        put("bus", imu.bus)
        put("address", imu.address.map { "\($0)" })
        put("part", imu.part == "auto" ? nil : imu.part)
        if case .line(let location) = imu.interrupt {
            let line = switch location.line {
            case .name(let name): name
            case .offset(let offset): "\(offset)"
            }
            put("interrupt", "\(location.chip.text):\(line)")
        }
        if !imu.fifoCompression { merged.flags.insert("no-fifo-compression") }
        if takes.contains(.rateAndRanges) {
            put("rate", Config.format(imu.rate))
            put("accel-range", Config.format(imu.accelerometerRange))
            put("gyro-range", Config.format(imu.gyroscopeRange))
        }
        if takes.contains(.mounting), mounting != .identity {
            put("mount", [mounting.x, mounting.y, mounting.z].map(\.rawValue).joined(separator: ","))
        }
        return merged
    }
}
