extension RecordingCSV {
    /// The rule for the order of `t_s` that every reader playing a recording as time applies
    /// (`plumb watch --replay`, the daemon's `--replay`, and `--simulate --replay` through the
    /// emulated chip): time starts at 0 or later, never goes backwards, may repeat, and stays
    /// below ``maximumTimeSeconds``.
    ///
    /// A negative time is refused at its line: recordings count `t_s` from their start (the
    /// BROAD trials from 0.000000, `plumb read --format csv` from its first sample), and a
    /// recording played as a sensor has no time before 0 (its timestamps are nanoseconds since
    /// the start). The simulator's replay used to take a negative time that `plumb watch
    /// --replay` refused.
    ///
    /// A repeated time (two rows with the same `t_s`) is taken: loggers with millisecond stamps
    /// write one at high rates, and a recording played as a sensor takes the second row with no
    /// time since the first (the gyroscope integrates nothing over it), while the emulated chip's
    /// motion steps from the one row to the other at that instant. The simulator's replay used to
    /// refuse it where every other reader took it. A step backwards has no such reading and is
    /// refused at its line. `plumb fuse` reads `t_s` by its own rule: a step backwards is counted
    /// and warned of, not refused.
    ///
    /// A time past ``maximumTimeSeconds`` (about 570 years) is refused at its line: a recording
    /// played as a sensor holds its times as `UInt64` nanoseconds, which end after 1.8447·10¹⁰ s.
    /// Only `plumb watch --replay` and `plumb run --replay` refused it; the simulator's replay
    /// took it, and `plumb watch --simulate --replay` then stopped the process when it turned the
    /// recording's start into nanoseconds.
    ///
    /// Every row counts, a row with a missing (`nan`) reading too: its time is still a time.
    public struct TimeOrder: Sendable {
        /// The previous row's `t_s` and line.
        private var previous: (time: Double, line: Int)?

        public init() {}

        /// Takes `row`'s time, or refuses it when it is negative, earlier than the previous row's,
        /// or past ``RecordingCSV/maximumTimeSeconds``.
        ///
        /// - Parameters:
        ///   - row: a row ``Header/row(_:lineNumber:file:)`` read.
        ///   - lineNumber: its 1-based line number in the file.
        ///   - file: the file's name, for messages.
        /// - Throws: ``RecordingCSVError`` at the line and the column of its `t_s` field, naming the
        ///   earlier line when time goes backwards.
        public mutating func take(_ row: Row, lineNumber: Int, file: String) throws(RecordingCSVError) {
            guard row.time >= 0 else {
                throw RecordingCSVError(file: file, line: lineNumber, column: row.timeField.lowerBound + 1,
                                        message: "t_s \(row.time) is negative; a recording's times are seconds from its start, 0 or more",
                                        fix: RecordingCSV.negativeTimeFix)
            }
            if let previous, row.time < previous.time {
                throw RecordingCSVError(file: file, line: lineNumber, column: row.timeField.lowerBound + 1,
                                        message: "t_s goes backwards, from \(previous.time) on line \(previous.line) to \(row.time)",
                                        fix: RecordingCSV.timeOrderFix)
            }
            guard row.time < RecordingCSV.maximumTimeSeconds else {
                throw RecordingCSVError(file: file, line: lineNumber, column: row.timeField.lowerBound + 1,
                                        message: "t_s \(row.time) is past the latest time a recording can hold (\(RecordingCSV.maximumTimeSeconds) s, about 570 years)",
                                        fix: RecordingCSV.latestTimeFix)
            }
            previous = (row.time, lineNumber)
        }
    }

    /// The fix printed with a negative time.
    public static let negativeTimeFix = "Write t_s in seconds from the recording's start: add the same amount to every t_s so that none is below 0 (the first row's at 0)."

    /// The latest `t_s` a recording can hold (s): played as a sensor, its times are `UInt64`
    /// nanoseconds, which end after 1.8447·10¹⁰ s.
    public static let maximumTimeSeconds = 1.8e10

    /// The fix printed with a time past ``maximumTimeSeconds``.
    public static let latestTimeFix = "Write t_s in seconds from the recording's start."

    /// The fix printed with a time that goes backwards.
    public static let timeOrderFix = "Sort the lines by t_s; rows with the same t_s may stay, and are played in the order written."
}
