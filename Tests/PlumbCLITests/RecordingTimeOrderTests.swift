import Foundation
import PlumbDrivers
import Testing
@testable import PlumbCLI

/// Every command that plays a recording takes its `t_s` by one rule (``RecordingCSV/TimeOrder``):
/// two rows with the same time are taken, a step backwards is refused with the file, line and
/// column, in the same words. `--simulate --replay` (watch, read, calibrate) used to refuse a
/// repeated time that `watch --replay` and `fuse` took, and each path said a step backwards its
/// own way.
@Suite struct RecordingTimeOrderTests {
    static let scratch = NSTemporaryDirectory() + "plumb-time-order-\(UUID().uuidString)"

    static let commands: [[String]] = [
        ["watch", "--replay"],
        ["watch", "--simulate", "--replay"],
        ["read", "--simulate", "--count", "3", "--replay"],
        ["calibrate", "--simulate", "--gyro-only", "--hold", "1", "--output", scratch + "-calibration.json", "--replay"],
        ["kiosk", "--dry-run", "--replay"],
    ]

    /// 3 s face up at 100 Hz; `extra` is put in after the row of 1.5 s (line 152).
    static func recording(_ extra: String, first: String = "") throws -> String {
        var csv = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n" + first
        for k in 0...300 {
            csv += "\(Double(k) / 100),0,0,0,0,0,9.80665\n"
            if k == 150 { csv += extra }
        }
        let path = scratch + "-\(UUID().uuidString).csv"
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: commands)
    func aRepeatedTimeIsTaken(command: [String]) throws {
        let path = try Self.recording("1.5,0,0,0,0,0,9.80665\n")
        defer { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.removeItem(atPath: Self.scratch + "-calibration.json") }
        let r = runPlumb(command + [path])
        #expect(r.status == 0, "\(r.err)")
        #expect(!r.err.contains("t_s"), "\(r.err)")
    }

