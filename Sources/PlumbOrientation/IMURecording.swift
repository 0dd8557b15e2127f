import PlumbDrivers

/// IMU samples recorded earlier, such as a trial of the BROAD dataset.
public struct IMURecording: Sendable {
    /// The samples, oldest first; timestamps start at the recording's t = 0.
    public var samples: [IMUSample]

    public init(samples: [IMUSample]) { self.samples = samples }

    /// The mean sampling rate in hertz (0 for fewer than two samples).
    public var sampleRate: Double {
        guard samples.count > 1, let first = samples.first, let last = samples.last,
              last.timestampNanoseconds > first.timestampNanoseconds else { return 0 }
        return Double(samples.count - 1) / (Double(last.timestampNanoseconds - first.timestampNanoseconds) / 1e9)
    }

    /// Reads the recording format of ``RecordingCSV`` (the BROAD dataset's, and
    /// `plumb read --format csv`'s): a header naming `t_s` (seconds), `gyr_x`, `gyr_y`, `gyr_z`
    /// (rad/s) and `acc_x`, `acc_y`, `acc_z` (m/s², specific force); other columns are ignored, in
    /// any order. A missing reading (`nan`) stays in the sample; the filters skip such samples.
    /// `t_s` follows ``RecordingCSV/TimeOrder``: 0 or more, never backwards, below
    /// ``maximumTimeSeconds``; a repeated time is a sample with no time since the one before.
    ///
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - name: the file's name, for messages.
    /// - Throws: ``MotionSourceError/recording(_:)`` naming the line and column, or the file when
    ///   it holds no sample at all.
    public static func parseCSV(_ bytes: [UInt8], name: String) throws(MotionSourceError) -> IMURecording {
        do { return try parse(csv: bytes, name: name) } catch { throw .recording(error.description) }
    }

    /// ``parseCSV(_:name:)`` with the error's location, message and fix apart.
    public static func parse(csv bytes: [UInt8], name: String) throws(RecordingCSVError) -> IMURecording {
        try bytes.withUnsafeBufferPointer { buffer throws(RecordingCSVError) in try parse(buffer, name: name) }
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, name: String) throws(RecordingCSVError) -> IMURecording {
        let lines = RecordingCSV.lines(bytes)
        guard let headerRange = lines.first else {
            throw RecordingCSVError(file: name, line: nil, column: nil,
                                    message: "the file is empty; expected a CSV header with t_s, gyr_x.., acc_x..",
                                    fix: RecordingCSV.columnsFix)
        }
        let header = try RecordingCSV.Header(bytes[headerRange], file: name)
        var samples: [IMUSample] = []
        samples.reserveCapacity(lines.count)
        var order = RecordingCSV.TimeOrder()
        for (offset, range) in lines.enumerated().dropFirst() {
            let lineNumber = offset + 1
            let line = UnsafeBufferPointer(rebasing: bytes[range])
            if RecordingCSV.isBlank(line) { continue }
            let row = try header.row(line, lineNumber: lineNumber, file: name)
            // A negative time, and one past the latest a recording can hold, are refused by the
            // order, as every replay refuses them.
            try order.take(row, lineNumber: lineNumber, file: name)
            let t = UInt64((row.time * 1e9).rounded())
            samples.append(IMUSample(timestampNanoseconds: t, acceleration: row.accelerometer, angularRate: row.gyroscope))
        }
        guard !samples.isEmpty else {
            throw RecordingCSVError(file: name, line: nil, column: nil,
                                    message: "no samples after the header; expected one line per sample with t_s, gyr_x.., acc_x..",
                                    fix: RecordingCSV.columnsFix)
        }
        return IMURecording(samples: samples)
    }

    /// The latest `t_s` a recording can hold (s): timestamps are `UInt64` nanoseconds, which end
    /// after 1.8447e10 s (``RecordingCSV/maximumTimeSeconds``, which every replay applies).
    public static let maximumTimeSeconds = RecordingCSV.maximumTimeSeconds
}
