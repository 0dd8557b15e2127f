import PlumbDrivers

/// Why a recording could not be replayed.
public struct ReplayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The recording's name, usually its file path.
    public var source: String
    /// 1-based line number, when the problem is on one line.
    public var line: Int?
    /// 1-based byte column of the bad field, when one field is wrong.
    public var column: Int?
    public var message: String
    /// How to fix it.
    public var fix: String

    public init(source: String, line: Int?, column: Int? = nil, message: String, fix: String = RecordingCSV.columnsFix) {
        self.source = source
        self.line = line
        self.column = column
        self.message = message
        self.fix = fix
    }

    public var description: String {
        let at = (line.map { ":\($0)" } ?? "") + (column.map { ":\($0)" } ?? "")
        return "\(source)\(at): \(message)"
    }

    init(_ error: RecordingCSVError) {
        self.init(source: error.file, line: error.line, column: error.column, message: error.message, fix: error.fix)
    }
}

extension MotionProfile {
    /// The columns a replayed recording must have (BROAD's format, ../shared/data/broad/README.md).
    public static let replayColumns = RecordingCSV.columns

    /// The longest time between two rows a replay plays, in seconds (60).
    ///
    /// The emulated chip samples the motion at its own rate through every second of a gap, the
    /// motion made up by interpolating between the rows around it, and the driver reads each
    /// sample: measured in a debug build, about 2.5 ms of CPU per recorded second (a 1000 s gap
    /// took 2.7 s, the audit's 10⁴ s about 20 s, 10⁵ s over a minute; `t_s` may be as large as
    /// 1.8·10¹⁰ s, so a typo cost days) with nothing printed meanwhile. Skipping the gap instead
    /// is not in the emulator's design: it is a chip sampling without pause on a virtual clock,
    /// read by the real driver and stream, and a stretch without samples is not something a chip
    /// gives them to read. A minute of made-up motion costs about 0.15 s and
    /// is already more invention than a replay should hold; a longer gap is refused when the
    /// file is read, naming its line, with the fix (split the file, or `--replay` without
    /// `--simulate`, which takes the recording as recorded and passes a gap at once).
    public static let maximumReplayGap = 60.0

    /// A recording played back: angular rate and specific force interpolated linearly between
    /// rows; the attitude from `true_qw…true_qz` when present and not `nan`.
    ///
    /// The file follows ``RecordingCSV``'s rules, like every reader of recordings, and its `t_s`
    /// ``RecordingCSV/TimeOrder``: 0 or more, never backwards, below
    /// ``RecordingCSV/maximumTimeSeconds``; rows with the same time are a step
    /// in the motion at that instant (interpolated up to the first, from the last on). The CSV's
    /// gyroscope (rad/s) and accelerometer (m/s²) columns are taken as the truth, so the emulator
    /// adds its own noise and bias on top of the recording's. A row with a missing reading (`nan`)
    /// is left out: the motion is interpolated across it.
    ///
    /// - Parameters:
    ///   - csv: the file's text (the caller reads the file; the simulator does no I/O).
    ///   - name: the source's name for messages, such as the path.
    /// - Throws: ``ReplayError`` naming the line and column when a column is missing or a value
    ///   is not a number, the line where time is negative, goes backwards or passes the latest a
    ///   recording can hold, or the line after a
    ///   gap of more than ``maximumReplayGap`` seconds between rows with readings.
    public static func replay(csv: String, name: String) throws(ReplayError) -> MotionProfile {
        var bytes = Array(csv.utf8)
        return try bytes.withUnsafeMutableBufferPointer { buffer throws(ReplayError) in
            try replay(UnsafeBufferPointer(buffer), name: name)
        }
    }

