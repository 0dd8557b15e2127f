import Testing
import Foundation
@testable import PlumbCLI

private func run(_ arguments: [String]) -> (status: Int32, out: String, err: String) {
    let context = CommandContext.capturing()
    let status = PlumbTool.main(arguments, context: context)
    return (status, context.out.captured, context.err.captured)
}

@Suite struct ProbeCommandTests {
    @Test func probesTheEmulatedBus() {
        let r = run(["probe", "--simulate"])
        #expect(r.status == 0)
        #expect(r.out == "simulated bus  emulated MPU-6050  [I2C]\n  bus clock: 400 kHz (emulated)\n  0x68  WHO_AM_I 0x68  MPU-6050 (mpu6050)\n")
        #expect(r.err == "")
    }

    /// WHO_AM_I 0x68 with the AK8975 answering at 0x0C through the bypass: an MPU-9150.
    @Test func namesTheMPU9150ByItsMagnetometer() {
        let r = run(["probe", "--simulate", "--chip", "mpu9150"])
        #expect(r.status == 0)
        #expect(r.out == "simulated bus  emulated MPU-9150  [I2C]\n  bus clock: 400 kHz (emulated)\n  0x68  WHO_AM_I 0x68  MPU-9150 (mpu9150)\n")
        #expect(r.err == "")
    }

    @Test func jsonNamesTheCloneAndWarns() {
        let r = run(["probe", "--simulate", "--chip", "icm20689", "--format", "json"])
        #expect(r.status == 0)
        #expect(r.out == #"{"adapters":[{"clock":"400 kHz (emulated)","clockHz":400000,"devices":[{"address":"0x68","family":"MPU-6050 family","key":"icm20689","part":"ICM-20689","register":"0x75","warnings":["WHO_AM_I 0x98 is an ICM-20689-compatible chip (often sold as MPU-6050); driving it as ICM-20689"],"whoAmI":"0x98"}],"functionality":["I2C"],"name":"emulated ICM-20689","path":"simulated bus"}]}"# + "\n")
    }

    @Test func unknownChipIsAUsageError() {
        let r = run(["probe", "--simulate", "--chip", "mpu1234"])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: The value 'mpu1234' is invalid for '--chip': expected one of mpu6050, mpu6000, mpu9150, mpu6500, mpu9250, mpu9255, mpu6515, icm20602, icm20608, icm20689, lsm6ds3, lsm6ds3h, lsm6ds33, lsm6ds3trc, lsm6dsl, lsm6dsm, ism330dlc, lsm6dso, lsm6dsox, lsm6dso32, lsm6dsr, ism330dhcx.\nUsage: plumb probe"))
    }
}

