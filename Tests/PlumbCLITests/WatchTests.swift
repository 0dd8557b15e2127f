import Foundation
import Testing
@testable import PlumbCLI

@Suite("plumb watch")
struct WatchTests {
    func run(_ args: [String]) -> (status: Int32, out: String, err: String) { runPlumb(args) }

    struct Line: Decodable, Equatable {
        var t_s: Double
        var deviceOrientation: String
        var interfaceOrientation: String
    }

    func lines(_ out: String) throws -> [Line] {
        try out.split(separator: "\n").map { try JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
    }

    /// A recording in the BROAD CSV format: portrait for 4 s, a 1 s quarter turn to
    /// landscapeLeft (right edge up), held 4 s; 100 Hz.
    func writeRecording(startingAt start: Double = 0) throws -> String {
        var text = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,true_qw,true_qx,true_qy,true_qz,movement\n"
        for k in 0..<900 {
            let t = Double(k) / 100
            let s = min(max(t - 4, 0), 1)
            let theta = (Double.pi / 2) * (1 - cos(.pi * s)) / 2
            let rate = (t > 4 && t < 5) ? (Double.pi / 2) * .pi / 2 * sin(.pi * s) : 0
            text += String(format: "%.6f,0,0,%.7g,%.7g,%.7g,0,nan,nan,nan,nan,0\n", start + t, rate, 9.80665 * sin(theta), 9.80665 * cos(theta))
        }
        let path = NSTemporaryDirectory() + "plumb-watch-\(UUID().uuidString).csv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func replayPrintsOneJSONObjectPerChange() throws {
        let path = try writeRecording()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = run(["watch", "--replay", path])
        #expect(r.status == 0)
        #expect(r.err == "")
        let changes = try lines(r.out)
        #expect(changes.map(\.deviceOrientation) == ["portrait", "landscapeLeft"])
        #expect(changes.map(\.interfaceOrientation) == ["portrait", "landscapeRight"])
        #expect(changes[0].t_s < 0.3)
        // The turn crosses 45° at 4.5 s at 141 °/s and ends at 5 s; the 60 °/s gate on the rate
        // smoothed over 0.25 s opens at 5.04 s, then the 0.05 s settle time and a 50 ms FIFO batch.
        #expect(changes[1].t_s > 5.04 && changes[1].t_s < 5.15, "\(changes[1].t_s)")
        #expect(r.out.hasPrefix("{\"t_s\": "))
    }

    @Test(arguments: ["mpu6050", "lsm6dso"])
    func aRecordingPlaysThroughTheEmulatedChip(chip: String) throws {
        // The same turn, sampled by the emulated chip (its rate, scale, noise and FIFO batches)
        // and read through its driver; times are the recording's, shifted here by 100 s.
        let path = try writeRecording(startingAt: 100)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = run(["watch", "--simulate", "--replay", path, "--chip", chip])
        #expect(r.status == 0)
        #expect(r.err == "")
        let changes = try lines(r.out)
        #expect(changes.map(\.deviceOrientation) == ["portrait", "landscapeLeft"])
        #expect(changes[0].t_s >= 100 && changes[0].t_s < 100.4, "\(changes[0].t_s)")
        // As in the direct replay (5.04 s gate, settle), plus up to one FIFO batch of the chip.
        #expect(changes[1].t_s > 105.04 && changes[1].t_s < 105.25, "\(changes[1].t_s)")
    }

    @Test func theSeedsRuleRunsOnTheSameRecording() throws {
        let path = try writeRecording()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = run(["watch", "--replay", path, "--rule", "seed", "--format", "text"])
        #expect(r.status == 0)
        // The seed starts in portrait, so only the landscape change prints; its readings are
        // 0.15 s apart and it needs three.
        #expect(r.out.split(separator: "\n").count == 1)
        #expect(r.out.contains("device landscapeLeft"))
        #expect(r.out.contains("interface landscapeRight"))
    }

    @Test func simulatedTourVisitsEveryFace() throws {
        let r = run(["watch", "--simulate", "--profile", "tour", "--duration", "35", "--format", "jsonl"])
        #expect(r.status == 0)
        #expect(r.err == "")
        let faces = Set(try lines(r.out).map(\.deviceOrientation))
        #expect(faces == ["faceUp", "portrait", "faceDown", "portraitUpsideDown", "landscapeRight", "landscapeLeft"])
    }

    @Test func execRunsTheCommandWithTheOrientationInItsEnvironment() throws {
        let path = try writeRecording()
        let log = NSTemporaryDirectory() + "plumb-exec-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.removeItem(atPath: log) }
        let r = run(["watch", "--replay", path, "--exec", "echo \"$PLUMB_DEVICE_ORIENTATION $PLUMB_INTERFACE_ORIENTATION\" >> '\(log)'"])
        #expect(r.status == 0)
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "portrait portrait\nlandscapeLeft landscapeRight\n")
    }

