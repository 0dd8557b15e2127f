import Foundation
import PlumbDrivers
import PlumbFusion

/// Reads IMU samples from a CSV file by header names, streaming: one buffer of at most a few
/// megabytes whatever the file's size. Given a standard input, the path `-` reads it, streamed
/// alike, and messages name it "standard input".
///
/// Each read takes what is there, up to a megabyte, so rows that come down a pipe as a sensor
/// delivers them (`plumb read | plumb fuse -i -`) are returned as they come, and ``next(beforeWaiting:)``
/// lets the caller pass on its own output before the reader waits for more. (It read a whole
/// megabyte before returning a row: on a live pipe at 100 Hz, nothing for two and a half minutes.)
///
/// The rows are read by ``RecordingCSV``, the parser every reader of recordings shares: columns
/// `t_s` (s), `gyr_x`, `gyr_y`, `gyr_z` (rad/s), `acc_x`, `acc_y`, `acc_z` (m/s²), in any order,
/// other columns ignored; decimal numbers only; `nan` marks a missing reading (the filters skip
/// those samples and count them). Unlike a replay, `t_s` may step backwards: counted, and the
/// gyroscope is not integrated across the step.
struct IMUCSVReader {
    static let requiredColumns = RecordingCSV.columns

    struct Sample {
        var timestamp: Double
        var gyroscope: Vector3
        var accelerometer: Vector3
    }

    /// The path that names standard input.
    static let standardInputPath = "-"

    let path: String
    /// The input in messages: the path, or "standard input".
    let name: String
    private let handle: FileHandle
    /// The most one read takes.
    static let chunkSize = 1 << 20
    /// Where a read lands before it is appended to `buffer` (allocated once).
    private var chunk = [UInt8](repeating: 0, count: IMUCSVReader.chunkSize)
    /// Set once by `init` (optional only so that `init` can read the file before it).
    private var parsedHeader: RecordingCSV.Header?
    private var buffer: [UInt8] = []
    private var position = 0
    private var endOfFile = false
    /// LF, or CR for a file whose first chunk holds no LF (classic Mac OS line ends, as
    /// ``RecordingCSV/lines(_:)`` reads them).
    private var lineEnd = UInt8(ascii: "\n")
    private var lineEndChosen = false
    /// The 1-based line number of the line last returned.
    private(set) var line = 0
    /// The header's column names.
    private(set) var header: [String] = []
    /// Byte range of the `t_s` field of the line last returned, in `buffer`.
    private var timestampRange: Range<Int> = 0..<0
    /// Samples whose `t_s` is earlier than the one before (the filters integrate nothing across
    /// them), and the line of the first.
    private(set) var backwardSteps = 0
    private(set) var firstBackwardLine: Int?
    private var lastTimestamp = -Double.infinity

