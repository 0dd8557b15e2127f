import Foundation
import PlumbDisplay

/// Performs the kiosk backend's actions for the daemon: runs wlr-randr, xrandr or the user's
/// command and waits for it (they finish in milliseconds), or writes the fbcon rotation file.
/// A failure names the command and its exit status and standard error.
final class DaemonRotationRunner: RotationActionRunner {
    /// The environment commands inherit (the daemon's), to which an action adds its own variables.
    let environment: [String: String]
    /// Where programs without a slash are looked up.
    var searchPath: [String] { (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init) }

    init(environment: [String: String]) { self.environment = environment }

    func perform(_ action: RotationAction) throws {
        switch action {
        case .write(let path, let contents):
            // Like `echo contents > path`: open with O_TRUNC, one write.
            do { try Data((contents + "\n").utf8).write(to: URL(fileURLWithPath: path)) } catch {
                throw CLIError.failure("cannot write \(contents) to \(path): \(error.localizedDescription)",
                                       fix: "The fbcon kiosk needs the udev rule from scripts/install (video group) or root.")
            }
        case .run(let program, let arguments, let extra):
            try run(executable: resolve(program), arguments: arguments, extra: extra, display: ([program] + arguments).joined(separator: " "))
        case .shell(let command, let extra):
            try run(executable: "/bin/sh", arguments: ["-c", command], extra: extra, display: "sh -c '\(command)'")
        }
    }

    private func resolve(_ program: String) throws -> String {
        if program.contains("/") { return program }
        for dir in searchPath where FileManager.default.isExecutableFile(atPath: dir + "/" + program) { return dir + "/" + program }
        throw CLIError.failure("\(program) is not installed (looked in \(searchPath.joined(separator: ":")))",
                               fix: "Install it (apt install \(program)), or choose another outputs.kiosk.method.")
    }

    private func run(executable: String, arguments: [String], extra: [String: String], display: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment.merging(extra) { _, new in new }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw CLIError.failure("cannot run \(display): \(error.localizedDescription)", fix: nil)
        }
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let detail = message.split(separator: "\n").first.map { ": \($0)" } ?? ""
            throw CLIError.failure("\(display) exited with status \(process.terminationStatus)\(detail)", fix: nil)
        }
    }
}