@Suite struct ReadCommandTests {
    @Test func csvHasTheHeaderAndOneLinePerSample() throws {
        let r = run(["read", "--simulate", "--count", "5", "--rate", "200"])
        #expect(r.status == 0)
        #expect(r.err == "plumb read: MPU-6050 (WHO_AM_I 0x68) at 0x68 on simulated bus\n")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.first == "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,temp_c")
        #expect(lines.count == 6)
        var previous = -1.0
        for line in lines.dropFirst() {
            let v = line.split(separator: ",").map { Double($0)! }
            #expect(v.count == 8)
            if previous >= 0 { #expect(abs(v[0] - previous - 0.005) < 1e-4) } else { #expect(v[0] == 0) }
            previous = v[0]
            #expect(abs(v[6] - 9.8) < 0.5)
            #expect(abs(v[7] - 27.5) < 0.01)
        }
    }

    @Test func jsonLinesCarryTheSameFields() {
        let r = run(["read", "--simulate", "--count", "2", "--format", "jsonl"])
        #expect(r.status == 0)
        let lines = r.out.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix(#"{"t_s":0.000000,"gyr_x":"#))
        #expect(lines[0].hasSuffix(#","temp_c":27.50}"#))
    }

    /// The part found is named once, before the samples, on standard error (where the gaps and
    /// warnings go), so CSV and JSON Lines on standard output stay data: an MPU-9150 found by its
    /// AK8975 is named there as 'plumb probe' names it.
    @Test(arguments: ["csv", "jsonl"])
    func namesThePartFoundOnStandardError(format: String) {
        let r = run(["read", "--simulate", "--chip", "mpu9150", "--count", "3", "--format", format])
        #expect(r.status == 0)
        #expect(r.err == "plumb read: MPU-9150 (WHO_AM_I 0x68) at 0x68 on simulated bus\n")
        let lines = r.out.split(separator: "\n").map(String.init)
        if format == "csv" {
            #expect(lines.first == Read.header)
            #expect(lines.count == 4)
        } else {
            #expect(lines.count == 3)
            #expect(lines.allSatisfy { $0.hasPrefix(#"{"t_s":"#) && $0.hasSuffix("}") })
        }
    }

    /// Its warnings follow the name.
    @Test func theNameComesBeforeTheWarnings() {
        let r = run(["read", "--simulate", "--chip", "icm20689", "--count", "1"])
        #expect(r.status == 0)
        #expect(r.err == "plumb read: ICM-20689 (WHO_AM_I 0x98) at 0x68 on simulated bus\n"
                + "plumb read: warning: WHO_AM_I 0x98 is an ICM-20689-compatible chip (often sold as MPU-6050); driving it as ICM-20689\n")
    }

    @Test func chipResetIsReportedOnStandardError() {
        let r = run(["read", "--simulate", "--count", "3000", "--rate", "1000", "--faults", "reset@1s"])
        #expect(r.status == 0)
        let err = r.err.split(separator: "\n").map(String.init)
        // The brown-out falls inside a FIFO burst (the simulated bus runs byte by byte): the
        // records the emptied FIFO cut short are a gap of their own before the reset is found.
        // Where in the burst it falls depends on the start's bus time (the MPU-9150 look at 0x0C
        // moved it: 0.815476 s and 10 samples before; the simulated bus's EREMOTEIO for the empty
        // 0x0C, as on a Raspberry Pi, whose reads are made three times, moved it again: 0.813492 s
        // and 12 samples before).
        #expect(err.count == 4, "\(err)")
        #expect(err.first == "plumb read: MPU-6050 (WHO_AM_I 0x68) at 0x68 on simulated bus")
        #expect(err.dropFirst().first == "plumb read: gap after t=0.812500 s: busError, 13 samples lost")
        #expect(err.dropFirst(2).first == "plumb read: the MPU-6050 at 0x68 on simulated bus lost its configuration (a reset or brown-out); re-initialising (if this repeats, check the sensor's supply)")
        #expect(err.last?.hasPrefix("plumb read: gap after t=") == true)
        #expect(err.last?.contains(": chipReset, ") == true)
        #expect(r.out.split(separator: "\n").count == 3001)
    }

    @Test func simulationOptionsNeedSimulate() {
        let r = run(["read", "--profile", "tour"])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: '--profile' needs '--simulate'.\n"))
    }

    @Test func badFaultSpecNamesTheItem() {
        let r = run(["read", "--simulate", "--faults", "errors=2"])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: fault 'errors=2': P must be a probability 0...1 (expected errors=P, reg=0xNN, nack@T+D, stuck@T+D, low@T+D, high@T+D, reset@T, lost=P, silent@T+D or storm@T+D[/F]).\n"))
    }

    @Test func replayNeedsTheColumns() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-bad-replay.csv").path
        try "time,x\n0,1\n".write(toFile: path, atomically: true, encoding: .utf8)
        let r = run(["read", "--simulate", "--replay", path, "--count", "1"])
        #expect(r.status == 1)
        #expect(r.err == "Error: \(path):1: no column 't_s' in the header (time,x).\nFix: The first line must name the columns t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z (any order, separated by commas; gyroscope in rad/s, accelerometer in m/s²), and every line below it holds one value per column.\n")
    }

    /// `--speed 1` plays the simulated chip in real time, batch by batch, so a program reading
    /// `plumb read` live can be tried without a sensor. Before, --speed was refused (64) and the
    /// simulation only ran as fast as it could, its output written at the end.
    @Test func speedPlaysTheSimulationInRealTime() {
        let start = Date()
        let r = run(["read", "--simulate", "--speed", "1", "--rate", "100", "--watermark", "1", "--count", "40"])
        let elapsed = Date().timeIntervalSince(start)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.split(separator: "\n").count == 41)
        // 40 samples at 100 Hz take 0.39 s from the first; as fast as possible, a few milliseconds.
        #expect(elapsed >= 0.38, "took \(elapsed) s")
        let refused = run(["read", "--speed", "1"])
        #expect(refused.status == 64)
        #expect(refused.err.hasPrefix("Error: --speed applies to --simulate only.\n"))
    }

    /// With --speed, each batch reaches the reader while the command runs.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: plumbBinary), "needs the plumb binary (swift build)"))
    func speedWritesEachBatchAsItComes() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: plumbBinary)
        process.arguments = ["read", "--simulate", "--speed", "1", "--rate", "100", "--watermark", "4", "--count", "1000"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // SIGKILL: the process inherits the test runner's blocked-signal mask, so SIGTERM would wait.
        defer { if process.isRunning { signalAndAwaitExit(process, SIGKILL) } }
        let first = FuseStandardStreamsTests.read(output.fileHandleForReading.fileDescriptor,
                                                   until: { $0.split(separator: "\n").count >= 5 }, seconds: 5)
        #expect(first.hasPrefix("t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,temp_c\n0.000000,"), "\(first)")
        #expect(process.isRunning, "1000 samples at 100 Hz take 10 s")
    }

    @Test func helpShowsTheOptions() {
        let r = run(["read", "--help"])
        #expect(r.status == 0)
        #expect(r.out.hasPrefix("OVERVIEW: Stream IMU samples as CSV or JSON Lines.\n"))
        #expect(r.out.contains("  --simulate              Use an emulated chip in virtual time instead of hardware.\n"))
    }
}

