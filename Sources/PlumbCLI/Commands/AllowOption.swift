import PlumbConfiguration
import PlumbOrientation

/// `--allow LIST`: `orientation.interfaceOrientations` on the command line, as `plumb kiosk` (the
/// orientations the screen may take) and `plumb watch` (the interface orientations printed) take
/// it: one parser, one check, one error text, and one place the list goes on the board's IMU.
enum AllowOption {
    /// The option, with the command's own help text.
    static func spec(help: String) -> OptionSpec {
        .option("allow", value: "LIST", help: help)
    }

    /// `--allow LIST` in the order given, each orientation once, or `nil` without it. A name that
    /// is not an interface orientation, or a list naming none, is a usage error naming the
    /// value and what is expected. The first named matters where a list's order does: it is the
    /// interface shown before an allowed face is seen when portrait is not allowed
    /// (``DaemonFactory/initialInterface(_:)``).
    static func parse(_ args: ParsedArguments) throws(CLIError) -> [InterfaceOrientation]? {
        guard let list = args.string("allow") else { return nil }
        var allowed: [InterfaceOrientation] = []
        for name in list.split(separator: ",").map({ String($0).trimmingCharacters() }) {
            guard let o = InterfaceOrientation(rawValue: name) else {
                throw CLIError.usage("The value '\(name)' is invalid for '--allow': expected portrait, portraitUpsideDown, landscapeLeft or landscapeRight.")
            }
            if !allowed.contains(o) { allowed.append(o) }
        }
        guard !allowed.isEmpty else {
            throw CLIError.usage("The value '\(list)' is invalid for '--allow': name at least one of portrait, portraitUpsideDown, landscapeLeft, landscapeRight.")
        }
        return allowed
    }

    /// Puts `allowed` in `orientation.interfaceOrientations`, in its order, where a command on
    /// the board's IMU reads it (``DaemonFactory/interfaceOrientations(_:)``).
    static func apply(_ allowed: [InterfaceOrientation], to orientation: inout OrientationSettings) {
        orientation.interfaceOrientations = allowed.compactMap { InterfaceOrientationName(rawValue: $0.rawValue) }
    }
}
