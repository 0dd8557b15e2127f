import Testing
import PlumbDrivers

/// The one parser every reader of recordings shares (`plumb fuse`, `watch --replay`, the daemon,
/// the simulator's `--replay`).
@Suite struct RecordingCSVTests {
    static let header = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z"

    static func number(_ text: String) -> Double? {
        Array(text.utf8).withUnsafeBufferPointer { RecordingCSV.number($0) }
    }

    static func row(_ line: String, header: String = header) throws(RecordingCSVError) -> RecordingCSV.Row {
        let parsed = try RecordingCSV.Header(Array(header.utf8), file: "r.csv")
        return try Array(line.utf8).withUnsafeBufferPointer { bytes throws(RecordingCSVError) in
            try parsed.row(bytes, lineNumber: 7, file: "r.csv")
        }
    }

    @Test("decimal numbers are read, padded with spaces or tabs", arguments: [
        ("0", 0.0), ("-0.0123", -0.0123), ("+9.81", 9.81), ("9.", 9.0), (".5", 0.5), ("1.5e-3", 1.5e-3),
        ("1E5", 1e5), (" 1e5 ", 1e5), ("\t-2.5\t", -2.5), ("007", 7.0), ("0.000000", 0.0),
        ("-0.2361874", -0.2361874), ("285.714", 285.714), ("1e-320", 1e-320), ("1.7976931348623157e308", .greatestFiniteMagnitude),
    ])
    func accepted(text: String, value: Double) {
        #expect(Self.number(text) == value)
    }

    @Test("everything else is refused: hexadecimal, infinities, empty, stray characters, overflow", arguments: [
        "", " ", "0x10", "0X1p3", "inf", "-inf", "Infinity", "-nan", "1,5", "9.x", "1e", "1e+", ".", "-", "+.e1",
        "1 2", "1e400", "-1e309", "٣", "1_000", "0b1", "1.2.3",
    ])
    func refused(text: String) {
        #expect(Self.number(text) == nil)
    }

