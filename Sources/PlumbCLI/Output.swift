import Foundation
import Synchronization

/// Where a command writes: standard output or error, or a string captured for tests.
///
/// Writes are buffered; the tool flushes at exit and whenever a line-oriented stream (a watch, a
/// live read) asks for it, so a pipe sees every line as it happens.
public final class Output: Sendable {
    private enum Sink { case fileDescriptor(Int32), capture, log(Int32) }
    private let sink: Sink
    private let state = Mutex<(buffer: [UInt8], captured: [UInt8])>(([], []))

    private init(_ sink: Sink) { self.sink = sink }

    public static func standardOutput() -> Output { Output(.fileDescriptor(1)) }
    public static func standardError() -> Output { Output(.fileDescriptor(2)) }
    /// An output that keeps everything written to it, for tests.
    public static func capture() -> Output { Output(.capture) }
    /// An output to the file descriptor `fd`, left open (a pipe or `/dev/full` standing in for
    /// standard output in tests).
    static func fileDescriptor(_ fd: Int32) -> Output { Output(.fileDescriptor(fd)) }

    /// The same file descriptor for a daemon's log: a write that fails (the journal's pipe gone,
    /// a full disk under `plumb run 2> file`) drops the lines instead of ending the process, which
    /// would stop the sensor and leave the screen, LEDs and D-Bus name as they were (SIGPIPE
    /// is a clean exit to systemd: no restart). A capture stays itself.
    public func droppingWriteFailures() -> Output {
        guard case .fileDescriptor(let fd) = sink else { return self }
        return Output(.log(fd))
    }

    /// Writes `text` as is.
    public func write(_ text: String) {
        let flushNow: Bool = state.withLock { s in
            s.buffer.append(contentsOf: text.utf8)
            return s.buffer.count >= 1 << 16
        }
        if flushNow { flush() }
    }

    /// Writes `text` and a newline.
    public func line(_ text: String = "") { write(text + "\n") }

    /// Sends what is buffered on to the file descriptor; when it cannot be written, ends the
    /// process as ``OutputWriteError/endProcess(command:err:)`` does (without a command's line).
    public func flush() {
        do { try send() } catch { error.endProcess(command: nil, err: nil) }
    }

    /// Sends what is buffered on to the file descriptor, throwing when it cannot be written (the
    /// reader went away: EPIPE; a full disk: ENOSPC), so that a command that took something (LEDs,
    /// their triggers) puts it back before the process ends (``PlumbTool`` ends it then). A log
    /// (``droppingWriteFailures()``) drops the lines instead, and a capture cannot fail.
    ///
    /// The corresponding system call is `write(2)`.
    public func send() throws(OutputWriteError) {
        let bytes: [UInt8] = state.withLock { s in
            defer { s.buffer.removeAll(keepingCapacity: true) }
            if case .capture = sink { s.captured += s.buffer; return [] }
            return s.buffer
        }
        guard !bytes.isEmpty else { return }
        let fd: Int32, dropsFailures: Bool
        switch sink {
        case .capture: return
        case .fileDescriptor(let d): (fd, dropsFailures) = (d, false)
        case .log(let d): (fd, dropsFailures) = (d, true)
        }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n >= 0 { offset += n; continue }
            let code = errno
            if code == EINTR { continue }
            // A log's lines are dropped (EAGAIN too: a daemon does not spin on a full
            // non-blocking pipe); another output tries EAGAIN again.
            if dropsFailures { return }
            if code == EAGAIN { continue }
            throw OutputWriteError(fileDescriptor: fd, errno: code)
        }
    }

    /// Everything written so far (capture outputs only).
    public var captured: String {
        flush()
        return state.withLock { String(decoding: $0.captured, as: UTF8.self) }
    }
}

