import Foundation
import Testing
@testable import PlumbCLI

/// A temporary directory holding fake `wlr-randr` and `xrandr` that append their arguments to a
/// log and remember the last turn, which their listings (`wlr-randr`, `xrandr --query`) then show,
/// in the layout of wlr-randr 0.2 and xrandr 1.5. With `failing`, the first that many turns fail
/// as without a compositor or X server (and listings with them), as when plumb starts before the
/// desktop session. With `restartingAt`, the screen shows `normal` from that listing on (a
/// compositor that restarted).
private struct FakeTools {
    let directory: String
    var log: String { directory + "/calls.log" }

    init(failing: Int = 0, restartingAt: Int = 0) throws {
        directory = NSTemporaryDirectory() + "plumb-kiosk-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory + "/bin", withIntermediateDirectories: true)
        let state = directory + "/shown", tries = directory + "/tries", listings = directory + "/listings"
        let wlrListing = "printf '%s \"Fake\"\\n  Enabled: yes\\n  Transform: %s\\n' \"$name\" \"$shown\""
        let xListing = """
            case $shown in normal) word= ;; *) word=" $shown" ;; esac
            printf 'Screen 0: minimum 320 x 200, current 1920 x 1080, maximum 8192 x 8192\\n%s connected 1920x1080+0+0%s (normal left inverted right x axis y axis) 0mm x 0mm\\n' "$name" "$word"
            """
        for (tool, listingArguments, down, listing) in [("wlr-randr", "", "failed to connect to display", wlrListing),
                                                        ("xrandr", "--query", "Can't open display ", xListing)] {
            let path = "\(directory)/bin/\(tool)"
            try """
                #!/bin/sh
                n=$(cat '\(tries)' 2>/dev/null || echo 0)
                if [ "$*" = "\(listingArguments)" ]; then
                  [ "$n" -le \(failing) ] && [ \(failing) -gt 0 ] && { echo "\(down)" >&2; exit 1; }
                  [ -f '\(state)' ] || exit 0
                  read name shown < '\(state)'
                  l=$(($(cat '\(listings)' 2>/dev/null || echo 0) + 1)); echo $l > '\(listings)'
                  [ $l -eq \(restartingAt) ] && { shown=normal; echo "$name $shown" > '\(state)'; }
                  \(listing)
                  exit 0
                fi
                echo "\(tool) $*" >> '\(log)'
                n=$((n + 1)); echo $n > '\(tries)'
                [ $n -le \(failing) ] && { echo "\(down)" >&2; exit 1; }
                eval shown=\\${$#}
                echo "$2 $shown" > '\(state)'

                """.write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        }
    }

    var environment: [String: String] { ["PATH": "\(directory)/bin:/usr/bin:/bin"] }