    private static func replay(_ bytes: UnsafeBufferPointer<UInt8>, name: String) throws(ReplayError) -> MotionProfile {
        let lines = RecordingCSV.lines(bytes)
        guard let headerRange = lines.first, !RecordingCSV.isBlank(UnsafeBufferPointer(rebasing: bytes[headerRange])) else {
            throw ReplayError(source: name, line: nil, message: "the file is empty")
        }
        let header: RecordingCSV.Header
        do { header = try RecordingCSV.Header(bytes[headerRange], file: name) } catch { throw ReplayError(error) }
        let quaternion = ["true_qw", "true_qx", "true_qy", "true_qz"].map { header.index(of: $0) }
        let truth = quaternion.allSatisfy { $0 != nil } ? quaternion.map { $0! } : nil

        var times: [Double] = [], rates: [SIMD3<Double>] = [], forces: [SIMD3<Double>] = [], attitudes: [Rotation?] = []
        /// The line of the last row kept (a row with a missing reading is not: the motion is
        /// interpolated across it, so a gap runs from row kept to row kept).
        var lastKeptLine = 0
        var order = RecordingCSV.TimeOrder()
        for (offset, range) in lines.enumerated().dropFirst() {
            let lineNumber = offset + 1
            let line = UnsafeBufferPointer(rebasing: bytes[range])
            if RecordingCSV.isBlank(line) { continue }
            let row: RecordingCSV.Row
            do { row = try header.row(line, lineNumber: lineNumber, file: name) } catch { throw ReplayError(error) }
            do { try order.take(row, lineNumber: lineNumber, file: name) } catch { throw ReplayError(error) }
            let t = row.time
            guard row.isComplete else { continue }
            if let last = times.last, t - last > maximumReplayGap {
                throw ReplayError(source: name, line: lineNumber,
                                  message: "t_s jumps by \(((t - last) * 1000).rounded() / 1000) s, from \(last) on line \(lastKeptLine) to \(t); "
                                      + "the emulated chip would sample every second of the gap (a replay through it takes gaps of up to \(Int(maximumReplayGap)) s)",
                                  fix: "Split the recording at line \(lineNumber) and play each part, or play it as recorded, gap and all, "
                                      + "with 'plumb watch --replay FILE' (no --simulate), which passes over the gap at once.")
            }
            lastKeptLine = lineNumber
            times.append(t)
            rates.append(row.gyroscope)
            forces.append(row.accelerometer)
            if let truth {
                // A row too short for the truth columns has no truth (like a row holding nan).
                var q: [Double] = []
                for i in truth {
                    do { q.append(try header.value(ofField: i, in: line, lineNumber: lineNumber, file: name)) } catch { throw ReplayError(error) }
                }
                attitudes.append(q.contains { !$0.isFinite } ? nil : Rotation(w: q[0], x: q[1], y: q[2], z: q[3]).normalized)
            } else {
                attitudes.append(nil)
            }
        }
        // Rows at one time only would be a motion lasting no time: nothing for the chip to sample.
        guard let first = times.first, let last = times.last, last > first else {
            throw ReplayError(source: name, line: nil, message: "needs at least two rows of data at different times")
        }
        let t0 = first
        let (ts, rs, fs, qs) = (times, rates, forces, attitudes)
        var profile = MotionProfile(name: name, duration: last - t0) { t in
            let time = t + t0
            // Binary search for the last row at or before `time` (of rows at one time, the last,
            // so the next row is later and the motion steps at a repeated time).
            var lo = 0, hi = ts.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if ts[mid] <= time { lo = mid } else { hi = mid - 1 }
            }
            let i = lo, j = min(lo + 1, ts.count - 1)
            let f = j == i ? 0 : max(0, min(1, (time - ts[i]) / (ts[j] - ts[i])))
            let attitude = f < 0.5 ? qs[i] : qs[j]
            return MotionState(angularRate: rs[i] + (rs[j] - rs[i]) * f,
                               specificForce: fs[i] + (fs[j] - fs[i]) * f,
                               attitude: attitude)
        }
        profile.timeOrigin = t0
        return profile
    }
}

extension Substring {
    func trimmingCharacters() -> String {
        var s = self
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
