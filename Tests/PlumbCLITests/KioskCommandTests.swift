import Foundation
import Testing
@testable import PlumbCLI

/// A temporary directory holding fake `wlr-randr` and `xrandr` that append their arguments to a log.
private struct FakeTools {
    let directory: String
    var log: String { directory + "/calls.log" }

    init() throws {
        directory = NSTemporaryDirectory() + "plumb-kiosk-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory + "/bin", withIntermediateDirectories: true)
        for tool in ["wlr-randr", "xrandr"] {
            let path = "\(directory)/bin/\(tool)"
            try "#!/bin/sh\necho \"\(tool) $*\" >> '\(log)'\n".write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        }
    }

    var environment: [String: String] { ["PATH": "\(directory)/bin:/usr/bin:/bin"] }

    func calls() throws -> [String] {
        guard FileManager.default.fileExists(atPath: log) else { return [] }
        return try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    func cleanUp() { try? FileManager.default.removeItem(atPath: directory) }
}

func runPlumb(_ arguments: [String], environment: [String: String]) -> (status: Int32, out: String, err: String) {
    let context = CommandContext.capturing(environment: environment)
    let status = PlumbTool.main(arguments, context: context)
    return (status, context.out.captured, context.err.captured)
}

/// The tour profile: face up, then +y, −z, −y, −x and +x up. The interface follows the upright
/// faces; the 180° turn at the end sweeps through portrait too fast for the classifier's rate
/// gate, so portrait is not reported on the way.
@Suite struct KioskCommandTests {
    @Test func wlrRandrGetsTheExactCommands() throws {
        let tools = try FakeTools()
        defer { tools.cleanUp() }
        let result = runPlumb(["kiosk", "--simulate", "--output", "HDMI-A-2"], environment: tools.environment)
        #expect(result.status == 0, "\(result.err)")
        #expect(try tools.calls() == [
            "wlr-randr --output HDMI-A-2 --on --transform normal",
            "wlr-randr --output HDMI-A-2 --on --transform 180",
            "wlr-randr --output HDMI-A-2 --on --transform 90",
            "wlr-randr --output HDMI-A-2 --on --transform 270",
        ])
        #expect(result.out.contains("landscapeLeft: wlr-randr --output HDMI-A-2 --on --transform 90"))
    }

    @Test func xrandrWithAnAllowedSetAndLongerHoldOff() throws {
        let tools = try FakeTools()
        defer { tools.cleanUp() }
        let result = runPlumb(["kiosk", "--simulate", "--backend", "xrandr", "--allow", "portrait,landscapeRight", "--hold-off", "2"],
                              environment: tools.environment)
        #expect(result.status == 0, "\(result.err)")
        // Upside down and landscapeLeft are not allowed, so the screen turns only for portrait
        // and landscapeRight.
        #expect(try tools.calls() == ["xrandr --output HDMI-1 --rotate normal", "xrandr --output HDMI-1 --rotate right"])
        #expect(result.out.contains("portraitUpsideDown: not in --allow, screen stays"))
    }

    @Test func lockFileHoldsTheScreen() throws {
        let tools = try FakeTools()
        defer { tools.cleanUp() }
        let lock = tools.directory + "/lock"
        try Data().write(to: URL(fileURLWithPath: lock))
        let result = runPlumb(["kiosk", "--simulate", "--lock-file", lock], environment: tools.environment)
        #expect(result.status == 0)
        #expect(try tools.calls() == [])
        #expect(result.out.contains("portrait: locked, screen stays"))
    }

    @Test func fbconWritesRotateAll() throws {
        let tools = try FakeTools()
        defer { tools.cleanUp() }
        try FileManager.default.createDirectory(atPath: tools.directory + "/graphics/fbcon", withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: tools.directory + "/graphics/fbcon/rotate_all"))
        var environment = tools.environment
        environment["PLUMB_SYSFS_GRAPHICS"] = tools.directory + "/graphics"
        let result = runPlumb(["kiosk", "--simulate", "--backend", "fbcon", "--duration", "25"], environment: environment)
        #expect(result.status == 0, "\(result.err)")
        // Each write replaces the file's start; the last one (landscapeLeft: counter-clockwise, 3) stands.
        #expect(try String(contentsOfFile: tools.directory + "/graphics/fbcon/rotate_all", encoding: .utf8) == "3\n")
        #expect(result.out.contains("landscapeLeft: echo 3 > \(tools.directory)/graphics/fbcon/rotate_all"))
    }

    @Test func userCommandSeesTheOrientation() throws {
        let tools = try FakeTools()
        defer { tools.cleanUp() }
        let result = runPlumb(["kiosk", "--simulate", "--backend", "command", "--duration", "20",
                               "--command", "echo \"$PLUMB_INTERFACE_ORIENTATION $PLUMB_ROTATION_DEGREES $PLUMB_FBCON_ROTATE\" >> '\(tools.log)'"],
                              environment: tools.environment)
        #expect(result.status == 0, "\(result.err)")
        #expect(try tools.calls() == ["portrait 0 0", "portraitUpsideDown 180 2"])
    }

    @Test func missingToolIsAFailureWithTheFix() {
        let result = runPlumb(["kiosk", "--simulate", "--duration", "3"], environment: ["PATH": "/nonexistent"])
        #expect(result.status == 1)
        #expect(result.err.contains("Error: wlr-randr is not on PATH\nFix: sudo apt install wlr-randr\n"))
    }

    /// Real xrandr 1.5 (Xvfb, scripts/test.d/70-kiosk-real) answers a wrong --output with only
    /// "warning: output NAME not found; ignoring" and status 0: that must not count as turned.
    @Test func xrandrWrongOutputIsAFailureNamingTheOutputs() throws {
        let tools = try FakeTools()
        defer { tools.cleanUp() }
        try """
            #!/bin/sh
            if [ "$1" = --query ]; then
              printf 'Screen 0: minimum 1 x 1, current 800 x 480, maximum 800 x 480\nscreen connected 800x480+0+0 0mm x 0mm\n   800x480  0.00*\n'
              exit 0
            fi
            echo "xrandr $*" >> '\(tools.log)'
            echo "warning: output $2 not found; ignoring" >&2
            """.write(toFile: tools.directory + "/bin/xrandr", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tools.directory + "/bin/xrandr")
        let result = runPlumb(["kiosk", "--simulate", "--backend", "xrandr", "--duration", "3"], environment: tools.environment)
        #expect(result.status == 1)
        #expect(try tools.calls() == ["xrandr --output HDMI-1 --rotate normal"])
        #expect(result.out.contains("portrait: xrandr --output HDMI-1 --rotate normal failed, screen stays"))
        #expect(result.err.contains("Error: there is no output HDMI-1; xrandr lists: screen\nFix: Name one of them: --output screen"))
    }

    @Test func wlrRandrFailureKeepsItsWords() throws {
        let tools = try FakeTools()
        defer { tools.cleanUp() }
        try "#!/bin/sh\necho 'failed to connect to display' >&2\nexit 1\n".write(toFile: tools.directory + "/bin/wlr-randr", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tools.directory + "/bin/wlr-randr")
        var environment = tools.environment
        environment["XDG_RUNTIME_DIR"] = "/run/user/1000"
        let result = runPlumb(["kiosk", "--simulate", "--duration", "3"], environment: environment)
        #expect(result.status == 1)
        #expect(result.err.hasPrefix("Error: wlr-randr cannot reach a Wayland compositor (WAYLAND_DISPLAY is not set, XDG_RUNTIME_DIR=/run/user/1000)\nFix: "))
    }

    @Test func commandBackendNeedsACommand() {
        let result = runPlumb(["kiosk", "--simulate", "--backend", "command"], environment: [:])
        #expect(result.status == 64)
        #expect(result.err.hasPrefix("Error: '--backend command' needs '--command CMD'.\n"))
    }
}