@Suite struct CalibrateCommandTests {
    @Test func calibratesTheEmulatedChipAndSavesJSON() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-test-calibration-\(UInt32.random(in: 0...UInt32.max)).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = run(["calibrate", "--simulate", "--output", path])
        #expect(r.status == 0, "\(r.err)")
        let out = r.out.split(separator: "\n").map(String.init)
        #expect(out.count == 4)
        #expect(out.last == "saved to \(path)")
        #expect(r.err.contains("  +x up: done (6/6).\n"))
        let json = try String(contentsOfFile: path, encoding: .utf8)
        #expect(json.contains("\"gyroscopeBias\""))
        // Reading with it removes the bias of the emulated part.
        let read = run(["read", "--simulate", "--count", "200", "--calibration", path])
        #expect(read.status == 0)
        let rows = read.out.split(separator: "\n").dropFirst().map { $0.split(separator: ",").map { Double($0)! } }
        let meanGyroY = rows.map { $0[2] }.reduce(0, +) / Double(rows.count)
        #expect(abs(meanGyroY) < 0.002)
    }
}

@Suite struct BenchDriversCommandTests {
    @Test func reportsTheTableAndTheTargets() {
        let r = run(["bench", "drivers", "--seconds", "2", "--records", "1000"])
        #expect(r.status == 0)
        #expect(r.out.contains("plumb FIFO stream, watermark 16"))
        #expect(r.out.contains("reference: 14-byte burst per sample"))
        #expect(r.out.contains("target at watermark 16: ≤ 14.4 bytes/sample: met"))
        #expect(r.out.contains(" wakeups/s: met ("))
    }
}

@Suite struct BenchEnergyCommandTests {
    /// `--steady` runs the steady preset's tunings: in low-energy mode its time cap keeps every
    /// change of the tour within the mode's 1 s (without it, 1.25 s through the LSM6DSO), and the
    /// responsive run names its classifier too. Both presets keep the mode's 10× fewer wake-ups
    /// than normal mode (steady: 11.0× and 10.4×; waking for every sample after the time cap and
    /// every 0.32 s during a dwell, 9.7× and 9.3×).
    @Test(arguments: [(false, "mpu6050"), (false, "lsm6dso"), (true, "mpu6050"), (true, "lsm6dso")])
    func bothPresetsKeepTheLowEnergyPromise(steady: Bool, chip: String) throws {
        let r = run(["bench", "energy", "--runs", "1", "--chip", chip, "--format", "text"] + (steady ? ["--steady"] : []))
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains(steady ? "steady classifier" : "responsive classifier"), "\(r.out)")
        let low = try #require(r.out.split(separator: "\n").first { $0.hasPrefix("low-energy ") && $0.contains(" off ") })
        // The last column: the largest latency of a change, "0.811 s".
        let fields = low.split(separator: " ")
        let maximum = try #require(Double(fields[fields.count - 2]))
        #expect(maximum < 1, "\(low)")
        let changes = try #require(Int(fields[6]))
        // The tour turns five times; the steady tuning reports each once.
        #expect(changes == 5 || !steady, "\(low)")
        // "low-energy mode: 10.4× fewer wakeups, ..."
        let summary = try #require(r.out.split(separator: "\n").first { $0.hasPrefix("low-energy mode: ") })
        let ratio = try #require(Double(summary.dropFirst("low-energy mode: ".count).prefix { $0 != "×" }))
        #expect(ratio >= 10, "\(summary)")
    }
}
