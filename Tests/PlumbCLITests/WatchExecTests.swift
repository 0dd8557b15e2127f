import Foundation
import Testing
@testable import PlumbCLI
import PlumbOrientation

/// `plumb watch --exec CMD` (``WatchExec``): the command runs off the printing path, one run at a
/// time with the latest change, is stopped with its process group at the end, and a command the
/// shell cannot find or execute is told once with its fix. The simulated tour's first two
/// changes are faceUp at 0.274 s and portrait at 5.433 s.
@Suite("plumb watch --exec")
struct WatchExecTests {
    let environment = ["PATH": "/usr/bin:/bin"]

    func temporaryPath(_ suffix: String) -> String {
        NSTemporaryDirectory() + "plumb-watch-exec-\(UUID().uuidString)\(suffix)"
    }

    /// The audit's `--exec 'sleep 30'`, shortened: the old code printed the first change, ran
    /// the command to its end, then the next (16 s here, 60 s there).
    @Test func aSlowCommandHoldsBackNoChangeAndIsStoppedAtTheEnd() {
        let started = Date()
        let r = runPlumb(["watch", "--simulate", "--duration", "10", "--format", "text", "--exec", "sleep 8"], environment: environment)
        let elapsed = Date().timeIntervalSince(started)
        #expect(r.status == 0)
        #expect(r.out.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).prefix(3).joined(separator: " ") }
                == ["0.274 s device", "5.433 s device"])
        // 2 s of grace, then SIGTERM: not the 8 s of each run (16 s in all before). A bound far
        // from both, so a loaded machine (the sanitizer runs) does not fail it.
        #expect(elapsed < 14, "\(elapsed) s")
        #expect(r.err.contains("plumb watch: --exec command still running at the end (after 2 s at most): sent SIGTERM to its process group "), "\(r.err)")
    }

    /// Changes coalesce: while a run waits on a gate the test opens, later changes replace the
    /// waiting one; the next run gets the latest change's variables. Driven on ``WatchExec``
    /// directly, so no timing of the machine decides what coalesces.
    @Test func changesThatComeWhileTheCommandRunsCoalesceToTheLatest() throws {
        let log = temporaryPath(".txt"), gate = temporaryPath(".gate")
        defer { for path in [log, gate] { try? FileManager.default.removeItem(atPath: path) } }
        let err = Output.capture()
        let exec = WatchExec(command: "echo \"$PLUMB_DEVICE_ORIENTATION $PLUMB_INTERFACE_ORIENTATION\" >> '\(log)'; "
                                 + "while [ ! -e '\(gate)' ]; do sleep 0.02; done",
                             environment: environment, err: err)
        exec.submit(device: .faceUp, interface: .portrait)
        // The first run has started (it wrote its line) before the others come.
        let started = Date().addingTimeInterval(30)
        while ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").isEmpty, Date() < started { usleep(10_000) }
        exec.submit(device: .portrait, interface: .portrait)
        exec.submit(device: .landscapeLeft, interface: .landscapeRight)
        exec.submit(device: .landscapeRight, interface: .landscapeLeft)
        #expect(FileManager.default.createFile(atPath: gate, contents: Data()))
        let summary = exec.finish()
        let ran = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(ran == ["faceUp portrait", "landscapeRight landscapeLeft"])
        #expect(summary.changes == 4 && summary.runs == 2 && summary.skipped == 2, "\(summary)")
        #expect(err.captured.components(separatedBy: "while the command still ran; it runs next with the latest only").count == 2, "said once: \(err.captured)")
        #expect(err.captured.contains("plumb watch: --exec: 2 of 4 changes were skipped, each replaced by a later one while the command ran"), "\(err.captured)")
    }

    /// Through the command: every run is one of the printed changes, in their order, with the
    /// first and the last; whatever was skipped (as many as the machine's speed makes) is said
    /// once and counted.
    @Test func theRunsAreThePrintedChangesInOrder() throws {
        let log = temporaryPath(".txt")
        defer { try? FileManager.default.removeItem(atPath: log) }
        let r = runPlumb(["watch", "--simulate", "--profile", "tour", "--duration", "35", "--format", "text",
                          "--exec", "echo \"$PLUMB_DEVICE_ORIENTATION $PLUMB_INTERFACE_ORIENTATION\" >> '\(log)'; sleep 0.2"],
                         environment: environment)
        #expect(r.status == 0)
        let printed = r.out.split(separator: "\n").map { line in
            let words = line.split(separator: " ")
            return "\(words[3]) \(words[5])"
        }
        let ran = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(printed.count >= 6, "\(r.out)")
        #expect(ran.first == printed.first)
        #expect(ran.last == printed.last)
        var rest = printed[...]
        for line in ran {
            guard let i = rest.firstIndex(of: line) else { Issue.record("\(line) was not printed in this order: \(printed)"); break }
            rest = rest[(i + 1)...]
        }
        let skipped = printed.count - ran.count
        let said = r.err.components(separatedBy: "while the command still ran; it runs next with the latest only").count - 1
        #expect(said == (skipped > 0 ? 1 : 0), "\(r.err)")
        if skipped > 0 {
            #expect(r.err.contains("plumb watch: --exec: \(skipped) of \(printed.count) changes were skipped, each replaced by a later one while the command ran"), "\(r.err)")
        }
    }

    /// Status 127 and 126: told once with the fix, counted after, and the watch fails when no
    /// run did anything (the old code printed "exited with status 127" per change and exited 0).
    @Test(arguments: [127, 126])
    func aCommandTheShellCannotRunIsToldOnceAndFailsTheWatch(status: Int32) throws {
        let file = temporaryPath(".sh")
        try "echo never\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        // A file without its x bit is found but not executable (126); one that is not there is
        // not found (127).
        let command = status == 127 ? file + "-missing" : file
        let r = runPlumb(["watch", "--simulate", "--duration", "10", "--exec", command], environment: environment)
        #expect(r.status == 1)
        let err = r.err.split(separator: "\n").map(String.init)
        let what = status == 127 ? "the shell found no command by that name" : "the shell found it but could not execute it"
        #expect(err.filter { $0.contains("exited with status \(status)") && $0.contains(what) }.count == 1, "\(r.err)")
        #expect(err.filter { $0.hasPrefix("Fix: ") }.count == 2, "\(r.err)")
        #expect(err.contains("Fix: \(WatchExec.fix(status: status))"))
        #expect(err.last == "Fix: \(WatchExec.fix(status: status))")
        let error = try #require(err.dropLast().last)
        #expect(error.hasPrefix("Error: --exec command '\(command)' never ran: "), "\(error)")
        #expect(error.hasSuffix(" exited with status \(status) (\(status == 127 ? "not found" : "not executable"))."), "\(error)")
    }

    /// A command that works for some changes and is not found for others: told once, exit 0.
    @Test func aCommandThatRunsForSomeChangesLeavesTheWatchSuccessful() {
        let r = runPlumb(["watch", "--simulate", "--duration", "10",
                          "--exec", "test \"$PLUMB_DEVICE_ORIENTATION\" = faceUp || plumb-no-such-command-xyz"], environment: environment)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.err.components(separatedBy: "exited with status 127").count == 2, "\(r.err)")
        #expect(!r.err.contains("Error:"))
    }

    /// SIGTERM to plumb while the command runs: the old code died at once and left the shell
    /// and its `sleep` running; now the watch ends, and after 2 s the command's group is stopped.
    /// SIGTERM, and a hangup (an ssh session that dropped: caught, it no longer ended plumb by
    /// itself, and the watch ran on), end the watch and the command's process group.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: plumbBinary), "needs the plumb binary (swift build)"),
          arguments: [SIGTERM, SIGHUP])
    func aSignalEndsTheWatchAndTheCommandsProcessGroup(_ signal: Int32) throws {
        let pids = temporaryPath(".pids")
        defer { try? FileManager.default.removeItem(atPath: pids) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: plumbBinary)
        process.arguments = ["watch", "--simulate", "--speed", "1", "--duration", "20", "--format", "text",
                             "--exec", "sleep 30 & echo \"$$ $!\" > '\(pids)'; wait"]
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var children: [pid_t] = []
        // Only those still running: an ended one's id may be another test's process by now.
        defer { for pid in children where isRunning(pid) { kill(pid, SIGKILL) } }
        // The first change comes at 0.274 s of real time (--speed 1).
        // Bounds, not timings: generous for a loaded machine (every test runs at once, sanitizers).
        let deadline = Date().addingTimeInterval(30)
        while children.count < 2, Date() < deadline {
            children = ((try? String(contentsOfFile: pids, encoding: .utf8)) ?? "").split(whereSeparator: \.isWhitespace).compactMap { pid_t($0) }
            if children.count < 2 { usleep(20_000) }
        }
        try #require(children.count == 2, "the command did not start")
        signalAndAwaitExit(process, signal)
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(process.terminationReason) \(process.terminationStatus)")
        // The shell and its sleep are gone (zombies count as gone: their reaper is init's affair).
        let gone = Date().addingTimeInterval(10)
        var alive = children
        while !alive.isEmpty, Date() < gone {
            alive = alive.filter { isRunning($0) }
            if !alive.isEmpty { usleep(20_000) }
        }
        #expect(alive.isEmpty, "still running: \(alive)")
    }

    /// With --exec SIGPIPE is ignored (the signal handlers watch installs), so a reader that went
    /// away (`plumb watch --exec X | head -1`) made the write fail with EPIPE, and FileHandle
    /// stopped plumb with a crash report (SIGILL, status 132). It ends by SIGPIPE now, as a filter
    /// does; a full disk ends it with status 1 and a line on standard error.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: plumbBinary), "needs the plumb binary (swift build)"))
    func aReaderThatWentAwayEndsTheWatchBySIGPIPE() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: plumbBinary)
        process.arguments = ["watch", "--simulate", "--duration", "60", "--exec", "true"]
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        try pipe.fileHandleForReading.close()
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGPIPE,
                "\(process.terminationReason) \(process.terminationStatus)")

        let full = Process()
        full.executableURL = URL(fileURLWithPath: plumbBinary)
        full.arguments = ["read", "--simulate", "--count", "100000"]
        full.environment = environment
        full.standardOutput = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let err = Pipe()
        full.standardError = err
        try full.run()
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        full.waitUntilExit()
        #expect(full.terminationReason == .exit && full.terminationStatus == 1, "\(full.terminationReason) \(full.terminationStatus)")
        #expect(said.contains("plumb: cannot write to standard output: No space left on device\n"), "\(said)")
    }

    /// The command's standard input is /dev/null: in its own process group it is in the
    /// background of plumb's terminal, where reading it stopped the command (SIGTTIN) until the
    /// end of the watch; from a pipe it took plumb's input.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: plumbBinary), "needs the plumb binary (swift build)"))
    func theCommandReadsNothingOfPlumbsInput() throws {
        let out = temporaryPath(".txt")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: plumbBinary)
        process.arguments = ["watch", "--simulate", "--duration", "10", "--format", "text",
                             "--exec", "readlink /proc/self/fd/0 >> '\(out)'"]
        process.environment = environment
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        #expect(process.terminationStatus == 0)
        let lines = (try String(contentsOfFile: out, encoding: .utf8)).split(separator: "\n")
        #expect(lines == ["/dev/null", "/dev/null"])
    }

    /// A command stopped at the end (here it stops itself, as a read of the terminal from the
    /// background would) takes the SIGTERM too: the group gets SIGCONT with it, so it ends then,
    /// not by SIGKILL a second later.
    @Test func aStoppedCommandEndsBySIGTERM() {
        let r = runPlumb(["watch", "--simulate", "--duration", "10", "--format", "text", "--exec", "kill -TTIN $$; true"], environment: environment)
        #expect(r.status == 0)
        #expect(r.err.contains("sent SIGTERM to its process group"), "\(r.err)")
        #expect(!r.err.contains("sent SIGKILL"), "\(r.err)")
    }
}