/// Standard output or error could not be written (``Output/send()``): the reader went away
/// (EPIPE: `plumb led --simulate | head -1`) or the disk is full (ENOSPC: `plumb read > file`).
public struct OutputWriteError: Error, Sendable, Equatable {
    /// The file descriptor written: 1 for standard output, 2 for standard error.
    public var fileDescriptor: Int32
    /// The write's errno.
    public var errno: Int32
    /// What the command put back before it ended ("the LEDs are off and their triggers given
    /// back"), for the line on standard error; nil when it took nothing.
    public var cleanup: String?

    public init(fileDescriptor: Int32, errno: Int32, cleanup: String? = nil) {
        self.fileDescriptor = fileDescriptor; self.errno = errno; self.cleanup = cleanup
    }

    /// "cannot write to standard output: Broken pipe".
    public var message: String {
        let target = fileDescriptor == 1 ? "standard output" : fileDescriptor == 2 ? "standard error" : "file descriptor \(fileDescriptor)"
        return "cannot write to \(target): \(String(cString: strerror(errno)))"
    }

    /// Ends the process: the reader went away (EPIPE: `plumb watch | head -1`) by SIGPIPE, as a
    /// filter ends; any other failure (a full disk) with status 1, so the cut-short output does not
    /// pass for whole. (While SignalMonitor ignores SIGPIPE — `plumb run`, `plumb watch --exec`,
    /// `plumb led` — the write meets EPIPE instead of the signal; FileHandle's write then stopped
    /// the process with a crash report.)
    ///
    /// - Parameters:
    ///   - command: the command that put something back (`plumb led`): its line, `plumb led:
    ///     cannot write to standard output: Broken pipe; stopped, the LEDs are off.`, goes to
    ///     `err` for any failure. Without one, only a failure other than EPIPE is told, as
    ///     `plumb: cannot write to standard output: No space left on device`; a reader that went
    ///     away is not.
    ///   - err: standard error (flushed here).
    public func endProcess(command: String?, err: Output?) -> Never {
        if let command {
            let line = "\(command): \(message)" + (cleanup.map { "; stopped, \($0)." } ?? ".")
            if let err, fileDescriptor != 2 {
                err.line(line)
                err.flush()
            }
        } else if errno != EPIPE, fileDescriptor != 2 {
            let bytes = Array("plumb: \(message)\n".utf8)
            _ = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress!, $0.count) }
        }
        if errno == EPIPE {
            signal(SIGPIPE, SIG_DFL)
            var pipe = sigset_t()
            sigemptyset(&pipe)
            sigaddset(&pipe, SIGPIPE)
            pthread_sigmask(SIG_UNBLOCK, &pipe, nil)
            raise(SIGPIPE)
        }
        exit(1)
    }
}

/// What a running command can reach: its outputs, environment and working directory.
public struct CommandContext: Sendable {
    public var out: Output
    public var err: Output
    public var environment: [String: String]
    /// True when standard output is a terminal (human text instead of JSON Lines by default).
    public var outputIsTerminal: Bool
    /// Whether a command may catch SIGINT, SIGTERM and SIGHUP itself (`plumb watch --exec`, to
    /// stop its command first). False in tests that run commands inside the test process
    /// (``capturing(environment:)``): the caught signals are one set for the whole process, and a
    /// command polling them took the signals other tests raise for themselves.
    public var catchesSignals = true
    /// The file descriptor a command reads for a path of `-` (`plumb fuse --input -`): 0, or in
    /// tests a pipe or file of their own, read and left open.
    public var standardInput: Int32 = STDIN_FILENO

    public init(out: Output, err: Output, environment: [String: String], outputIsTerminal: Bool) {
        self.out = out; self.err = err; self.environment = environment; self.outputIsTerminal = outputIsTerminal
    }

    /// A context that captures both outputs, for tests.
    public static func capturing(environment: [String: String] = [:]) -> CommandContext {
        var context = CommandContext(out: .capture(), err: .capture(), environment: environment, outputIsTerminal: false)
        context.catchesSignals = false
        return context
    }
}
