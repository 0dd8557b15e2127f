import Foundation
import Synchronization

/// Where a command writes: standard output or error, or a string captured for tests.
///
/// Writes are buffered; the tool flushes at exit and whenever a line-oriented stream (a watch, a
/// live read) asks for it, so a pipe sees every line as it happens.
public final class Output: Sendable {
    private enum Sink { case fileDescriptor(Int32), capture }
    private let sink: Sink
    private let state = Mutex<(buffer: [UInt8], captured: [UInt8])>(([], []))

    private init(_ sink: Sink) { self.sink = sink }

    public static func standardOutput() -> Output { Output(.fileDescriptor(1)) }
    public static func standardError() -> Output { Output(.fileDescriptor(2)) }
    /// An output that keeps everything written to it, for tests.
    public static func capture() -> Output { Output(.capture) }

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

    /// Sends what is buffered on to the file descriptor.
    public func flush() {
        let bytes: [UInt8] = state.withLock { s in
            defer { s.buffer.removeAll(keepingCapacity: true) }
            if case .capture = sink { s.captured += s.buffer; return [] }
            return s.buffer
        }
        guard case .fileDescriptor(let fd) = sink, !bytes.isEmpty else { return }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
        handle.write(Data(bytes))
    }

    /// Everything written so far (capture outputs only).
    public var captured: String {
        flush()
        return state.withLock { String(decoding: $0.captured, as: UTF8.self) }
    }
}

/// What a running command can reach: its outputs, environment and working directory.
public struct CommandContext: Sendable {
    public var out: Output
    public var err: Output
    public var environment: [String: String]
    /// True when standard output is a terminal (human text instead of JSON Lines by default).
    public var outputIsTerminal: Bool

    public init(out: Output, err: Output, environment: [String: String], outputIsTerminal: Bool) {
        self.out = out; self.err = err; self.environment = environment; self.outputIsTerminal = outputIsTerminal
    }

    /// A context that captures both outputs, for tests.
    public static func capturing(environment: [String: String] = [:]) -> CommandContext {
        CommandContext(out: .capture(), err: .capture(), environment: environment, outputIsTerminal: false)
    }
}