@Suite struct LEDCommandTests {
    @Test func sysfsFacesFollowTheTour() throws {
        let root = NSTemporaryDirectory() + "plumb-led-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        for name in ["x1", "x2", "y1", "y2", "z1", "z2"] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(name)", withIntermediateDirectories: true)
            try "1\n".write(toFile: "\(root)/\(name)/max_brightness", atomically: true, encoding: .utf8)
            try "0\n".write(toFile: "\(root)/\(name)/brightness", atomically: true, encoding: .utf8)
            try "none\n".write(toFile: "\(root)/\(name)/trigger", atomically: true, encoding: .utf8)
        }
        let result = runPlumb(["led", "--simulate", "--no-pacing", "--leds", "x1,x2,y1,y2,z1,z2", "--sysfs-root", root, "--duration", "12"],
                              environment: [:])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.split(separator: "\n").map { $0.split(separator: " ").last.map(String.init) ?? "" } == ["+z", "+y", "-z"])
        // Every LED is switched off at the end.
        for name in ["x1", "x2", "y1", "y2", "z1", "z2"] {
            #expect(try String(contentsOfFile: "\(root)/\(name)/brightness", encoding: .utf8) == "0\n")
        }
    }

    @Test func senseHATArrowGoesToTheFramebufferFile() throws {
        let path = NSTemporaryDirectory() + "plumb-sense-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = runPlumb(["led", "--backend", "sensehat", "--fb-file", path, "--angle", "0"], environment: [:])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out == "\(path): 1 frame of the arrow (turned 0.0°)\n")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.count == 128)
        func pixel(_ x: Int, _ y: Int) -> UInt16 { UInt16(data[2 * (y * 8 + x)]) | UInt16(data[2 * (y * 8 + x) + 1]) << 8 }
        #expect(pixel(3, 6) != 0 && pixel(4, 6) != 0)  // the stem
        #expect(pixel(0, 0) == 0 && pixel(7, 7) == 0)
    }
}
