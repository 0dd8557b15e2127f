import Foundation
import Testing
@testable import PlumbDisplay

/// The tools' words as captured from wlr-randr 0.2.0 on sway 1.7 headless and xrandr 1.5 on Xvfb
/// 21.1 (Debian 12); scripts/test.d/70-kiosk-real checks the same against the running tools.
@Suite struct RotationToolDiagnosisTests {
    let wlrListing = "HEADLESS-1 \"Headless output 1\"\n  Enabled: no\n  Modes:\n    0x0 px\nHEADLESS-2 \"Headless output 2\"\n  Enabled: yes\n"
    let xrandrListing = "Screen 0: minimum 1 x 1, current 800 x 480, maximum 800 x 480\nscreen connected 800x480+0+0 0mm x 0mm\n   800x480        0.00*\nHDMI-2 disconnected (normal left inverted right x axis y axis)\n"

    /// fuzz listings (the line ends of NetworkAccessTests.carriageReturnsDoNotJoinLines): "\r\n" is
    /// one Character in Swift, so splitting on "\n" ran a CRLF listing's lines together.
    @Test func listingsWithCRLFLineEnds() {
        let crlf = xrandrListing.replacingOccurrences(of: "\n", with: "\r\n")
        // A lone carriage return ends a line too (fuzz listings: "HDMI-A-1\n\rrru2Dnt-" named an output "\rrru2Dnt-").
        #expect(RotationToolDiagnosis.outputNames(program: "wlr-randr", listing: "HDMI-A-1 x\n\rDSI-1 y\r  Enabled: yes\n") == ["HDMI-A-1", "DSI-1"])
        #expect(RotationToolDiagnosis.outputNames(program: "xrandr", listing: crlf) == ["screen"])
        let wlr = KioskVerifyTests.wlrListing("90").replacingOccurrences(of: "\n", with: "\r\n")
        #expect(RotationToolDiagnosis.outputNames(program: "wlr-randr", listing: wlr) == ["DSI-1", "HDMI-A-1"])
        #expect(KioskBackend(kind: .wlrRandr, output: "HDMI-A-1").shownRotation(inListing: wlr) == "90")
    }

    /// fuzz listings: a blank followed by a combining mark is one Character in Swift (" \u{301}"),
    /// so a split on " " Characters did not end the name there, and a line starting so did not
    /// count as indented. The tools print bytes: blanks and line ends are read as Unicode scalars.
    /// Only a line that starts in column 0 names an output, in the diagnosis and the verification alike.
    @Test func blanksBeforeCombiningMarksStillSeparate() {
        let wlr = "HDMI-A-1 \u{301}Monitor\n  Enabled: yes\n  Transform: 90\n \u{DDE}HDMI-A-2 x\n"
        #expect(RotationToolDiagnosis.outputNames(program: "wlr-randr", listing: wlr) == ["HDMI-A-1"])
        #expect(KioskBackend(kind: .wlrRandr, output: "HDMI-A-1").shownRotation(inListing: wlr) == "90")
        let x = "HDMI-1 connected \u{301}1080x1920+0+0 left (normal left inverted right)\n   HDMI-2 connected 1x1+0+0 left\n"
        #expect(RotationToolDiagnosis.outputNames(program: "xrandr", listing: x) == ["HDMI-1"])
        #expect(KioskBackend(kind: .xrandr, output: "HDMI-1").shownRotation(inListing: x) == "left")
        #expect(KioskBackend(kind: .xrandr, output: "HDMI-2").shownRotation(inListing: x) == nil)
    }

    @Test func listingsNameTheOutputs() {
        #expect(RotationToolDiagnosis.outputNames(program: "wlr-randr", listing: wlrListing) == ["HEADLESS-1", "HEADLESS-2"])
        // "Screen 0:" is not an output; disconnected outputs are left out.
        #expect(RotationToolDiagnosis.outputNames(program: "xrandr", listing: xrandrListing) == ["screen"])
        #expect(RotationToolDiagnosis.outputNames(program: "wlr-randr", listing: "") == [])
    }

    @Test func aWrongOutputNamesTheOnesThatExist() {
        let d = RotationToolDiagnosis.diagnose(program: "wlr-randr", output: "HDMI-A-1", text: "unknown output HDMI-A-1\n", status: 1,
                                               shown: "wlr-randr --output HDMI-A-1 --on --transform 90",
                                               outputs: ["HEADLESS-1"], environment: [:])
        #expect(d.message == "there is no output HDMI-A-1; wlr-randr lists: HEADLESS-1")
        #expect(d.fix?.contains("--output HEADLESS-1") == true)
        let x = RotationToolDiagnosis.diagnose(program: "xrandr", output: "HDMI-1", text: "warning: output HDMI-1 not found; ignoring\n",
                                               status: 0, shown: "xrandr --output HDMI-1 --rotate left", outputs: ["screen"], environment: [:])
        #expect(x.message == "there is no output HDMI-1; xrandr lists: screen")
        let none = RotationToolDiagnosis.diagnose(program: "wlr-randr", output: "HDMI-A-1", text: "unknown output HDMI-A-1\n", status: 1,
                                                  shown: "wlr-randr", outputs: nil, environment: [:])
        #expect(none.message == "there is no output HDMI-A-1; wlr-randr lists: (could not list them)")
    }

