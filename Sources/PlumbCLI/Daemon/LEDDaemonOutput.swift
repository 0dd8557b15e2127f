import Foundation
import PlumbOrientation

/// `outputs.leds`: LEDs of the Linux LED class that show the device orientation. The LED named
/// for the current orientation is on, every other mapped LED off; orientations without an LED
/// turn them all off. At start each LED's trigger and brightness are saved, and restoring puts
/// them back (so the ACT LED blinks for the SD card again).
///
/// Files: `/sys/class/leds/<name>/brightness` (0...max_brightness) and `trigger` (the selected
/// one in brackets); writing a brightness disables a timer trigger (Documentation/leds/leds-class.rst).
final class LEDDaemonOutput: DaemonOutput {
    let name: String
    let map: [DeviceOrientation: String]
    let directory: String
    private let leds: [String]
    private var saved: [String: (trigger: String?, brightness: String)] = [:]
    private var maxBrightness: [String: String] = [:]

    /// - Parameters:
    ///   - map: which LED shows which orientation.
    ///   - directory: the LED class directory (a temporary one in tests).
    init(map: [DeviceOrientation: String], directory: String = "/sys/class/leds") throws {
        self.map = map
        self.directory = directory
        leds = Array(Set(map.values)).sorted()
        name = "LEDs " + leds.joined(separator: ", ")
        for led in leds {
            let base = "\(directory)/\(led)"
            guard FileManager.default.fileExists(atPath: base + "/brightness") else {
                let present: String
                do { present = try FileManager.default.contentsOfDirectory(atPath: directory).sorted().joined(separator: ", ") } catch {
                    present = "cannot list: \(error.localizedDescription)"
                }
                throw CLIError.failure("no LED \(led) in \(directory) (present: \(present))",
                                       fix: "Name LEDs that 'ls \(directory)' lists in outputs.leds.map.")
            }
            let trigger = try read(base + "/trigger").flatMap(Self.selectedTrigger)
            saved[led] = (trigger, try read(base + "/brightness") ?? "0")
            maxBrightness[led] = try read(base + "/max_brightness") ?? "1"
        }
    }

    /// The trigger in brackets in a `trigger` file: "none [mmc0] timer" → "mmc0".
    static func selectedTrigger(_ text: String) -> String? {
        guard let open = text.firstIndex(of: "["), let close = text[open...].firstIndex(of: "]") else { return nil }
        return String(text[text.index(after: open)..<close])
    }

    func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws {
        let lit = map[orientation]
        for led in leds { try write(led, "brightness", led == lit ? maxBrightness[led] ?? "1" : "0") }
    }

    func restore() throws {
        for led in leds {
            guard let state = saved[led] else { continue }
            if let trigger = state.trigger, trigger != "none" {
                try write(led, "trigger", trigger)
            } else {
                try write(led, "brightness", state.brightness)
            }
        }
    }

    private func read(_ path: String) throws -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            throw CLIError.failure("cannot read \(path): \(error.localizedDescription)", fix: nil)
        }
    }

    /// Writes like `echo value > file` (open with O_TRUNC, one write).
    private func write(_ led: String, _ file: String, _ value: String) throws {
        let path = "\(directory)/\(led)/\(file)"
        do { try Data((value + "\n").utf8).write(to: URL(fileURLWithPath: path)) } catch {
            throw CLIError.failure("cannot write \(value) to \(path): \(error.localizedDescription)",
                                   fix: "The LED output needs the udev rule from scripts/install (gpio group) or root.")
        }
    }
}
