import Testing
@testable import PlumbCLI

/// The options that set a frame pacer's rate (`plumb level` and `led --rate`) and a simulation's
/// pace (`plumb watch`, `kiosk` and `dbus --speed`) refuse 0, a negative, a not-a-number and an
/// infinite value as usage errors naming the option and its range, before any ``FramePacer`` or
/// ``VirtualTimePacer`` is made (whose own initialisers hold such values since: PlumbDisplay's
/// FramePacerRangeTests, PlumbHAL's VirtualTimePacerTests). `inf` was told as "expected a number",
/// the range left unsaid.
@Suite struct PacingOptionRangeTests {
    static let commands: [(command: [String], option: String, range: String)] = [
        (["level", "--simulate", "--png", "/dev/null"], "rate", "0.1...1000.0"),
        (["led", "--simulate", "--leds", "ACT"], "rate", "0.1...1000.0"),
        (["watch", "--simulate"], "speed", "0.01...1000.0"),
        (["kiosk", "--simulate", "--dry-run"], "speed", "0.01...1000.0"),
        (["dbus", "--simulate"], "speed", "0.001...1000.0"),
    ]

    @Test(arguments: 0..<commands.count)
    func aPaceOutOfRangeIsAUsageError(_ index: Int) {
        let (command, option, range) = Self.commands[index]
        for value in ["0", "-1", "nan", "inf", "-inf"] {
            let r = runPlumb(command + ["--\(option)", value])
            #expect(r.status == 64, "\(command) \(value)")
            let expected = value == "nan" ? "a number" : range
            #expect(r.err.hasPrefix("Error: The value '\(value)' is invalid for '--\(option)': expected \(expected).\nUsage: plumb \(command[0]) "),
                    "\(r.err)")
        }
    }
}