    @Test func xrandrNotFoundIsAFailureDespiteStatusZero() {
        #expect(RotationToolDiagnosis.failedDespiteSuccess(program: "xrandr", text: "warning: output HDMI-1 not found; ignoring\n"))
        #expect(!RotationToolDiagnosis.failedDespiteSuccess(program: "xrandr", text: ""))
        #expect(!RotationToolDiagnosis.failedDespiteSuccess(program: "wlr-randr", text: ""))
    }

    @Test func noCompositorOrServerNamesTheVariables() {
        let w = RotationToolDiagnosis.diagnose(program: "wlr-randr", output: "HDMI-A-1", text: "failed to connect to display\n", status: 1,
                                               shown: "wlr-randr", outputs: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
        #expect(w.message == "wlr-randr cannot reach a Wayland compositor (WAYLAND_DISPLAY is not set, XDG_RUNTIME_DIR=/run/user/1000)")
        #expect(w.fix?.contains("--kiosk-user") == true)
        let x = RotationToolDiagnosis.diagnose(program: "xrandr", output: "HDMI-1", text: "Can't open display :5\n", status: 1,
                                               shown: "xrandr", outputs: nil, environment: ["DISPLAY": ":5"])
        #expect(x.message == "xrandr cannot reach an X server (DISPLAY=:5)")
        // As a service the socket is hidden until the installer's X11 drop-in binds it in.
        #expect(x.fix?.contains("--x-display :0") == true)
    }

    /// Real xrandr 1.5 (libX11 1.8) against an X server started with -auth (Xvfb 21.1 here,
    /// Xorg 21.1 in scripts/service-vm-test): the server was reached but refused xrandr, which
    /// must not read as "cannot reach an X server".
    @Test func aServerThatRefusesTheCookieIsNotAMissingServer() {
        let none = RotationToolDiagnosis.diagnose(program: "xrandr", output: "Virtual-1",
                                                  text: "Authorization required, but no authorization protocol specified\n\nCan't open display :0\n",
                                                  status: 1, shown: "xrandr --output Virtual-1 --rotate left", outputs: nil,
                                                  environment: ["DISPLAY": ":0"])
        #expect(none.message == "the X server (DISPLAY=:0) refused xrandr: no valid cookie "
                + "(XAUTHORITY is not set; xrandr: Authorization required, but no authorization protocol specified)")
        #expect(none.fix?.contains("--x-display :0") == true)
        #expect(none.fix?.contains("~/.Xauthority") == true)
        let wrong = RotationToolDiagnosis.diagnose(program: "xrandr", output: "Virtual-1",
                                                   text: "Invalid MIT-MAGIC-COOKIE-1 key\nCan't open display :0\n", status: 1,
                                                   shown: "xrandr --output Virtual-1 --rotate left", outputs: nil,
                                                   environment: ["DISPLAY": ":0", "XAUTHORITY": "/home/pi/.Xauthority"])
        #expect(wrong.message == "the X server (DISPLAY=:0) refused xrandr: no valid cookie "
                + "(XAUTHORITY=/home/pi/.Xauthority; xrandr: Invalid MIT-MAGIC-COOKIE-1 key)")
        let old = RotationToolDiagnosis.diagnose(program: "xrandr", output: "HDMI-1", text: "No protocol specified\nCan't open display :0\n",
                                                 status: 1, shown: "xrandr", outputs: nil, environment: [:])
        #expect(old.message.hasPrefix("the X server (DISPLAY is not set) refused xrandr"))
    }

    @Test func aServerThatCannotRotateAndOtherFailuresKeepTheToolsWords() {
        let r = RotationToolDiagnosis.diagnose(program: "xrandr", output: "screen", text: "/usr/bin/xrandr: output screen cannot use rotation \"left\" reflection \"none\"\n",
                                               status: 1, shown: "xrandr --output screen --rotate left", outputs: ["screen"], environment: [:])
        #expect(r.message == "the X server cannot rotate output screen (xrandr: output screen cannot use rotation \"left\" reflection \"none\")")
        let other = RotationToolDiagnosis.diagnose(program: "wlr-randr", output: "HEADLESS-1", text: "failed to apply configuration\n", status: 1,
                                                   shown: "wlr-randr --output HEADLESS-1 --on --transform 90", outputs: ["HEADLESS-1"], environment: [:])
        #expect(other.message == "'wlr-randr --output HEADLESS-1 --on --transform 90' exited with status 1 (wlr-randr: failed to apply configuration)")
        #expect(other.fix == nil)
    }
}
