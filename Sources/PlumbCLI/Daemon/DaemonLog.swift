import PlumbConfiguration

/// The daemon's log: one line per message on standard error.
///
/// Under systemd (`$JOURNAL_STREAM` is set when stderr is connected to the journal) each line
/// starts with the syslog priority in angle brackets, `<6>reloaded /etc/plumb/plumb.json`, which
/// journald strips and stores as the entry's PRIORITY (sd-daemon(3), `SD_INFO`). On a terminal
/// the line reads `plumb: info: reloaded ...`.
final class DaemonLog: Sendable {
    enum Format: String, Sendable, CaseIterable {
        case journal, plain
    }

    let output: Output
    let format: Format
    private let minimum: LockedValue<LogLevel>

    init(output: Output, format: Format, level: LogLevel = .info) {
        self.output = output
        self.format = format
        self.minimum = LockedValue(level)
    }

    /// The format for this environment: journal under systemd, plain otherwise.
    static func defaultFormat(environment: [String: String]) -> Format {
        environment["JOURNAL_STREAM"].map { !$0.isEmpty } == true ? .journal : .plain
    }

    var level: LogLevel {
        get { minimum.value }
        set { minimum.value = newValue }
    }

    func log(_ level: LogLevel, _ message: String) {
        guard level >= minimum.value else { return }
        for line in message.split(separator: "\n", omittingEmptySubsequences: false) {
            switch format {
            case .journal: output.line("<\(level.priority)>\(line)")
            case .plain: output.line("plumb: \(level.rawValue): \(line)")
            }
        }
        output.flush()
    }

    func debug(_ message: String) { log(.debug, message) }
    func info(_ message: String) { log(.info, message) }
    func notice(_ message: String) { log(.notice, message) }
    func warning(_ message: String) { log(.warning, message) }
    func error(_ message: String) { log(.error, message) }
}

import Synchronization

/// A value behind a mutex, for the few settings that change on reload.
final class LockedValue<T: Sendable>: Sendable {
    private let storage: Mutex<T>
    init(_ value: T) { storage = Mutex(value) }
    var value: T {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
