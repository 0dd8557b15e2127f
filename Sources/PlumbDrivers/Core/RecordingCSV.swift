/// The CSV format of IMU recordings: what `plumb read --format csv` writes and what `plumb fuse`,
/// `plumb watch --replay`, the daemon's replay and the simulator's `--replay` read (the BROAD
/// dataset's columns, ../shared/data/broad/README.md). Every reader goes through this one parser,
/// so a file one of them accepts, all of them accept.
///
/// The rules:
/// - The first line is a header naming the columns `t_s` (s), `gyr_x`, `gyr_y`, `gyr_z` (rad/s)
///   and `acc_x`, `acc_y`, `acc_z` (m/s², specific force), in any order, separated by commas;
///   other columns are ignored, and a required column named twice is refused (which one is
///   meant cannot be told). A UTF-8 byte order mark before it is skipped.
/// - A row may not have more fields than the header (a decimal comma would shift every value);
///   it may end early only after its last required column.
/// - A value is a decimal number: an optional sign, digits with an optional decimal point, and an
///   optional exponent (`-0.0123`, `9.81`, `1.5e-3`), with optional spaces or tabs around it.
///   Hexadecimal (`0x10`), `inf`, `infinity`, empty fields and numbers past ±1.8e308 are refused,
///   and so are gyroscope and accelerometer readings past ±3.4e38, the largest a sample holds
///   (`IMUSample` and `CompactIMURecording` keep readings as `Float`): one became infinite there
///   and reset the fusion's attitude without a word.
/// - `nan` (any case) marks a missing reading in a gyroscope or accelerometer column: readers
///   skip that sample. `t_s` must be a number.
/// - Lines end in LF, CR LF, or CR alone (classic Mac OS); blank lines are skipped but counted, so
///   line numbers in messages are the file's.
///
/// Every reader that plays a recording as time (`IMURecording`, the simulator's replay) takes
/// `t_s` by one rule, ``TimeOrder``: 0 or more, never backwards, repeats allowed, below
/// ``maximumTimeSeconds``. `plumb fuse` takes steps backwards too (counted, and the gyroscope is
/// not integrated across them).
public enum RecordingCSV {
    /// The required columns, in the order of ``Row``'s values.
    public static let columns = ["t_s", "gyr_x", "gyr_y", "gyr_z", "acc_x", "acc_y", "acc_z"]

    /// The fix printed with every error about a value.
    public static let numberFix = "Write decimal numbers such as -0.0123, 9.81 or 1.5e-3; write nan for a missing gyroscope or accelerometer reading (that sample is skipped)."

    /// The fix printed with every error about the header or a row's fields.
    public static let columnsFix = "The first line must name the columns t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z (any order, separated by commas; gyroscope in rad/s, accelerometer in m/s²), and every line below it holds one value per column."

    /// One row's values.
    public struct Row: Sendable, Equatable {
        /// `t_s`, seconds; always a finite number.
        public var time: Double
        /// rad/s; `nan` in an axis whose reading is missing.
        public var gyroscope: SIMD3<Double>
        /// m/s²; `nan` in an axis whose reading is missing.
        public var accelerometer: SIMD3<Double>
        /// The `t_s` field's bytes within the line, without the spaces around it.
        public var timeField: Range<Int>

        /// Whether every reading is present (no `nan`).
        public var isComplete: Bool {
            !gyroscope.x.isNaN && !gyroscope.y.isNaN && !gyroscope.z.isNaN
                && !accelerometer.x.isNaN && !accelerometer.y.isNaN && !accelerometer.z.isNaN
        }
    }

    /// A parsed header: where each column is.
    public struct Header: Sendable, Equatable {
        /// The header's column names, trimmed.
        public let names: [String]
        /// The field index of each of ``RecordingCSV/columns``, in that order.
        public let indices: [Int]
        /// For each field index: its position in ``RecordingCSV/columns``, or −1.
        let columnOfField: [Int]
        /// One past the largest index in `indices`: a row needs at least this many fields.
        let requiredFields: Int

