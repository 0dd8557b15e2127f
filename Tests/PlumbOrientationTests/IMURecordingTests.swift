import Testing
@testable import PlumbOrientation

/// `IMURecording.parseCSV` on malformed files: a typed error naming the line, never a trap.
@Suite struct IMURecordingCSVTests {
    static let header = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z"

    static func parse(_ text: String) throws(MotionSourceError) -> IMURecording {
        try IMURecording.parseCSV(Array(text.utf8), name: "r.csv")
    }

    @Test func aTimePastTheNanosecondRangeIsAnErrorNamingTheLine() {
        // 1e20 s is 1e29 ns, past UInt64.max: the conversion used to trap.
        #expect(throws: MotionSourceError.recording("r.csv:3:1: t_s 1e+20 is past the latest time a recording can hold (18000000000.0 s, about 570 years)")) {
            try Self.parse("\(Self.header)\n0,0,0,0,0,0,9.8\n1e20,0,0,0,0,0,9.8\n")
        }
        #expect(throws: MotionSourceError.self) { try Self.parse("\(Self.header)\n1e300,0,0,0,0,0,9.8\n") }
        // The last time that fits still parses.
        let r = try? Self.parse("\(Self.header)\n0,0,0,0,0,0,9.8\n1.7e10,0,0,0,0,0,9.8\n")
        #expect(r?.samples.last?.timestampNanoseconds == 17_000_000_000_000_000_000)
    }

    @Test func lineNumbersCountBlankLines() {
        #expect(throws: MotionSourceError.recording("r.csv:6:6: gyr_x: 'x' is not a decimal number")) {
            try Self.parse("\(Self.header)\n\n0,0,0,0,0,0,9.8\n\n\n0.01,x,0,0,0,0,9.8\n")
        }
    }

    @Test func aByteOrderMarkAndClassicMacLineEndsAreRead() throws {
        let rows = "\(Self.header)\r0,0.1,0,0,0,0,9.8\r0.01,0.2,0,0,0,0,9.8\r"
        let mac = try Self.parse(rows)
        #expect(mac.samples.map(\.angularRate.x) == [0.1, 0.2])
        let bom = try IMURecording.parseCSV([0xEF, 0xBB, 0xBF] + Array("\(Self.header)\r\n0,0.1,0,0,0,0,9.8\r\n".utf8), name: "r.csv")
        #expect(bom.samples.count == 1)
    }

    @Test func aFileWithOnlyAHeaderIsAnError() {
        // It used to play nothing and exit 0 (watch) or log "at 0 Hz" then fail (run).
        #expect(throws: MotionSourceError.recording("r.csv: no samples after the header; expected one line per sample with t_s, gyr_x.., acc_x..")) {
            try Self.parse("\(Self.header)\n\n")
        }
    }
}