    @Test func errorsExitWithTheRightStatus() {
        // Without --simulate or --replay: the board's IMU, named by the configuration file.
        var r = run(["watch", "--config", "/nonexistent/plumb.json"])
        #expect(r.status == 1)
        #expect(r.err == "Error: /nonexistent/plumb.json: cannot read the file (no such file)\nFix: Check the path; 'plumb config example' prints a file to start from (scripts/install puts a minimal one at /etc/plumb/plumb.json); or use --simulate or --replay FILE.csv.\n")
        r = run(["watch", "--simulate", "--rule", "seed"])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: --rule seed needs --replay FILE.\n"))
        r = run(["watch", "--replay", "/nonexistent/trial.csv"])
        #expect(r.status == 1)
        #expect(r.err == "Error: /nonexistent/trial.csv: cannot read the recording (no such file).\nFix: Give the path of a CSV file with the columns t_s, gyr_x, gyr_y, gyr_z, acc_x, acc_y, acc_z.\n")
        r = run(["watch", "--simulate", "--replay", "/nonexistent/trial.csv", "--rule", "seed"])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: --rule seed reads the recording itself: leave out --simulate.\n"))
        r = run(["watch", "--simulate", "--replay", "/nonexistent/trial.csv", "--profile", "tour"])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: Give '--profile' or '--replay', not both.\n"))
        r = run(["watch", "--simulate", "--replay", "/nonexistent/trial.csv"])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: /nonexistent/trial.csv: cannot read the recording (no such file).\n"))
        r = run(["watch", "--simulate", "--profile", "jogging"])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: The value 'jogging' is invalid for '--profile'"))
    }
}

@Suite("plumb watch with a power monitor")
struct WatchPowerTests {
    func run(_ args: [String]) -> (status: Int32, out: String, err: String) { runPlumb(args) }

    func tree(_ files: [String: String]) throws -> String {
        let root = NSTemporaryDirectory() + "plumb-sys-\(UUID().uuidString)"
        for (path, text) in files {
            let url = URL(fileURLWithPath: root + "/" + path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return root
    }

    @Test func aBlankedDisplayPausesTheSensorUnlessTold() throws {
        let root = try tree(["sys/class/graphics/fb0/blank": "4\n"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let paused = run(["watch", "--simulate", "--duration", "20", "--power-root", root])
        #expect(paused.status == 0)
        #expect(paused.out == "", "no changes while blanked")
        let running = run(["watch", "--simulate", "--duration", "20", "--power-root", root, "--no-blank-pause"])
        #expect(running.out.split(separator: "\n").count >= 3)
    }

    @Test func heatSlowsTheSensorButEveryFaceStillComes() throws {
        let root = try tree(["sys/class/thermal/thermal_zone0/temp": "90000\n"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let hot = run(["watch", "--simulate", "--duration", "35", "--power-root", root, "--format", "text"])
        let cool = run(["watch", "--simulate", "--duration", "35", "--format", "text"])
        #expect(hot.status == 0)
        let faces = { (out: String) in out.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true)[3] } }
        // Low-energy mode's classifier (accelerometer only, a quicker rate gate) also reports the
        // portrait the tour's 180° turn sweeps through; every face of the cool run comes, in order.
        var rest = faces(hot.out)[...]
        for face in faces(cool.out) {
            guard let i = rest.firstIndex(of: face) else { Issue.record("\(face) missing from \(faces(hot.out))"); break }
            rest = rest[(i + 1)...]
        }
        #expect(faces(hot.out).count <= faces(cool.out).count + 1)
        #expect(hot.out != cool.out, "low-energy timing differs")
    }
}

@Suite("plumb watch: the board's IMU options")
struct WatchLiveOptionTests {
    /// --config, --board, --boards-dir, --bus and --address name the board's IMU: beside
    /// --simulate or --replay they are refused, as plumb level, led and kiosk refuse them (they
    /// were ignored: `plumb watch --simulate --address 0x69` ran the simulator at 0x68).
    @Test(arguments: [["--address", "0x69"], ["--bus", "/dev/i2c-7"], ["--config", "/nonexistent/plumb.json"], ["--board", "rpi4"]])
    func liveOptionsBesideTheSimulatorAreRefused(option: [String]) {
        let name = option[0]
        var r = runPlumb(["watch", "--simulate", "--duration", "1"] + option)
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: '\(name)' names the board's IMU; it cannot be combined with '--simulate'.\n"))
        #expect(r.out == "")
        r = runPlumb(["watch", "--replay", "/nonexistent/trial.csv"] + option)
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: '\(name)' names the board's IMU; it cannot be combined with '--replay'.\n"))
    }
}