    /// Opens `path`, or for `-` the file descriptor `standardInput` when one is given (read, and
    /// left open), and reads the header.
    init(path: String, standardInput: Int32? = nil) throws(CLIError) {
        self.path = path
        if path == Self.standardInputPath, let standardInput {
            name = "standard input"
            handle = FileHandle(fileDescriptor: standardInput, closeOnDealloc: false)
        } else {
            name = path
            let fix = "Give the path of a CSV file with the columns \(Self.requiredColumns.joined(separator: ","))"
                + (standardInput == nil ? "." : ", or - for standard input.")
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw .failure("\(path): no such file.", fix: fix)
            }
            guard !isDirectory.boolValue else {
                throw .failure("\(path) is a directory, not a file.", fix: fix)
            }
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw .failure("\(path): cannot be opened for reading.", fix: "Check the file's permissions.")
            }
            self.handle = handle
        }
        guard var headerLine = try nextLine(beforeWaiting: {}) else {
            throw .failure(name == path ? "\(path): the file is empty." : "standard input is empty.",
                           fix: "The first line must be a header naming the columns \(Self.requiredColumns.joined(separator: ",")).")
        }
        if buffer[headerLine].starts(with: [0xEF, 0xBB, 0xBF]) { headerLine = headerLine.lowerBound + 3..<headerLine.upperBound }
        if buffer[headerLine].first == UInt8(ascii: "{") {
            // plumb read --format jsonl: said as what it is, not as a header missing t_s.
            throw .failure("\(name):1: this is JSON Lines (plumb read --format jsonl); the input must be CSV",
                           fix: "Leave out --format jsonl (plumb read writes CSV by default): plumb read | plumb fuse -i -.")
        }
        do { parsedHeader = try RecordingCSV.Header(buffer[headerLine], file: name) } catch {
            throw .failure(error.description + ".", fix: error.fix)
        }
        header = parsedHeader?.names ?? []
    }

    /// The next sample, or `nil` at the end of the file. Blank lines are skipped.
    mutating func next() throws(CLIError) -> Sample? {
        try next(beforeWaiting: {})
    }

    /// The next sample, or `nil` at the end of the file; `beforeWaiting` runs each time the rows
    /// read so far are used up and the reader is about to read more, which on a pipe waits until
    /// the writer sends more (a caller passes on what it made of the rows so far).
    mutating func next(beforeWaiting: () throws(CLIError) -> Void) throws(CLIError) -> Sample? {
        while let range = try nextLine(beforeWaiting: beforeWaiting) {
            if range.isEmpty || (buffer[range.lowerBound] <= UInt8(ascii: " ") && isBlank(range)) { continue }
            let sample = try parse(range)
            if sample.timestamp < lastTimestamp {
                backwardSteps += 1
                if firstBackwardLine == nil { firstBackwardLine = line }
            }
            if sample.timestamp.isFinite { lastTimestamp = sample.timestamp }
            return sample
        }
        return nil
    }

    /// Writes the current line's `t_s` field, exactly as in the file, to `out`.
    func copyTimestamp(into out: inout [UInt8]) {
        out.append(contentsOf: buffer[timestampRange])
    }

    private func isBlank(_ range: Range<Int>) -> Bool {
        buffer.withUnsafeBufferPointer { RecordingCSV.isBlank(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    private mutating func parse(_ range: Range<Int>) throws(CLIError) -> Sample {
        guard let header = parsedHeader else { preconditionFailure("IMUCSVReader.init sets the header") }
        let line = self.line, name = self.name
        let row: RecordingCSV.Row
        do {
            row = try buffer.withUnsafeBufferPointer { bytes throws(RecordingCSVError) in
                try header.row(UnsafeBufferPointer(rebasing: bytes[range]), lineNumber: line, file: name)
            }
        } catch {
            throw .failure(error.description + ".", fix: error.fix)
        }
        timestampRange = range.lowerBound + row.timeField.lowerBound..<range.lowerBound + row.timeField.upperBound
        return Sample(timestamp: row.time, gyroscope: row.gyroscope, accelerometer: row.accelerometer)
    }

    /// The byte range of the next line (without its line ending), reading more of the file as
    /// needed; `beforeWaiting` runs before each read.
    private mutating func nextLine(beforeWaiting: () throws(CLIError) -> Void) throws(CLIError) -> Range<Int>? {
        while true {
            if !lineEndChosen {
                // LF once one is seen; CR only for a first megabyte (or a whole file) without an
                // LF, so a pipe's first read ending inside a CR LF chooses nothing yet.
                if buffer.contains(UInt8(ascii: "\n")) {
                    lineEndChosen = true
                } else if endOfFile || buffer.count >= Self.chunkSize {
                    lineEndChosen = true
                    if buffer.contains(UInt8(ascii: "\r")) { lineEnd = UInt8(ascii: "\r") }
                }
            }
            if lineEndChosen, let newline = buffer[position...].firstIndex(of: lineEnd) {
                var end = newline
                if lineEnd == UInt8(ascii: "\n"), end > position, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let range = position..<end
                position = newline + 1
                line += 1
                return range
            }
            if endOfFile {
                guard position < buffer.count else { return nil }
                buffer.append(lineEnd)   // the last line had no line ending
                continue
            }
            try beforeWaiting()
            // Drop what was consumed, then read more: what is there, up to a chunk.
            buffer.removeSubrange(0..<position)
            position = 0
            let fd = handle.fileDescriptor
            var count: Int
            repeat {
                count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            } while count < 0 && errno == EINTR
            if count < 0 {
                let code = errno
                throw .failure("\(name): read failed after line \(line): \(String(cString: strerror(code))).", fix: nil)
            }
            if count == 0 { endOfFile = true } else { buffer.append(contentsOf: chunk[0..<count]) }
        }
    }
}
