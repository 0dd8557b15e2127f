import PlumbHAL
import PlumbLinux
import PlumbOrientation

/// `outputs.leds`: LEDs of the Linux LED class (PlumbLinux's ``SysfsLED``) that show the device
/// orientation. The LED named for the current orientation is on, every other mapped LED off;
/// orientations without an LED turn them all off; an LED is written only when it changes
/// (``ChangedOnlyOutput``). At start each LED is taken over (``SysfsLED/takeOver()``: its
/// trigger and brightness saved, the trigger set to none); restoring gives them back (so the ACT
/// LED blinks for the SD card again).
final class LEDDaemonOutput: DaemonOutput {
    let name: String
    let map: [DeviceOrientation: String]
    private let leds: [(name: String, led: SysfsLED, output: ChangedOnlyOutput, saved: SysfsLED.SavedState)]

    /// - Parameters:
    ///   - map: which LED (a name under `root`) shows which orientation.
    ///   - root: the LED class directory (a temporary one in tests).
    init(map: [DeviceOrientation: String], root: String = "/sys/class/leds") throws {
        self.map = map
        var leds: [(name: String, led: SysfsLED, output: ChangedOnlyOutput, saved: SysfsLED.SavedState)] = []
        for name in Set(map.values).sorted() {
            do {
                let led = try SysfsLED(name, root: root, clearTrigger: false)
                leds.append((name, led, ChangedOnlyOutput(led), try led.takeOver()))
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
            do { try entry.output.set(entry.name == lit) } catch { throw CLIError.failure(error.description, fix: nil) }
        }
    }

    func restore() throws {
        for entry in leds {
            entry.output.forget()
            do { try entry.led.giveBack(entry.saved) } catch { throw CLIError.failure(error.description, fix: nil) }
        }
    }
}
