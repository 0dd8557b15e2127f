import Foundation
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
}
