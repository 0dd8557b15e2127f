import Foundation
import PlumbHAL
import Testing
@testable import PlumbLinux

@Suite struct SysfsLEDTests {
    private func makeTree(_ leds: [(String, Int)]) throws -> String {
        let root = NSTemporaryDirectory() + "plumb-leds-" + UUID().uuidString
        for (name, max) in leds {
            try FileManager.default.createDirectory(atPath: "\(root)/\(name)", withIntermediateDirectories: true)
            try "\(max)\n".write(toFile: "\(root)/\(name)/max_brightness", atomically: true, encoding: .utf8)
            try "0\n".write(toFile: "\(root)/\(name)/brightness", atomically: true, encoding: .utf8)
            try "none [mmc0] timer heartbeat\n".write(toFile: "\(root)/\(name)/trigger", atomically: true, encoding: .utf8)
        }
        return root
    }

    private func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func switchesBetweenZeroAndMaxBrightnessAfterClearingTheTrigger() throws {
        let root = try makeTree([("ACT", 255), ("PWR", 1)])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let act = try SysfsLED("ACT", root: root)
        #expect(try read("\(root)/ACT/trigger") == "none\n")
        try act.set(true)
        #expect(try read("\(root)/ACT/brightness") == "255\n")
        try act.set(false)
        #expect(try read("\(root)/ACT/brightness") == "0\n")
        let pwr = try SysfsLED("PWR", root: root, clearTrigger: false)
        try pwr.set(true)
        #expect(try read("\(root)/PWR/brightness") == "1\n")
        #expect(try read("\(root)/PWR/trigger") == "none [mmc0] timer heartbeat\n")
    }

    @Test func missingLEDListsTheOnesThere() throws {
        let root = try makeTree([("ACT", 255), ("PWR", 255)])
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(throws: GPIOError(.lineNotFound, errno: ENOENT, message: "no LED \"led0\" in \(root) (found: ACT, PWR)")) {
            try SysfsLED("led0", root: root)
        }
    }
}
