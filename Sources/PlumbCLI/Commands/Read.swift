import Foundation
import PlumbConfiguration
import PlumbHAL
import PlumbLinux
import PlumbDrivers
import PlumbSimulation

/// `plumb read`: stream samples as CSV or JSON Lines.
enum Read {
    static let header = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,temp_c"

    static let spec = CommandSpec(
        name: "read",
        abstract: "Stream IMU samples as CSV or JSON Lines.",
        discussion: """
        Columns: t_s (seconds since the first sample), angular rate in rad/s, specific force in m/s²
        (+9.81 on the axis pointing up at rest), die temperature in °C. The part found is named on
        standard error first ("plumb read: MPU-9150 (WHO_AM_I 0x68) at 0x68 on /dev/i2c-1"). Gaps
        (FIFO overflow, bus errors, a chip reset) are reported: on standard error for CSV, as
        {"gap": …} lines for JSON Lines.
        The samples are the chip's as the driver delivers them. Without --config no plumb.json is
        read: the chip is found by probing, or --bus, --address, --part. --config FILE takes the IMU
        from that file instead: imu.bus, address, part, the interrupt line, fifoCompression, rate,
        ranges and mounting, each flag given overriding its value (a setting the file leaves out
        is found as without it). A calibration is applied only with --calibration FILE; a remap
        only with --mount AXES or the file's mounting.
        Each FIFO read is written out as it comes, so a sample waits for the rest of its batch:
        up to (watermark − 1) / rate, 150 ms at the default 16 and 100 Hz; give --watermark 1 for
        the least delay (a bus transfer per sample). --simulate runs in virtual time as fast as it
        can; --speed 1 plays it in real time, written out batch by batch as the chip would be
        read, to try a program that reads the samples live.
        """,
        options: [
            .option("rate", value: "HZ", help: "Output data rate. Default 100 (with --config: imu.rate)."),
            .option("count", short: "n", value: "N", help: "Stop after N samples. Default: run until interrupted."),
            .option("format", value: "FORMAT", help: "csv or jsonl. Default csv."),
            .option("watermark", value: "N", help: "Samples per FIFO read, each written out as it comes. Default 16 (1 below 20 Hz)."),
            .option("accel-range", value: "G", help: "Accelerometer range in g (2, 4, 8, 16; 32 on the LSM6DSO32). Default 4 (with --config: imu.accelerometerRange)."),
            .option("gyro-range", value: "DPS", help: "Gyroscope range in °/s (250, 500, 1000, 2000; 125 on the LSM6DS family, 4000 on the LSM6DSR and ISM330DHCX). Default 2000 (with --config: imu.gyroscopeRange)."),
            .option("calibration", value: "FILE", help: "Apply a calibration saved by 'plumb calibrate'."),
            .option("mount", value: "AXES", help: "Axis alignment of the sensor in the device, such as -y,x,z (default: none; with --config: mounting)."),
            SensorOptions.configOption,
        ] + SensorOptions.specs + [
            .option("speed", value: "FACTOR", help: "Play the simulated IMU at FACTOR × real time (--simulate; default: as fast as possible)."),
        ])

    /// A start the chip refused. A setting it cannot run (a rate outside its range, a watermark
    /// past its FIFO): the message names the limits; the fix names the options that set them, or,
    /// for a rate `--config FILE` gave (imu.rate, with no --rate or --watermark on the command
    /// line), the message is at imu.rate's line and column in the file, as `plumb config check`
    /// gives it, and the fix names the key.
    static func startFailure(_ error: any Error, args: ParsedArguments) -> CLIError {
        guard case IMUError.invalidConfiguration = error else { return .failure("\(error)", fix: nil) }
        if let path = args.fromConfiguration["rate"], args.string("watermark") == nil, let positions = args.configurationPositions {
            return .failure(positions.error("imu.rate", "\(error)").description,
                            fix: "Set imu.rate in \(path) within the chip's limits named above, or give --rate HZ over it.")
        }
        return .failure("\(error)", fix: "Give --rate and --watermark within the chip's limits named above (with --config: imu.rate).")
    }

