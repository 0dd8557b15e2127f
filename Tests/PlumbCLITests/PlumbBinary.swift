import Foundation

/// The built `plumb` next to this test bundle (scripts/test builds everything before testing), for
/// the tests that run it as a process of its own (signals, pipes, exit statuses).
let plumbBinary: String = {
    let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var dir = runner.deletingLastPathComponent()
    if dir.lastPathComponent == "MacOS" || dir.lastPathComponent == "Contents" { dir = dir.deletingLastPathComponent() }
    return dir.appendingPathComponent("plumb").path
}()

/// Whether `pid` exists and is not a zombie (state Z in /proc/PID/stat, after the name's ')').
func isRunning(_ pid: pid_t) -> Bool {
    guard kill(pid, 0) == 0 else { return false }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return true }
    return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first != "Z"
}

/// Sends `signal` to `process` and waits for it to end: up to 30 s (a bound for a loaded
/// machine, not a timing), then SIGKILL, so a process that ignores the signal fails the test's
/// exit check instead of hanging the run.
func signalAndAwaitExit(_ process: Process, _ signal: Int32) {
    kill(process.processIdentifier, signal)
    let end = Date().addingTimeInterval(30)
    while process.isRunning, Date() < end { usleep(20_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
}
