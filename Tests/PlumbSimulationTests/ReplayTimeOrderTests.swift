import Testing
import PlumbDrivers
@testable import PlumbSimulation

/// The simulator's replay takes `t_s` by ``RecordingCSV/TimeOrder``, the rule every reader that
/// plays a recording shares: a repeated time is taken, a step backwards refused at its line. It
/// used to refuse a repeated time, which `plumb watch --replay` and `plumb fuse` took.
@Suite struct ReplayTimeOrderTests {
    let header = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"

    /// Rows at one time are a step in the motion there: interpolated up to the first, from the last on.
    @Test func aRepeatedTimeIsAStepInTheMotion() throws {
        let csv = header + "0,0,0,0,0,0,9.8\n1,1,0,0,0,0,9.8\n1,3,0,0,0,0,9.8\n2,3,0,0,0,0,9.8\n"
        let p = try MotionProfile.replay(csv: csv, name: "x.csv")
        #expect(p.duration == 2)
        #expect(abs(p.state(at: 0.5).angularRate.x - 0.5) < 1e-12)
        #expect(p.state(at: 1).angularRate.x == 3)
        #expect(p.state(at: 1.5).angularRate.x == 3)
    }

    @Test func aStepBackwardsIsRefusedAtItsLineAndColumn() {
        let csv = "note,t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\na,0,0,0,0,0,0,9.8\nb,1,0,0,0,0,0,9.8\nc,1,0,0,0,0,0,9.8\nd,0.5,0,0,0,0,0,9.8\n"
        #expect(throws: ReplayError(source: "x.csv", line: 5, column: 3, message: "t_s goes backwards, from 1.0 on line 4 to 0.5",
                                    fix: RecordingCSV.timeOrderFix)) {
            try MotionProfile.replay(csv: csv, name: "x.csv")
        }
    }

    /// A negative time is refused at its line and column, as `plumb watch --replay`
    /// (`IMURecording`) refuses it; the replay took it and started the motion there.
    @Test func aNegativeTimeIsRefusedAtItsLineAndColumn() {
        let csv = header + "-1.5,0,0,0,0,0,9.8\n0,0,0,0,0,0,9.8\n1,0,0,0,0,0,9.8\n"
        #expect(throws: ReplayError(source: "x.csv", line: 2, column: 1,
                                    message: "t_s -1.5 is negative; a recording's times are seconds from its start, 0 or more",
                                    fix: RecordingCSV.negativeTimeFix)) {
            try MotionProfile.replay(csv: csv, name: "x.csv")
        }
    }

    /// A time past ``RecordingCSV/maximumTimeSeconds`` is refused at its line and column, as
    /// `plumb watch --replay` (`IMURecording`) refuses it; the replay took it (or, after an
    /// earlier row, called it a jump in time).
    @Test func aTimePastTheLatestIsRefusedAtItsLineAndColumn() {
        for (csv, line) in [(header + "0,0,0,0,0,0,9.8\n2e10,0,0,0,0,0,9.8\n", 3), (header + "1.8e10,0,0,0,0,0,9.8\n1.9e10,0,0,0,0,0,9.8\n", 2)] {
            let time = line == 3 ? "20000000000.0" : "18000000000.0"
            #expect(throws: ReplayError(source: "x.csv", line: line, column: 1,
                                        message: "t_s \(time) is past the latest time a recording can hold (18000000000.0 s, about 570 years)",
                                        fix: RecordingCSV.latestTimeFix)) {
                try MotionProfile.replay(csv: csv, name: "x.csv")
            }
        }
        // Just short of it, the motion plays from there.
        let p = try? MotionProfile.replay(csv: header + "1.7e10,0,0,0,0,0,9.8\n17000000001,0,0,0,0,0,9.8\n", name: "x.csv")
        #expect(p?.timeOrigin == 1.7e10)
        #expect(p?.duration == 1)
    }

    /// A row with a missing reading is left out of the motion, but its time is a time: a row after
    /// it that goes back before it was taken, since only the rows kept were compared.
    @Test func aStepBackFromARowWithAMissingReadingIsRefused() {
        let csv = header + "0,0,0,0,0,0,9.8\n3,nan,0,0,0,0,9.8\n2,0,0,0,0,0,9.8\n4,0,0,0,0,0,9.8\n"
        let error = #expect(throws: ReplayError.self) { try MotionProfile.replay(csv: csv, name: "x.csv") }
        #expect(error?.line == 4)
        #expect(error?.message == "t_s goes backwards, from 3.0 on line 3 to 2.0")
    }

    /// Rows at one time only last no time: nothing for the chip to sample.
    @Test func rowsAtOneTimeOnlyAreRefused() {
        #expect(throws: ReplayError(source: "x.csv", line: nil, message: "needs at least two rows of data at different times")) {
            try MotionProfile.replay(csv: header + "1,0,0,0,0,0,9.8\n1,0,0,0,0,0,9.8\n", name: "x.csv")
        }
    }
}