        /// Reads the header line.
        ///
        /// - Parameters:
        ///   - line: the first line's bytes, without its line end (a byte order mark is skipped).
        ///   - file: the file's name, for messages.
        /// - Throws: ``RecordingCSVError`` naming the missing column, or the separator when the
        ///   columns are separated by semicolons or tabs.
        public init(_ line: some Collection<UInt8>, file: String) throws(RecordingCSVError) {
            var bytes = Array(line)
            if bytes.starts(with: byteOrderMark) { bytes.removeFirst(byteOrderMark.count) }
            while let last = bytes.last, last == cr { bytes.removeLast() }
            let names = bytes.split(separator: comma, omittingEmptySubsequences: false).map { field in
                String(decoding: field, as: UTF8.self).trimmingSpaces()
            }
            var found: [Int] = []
            for name in columns {
                guard let index = names.firstIndex(of: name) else {
                    if names.count == 1, let separator = [";", "\t"].first(where: { names[0].contains($0) }) {
                        throw RecordingCSVError(file: file, line: 1, column: nil,
                                                message: "the columns are separated by \(separator == ";" ? "semicolons" : "tabs"), not commas",
                                                fix: "Write the file with commas between the columns (and a point, not a comma, before decimals).")
                    }
                    throw RecordingCSVError(file: file, line: 1, column: nil,
                                            message: "no column '\(name)' in the header (\(RecordingCSV.shown(names.joined(separator: ","), limit: 200)))",
                                            fix: columnsFix)
                }
                if let again = names[(index + 1)...].firstIndex(of: name) {
                    throw RecordingCSVError(file: file, line: 1, column: nil,
                                            message: "the header names '\(name)' twice (fields \(index + 1) and \(again + 1)), so which is the reading cannot be told",
                                            fix: "Rename or delete one of them. " + columnsFix)
                }
                found.append(index)
            }
            self.names = names
            indices = found
            columnOfField = (0..<names.count).map { found.firstIndex(of: $0) ?? -1 }
            requiredFields = (found.max() ?? 0) + 1
        }

        /// The field index of a column that is not required (such as `true_qw`), if the header has it.
        public func index(of name: String) -> Int? { names.firstIndex(of: name) }

        /// Reads one row.
        ///
        /// - Parameters:
        ///   - line: the line's bytes, without its line end.
        ///   - lineNumber: its 1-based line number in the file, for messages.
        ///   - file: the file's name, for messages.
        /// - Throws: ``RecordingCSVError`` at the line and column of the first bad value, or
        ///   naming the field count.
        public func row(_ line: UnsafeBufferPointer<UInt8>, lineNumber: Int, file: String) throws(RecordingCSVError) -> Row {
            var values = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
            var timeField = 0..<0
            var field = 0
            var start = 0
            var index = 0
            let count = line.count
            while index <= count {
                if index == count || line[index] == comma {
                    if field >= columnOfField.count {
                        throw tooManyFields(line, lineNumber: lineNumber, file: file)
                    }
                    let column = columnOfField[field]
                    if column >= 0 {
                        let trimmed = RecordingCSV.trim(line, start..<index)
                        guard let value = RecordingCSV.number(line, trimmed), column > 0 || !value.isNaN,
                              column == 0 || abs(value) <= RecordingCSV.largestReading || value.isNaN else {
                            throw badValue(line, field: start..<index, column: column, lineNumber: lineNumber, file: file)
                        }
                        switch column {
                        case 0: values.0 = value; timeField = trimmed
                        case 1: values.1 = value
                        case 2: values.2 = value
                        case 3: values.3 = value
                        case 4: values.4 = value
                        case 5: values.5 = value
                        default: values.6 = value
                        }
                    }
                    field += 1
                    start = index + 1
                }
                index += 1
            }
            guard field >= requiredFields else {
                throw RecordingCSVError(file: file, line: lineNumber, column: nil,
                                        message: "\(field) field\(field == 1 ? "" : "s"), but the header has \(names.count) and '\(names[requiredFields - 1])' is field \(requiredFields)",
                                        fix: columnsFix)
            }
            return Row(time: values.0, gyroscope: SIMD3(values.1, values.2, values.3),
                       accelerometer: SIMD3(values.4, values.5, values.6), timeField: timeField)
        }

        /// Reads the value of an optional column (such as `true_qw`) in a row already accepted by
        /// ``row(_:lineNumber:file:)``: `nan` when the row ends before it.
        public func value(ofField fieldIndex: Int, in line: UnsafeBufferPointer<UInt8>, lineNumber: Int, file: String) throws(RecordingCSVError) -> Double {
            var field = 0, start = 0, index = 0
            while index <= line.count {
                if index == line.count || line[index] == comma {
                    if field == fieldIndex {
                        guard let value = RecordingCSV.number(line, RecordingCSV.trim(line, start..<index)) else {
                            throw RecordingCSVError(file: file, line: lineNumber, column: start + 1,
                                                    message: "\(names[fieldIndex]): \(RecordingCSV.problem(line, start..<index))",
                                                    fix: numberFix)
                        }
                        return value
                    }
                    field += 1
                    start = index + 1
                }
                index += 1
            }
            return .nan
        }