    func calls() throws -> [String] {
        guard FileManager.default.fileExists(atPath: log) else { return [] }
        return try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    func cleanUp() { try? FileManager.default.removeItem(atPath: directory) }

    /// A recording of the board held upright in portrait, at rest, 100 Hz for `seconds`, in the
    /// BROAD CSV format (for `--replay`): the simulator's `rest` profile lies face up, and a kiosk
    /// does not turn the screen before an upright face settles.
    func uprightRecording(seconds: Int) throws -> String {
        try Self.uprightRecording(seconds: seconds, in: directory)
    }

    static func uprightRecording(seconds: Int, in directory: String) throws -> String {
        var csv = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        for i in 0...(seconds * 100) { csv += "\(Double(i) / 100),0,0,0,0,9.80665,0\n" }
        let path = directory + "/upright.csv"
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}


/// The tour profile: face up, then +y, −z, −y, −x and +x up. The interface follows the upright
/// faces (the screen is not turned before the first, portrait at 5.408 s); the 180° turn at the end sweeps through portrait too fast for the classifier's rate
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
        // What plumb kiosk printed before it tried failed turns again and read the screen back
        // on the simulator (the listings show each turn: nothing more to do).
        #expect(result.out == """
                7.408 s  portrait: wlr-randr --output HDMI-A-2 --on --transform normal
               18.410 s  portraitUpsideDown: wlr-randr --output HDMI-A-2 --on --transform 180
               23.906 s  landscapeLeft: wlr-randr --output HDMI-A-2 --on --transform 90
               30.622 s  landscapeRight: wlr-randr --output HDMI-A-2 --on --transform 270

            """)
        #expect(result.err == "")
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
        #expect(result.out == """
                8.408 s  portrait: xrandr --output HDMI-1 --rotate normal
               17.410 s  portraitUpsideDown: not in --allow, screen stays
               22.906 s  landscapeLeft: not in --allow, screen stays
               31.622 s  landscapeRight: xrandr --output HDMI-1 --rotate right

            """)
        #expect(result.err == "")
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

    @Test func missingToolIsAFailureWithTheFix() throws {
        let directory = NSTemporaryDirectory() + "plumb-kiosk-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let upright = try FakeTools.uprightRecording(seconds: 3, in: directory)
        let result = runPlumb(["kiosk", "--replay", upright, "--duration", "3"], environment: ["PATH": "/nonexistent"])
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
        let result = runPlumb(["kiosk", "--replay", try tools.uprightRecording(seconds: 3), "--backend", "xrandr", "--duration", "3"], environment: tools.environment)
        // Tried after the hold-off and again 1 s later (the run ends at 3 s), printed once; the run
        // ends with the failure.
        #expect(result.status == 1)
        #expect(try tools.calls() == Array(repeating: "xrandr --output HDMI-1 --rotate normal", count: 2))
        #expect(result.out == "    1.050 s  portrait: xrandr --output HDMI-1 --rotate normal failed, screen stays\n")
        #expect(result.err.hasPrefix("Warning: could not turn the screen to portrait (xrandr --output HDMI-1 --rotate normal); "
                                     + "trying again in 1 s, then at least every 10 s, until it works: there is no output HDMI-1; xrandr lists: screen\n"
                                     + "Fix: Name one of them: --output screen"))
        #expect(result.err.contains("\nError: there is no output HDMI-1; xrandr lists: screen\nFix: Name one of them: --output screen"))
    }

    @Test func wlrRandrFailureKeepsItsWords() throws {
        let tools = try FakeTools()
        defer { tools.cleanUp() }
        try "#!/bin/sh\necho 'failed to connect to display' >&2\nexit 1\n".write(toFile: tools.directory + "/bin/wlr-randr", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tools.directory + "/bin/wlr-randr")
        var environment = tools.environment
        environment["XDG_RUNTIME_DIR"] = "/run/user/1000"
        let result = runPlumb(["kiosk", "--replay", try tools.uprightRecording(seconds: 3), "--duration", "3"], environment: environment)
        #expect(result.status == 1)
        // The warning, and the run's end, name the compositor's variables and the fix.
        #expect(result.err.hasPrefix("Warning: could not turn the screen to portrait (wlr-randr --output HDMI-A-1 --on --transform normal); "
                                     + "trying again in 1 s, then at least every 10 s, until it works: "
                                     + "wlr-randr cannot reach a Wayland compositor (WAYLAND_DISPLAY is not set, XDG_RUNTIME_DIR=/run/user/1000)\nFix: "))
        #expect(result.err.hasSuffix("\nError: wlr-randr cannot reach a Wayland compositor (WAYLAND_DISPLAY is not set, XDG_RUNTIME_DIR=/run/user/1000)\n"
                                     + "Fix: \(Self.noCompositorFix)\n"))
    }

    /// The wlr-randr fix for a compositor that cannot be reached (RotationToolDiagnosis).
    static let noCompositorFix = "Run plumb in the desktop session, or set WAYLAND_DISPLAY and XDG_RUNTIME_DIR to the compositor's socket "
        + "('ls /run/user/$(id -u <desktop user>)/wayland-*'); as a service, install with 'sudo scripts/install --kiosk-user <desktop user>'."

    /// Started before the compositor: the first turn fails three times and works on the fourth
    /// try, 7 s later (after 1, 2 and 4 s), without the board moving; one warning with the fix,
    /// one line when it works, and the rest of the tour as when the compositor was up all along.
    @Test func aTurnFailingUntilTheCompositorIsUpIsTriedAgain() throws {
        let tools = try FakeTools(failing: 3)
        defer { tools.cleanUp() }
        let result = runPlumb(["kiosk", "--simulate", "--output", "HDMI-A-2"], environment: tools.environment)
        #expect(result.status == 0, "\(result.err)")
        #expect(try tools.calls() == Array(repeating: "wlr-randr --output HDMI-A-2 --on --transform normal", count: 4) + [
            "wlr-randr --output HDMI-A-2 --on --transform 180",
            "wlr-randr --output HDMI-A-2 --on --transform 90",
            "wlr-randr --output HDMI-A-2 --on --transform 270",
        ])
        #expect(result.out == """
                7.408 s  portrait: wlr-randr --output HDMI-A-2 --on --transform normal failed, screen stays
               14.408 s  portrait: wlr-randr --output HDMI-A-2 --on --transform normal
               18.410 s  portraitUpsideDown: wlr-randr --output HDMI-A-2 --on --transform 180
               23.906 s  landscapeLeft: wlr-randr --output HDMI-A-2 --on --transform 90
               30.622 s  landscapeRight: wlr-randr --output HDMI-A-2 --on --transform 270

            """)
        #expect(result.err == """
            Warning: could not turn the screen to portrait (wlr-randr --output HDMI-A-2 --on --transform normal); trying again in 1 s, \
            then at least every 10 s, until it works: wlr-randr cannot reach a Wayland compositor (WAYLAND_DISPLAY is not set, XDG_RUNTIME_DIR is not set)
            Fix: \(Self.noCompositorFix)
            plumb kiosk: turned the screen to portrait after 3 failed tries in 7 s

            """)
    }

    /// A compositor that never comes: the turn is tried after 1, 2, 4, 8 s and then every 10 s
    /// for the whole run (11 tries in 80 s), with one warning, one error after a minute, one line
    /// on standard output; the run ends at --duration with the failure (exit 1).
    @Test func aTurnThatKeepsFailingIsAnErrorAfterAMinuteAndTheRunGoesOn() throws {
        let tools = try FakeTools(failing: 1_000_000)
        defer { tools.cleanUp() }
        let result = runPlumb(["kiosk", "--replay", try tools.uprightRecording(seconds: 80), "--duration", "80"], environment: tools.environment)
        #expect(result.status == 1)
        #expect(try tools.calls() == Array(repeating: "wlr-randr --output HDMI-A-1 --on --transform normal", count: 11))
        #expect(result.out == "    1.050 s  portrait: wlr-randr --output HDMI-A-1 --on --transform normal failed, screen stays\n")
        let failure = "wlr-randr cannot reach a Wayland compositor (WAYLAND_DISPLAY is not set, XDG_RUNTIME_DIR is not set)"
        #expect(result.err == """
            Warning: could not turn the screen to portrait (wlr-randr --output HDMI-A-1 --on --transform normal); trying again in 1 s, \
            then at least every 10 s, until it works: \(failure)
            Fix: \(Self.noCompositorFix)
            Error: still cannot turn the screen to portrait after 10 tries in 65 s (wlr-randr --output HDMI-A-1 --on --transform normal); \
            trying again every 10 s: \(failure)
            Fix: \(Self.noCompositorFix)
            Error: \(failure)
            Fix: \(Self.noCompositorFix)

            """)
    }

    /// What plumb run does on read-back, plumb kiosk does on the simulator: the screen is read
    /// back (here it comes back upright at the fifth listing, as after a compositor restart) and
    /// the lost turn is made again.
    @Test func aTurnLostOnTheScreenIsMadeAgain() throws {
        let tools = try FakeTools(restartingAt: 5)
        defer { tools.cleanUp() }
        let result = runPlumb(["kiosk", "--simulate", "--output", "HDMI-A-2"], environment: tools.environment)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out == """
                7.408 s  portrait: wlr-randr --output HDMI-A-2 --on --transform normal
               18.410 s  portraitUpsideDown: wlr-randr --output HDMI-A-2 --on --transform 180
               23.906 s  landscapeLeft: wlr-randr --output HDMI-A-2 --on --transform 90
               28.908 s  landscapeLeft: the screen shows normal now, turning it again
               28.908 s  landscapeLeft: wlr-randr --output HDMI-A-2 --on --transform 90
               30.622 s  landscapeRight: wlr-randr --output HDMI-A-2 --on --transform 270

            """)
        #expect(try tools.calls().filter { $0.hasSuffix(" 90") }.count == 2)
        #expect(result.err == "")
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
