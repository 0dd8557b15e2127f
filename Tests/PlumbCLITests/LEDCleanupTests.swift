import Foundation
import PlumbDisplay
import PlumbHAL
import Testing
@testable import PlumbCLI

/// `plumb led` puts back what it took, however it ends (the resource audit): sysfs LEDs get
/// their triggers back (ACT showed no SD activity again until reboot), and an LED is written only
/// when it changes.
@Suite("LED clean-up")
struct LEDCleanupTests {
    /// An LED class directory: each LED at brightness 0 with the SD card's trigger, as ACT is.
    func makeLEDs(_ names: [String]) throws -> String {
        let root = NSTemporaryDirectory() + "plumb-led-cleanup-" + UUID().uuidString
        for name in names {
            try FileManager.default.createDirectory(atPath: "\(root)/\(name)", withIntermediateDirectories: true)
            try "255\n".write(toFile: "\(root)/\(name)/max_brightness", atomically: true, encoding: .utf8)
            try "0\n".write(toFile: "\(root)/\(name)/brightness", atomically: true, encoding: .utf8)
            try "none [mmc0] timer\n".write(toFile: "\(root)/\(name)/trigger", atomically: true, encoding: .utf8)
        }
        return root
    }

    func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "(unreadable)" }

    @Test func aNormalEndGivesTheTriggersBack() throws {
        let names = ["up", "right", "down", "left"]
        let root = try makeLEDs(names)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let r = runPlumb(["led", "--simulate", "--no-pacing", "--mode", "arrow", "--leds", names.joined(separator: ","),
                          "--sysfs-root", root, "--duration", "15"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains(" s  up\n"), "\(r.out)")
        for name in names {
            #expect(read("\(root)/\(name)/trigger") == "mmc0\n", "\(name)")
        }
    }

    /// The second LED is missing: the first, already taken over, is given back before the error.
    @Test func anLEDThatCannotBeOpenedGivesTheOthersBack() throws {
        let root = try makeLEDs(["ACT"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let r = runPlumb(["led", "--simulate", "--no-pacing", "--leds", "ACT,led1", "--sysfs-root", root])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: no LED \"led1\" in \(root) (found: ACT)\n"), "\(r.err)")
        #expect(read("\(root)/ACT/trigger") == "mmc0\n")
    }

    final class CountingOutput: DigitalOutput {
        let name: String
        var writes: [Bool] = []
        init(_ name: String) { self.name = name }
        func set(_ active: Bool) throws(GPIOError) { writes.append(active) }
    }

    /// 50 frames at a fixed tilt: each LED is written when it first shows and when it goes off at
    /// the end, not 50 times.
    @Test func eachLEDIsWrittenOnlyWhenItChanges() throws {
        let outputs = ["up", "right", "down", "left"].map(CountingOutput.init)
        let context = CommandContext.capturing()
        try LED.drive(FixedGravity(.turned(by: 30 * .pi / 180)), outputs: outputs, mode: .arrow, frames: 50,
                      pacer: FramePacer(clock: VirtualClock(), rate: 10), context: context)
        let lit = TiltIndicator.arrow(.turned(by: 30 * .pi / 180))
        for (output, on) in zip(outputs, lit) {
            #expect(output.writes == (on ? [true, false] : [false]), "\(output.name)")
        }
    }
}