        private func badValue(_ line: UnsafeBufferPointer<UInt8>, field: Range<Int>, column: Int, lineNumber: Int, file: String) -> RecordingCSVError {
            let name = RecordingCSV.columns[column]
            if column == 0, let value = RecordingCSV.number(line, RecordingCSV.trim(line, field)), value.isNaN {
                return RecordingCSVError(file: file, line: lineNumber, column: field.lowerBound + 1,
                                         message: "t_s: nan is not a time",
                                         fix: "Every line needs its time in seconds in t_s; delete lines without one.")
            }
            return RecordingCSVError(file: file, line: lineNumber, column: field.lowerBound + 1,
                                     message: "\(name): \(RecordingCSV.problem(line, field))", fix: numberFix)
        }

        private func tooManyFields(_ line: UnsafeBufferPointer<UInt8>, lineNumber: Int, file: String) -> RecordingCSVError {
            let fields = line.split(separator: comma, omittingEmptySubsequences: false).count
            return RecordingCSVError(file: file, line: lineNumber, column: nil,
                                     message: "\(fields) fields, but the header has \(names.count)",
                                     fix: "Write a point, not a comma, before decimals (9.81, not 9,81). " + columnsFix)
        }
    }

    /// The line ranges of a whole file's bytes, line ends (LF, CR LF, or CR alone as classic
    /// Mac OS wrote) excluded, a byte order mark skipped; blank lines at the end dropped.
    /// The first range is the header's.
    public static func lines(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        let start = bytes.starts(with: byteOrderMark) ? byteOrderMark.count : 0
        let body = bytes[start...]
        let lineEnd = body.contains(lf) ? lf : cr
        var ranges: [Range<Int>] = []
        var lineStart = start
        for index in start..<bytes.count where bytes[index] == lineEnd {
            var end = index
            if lineEnd == lf, end > lineStart, bytes[end - 1] == cr { end -= 1 }
            ranges.append(lineStart..<end)
            lineStart = index + 1
        }
        if lineStart < bytes.count { ranges.append(lineStart..<bytes.count) }
        while let last = ranges.last, isBlank(UnsafeBufferPointer(rebasing: bytes[last])) { ranges.removeLast() }
        return ranges
    }

    /// An empty line, or one holding only spaces, tabs or carriage returns.
    public static func isBlank(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        line.allSatisfy { $0 == space || $0 == tab || $0 == cr }
    }

    // MARK: Numbers

    /// The value of a field by the rules above: `nil` when it is not a decimal number or `nan`,
    /// or is out of `Double`'s range.
    ///
    /// Up to 15 significant digits and a power of ten up to 22 convert exactly in one rounding
    /// (Clinger's fast path: both factors are exact doubles); longer numbers go through the
    /// standard library's correctly rounded conversion of the same, already checked, text.
    public static func number(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        number(text, trim(text, 0..<text.count))
    }