    @Test func nanInAnyCaseIsAMissingReading() {
        for text in ["nan", "NaN", "NAN", " nan "] { #expect(Self.number(text)?.isNaN == true) }
    }

    /// The fast path (Clinger's) and the fallback agree with the standard library's correctly
    /// rounded conversion on numbers of every length and exponent.
    @Test func agreesWithTheStandardLibraryToTheBit() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 11 }
        for _ in 0..<20_000 {
            let digits = Int(next() % 22) + 1
            var text = next() % 2 == 0 ? "-" : ""
            let point = Int(next() % UInt64(digits + 1))
            for k in 0..<digits {
                if k == point { text += "." }
                text += String(next() % 10)
            }
            if next() % 3 == 0 { text += "e\(Int(next() % 80) - 40)" }
            let expected = Double(text)
            #expect(Self.number(text) == expected, "\(text)")
        }
    }

    @Test func aRowGivesTheValuesByColumnNameAndTheTimeFieldAsWritten() throws {
        let row = try Self.row(" 1.25 ,x,9.8,0,0,0.1,0.2,0.3", header: "t_s,note,acc_z,acc_x,acc_y,gyr_x,gyr_y,gyr_z")
        #expect(row.time == 1.25 && row.timeField == 1..<5)
        #expect(row.gyroscope == SIMD3(0.1, 0.2, 0.3) && row.accelerometer == SIMD3(0, 0, 9.8))
        #expect(row.isComplete)
        #expect(try Self.row("0,nan,0,0,0,0,9.8").isComplete == false)
    }

    @Test func errorsNameTheLineTheColumnAndTheValue() {
        #expect(throws: RecordingCSVError(file: "r.csv", line: 7, column: 8, message: "gyr_y: '0x10' is hexadecimal, not a decimal number", fix: RecordingCSV.numberFix)) {
            try Self.row("0.01,0,0x10,0,0,0,9.8")
        }
        #expect(throws: RecordingCSVError(file: "r.csv", line: 7, column: 16, message: "acc_z: 'inf' is infinite; no sensor reads that", fix: RecordingCSV.numberFix)) {
            try Self.row("0.01,0,0,0,0,0,inf")
        }
        #expect(throws: RecordingCSVError(file: "r.csv", line: 7, column: 1, message: "t_s: nan is not a time", fix: "Every line needs its time in seconds in t_s; delete lines without one.")) {
            try Self.row("nan,0,0,0,0,0,9.8")
        }
        #expect(throws: RecordingCSVError(file: "r.csv", line: 7, column: 8, message: "gyr_y: the field is empty", fix: RecordingCSV.numberFix)) {
            try Self.row("0.01,0,,0,0,0,9.8")
        }
        #expect(throws: RecordingCSVError(file: "r.csv", line: 7, column: 3, message: "gyr_x: '1e400' is past the largest number a Double holds (1.8e308)", fix: RecordingCSV.numberFix)) {
            try Self.row("0,1e400,0,0,0,0,9.8")
        }
    }

    /// A reading past Float's range (samples keep readings as Float) was accepted and became
    /// infinite there: `plumb fuse` reset its attitude without a word. t_s stays a Double.
    @Test func aReadingPastWhatASampleHoldsIsRefused() throws {
        #expect(throws: RecordingCSVError(file: "r.csv", line: 7, column: 3, message: "gyr_x: '1e39' is past the largest reading a sample holds (3.4e38); no sensor reads that", fix: RecordingCSV.numberFix)) {
            try Self.row("0,1e39,0,0,0,0,9.8")
        }
        #expect(throws: RecordingCSVError(file: "r.csv", line: 7, column: 11, message: "acc_y: '-3.5e38' is past the largest reading a sample holds (3.4e38); no sensor reads that", fix: RecordingCSV.numberFix)) {
            try Self.row("0,0,0,0,0,-3.5e38,9.8")
        }
        #expect(try Self.row("0,3.4e38,0,0,0,0,9.8").gyroscope.x == 3.4e38)
        #expect(try Self.row("1e39,0,0,0,0,0,9.8").time == 1e39)
    }

    /// A field is shown in a message at most 40 characters long, control characters escaped: a
    /// 5 MB field was echoed whole, and a header's escape sequences reached the terminal.
    @Test func aBadFieldIsShownShortAndEscaped() throws {
        let long = String(repeating: "1", count: 5000) + "x"
        do {
            _ = try Self.row("0,\(long),0,0,0,0,9.8")
            Issue.record("accepted")
        } catch {
            #expect(error.message == "gyr_x: '\(String(repeating: "1", count: 40))…' is not a decimal number")
        }
        #expect(throws: RecordingCSVError(file: "r.csv", line: 1, column: nil, message: "no column 'gyr_x' in the header (t_s,gyr_x\\u{1B}[2J,gyr_y,gyr_z,acc_x,acc_y,acc_z)", fix: RecordingCSV.columnsFix)) {
            try RecordingCSV.Header(Array("t_s,gyr_x\u{1B}[2J,gyr_y,gyr_z,acc_x,acc_y,acc_z".utf8), file: "r.csv")
        }
    }

    /// A required column named twice was read from its first field without a word.
    @Test func aRequiredColumnNamedTwiceIsRefused() {
        #expect(throws: RecordingCSVError(file: "r.csv", line: 1, column: nil,
                                          message: "the header names 'gyr_x' twice (fields 2 and 3), so which is the reading cannot be told",
                                          fix: "Rename or delete one of them. " + RecordingCSV.columnsFix)) {
            try RecordingCSV.Header(Array("t_s,gyr_x,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z".utf8), file: "r.csv")
        }
        // Other columns may repeat (they are not read).
        #expect(throws: Never.self) { try RecordingCSV.Header(Array("t_s,note,note,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z".utf8), file: "r.csv") }
    }

    @Test func aRowMayEndEarlyOnlyAfterItsRequiredColumns() throws {
        let header = Self.header + ",true_qw"
        #expect(try Self.row("0,0,0,0,0,0,9.8", header: header).accelerometer.z == 9.8)
        #expect(throws: RecordingCSVError(file: "r.csv", line: 7, column: nil, message: "6 fields, but the header has 8 and 'acc_z' is field 7", fix: RecordingCSV.columnsFix)) {
            try Self.row("0,0,0,0,0,9.8", header: header)
        }
        // A decimal comma adds fields: named with its likely cause.
        #expect(throws: RecordingCSVError.self) { try Self.row("0,0,0,0,0,0,9,8") }
        do {
            _ = try Self.row("0,0,0,0,0,0,9,8")
        } catch {
            #expect(error.description == "r.csv:7: 8 fields, but the header has 7")
            #expect(error.fix.hasPrefix("Write a point, not a comma, before decimals"))
        }
    }

    @Test func headerErrorsNameTheMissingColumnOrTheSeparator() {
        #expect(throws: RecordingCSVError(file: "r.csv", line: 1, column: nil, message: "no column 'acc_z' in the header (t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y)", fix: RecordingCSV.columnsFix)) {
            try RecordingCSV.Header(Array("t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y".utf8), file: "r.csv")
        }
        #expect(throws: RecordingCSVError.self) {
            try RecordingCSV.Header(Array("t_s;gyr_x;gyr_y;gyr_z;acc_x;acc_y;acc_z".utf8), file: "r.csv")
        }
        // A byte order mark and spaces around names are fine.
        #expect(throws: Never.self) { try RecordingCSV.Header([0xEF, 0xBB, 0xBF] + Array(" t_s , gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\r".utf8), file: "r.csv") }
    }

    @Test func linesSplitOnLFCRLFOrClassicMacCRAndDropTrailingBlanks() {
        func lines(_ text: String) -> [String] {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBufferPointer { b in RecordingCSV.lines(b).map { String(decoding: b[$0], as: UTF8.self) } }
        }
        #expect(lines("a\nb\r\n\nc\n \n\n") == ["a", "b", "", "c"])
        #expect(lines("a\rb\rc") == ["a", "b", "c"])
        #expect(lines("\u{FEFF}a\nb") == ["a", "b"])
    }
}
