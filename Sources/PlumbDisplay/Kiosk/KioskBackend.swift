import PlumbOrientation

/// One thing to do to rotate a screen: run a program, or write a file (sysfs).
public enum RotationAction: Sendable, Equatable, CustomStringConvertible {
    /// Runs `program` (looked up on PATH unless it contains a slash) with `arguments`, adding
    /// `environment` to the inherited environment.
    case run(program: String, arguments: [String], environment: [String: String])
    /// Runs a shell command line with `/bin/sh -c`, adding `environment`.
    case shell(command: String, environment: [String: String])
    /// Writes `contents` to the file at `path`.
    case write(path: String, contents: String)

    public var description: String {
        switch self {
        case .run(let program, let arguments, _): return ([program] + arguments).joined(separator: " ")
        case .shell(let command, _): return "sh -c \(command)"
        case .write(let path, let contents): return "echo \(contents) > \(path)"
        }
    }
}

/// How a kiosk's screen is rotated.
///
/// Each backend maps the interface orientation's content rotation (counter-clockwise degrees,
/// ``InterfaceOrientation/rotationDegrees``: portrait 0, landscapeLeft 90, portraitUpsideDown 180,
/// landscapeRight 270) to its own vocabulary:
///
/// | content rotation (CCW) | wlr-randr `--on --transform` | xrandr `--rotate` | fbcon `rotate_all` |
/// |---|---|---|---|
/// | 0 | normal | normal | 0 |
/// | 90 | 90 | left | 3 (counter-clockwise) |
/// | 180 | 180 | inverted | 2 |
/// | 270 | 270 | right | 1 (clockwise) |
///
/// wl_output's transform values are counter-clockwise (wayland.xml, "90 degrees counter-clockwise");
/// xrandr's `left` turns the picture counter-clockwise; fbcon's 1 is clockwise and 3
/// counter-clockwise (Documentation/fb/fbcon.rst). Checked against the real tools
/// (scripts/test.d/70-kiosk-real): after `wlr-randr --transform 90` sway 1.7's IPC reports the
/// output's transform as "270", sway's clockwise name for the protocol's counter-clockwise 90,
/// so the value wlr-randr sends is the protocol's. That wlr-randr 90 and xrandr left look the
/// same on a Raspberry Pi has not been checked on hardware; ``quarterTurnsReversed`` swaps
/// 90 and 270 for a setup where they come out the wrong way round.
public struct KioskBackend: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case wlrRandr = "wlr-randr"
        case xrandr
        case fbcon
        case command
    }

    public var kind: Kind
    /// The output (connector) name for wlr-randr and xrandr, such as "HDMI-A-1" or "HDMI-1".
    public var output: String?
    /// The shell command for `.command`; it sees the orientation in its environment.
    public var command: String?
    /// The fbcon class directory (replaceable for tests). Default /sys/class/graphics/fbcon.
    public var fbconDirectory: String = "/sys/class/graphics/fbcon"
    /// Swap 90° and 270° (for a compositor or panel whose quarter turns come out reversed).
    public var quarterTurnsReversed = false

    public init(kind: Kind, output: String? = nil, command: String? = nil) {
        self.kind = kind; self.output = output; self.command = command
    }

    /// The output the tool is told to turn: ``output``, or the usual first HDMI connector's name
    /// (HDMI-A-1 under a Wayland compositor, HDMI-1 under the X server's modesetting driver).
    public var outputName: String { output ?? (kind == .xrandr ? "HDMI-1" : "HDMI-A-1") }

    /// Counter-clockwise degrees of content rotation for `orientation` (0, 90, 180, 270).
    public func degrees(for orientation: InterfaceOrientation) -> Int {
        let d = orientation.rotationDegrees
        return quarterTurnsReversed && (d == 90 || d == 270) ? 360 - d : d
    }

    /// What to do to show `orientation`.
    public func action(for orientation: InterfaceOrientation) -> RotationAction {
        let d = degrees(for: orientation)
        switch kind {
        case .wlrRandr:
            // `--on`: wlr-randr sends the whole head state back, and for a head the compositor reports
            // as disabled it sends "disable" and drops the transform. sway 1.7 reports every output
            // without a fixed mode that way (headless and virtual outputs, such as a wayvnc kiosk's
            // HEADLESS-1), so a bare `--transform` fails there ("failed to apply configuration",
            // seen with wlr-randr 0.2.0 on sway 1.7 headless). A kiosk's screen is meant to be on;
            // a screen blanked by DPMS (wlopm) stays enabled and is not woken by this.
            return .run(program: "wlr-randr", arguments: ["--output", outputName, "--on", "--transform", Self.wlrTransform(d)], environment: [:])
        case .xrandr:
            return .run(program: "xrandr", arguments: ["--output", outputName, "--rotate", Self.xrandrRotation(d)], environment: [:])
        case .fbcon:
            return .write(path: fbconDirectory + "/rotate_all", contents: String(Self.fbconRotate(d)))
        case .command:
            return .shell(command: command ?? "true", environment: environment(for: orientation))
        }
    }

    /// The variables a `.command` backend's command sees.
    public func environment(for orientation: InterfaceOrientation) -> [String: String] {
        let d = degrees(for: orientation)
        return [
            "PLUMB_INTERFACE_ORIENTATION": orientation.rawValue,
            "PLUMB_ROTATION_DEGREES": String(d),
            "PLUMB_WLR_TRANSFORM": Self.wlrTransform(d),
            "PLUMB_XRANDR_ROTATION": Self.xrandrRotation(d),
            "PLUMB_FBCON_ROTATE": String(Self.fbconRotate(d)),
        ]
    }

    /// How to ask the tool what the output shows now (``shownRotation(inListing:)`` reads the
    /// answer), or `nil` for backends whose state nothing else changes (fbcon) or cannot be read
    /// (a command).
    public var listingAction: RotationAction? {
        switch kind {
        case .wlrRandr: return .run(program: "wlr-randr", arguments: [], environment: [:])
        case .xrandr: return .run(program: "xrandr", arguments: ["--query"], environment: [:])
        case .fbcon, .command: return nil
        }
    }

    /// What ``output`` shows in a listing from ``listingAction``, in the backend's own word
    /// ("90", "left", "normal"); `nil` when the listing does not say: the output is not in it, or
    /// it is off (wlr-randr also reports sway's headless outputs as disabled, transform and all).
    ///
    /// wlr-randr (0.2, 0.3) prints a line per head that starts with its name, then indented
    /// details, among them `  Enabled: yes|no` and, for an enabled head only, `  Transform: T`
    /// with T from wl_output's transform names (wlr-randr main.c, print_state). xrandr --query
    /// prints `NAME connected [primary] WxH+X+Y [left|inverted|right] [X axis|Y axis] (normal left
    /// inverted right x axis y axis) ...`: the rotation word only when it is not normal, and no
    /// geometry at all while the output is off (xrandr.c, the output's summary line).
    public func shownRotation(inListing listing: String) -> String? {
        let name = outputName
        // Read on Unicode scalars (ListingText); only a line starting in column 0 names an output.
        let lines = ListingText.lines(listing)
        func names(_ line: String) -> Bool { !ListingText.isIndented(line) && ListingText.fields(line).first == name }
        switch kind {
        case .wlrRandr:
            guard let start = lines.firstIndex(where: names) else { return nil }
            for line in lines[(start + 1)...] {
                guard ListingText.isIndented(line) else { break }
                if let transform = ListingText.value(after: "Transform: ", in: line) { return transform }
            }
            return nil
        case .xrandr:
            guard let line = lines.first(where: names) else { return nil }
            let fields = ListingText.fields(line)
            guard fields.count > 1, fields[1] == "connected" else { return nil }
            // The fields before the list of rotations the output can take.
            let summary = fields.prefix { $0.unicodeScalars.first != "(" }
            guard summary.contains(where: { $0.unicodeScalars.contains("+") && $0.unicodeScalars.contains("x") }) else { return nil }
            return summary.first { ["left", "inverted", "right"].contains($0) } ?? "normal"
        case .fbcon, .command:
            return nil
        }
    }

    /// The word ``shownRotation(inListing:)`` gives for a screen showing `orientation`.
    public func shownWord(for orientation: InterfaceOrientation) -> String {
        let d = degrees(for: orientation)
        return kind == .xrandr ? Self.xrandrRotation(d) : Self.wlrTransform(d)
    }

    static func wlrTransform(_ degrees: Int) -> String { degrees == 0 ? "normal" : String(degrees) }

    static func xrandrRotation(_ degrees: Int) -> String {
        switch degrees {
        case 90: return "left"
        case 180: return "inverted"
        case 270: return "right"
        default: return "normal"
        }
    }

    /// FB_ROTATE_UR 0, FB_ROTATE_CW 1, FB_ROTATE_UD 2, FB_ROTATE_CCW 3 (<linux/fb.h>).
    static func fbconRotate(_ degrees: Int) -> Int {
        switch degrees {
        case 90: return 3
        case 180: return 2
        case 270: return 1
        default: return 0
        }
    }
}
