import Testing
import PlumbDrivers
@testable import PlumbSimulation

/// A recording's gap longer than ``MotionProfile/maximumReplayGap`` is refused when the file is
/// read: the emulated chip would sample every second of it (the audit's 10⁴ s gap cost 20 s of
/// CPU, 10⁵ s over a minute, with nothing printed).
@Suite struct ReplayGapTests {
    let header = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"

    @Test func aGapOverAMinuteIsRefusedNamingItsLinesAndTheFix() {
        let csv = header + "0,0,0,0,0,0,9.8\n0.01,0,0,0,0,0,9.8\n60.02,0,0,0,0,0,9.8\n"
        #expect(throws: ReplayError(source: "gap.csv", line: 4,
                                    message: "t_s jumps by 60.01 s, from 0.01 on line 3 to 60.02; the emulated chip would sample every second of the gap (a replay through it takes gaps of up to 60 s)",
                                    fix: "Split the recording at line 4 and play each part, or play it as recorded, gap and all, with 'plumb watch --replay FILE' (no --simulate), which passes over the gap at once.")) {
            try MotionProfile.replay(csv: csv, name: "gap.csv")
        }
    }

    @Test func aGapOfAMinuteIsPlayed() throws {
        let p = try MotionProfile.replay(csv: header + "0,0,0,0,0,0,9.8\n60,0,0,0,0,0,9.8\n", name: "x.csv")
        #expect(p.duration == 60)
    }

    /// Rows with a missing reading are interpolated across, so the gap runs from the row kept
    /// before them; a blank line between rows counts for the line numbers only.
    @Test func aGapSpansRowsWithoutReadingsAndBlankLines() {
        let csv = header + "0,0,0,0,0,0,9.8\n30,nan,0,0,0,0,9.8\n\n61,nan,0,0,0,0,9.8\n90,0,0,0,0,0,9.8\n"
        let error = #expect(throws: ReplayError.self) { try MotionProfile.replay(csv: csv, name: "x.csv") }
        #expect(error?.line == 6)
        #expect(error?.message.hasPrefix("t_s jumps by 90.0 s, from 0.0 on line 2 to 90.0;") == true, "\(String(describing: error))")
    }
}
