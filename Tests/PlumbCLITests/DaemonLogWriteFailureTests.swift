import Foundation
import Testing

/// `plumb run`'s log (standard error) that cannot be written drops lines: the daemon ended by
/// SIGPIPE at its first line after the reader went away (`plumb run 2>&1 | head`, a journal
/// that restarted), leaving the screen turned and the LEDs lit, and systemd counts SIGPIPE as a
/// clean exit, so `Restart=on-failure` did not start it again (resource audit).
@Suite struct DaemonLogWriteFailureTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: plumbBinary), "needs the plumb binary (swift build)"))
    func aLogNobodyReadsDoesNotEndTheDaemon() throws {
        let directory = NSTemporaryDirectory() + "plumb-log-epipe-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let turns = directory + "/turns.log" // the kiosk's turns, if any: an output the daemon drives
        let config = directory + "/plumb.json"
        try Data(#"{"outputs": {"kiosk": {"method": "command", "command": "echo $PLUMB_INTERFACE_ORIENTATION >> '\#(turns)'", "holdOff": 1}}}"#.utf8)
            .write(to: URL(fileURLWithPath: config))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: plumbBinary)
        process.arguments = ["run", "--simulate", "--config", config, "--duration", "4", "--log-format", "plain"]
        process.environment = ["PATH": "/usr/bin:/bin", "PLUMB_BOARDS_DIR": "/nonexistent-plumb-boards"]
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        // Nobody reads the log: its first line meets EPIPE.
        try pipe.fileHandleForReading.close()
        let started = Date()
        try process.run()
        try? pipe.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0,
                "\(process.terminationReason) \(process.terminationStatus)")
        // It ran to its end (--duration counts wall-clock time under --simulate, paced to real time).
        #expect(Date().timeIntervalSince(started) >= 3.5)
    }
}