    @Test(arguments: commands)
    func aStepBackwardsIsRefusedInTheSameWords(command: [String]) throws {
        let path = try Self.recording("1.2,0,0,0,0,0,9.80665\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = runPlumb(command + [path])
        #expect(r.status == 1)
        #expect(r.out == "")
        #expect(r.err.hasSuffix("""
            Error: \(path):153:1: t_s goes backwards, from 1.5 on line 152 to 1.2.
            Fix: Sort the lines by t_s; rows with the same t_s may stay, and are played in the order written.

            """), "\(r.err)")
    }

    /// A negative time (here a row at -0.25 s before the one at 0, line 2) is refused by every
    /// command, in the same words, at its file:line:column. `--simulate --replay` took it (the
    /// emulated chip's motion started there) where `watch --replay` refused it; the BROAD trials
    /// and `plumb read --format csv` count t_s from 0.
    @Test(arguments: commands)
    func aNegativeTimeIsRefusedInTheSameWords(command: [String]) throws {
        let path = try Self.recording("", first: "  -0.25,0,0,0,0,0,9.80665\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = runPlumb(command + [path])
        #expect(r.status == 1)
        #expect(r.out == "")
        #expect(r.err.hasSuffix("""
            Error: \(path):2:3: t_s -0.25 is negative; a recording's times are seconds from its start, 0 or more.
            Fix: Write t_s in seconds from the recording's start: add the same amount to every t_s so that none is below 0 (the first row's at 0).

            """), "\(r.err)")
    }

    /// A time past the latest a recording can hold (1.8·10¹⁰ s, about 570 years; here a row at
    /// 2·10¹⁰ s after the one at 1.5 s, line 153) is refused by every command, in the same words,
    /// at its file:line:column. Only `watch --replay` (and `run --replay`) refused it:
    /// `--simulate --replay` told it as a jump in time, or took a recording that lay there.
    @Test(arguments: commands)
    func aTimePastTheLatestIsRefusedInTheSameWords(command: [String]) throws {
        let path = try Self.recording("20000000000,0,0,0,0,0,9.80665\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = runPlumb(command + [path])
        #expect(r.status == 1)
        #expect(r.out == "")
        #expect(r.err.hasSuffix("""
            Error: \(path):153:1: t_s 20000000000.0 is past the latest time a recording can hold (18000000000.0 s, about 570 years).
            Fix: Write t_s in seconds from the recording's start.

            """), "\(r.err)")
    }

    /// `plumb` run as a process of its own: its end, standard output and standard error.
    static func runBinary(_ arguments: [String]) throws -> (exited: Bool, status: Int32, out: String, err: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: plumbBinary)
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Standard error on a thread of its own, so that neither pipe fills while the other is read.
        nonisolated(unsafe) var said = Data()
        let reading = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            said = err.fileHandleForReading.readDataToEndOfFile()
            reading.signal()
        }
        let printed = out.fileHandleForReading.readDataToEndOfFile()
        reading.wait()
        process.waitUntilExit()
        return (process.terminationReason == .exit, process.terminationStatus,
                String(decoding: printed, as: UTF8.self), String(decoding: said, as: UTF8.self))
    }

    /// A recording that lies past the latest time throughout, its rows a second apart (no gap
    /// for the emulated chip), is refused by every command too; the simulator's replay took it
    /// (and `watch --simulate --replay` then crashed: a process of its own).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: plumbBinary), "needs the plumb binary (swift build)"),
          arguments: commands)
    func aRecordingPastTheLatestTimeIsRefusedAtItsFirstRow(command: [String]) throws {
        let path = Self.scratch + "-\(UUID().uuidString).csv"
        try "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n18000000000,0,0,0,0,0,9.80665\n18000000001,0,0,0,0,0,9.80665\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try Self.runBinary(command + [path])
        #expect(r.exited && r.status == 1, "\(r.exited) \(r.status)")
        #expect(r.err.hasSuffix("Error: \(path):2:1: t_s 18000000000.0 is past the latest time a recording can hold (18000000000.0 s, about 570 years).\n"
                                + "Fix: Write t_s in seconds from the recording's start.\n"), "\(r.err)")
    }

    /// A recording just short of the latest time plays, its times printed as the recording gives
    /// them: `plumb watch --simulate --replay` stopped the process (its start, 1.7·10¹⁹ ns, does
    /// not fit an Int64), and `plumb watch --replay` printed -1446744073.620 s. Run as a process of
    /// its own, as the old code crashed.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: plumbBinary), "needs the plumb binary (swift build)"),
          arguments: [["--simulate", "--replay"], ["--replay"]])
    func aRecordingJustShortOfTheLatestTimePlays(_ replay: [String]) throws {
        // 3 s standing in portrait, then 3 s on the long edge, at 100 Hz, from 1.7·10¹⁰ s.
        var csv = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        for k in 0...600 { csv += "\(17_000_000_000 + k / 100).\(String(format: "%02d", k % 100)),0,0,0," + (k < 300 ? "0,9.80665,0\n" : "9.80665,0,0\n") }
        let path = Self.scratch + "-\(UUID().uuidString).csv"
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try Self.runBinary(["watch"] + replay + [path, "--format", "text"])
        #expect(r.exited && r.status == 0, "\(r.exited) \(r.status): \(r.err)")
        let printed = r.out
        let lines = printed.split(separator: "\n")
        #expect(lines.first?.hasPrefix("17000000000.") == true, "\(printed)")
        #expect(lines.last?.hasSuffix("interface landscapeRight") == true, "\(printed)")
        let times = lines.compactMap { $0.split(separator: " ").first.flatMap { Double($0) } }
        #expect(times.count == lines.count && times.allSatisfy { $0 >= 17_000_000_000 && $0 <= 17_000_000_006 }, "\(printed)")
    }

    /// `plumb run --replay` tells a recording it cannot use as `plumb watch --replay` does, word
    /// for word and with the final "." (the daemon's log puts "cannot start: " before it): it said
    /// "/x.csv:153:1: t_s goes backwards, from 1.5 on line 152 to 1.2" without it, and "cannot read
    /// the recording /x.csv (no such file)" in words of its own.
    @Test func runsReplayFailuresAreToldAsWatchsAre() throws {
        let config = Self.scratch + "-\(UUID().uuidString).json"
        try "{}".write(toFile: config, atomically: true, encoding: .utf8)
        let backwards = try Self.recording("1.2,0,0,0,0,0,9.80665\n")
        let negative = try Self.recording("", first: "-0.25,0,0,0,0,0,9.80665\n")
        defer { for path in [config, backwards, negative] { try? FileManager.default.removeItem(atPath: path) } }
        let cases: [(path: String, message: String, fix: String)] = [
            (backwards, "\(backwards):153:1: t_s goes backwards, from 1.5 on line 152 to 1.2.", RecordingCSV.timeOrderFix),
            (negative, "\(negative):2:1: t_s -0.25 is negative; a recording's times are seconds from its start, 0 or more.", RecordingCSV.negativeTimeFix),
            ("/nonexistent/trial.csv", "/nonexistent/trial.csv: cannot read the recording (no such file).",
             "Give the path of a CSV file with the columns t_s, gyr_x, gyr_y, gyr_z, acc_x, acc_y, acc_z."),
        ]
        for (path, message, fix) in cases {
            let watch = runPlumb(["watch", "--replay", path])
            #expect(watch.status == 1)
            #expect(watch.err == "Error: \(message)\nFix: \(fix)\n", "\(watch.err)")
            let run = runPlumb(["run", "--config", config, "--replay", path, "--log-format", "plain"])
            #expect(run.status == 1)
            #expect(run.out == "")
            #expect(run.err == "plumb: error: cannot start: \(message)\nplumb: error: fix: \(fix)\n"
                        + "Error: the daemon stopped after an error (see the log above)\n", "\(run.err)")
        }
    }
}
