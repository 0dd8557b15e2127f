import Foundation
import Testing
@testable import PlumbCLI
import PlumbConfiguration

private let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
private let boards = repository + "/boards"

private func run(_ args: [String], environment: [String: String] = [:]) -> (status: Int32, out: String, err: String) {
    let context = CommandContext.capturing(environment: environment)
    let status = PlumbTool.main(args, context: context)
    return (status, context.out.captured, context.err.captured)
}

@Suite struct BoardsCommandTests {
    @Test func marksTheDetectedBoard() {
        let r = run(["boards", "--boards-dir", boards, "--model", "Raspberry Pi 4 Model B Rev 1.4"])
        #expect(r.status == 0)
        #expect(r.err == "")
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "ID         NAME                           I2C         DATA-READY                       LEDS")
        #expect(lines.contains("rpi4 *     Raspberry Pi 4 Model B         /dev/i2c-1  GPIO17 on label pinctrl-bcm2711  ACT,PWR"))
        #expect(lines.contains("rpi5       Raspberry Pi 5                 /dev/i2c-1  GPIO17 on label pinctrl-rp1      ACT,PWR"))
        #expect(r.out.hasSuffix("\nThis machine: rpi4 (detected from the device-tree model \"Raspberry Pi 4 Model B Rev 1.4\")\n"))
    }

    @Test func boardOverrideWinsAndUnknownBoardFails() {
        let r = run(["boards", "--boards-dir", boards, "--board", "cm5"], environment: ["PLUMB_DEVICE_TREE_MODEL": "Raspberry Pi 4 Model B Rev 1.4"])
        #expect(r.status == 0)
        #expect(r.out.contains("\nThis machine: cm5 (chosen by --board or the configuration)\n"))
        let bad = run(["boards", "--boards-dir", boards, "--board", "pi4"])
        #expect(bad.status == 1)
        #expect(bad.err == """
            Error: Unknown board "pi4"; known boards: cm4, cm5, generic, rpi3, rpi4, rpi400, rpi5, rpi500, rpizero2w.
            Fix: Run 'plumb boards' to list them, or add a board file.

            """)
    }

    @Test func missingBoardsDirectoryIsAFailure() {
        let r = run(["boards", "--boards-dir", "/nonexistent/boards"])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: No boards directory found (looked in /nonexistent/boards).\n"))
    }
}

@Suite struct ConfigCommandTests {
    /// The fixes given were the key reference for a file that cannot be read, and "Correct or
    /// remove the board file" for a boards folder with none in it.
    @Test func theFixesFitAnUnreadableFileAndAnEmptyBoardsFolder() throws {
        let denied = ConfigurationError(file: "/etc/plumb/plumb.json", position: nil, keyPath: "", message: "cannot read the file (permission denied)")
        #expect(Config.loadFix(denied, otherwise: "the key reference") == "Check the file's owner and mode ('ls -l /etc/plumb/plumb.json'): plumb.service reads it as its own user (plumb); run the check as that user, or with sudo.")
        let dir = NSTemporaryDirectory() + "plumb-no-boards-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = run(["boards", "--boards-dir", dir])
        #expect(r.status == 1)
        #expect(r.err == "Error: \(dir): holds no board files (*.json)\nFix: Point --boards-dir or PLUMB_BOARDS_DIR at a folder of board files, such as the boards/ folder of the plumb source, or leave both unset for the installed ones.\n", "\(r.err)")
    }

    @Test func checkWarnsWhenTheInstalledUnitKeepsMQTTOffTheNetwork() throws {
        let dir = NSTemporaryDirectory() + "plumb-systemd-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir + "/plumb.service.d", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/plumb.json"
        try #"{"outputs": {"mqtt": {"url": "mqtt://broker.lan"}}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let note = "  note: outputs.mqtt needs the network, which the installed plumb.service keeps out: "
            + "run 'sudo scripts/install --binary .build/release/plumb --network' in the plumb source folder before starting it.\n"
        func check() -> (status: Int32, out: String, err: String) {
            run(["config", "check", "--boards-dir", boards, config], environment: ["PLUMB_SYSTEMD_DIR": dir])
        }
        // Not installed here: nothing to say.
        #expect(check().status == 0)
        #expect(!check().out.contains("note:"))
        // Installed, without the drop-in: the note, and the check still passes.
        try "[Service]\n".write(toFile: dir + "/plumb.service", atomically: true, encoding: .utf8)
        #expect(check().status == 0)
        #expect(check().out.hasSuffix(note))
        // With the drop-in: nothing to say.
        try "[Service]\n".write(toFile: dir + "/plumb.service.d/network.conf", atomically: true, encoding: .utf8)
        #expect(!check().out.contains("note:"))
        // Without outputs.mqtt the unit's network does not matter.
        try FileManager.default.removeItem(atPath: dir + "/plumb.service.d/network.conf")
        try #"{"outputs": {}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        #expect(!check().out.contains("note:"))
    }

    @Test func checkReportsTheFirstErrorWithItsLine() {
        let file = repository + "/Tests/PlumbConfigurationTests/Fixtures/out-of-range.json"
        let r = run(["config", "check", "--boards-dir", boards, file])
        #expect(r.status == 1)
        #expect(r.out == "")
        #expect(r.err == """
            Error: \(file):3:13: imu.rate: 5000 is out of range; allowed 1...1666 (Hz)
            Fix: Run 'plumb config example --keys' for every key and its allowed values.

            """)
    }

    @Test func theExamplePassesItsOwnCheck() throws {
        let example = run(["config", "example"])
        #expect(example.status == 0)
        let path = NSTemporaryDirectory() + "plumb-example-\(getpid()).json"
        try example.out.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = run(["config", "check", "--boards-dir", boards, path])
        #expect(r.status == 0)
        // The example names the installed calibration's place; a machine without it gets the note.
        let calibration = "/var/lib/plumb/calibration.json"
        let note = FileManager.default.fileExists(atPath: calibration) ? "" : "  note: calibration: cannot read the calibration file \(calibration) (no such file), "
            + "so plumb run will not start: Run 'plumb calibrate' and save its result there, or remove \"calibration\" from the configuration.\n"
        #expect(r.out == """
            \(path): OK
              board: auto
              imu: /dev/i2c-1 at 0x68, part auto, 200 Hz, ±4 g, ±2000 °/s, the board's data-ready line
              mounting: x +x, y +y, z +z
              calibration: /var/lib/plumb/calibration.json
              filter: plumb, time constant 3 s
              orientation: steady: hysteresis 18°, settle 0.03 s, rate gate 50 °/s over 0.15 s; in low-energy mode hysteresis 15°, settle 0.1 s, rate gate 60 °/s over 0.1 s, maximum wait 0.6 s (12° inside the boundary, 80 °/s); low energy auto, interface portrait, landscapeLeft, landscapeRight, portraitUpsideDown
              outputs: kiosk, leds
              log level: info

            """ + note)
    }

    @Test func keyReferenceListsEveryTopLevelKey() {
        let r = run(["config", "example", "--keys"])
        for key in ["board", "imu.rate", "mounting", "calibration", "filter.kind", "orientation.settleTime", "outputs.level", "outputs.kiosk", "outputs.leds", "outputs.mqtt", "logLevel"] {
            #expect(r.out.contains("\n" + key) || r.out.hasPrefix(key), "\(key)")
        }
    }
}
