import Foundation

/// Turns what `wlr-randr` or `xrandr` printed when a rotation failed into one clear sentence and
/// the fix, naming the outputs that exist.
///
/// The tools' own words, as seen on Debian 12 (scripts/test.d/70-kiosk-real runs them against sway
/// 1.7 headless and Xvfb 21.1): wlr-randr 0.2.0 prints "failed to connect to display" without a
/// compositor and "unknown output NAME" (status 1) for a wrong name; xrandr 1.5 prints "Can't open
/// display" without an X server, and for a wrong name only "warning: output NAME not found;
/// ignoring" with status 0, so a wrong name would pass for a turned screen unless that line is
/// read; a driver that cannot rotate gives "output NAME cannot use rotation ...". An X server that
/// is there but refuses the client (libX11 1.8 against Xorg 21.1 with `-auth`, as a display manager
/// starts it) prints its reason before "Can't open display": "Authorization required, but no
/// authorization protocol specified" without a cookie (older libX11: "No protocol specified") and
/// "Invalid MIT-MAGIC-COOKIE-1 key" with a wrong one.
public struct RotationToolDiagnosis: Sendable, Equatable {
    public var message: String
    public var fix: String?

    public init(message: String, fix: String?) { self.message = message; self.fix = fix }

    /// Whether `text` (the tool's stdout and stderr) says the command did nothing although the
    /// tool exited with status 0 (xrandr's "not found; ignoring").
    public static func failedDespiteSuccess(program: String, text: String) -> Bool {
        program == "xrandr" && text.contains("not found; ignoring")
    }

    /// The diagnosis of a failed `program --output output ...`.
    ///
    /// - Parameters:
    ///   - text: what the tool printed (stdout and stderr).
    ///   - status: its exit status.
    ///   - shown: the command line, for the message.
    ///   - outputs: the outputs the tool lists (``outputNames(program:listing:)``), nil if the
    ///     listing could not be had.
    ///   - environment: the tool's environment, to name WAYLAND_DISPLAY, XDG_RUNTIME_DIR or DISPLAY.
    public static func diagnose(program: String, output: String?, text: String, status: Int32, shown: String,
                                outputs: [String]?, environment: [String: String]) -> RotationToolDiagnosis {
        let said = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }.joined(separator: "; ")
        // xrandr starts its messages with its argv[0] ("/usr/bin/xrandr: output ..."): named once.
        var plain = Substring(said)
        if let colon = said.range(of: ": "), said[..<colon.lowerBound].split(separator: "/").last.map(String.init) == program {
            plain = said[colon.upperBound...]
        }
        let words = plain.isEmpty ? "" : " (\(program): \(plain))"
        // "DISPLAY=:0", or "DISPLAY is not set": what the tool was given, for the message.
        func setting(_ name: String) -> String { environment[name].map { "\(name)=\($0)" } ?? "\(name) is not set" }
        if program == "wlr-randr" && text.contains("failed to connect to display") {
            return RotationToolDiagnosis(
                message: "wlr-randr cannot reach a Wayland compositor (\(setting("WAYLAND_DISPLAY")), \(setting("XDG_RUNTIME_DIR")))",
                fix: "Run plumb in the desktop session, or set WAYLAND_DISPLAY and XDG_RUNTIME_DIR to the compositor's socket ('ls /run/user/$(id -u <desktop user>)/wayland-*'); as a service, install with 'sudo scripts/install --kiosk-user <desktop user>'.")
        }
        if program == "xrandr", let refusal = text.split(separator: "\n").first(where: { line in
            Self.xAuthorizationRefusals.contains { line.contains($0) }
        }) {
            // Reached, but refused: the X server wants the session's cookie.
            return RotationToolDiagnosis(
                message: "the X server (\(setting("DISPLAY"))) refused xrandr: no valid cookie (\(setting("XAUTHORITY")); xrandr: \(refusal.trimmingCharacters(in: .whitespaces)))",
                fix: "Set XAUTHORITY to the X session's cookie file: the desktop user's ~/.Xauthority with lightdm or startx "
                    + "('ps -o args= -C Xorg' shows the server's own -auth file); as a service, install with "
                    + "'sudo scripts/install --kiosk-user <desktop user> --x-display :0' (--xauthority FILE for another file).")
        }
        if program == "xrandr" && text.contains("Can't open display") {
            return RotationToolDiagnosis(
                message: "xrandr cannot reach an X server (\(setting("DISPLAY")))",
                fix: "Run plumb in the X session, or set DISPLAY (and XAUTHORITY) to the session's, e.g. DISPLAY=:0; as a service, "
                    + "install with 'sudo scripts/install --kiosk-user <desktop user> --x-display :0', which also lets the sandbox "
                    + "see the server's socket in /tmp/.X11-unix.")
        }
        let unknown = program == "wlr-randr" ? text.contains("unknown output") : text.contains("not found; ignoring")
        // Also a name the listing lacks, whatever the tool said.
        let missing = output.flatMap { name in outputs.map { !$0.contains(name) } } ?? false
        if unknown || missing {
            let name = output ?? "?"
            let available = outputs.map { $0.isEmpty ? "none" : $0.joined(separator: ", ") }
            let first = outputs?.first
            return RotationToolDiagnosis(
                message: "there is no output \(name); \(program) lists: \(available ?? "(could not list them)")",
                fix: first.map { "Name one of them: --output \($0) (or \"output\": \"\($0)\" in outputs.kiosk)." }
                    ?? "Check that the screen is connected and on; '\(program)' with no arguments lists the outputs.")
        }
        if text.contains("cannot use rotation") {
            return RotationToolDiagnosis(
                message: "the X server cannot rotate output \(output ?? "?")\(words)",
                fix: "Use a driver that rotates (on a Raspberry Pi, the KMS driver: dtoverlay=vc4-kms-v3d), or the fbcon or command backend.")
        }
        return RotationToolDiagnosis(message: "'\(shown)' exited with status \(status)\(words)", fix: nil)
    }

    /// What libX11 prints when the X server refuses the connection for want of a valid cookie.
    static let xAuthorizationRefusals = ["Authorization required", "No protocol specified", "Invalid MIT-MAGIC-COOKIE-1 key"]

    /// The output names in a listing: `wlr-randr` with no arguments (a line per head that starts
    /// with its name, details indented below) or `xrandr --query` (lines "NAME connected ..." and
    /// "NAME disconnected ..."; only connected ones count).
    public static func outputNames(program: String, listing: String) -> [String] {
        var names: [String] = []
        // Read on Unicode scalars (ListingText): lines, blanks and indentation as the tool prints them.
        for line in ListingText.lines(listing) where !line.isEmpty && !ListingText.isIndented(line) {
            let fields = ListingText.fields(line)
            guard let name = fields.first else { continue }
            if program == "xrandr" {
                if fields.count > 1 && fields[1] == "connected" { names.append(name) }
            } else {
                names.append(name)
            }
        }
        return names
    }
}
