import Foundation
import PlumbDisplay
import Testing
@testable import PlumbCLI

/// A rotation tool, read-back or command that hangs is stopped at ``SystemActionRunner/deadline``:
/// it was waited for without end, inside `plumb run`'s loop, so a compositor that froze (a
/// wlr-randr read-back every 5 s) or a kiosk command stuck on something held up the sensor, every
/// output and systemd's watchdog pings (the service would be killed without putting the screen back).
@Suite struct KioskDeadlineTests {
    let runner = SystemActionRunner(environment: ["PATH": "/usr/bin:/bin"])

    /// A command (sh, and the sleep it started) that hangs: stopped, group and all, and told with the fix.
    @Test func aHungCommandIsStoppedAtTheDeadline() throws {
        let pids = NSTemporaryDirectory() + "plumb-kiosk-deadline-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: pids) }
        let started = Date()
        var message = ""
        do {
            try runner.perform(.shell(command: "sleep 60 & echo $! > '\(pids)'; wait", environment: [:]))
            Issue.record("a hung command returned")
        } catch CLIError.failure(let text, let fix) {
            message = text
            #expect(fix?.contains("returns at once") == true)
        }
        // Bounds, not timings: 3 s and 1 s of grace, on a loaded machine.
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(message.contains("did not finish within 3 s and was stopped"), "\(message)")
        if let sleep = (try? String(contentsOfFile: pids, encoding: .utf8)).flatMap({ pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) {
            let deadline = Date().addingTimeInterval(10)
            while isRunning(sleep), Date() < deadline { usleep(20_000) }
            #expect(!isRunning(sleep), "the command's sleep still runs")
        } else {
            Issue.record("the command did not start")
        }
    }

    /// A read-back (captured output) whose program hangs while a child holds its output open.
    @Test func aHungReadBackIsStoppedAtTheDeadline() throws {
        let started = Date()
        #expect(throws: CLIError.self) { _ = try runner.capture(.run(program: "/bin/sh", arguments: ["-c", "echo HDMI-A-1; sleep 60 & wait"], environment: [:])) }
        #expect(Date().timeIntervalSince(started) < 30)
        // A quick one still works.
        #expect(try runner.capture(.run(program: "/bin/sh", arguments: ["-c", "echo HDMI-A-1"], environment: [:])) == "HDMI-A-1\n")
    }
}