    static let command = Command(spec) { given, context in
        // --config FILE: the file's IMU settings in place of the flags left out.
        let args = try SensorOptions.applyingConfiguration(given, takes: [.rateAndRanges, .mounting])
        let format = try args.choice("format", ["csv", "jsonl"]) ?? "csv"
        let count = try args.int("count", in: 1...Int.max)
        let rate = try args.double("rate", in: 0.1...10_000) ?? 100
        let speed = try args.double("speed", in: 0.01...1000)
        if speed != nil, !args.has("simulate") { throw CLIError.usage("--speed applies to --simulate only.") }
        var config = IMUConfiguration(outputDataRate: rate)
        config.fifoWatermark = try args.int("watermark", in: 1...1024) ?? (rate < 20 ? 1 : 16)
        // The values plumb.json's imu.accelerometerRange and imu.gyroscopeRange take: a value between
        // them would be rounded up by the driver without a word.
        if let g = try args.double("accel-range", oneOf: IMUSettings.accelerometerRanges, unit: "g") { config.accelerometerRange = g }
        if let d = try args.double("gyro-range", oneOf: IMUSettings.gyroscopeRanges, unit: "°/s") { config.gyroscopeRange = d }
        var calibration = try loadCalibration(args)
        if let m = args.string("mount") {
            do { calibration.mounting = try Mounting(alignment: m) } catch { throw CLIError.usage("The value '\(m)' is invalid for '--mount': \(error).") }
        }
        let sensor = try SensorOptions.open(args, context: context)
        // Checked now and again whenever the stream finds another chip (a board swapped hot).
        var partWatch = args.string("calibration").map { Calibration.PartWatch(calibration, file: $0) }
        func checkCalibration(_ chip: IMUIdentity) throws(CLIError) {
            do throws(IMUError) { try partWatch?.check(chip) } catch {
                throw CLIError.failure(error.description, fix: Calibrate.anotherPartFix(chip.part, setting: "give --calibration the file made on it"))
            }
        }
        try checkCalibration(sensor.identity)
        // The part on standard error, where the gaps and warnings go: standard output stays CSV or JSON Lines.
        let id = sensor.identity
        context.err.line("plumb read: \(id.part) (WHO_AM_I 0x\(hex(id.whoAmI))) at \(id.address) on \(id.bus)")
        for w in id.warnings { context.err.line("plumb read: warning: \(w)") }

        let stream = IMUStream(imu: sensor.imu, line: sensor.line, clock: sensor.clock)
        sensor.useBusClock(on: stream, rateSetting: "--rate") { context.err.line("plumb read: warning: \($0)") }
        do { try stream.start(config) } catch {
            throw startFailure(error, args: args)
        }
        if format == "csv" { context.out.line(header) }
        var samples: [IMUSample] = []
        samples.reserveCapacity(1024)
        var written = 0
        var origin: UInt64?
        var idle = 0
        // --speed: each batch waits until the wall clock has caught up with its newest sample.
        var pacer = speed.map { VirtualTimePacer(speedup: $0, wall: SystemClock()) }
        while count.map({ written < $0 }) ?? true {
            samples.removeAll(keepingCapacity: true)
            let gaps = stream.step(into: &samples)
            if let newest = samples.last?.timestampNanoseconds { pacer?.pace(virtualNanoseconds: newest) }
            for notice in stream.takeNotices() { context.err.line("plumb read: \(notice.message)") }
            if let chip = sensor.imu.identity {
                do { try checkCalibration(chip) } catch {
                    // Nothing of the other chip's corrected with this calibration.
                    do { try stream.stop() } catch { context.err.line("plumb read: stopping the stream failed: \(error)") }
                    throw error
                }
            }
            if origin == nil, let first = samples.first { origin = first.timestampNanoseconds }
            let t0 = origin ?? 0
            for gap in gaps {
                let at = Double(Int64(bitPattern: (gap.afterNanoseconds ?? gap.detectedNanoseconds) &- t0)) / 1e9
                let lost = gap.lostSamples.map { "\($0)" } ?? "unknown"
                if format == "csv" {
                    context.err.line("plumb read: gap after t=\(String(format: "%.6f", at)) s: \(gap.reason.rawValue), \(lost) samples lost")
                } else {
                    context.out.line("{\"gap\":\"\(gap.reason.rawValue)\",\"t_s\":\(String(format: "%.6f", at)),\"lost\":\(lost == "unknown" ? "null" : lost)}")
                }
            }
            idle = samples.isEmpty ? idle + 1 : 0
            if idle > 1000 { throw CLIError.failure("no data from \(sensor.identity.part) at \(sensor.identity.address) on \(sensor.identity.bus)", fix: "run 'plumb probe' and check the sensor's power") }
            for raw in samples {
                if let count, written >= count { break }
                let s = calibration.apply(raw)
                // Signed, as the gaps' times: a sample stamped before the first (a part driven
                // as another of its family, `--part lsm6dsl` on an LSM6DSO) printed 18446744073.6.
                let t = Double(Int64(bitPattern: s.timestampNanoseconds &- t0)) / 1e9
                let temp = s.temperature.map { String(format: "%.2f", $0) }
                if format == "csv" {
                    context.out.line(String(format: "%.6f,%.6f,%.6f,%.6f,%.5f,%.5f,%.5f,", t, s.angularRate.x, s.angularRate.y, s.angularRate.z,
                                            s.acceleration.x, s.acceleration.y, s.acceleration.z) + (temp ?? ""))
                } else {
                    context.out.line(String(format: "{\"t_s\":%.6f,\"gyr_x\":%.6f,\"gyr_y\":%.6f,\"gyr_z\":%.6f,\"acc_x\":%.5f,\"acc_y\":%.5f,\"acc_z\":%.5f,\"temp_c\":", t,
                                            s.angularRate.x, s.angularRate.y, s.angularRate.z, s.acceleration.x, s.acceleration.y, s.acceleration.z)
                                     + (temp ?? "null") + "}")
                }
                written += 1
            }
            if sensor.simulation == nil || pacer != nil { context.out.flush() }
        }
        do { try stream.stop() } catch { context.err.line("plumb read: stopping the stream failed: \(error)") }
    }

    static func loadCalibration(_ args: ParsedArguments) throws(CLIError) -> Calibration {
        guard let path = args.string("calibration") else { return .none }
        let data: Data
        do { data = try InputFile.read(path) } catch {
            // Only a file that is not there is made by calibrating: a directory or an unreadable
            // file stays what it is.
            let fix = error.reason == "no such file" ? "Run 'plumb calibrate --output \(path)' first, or check the path."
                : "Give --calibration the file 'plumb calibrate --output FILE' saved."
            throw .failure("cannot read the calibration file \(path) (\(error.reason))", fix: fix)
        }
        do { return try Calibration.read(data, file: path) } catch {
            // Not "calibrate again into it": the file may be plumb.json or a recording.
            throw .failure(error.description, fix: "Give --calibration the file 'plumb calibrate --output FILE' saved (plumb.json's \"calibration\" names it), or calibrate again into a new file.")
        }
    }
}
