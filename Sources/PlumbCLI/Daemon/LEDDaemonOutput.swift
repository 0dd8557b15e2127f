import PlumbLinux
import PlumbOrientation

/// `outputs.leds`: LEDs of the Linux LED class (PlumbLinux's ``SysfsLED``) that show the device
/// orientation. The LED named for the current orientation is on, every other mapped LED off;
/// orientations without an LED turn them all off. At start each LED's trigger and brightness
/// are saved and the trigger set to none; restoring gives them back (so the ACT LED blinks for
/// the SD card again).
final class LEDDaemonOutput: DaemonOutput {
    let name: String
    let map: [DeviceOrientation: String]
    private let leds: [(name: String, led: SysfsLED, trigger: String?, brightness: Int)]

    /// - Parameters:
    ///   - map: which LED (a name under `root`) shows which orientation.
    ///   - root: the LED class directory (a temporary one in tests).
    init(map: [DeviceOrientation: String], root: String = "/sys/class/leds") throws {
        self.map = map
        var leds: [(name: String, led: SysfsLED, trigger: String?, brightness: Int)] = []
        for name in Set(map.values).sorted() {
            do {
                let led = try SysfsLED(name, root: root, clearTrigger: false)
                let saved = (name, led, try led.readTrigger(), try led.readBrightness())
                try led.setTrigger("none")
                leds.append(saved)
            } catch {
                throw CLIError.failure(error.description, fix: "Name LEDs that 'ls \(root)' lists in outputs.leds.map; writing them needs the udev rule from scripts/install (gpio group).")
            }
        }
        self.leds = leds
        name = "LEDs " + leds.map(\.name).joined(separator: ", ")
    }

    func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws {
        let lit = map[orientation]
        for entry in leds {
            do { try entry.led.set(entry.name == lit) } catch { throw CLIError.failure(error.description, fix: nil) }
        }
    }

    func restore() throws {
        for entry in leds {
            do {
                if let trigger = entry.trigger, trigger != "none" {
                    try entry.led.setTrigger(trigger)
                } else {
                    try entry.led.setBrightness(entry.brightness)
                }
            } catch {
                throw CLIError.failure(error.description, fix: nil)
            }
        }
    }
}
