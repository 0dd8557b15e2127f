import Foundation
import PlumbFusion

/// Reads IMU samples from a CSV file by header names, streaming: one buffer of at most a few
/// megabytes whatever the file's size.
///
/// Columns used: `t_s` (s), `gyr_x`, `gyr_y`, `gyr_z` (rad/s), `acc_x`, `acc_y`, `acc_z` (m/s²), in
/// any order; other columns are ignored. Numbers are parsed by the C library's `strtod`, so
/// `nan` and `inf` are read as such (the filters skip those samples and count them).
struct IMUCSVReader {
    static let requiredColumns = ["t_s", "gyr_x", "gyr_y", "gyr_z", "acc_x", "acc_y", "acc_z"]

    struct Sample {
        var timestamp: Double
        var gyroscope: Vector3
        var accelerometer: Vector3
    }

    let path: String
    private let handle: FileHandle
    /// Field index of each required column, in `requiredColumns` order.
    private var columns: [Int] = []
    /// For each field index: its position in `requiredColumns`, or −1.
    private var columnOfField: [Int] = []
    private var fieldCount = 0
    private var buffer: [UInt8] = []
    private var position = 0
    private var endOfFile = false
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

    init(path: String) throws(CLIError) {
        self.path = path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .failure("\(path): no such file.", fix: "Give the path of a CSV file with the columns \(Self.requiredColumns.joined(separator: ",")).")
        }
        guard !isDirectory.boolValue else {
            throw .failure("\(path) is a directory, not a file.", fix: "Give the path of a CSV file with the columns \(Self.requiredColumns.joined(separator: ",")).")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .failure("\(path): cannot be opened for reading.", fix: "Check the file's permissions.")
        }
        self.handle = handle
        guard var headerLine = try nextLine() else {
            throw .failure("\(path): the file is empty.", fix: "The first line must be a header naming the columns \(Self.requiredColumns.joined(separator: ",")).")
        }
        if buffer[headerLine].starts(with: [0xEF, 0xBB, 0xBF]) { headerLine = headerLine.lowerBound + 3..<headerLine.upperBound }
        if buffer[headerLine].contains(UInt8(ascii: "\r")) {
            throw .failure("\(path) line 1: the lines end in a carriage return alone (classic Mac OS), so the whole file reads as one line.",
                           fix: "Convert the line ends to LF, e.g. tr '\\r' '\\n' < \(path) > fixed.csv")
        }
        header = String(decoding: buffer[headerLine], as: UTF8.self).split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        fieldCount = header.count
        for name in Self.requiredColumns {
            guard let index = header.firstIndex(of: name) else {
                if header.count == 1, let separator = [";", "\t"].first(where: { header[0].contains($0) }) {
                    throw .failure("\(path) line 1: the columns are separated by \(separator == ";" ? "semicolons" : "tabs"), not commas.",
                                   fix: "Write the file with commas between the columns \(Self.requiredColumns.joined(separator: ",")).")
                }
                throw .failure("\(path) line 1: no column '\(name)' in the header (\(header.joined(separator: ","))).",
                               fix: "Name the columns \(Self.requiredColumns.joined(separator: ", ")); gyroscope in rad/s, accelerometer in m/s².")
            }
            columns.append(index)
        }
        columnOfField = (0..<fieldCount).map { columns.firstIndex(of: $0) ?? -1 }
    }

    /// The next sample, or `nil` at the end of the file. Blank lines are skipped.
    mutating func next() throws(CLIError) -> Sample? {
        while let range = try nextLine() {
            if range.isEmpty { continue }
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

    private mutating func parse(_ range: Range<Int>) throws(CLIError) -> Sample {
        // Field boundaries: the line ends in '\n' in the buffer, which stops strtod.
        var values = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        var field = 0
        var start = range.lowerBound
        var index = range.lowerBound
        while index <= range.upperBound {
            let byte = index < range.upperBound ? buffer[index] : UInt8(ascii: ",")
            if byte == UInt8(ascii: ",") {
                let column = field < columnOfField.count ? columnOfField[field] : -1
                if column >= 0 {
                    let value = try number(from: start..<index, column: column)
                    switch column {
                    case 0: values.0 = value
                    case 1: values.1 = value
                    case 2: values.2 = value
                    case 3: values.3 = value
                    case 4: values.4 = value
                    case 5: values.5 = value
                    default: values.6 = value
                    }
                    if column == 0 { timestampRange = start..<index }
                }
                field += 1
                start = index + 1
            }
            index += 1
        }
        guard field == fieldCount else {
            throw .failure("\(path) line \(line): \(field) fields, but the header has \(fieldCount).",
                           fix: "Every line needs one value per header column, separated by commas.")
        }
        return Sample(timestamp: values.0, gyroscope: Vector3(values.1, values.2, values.3),
                      accelerometer: Vector3(values.4, values.5, values.6))
    }

    private func number(from range: Range<Int>, column: Int) throws(CLIError) -> Double {
        var lower = range.lowerBound, upper = range.upperBound
        while lower < upper, buffer[lower] == UInt8(ascii: " ") { lower += 1 }
        while upper > lower, buffer[upper - 1] == UInt8(ascii: " ") { upper -= 1 }
        if lower < upper {
            let parsed: Double? = buffer.withUnsafeBufferPointer { bytes in
                let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
                var end: UnsafeMutablePointer<CChar>?
                let value = strtod(base + lower, &end)
                guard let end, end == UnsafeMutablePointer(mutating: base + upper) else { return nil }
                return value
            }
            if let parsed { return parsed }
        }
        let text = String(decoding: buffer[range], as: UTF8.self)
        let name = Self.requiredColumns[column]
        throw .failure("\(path) line \(line), column '\(name)' (field \(columns[column] + 1)): '\(text)' is not a number.",
                       fix: "Write plain decimal numbers (nan is accepted and the sample skipped).")
    }

    /// The byte range of the next line (without its line ending), reading more of the file as
    /// needed; the line is followed by '\n' in `buffer`.
    private mutating func nextLine() throws(CLIError) -> Range<Int>? {
        while true {
            if let newline = buffer[position...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > position, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let range = position..<end
                position = newline + 1
                line += 1
                return range
            }
            if endOfFile {
                guard position < buffer.count else { return nil }
                buffer.append(UInt8(ascii: "\n"))   // the last line had no line ending
                continue
            }
            // Drop what was consumed, then read more.
            buffer.removeSubrange(0..<position)
            position = 0
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 1 << 20) } catch {
                throw .failure("\(path): read failed after line \(line): \(error).", fix: nil)
            }
            if let chunk, !chunk.isEmpty { buffer.append(contentsOf: chunk) } else { endOfFile = true }
        }
    }
}