    static func number(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Double? {
        var i = range.lowerBound
        let end = range.upperBound
        guard i < end else { return nil }
        var negative = false
        let first = line[i]
        if first == minus || first == plus {
            negative = first == minus
            i += 1
        } else if end - i == 3, line[i] | 0x20 == 0x6E, line[i + 1] | 0x20 == 0x61, line[i + 2] | 0x20 == 0x6E {
            return .nan   // "nan", any case
        }
        var mantissa: UInt64 = 0
        var digits = 0          // digits read, including those dropped
        var kept = 0            // significant digits held in `mantissa`
        var exponent = 0        // power of ten to apply to `mantissa`
        var exact = true
        while i < end, line[i] &- zero < 10 {
            let d = UInt64(line[i] &- zero)
            if mantissa < 100_000_000_000_000_000 {
                mantissa = mantissa * 10 + d
                if mantissa != 0 { kept += 1 }
            } else {
                exponent += 1
                if d != 0 { exact = false }
            }
            digits += 1
            i += 1
        }
        if i < end, line[i] == point {
            i += 1
            while i < end, line[i] &- zero < 10 {
                let d = UInt64(line[i] &- zero)
                if mantissa < 100_000_000_000_000_000 {
                    mantissa = mantissa * 10 + d
                    if mantissa != 0 { kept += 1 }
                    exponent -= 1
                } else if d != 0 {
                    exact = false
                }
                digits += 1
                i += 1
            }
        }
        guard digits > 0 else { return nil }
        if i < end, line[i] | 0x20 == 0x65 {   // 'e' or 'E'
            i += 1
            var exponentNegative = false
            if i < end, line[i] == minus || line[i] == plus {
                exponentNegative = line[i] == minus
                i += 1
            }
            var e = 0, exponentDigits = 0
            while i < end, line[i] &- zero < 10 {
                if e < 100_000 { e = e * 10 + Int(line[i] &- zero) }
                exponentDigits += 1
                i += 1
            }
            guard exponentDigits > 0 else { return nil }
            exponent += exponentNegative ? -e : e
        }
        guard i == end else { return nil }
        var value: Double
        if mantissa == 0 {
            value = 0
        } else if exact, kept <= 15, exponent >= -22, exponent <= 22 {
            value = Double(mantissa)
            value = exponent < 0 ? value / powersOfTen[-exponent] : value * powersOfTen[exponent]
        } else {
            // Checked above to be a plain decimal number, so the standard library reads it the same way.
            guard let slow = Double(String(decoding: UnsafeBufferPointer(rebasing: line[range]), as: UTF8.self)) else { return nil }
            value = abs(slow)
        }
        guard value.isFinite else { return nil }
        return negative ? -value : value
    }

    /// Why a field is not a value, for messages: the field as written and the reason.
    static func problem(_ line: UnsafeBufferPointer<UInt8>, _ field: Range<Int>) -> String {
        let trimmed = trim(line, field)
        let text = String(decoding: UnsafeBufferPointer(rebasing: line[trimmed]), as: UTF8.self)
        if trimmed.isEmpty { return "the field is empty" }
        let lower = text.lowercased()
        let unsigned = lower.hasPrefix("-") || lower.hasPrefix("+") ? String(lower.dropFirst()) : lower
        if unsigned == "inf" || unsigned == "infinity" {
            return "'\(shown(text))' is infinite; no sensor reads that"
        }
        if unsigned.hasPrefix("0x") { return "'\(shown(text))' is hexadecimal, not a decimal number" }
        if unsigned == "nan" { return "'\(text)' is not a number (write nan without a sign)" }
        if let value = Double(text), value.isInfinite {
            return "'\(shown(text))' is past the largest number a Double holds (1.8e308)"
        }
        if let value = number(line, trimmed), abs(value) > largestReading {
            return "'\(shown(text))' is past the largest reading a sample holds (3.4e38); no sensor reads that"
        }
        return "'\(shown(text))' is not a decimal number"
    }

    /// The largest gyroscope or accelerometer reading a row may hold: `Float`'s, since samples keep
    /// their readings as `Float`.
    static let largestReading = Double(Float.greatestFiniteMagnitude)

    /// `text` as a message shows it: at most `limit` characters (a 5 MB field was echoed whole), and
    /// control characters written as `\u{1B}` (an escape sequence in a header went to the terminal).
    public static func shown(_ text: String, limit: Int = 40) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit { return out + "…" }
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return out
    }

    /// The range without the spaces and tabs at either end.
    static func trim(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound, upper = range.upperBound
        while lower < upper, line[lower] == space || line[lower] == tab { lower += 1 }
        while upper > lower, line[upper - 1] == space || line[upper - 1] == tab || line[upper - 1] == cr { upper -= 1 }
        return lower..<upper
    }

    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]
    static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let comma = UInt8(ascii: ","), point = UInt8(ascii: "."), zero = UInt8(ascii: "0")
    private static let minus = UInt8(ascii: "-"), plus = UInt8(ascii: "+")
    private static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
    static let lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
}

/// A recording that does not follow ``RecordingCSV``'s rules.
public struct RecordingCSVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file's name, as the caller gave it.
    public var file: String
    /// 1-based line number, when the problem is on one line.
    public var line: Int?
    /// 1-based byte column where the bad field starts, when one field is wrong.
    public var column: Int?
    /// What is wrong, without the location.
    public var message: String
    /// How to fix it.
    public var fix: String

    public init(file: String, line: Int?, column: Int?, message: String, fix: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.fix = fix
    }

    /// `file:line:column: message`, as compilers print locations.
    public var location: String {
        file + (line.map { ":\($0)" } ?? "") + (column.map { ":\($0)" } ?? "")
    }

    public var description: String { "\(location): \(message)" }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s.removeLast() }
        return String(s)
    }
}
