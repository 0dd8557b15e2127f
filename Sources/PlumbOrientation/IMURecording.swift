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

    /// Reads the CSV format of `../shared/data/broad` (and of `plumb read --format csv`): a header
    /// naming `t_s` (seconds), `gyr_x`, `gyr_y`, `gyr_z` (rad/s) and `acc_x`, `acc_y`, `acc_z`
    /// (m/s², specific force); other columns are ignored, in any order.
    ///
    /// - Parameters:
    ///   - bytes: the file's contents.
    ///   - name: the file's name, for messages.
    /// - Throws: ``MotionSourceError/recording(_:)`` naming the line, or the file when it holds no
    ///   sample at all.
    public static func parseCSV(_ bytes: [UInt8], name: String) throws(MotionSourceError) -> IMURecording {
        // Blank lines are kept here (and skipped below) so that line numbers match the file's.
        let body = bytes.starts(with: utf8ByteOrderMark) ? bytes.dropFirst(utf8ByteOrderMark.count) : bytes[...]
        // Lines end in LF or CR LF; a file without any LF has classic Mac OS line ends (CR).
        let lineEnd = body.contains(UInt8(ascii: "\n")) ? UInt8(ascii: "\n") : UInt8(ascii: "\r")
        var lines = body.split(separator: lineEnd, omittingEmptySubsequences: false)[...]
        while let last = lines.last, isBlank(last) { lines.removeLast() }
        guard let headerLine = lines.popFirst() else {
            throw .recording("\(name): the file is empty; expected a CSV header with t_s, gyr_x.., acc_x..")
        }
        let header = headerLine.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self).trimmingWhitespace() }
        let wanted = ["t_s", "gyr_x", "gyr_y", "gyr_z", "acc_x", "acc_y", "acc_z"]
        var columns: [Int] = []
        for w in wanted {
            guard let i = header.firstIndex(of: w) else {
                if header.count == 1, let separator = [";", "\t"].first(where: { header[0].contains($0) }) {
                    throw .recording("\(name):1: the columns are separated by \(separator == ";" ? "semicolons" : "tabs"), not commas")
                }
                throw .recording("\(name):1: no column '\(w)' in the header (\(header.joined(separator: ","))); expected the BROAD CSV format")
            }
            columns.append(i)
        }
        var samples: [IMUSample] = []
        samples.reserveCapacity(lines.count)
        var values = [Double](repeating: 0, count: wanted.count)
        var lineNumber = 1
        for line in lines {
            lineNumber += 1
            if isBlank(line) { continue }
            let fields = line.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            for (k, c) in columns.enumerated() {
                guard c < fields.count, let v = Double(String(decoding: fields[c], as: UTF8.self).trimmingWhitespace()) else {
                    throw .recording("\(name):\(lineNumber): column \(wanted[k]) is missing or not a number")
                }
                values[k] = v
            }
            guard values[0].isFinite, values[0] >= 0 else {
                throw .recording("\(name):\(lineNumber): t_s \(values[0]) is not a time in seconds ≥ 0")
            }
            guard values[0] < maximumTimeSeconds else {
                throw .recording("\(name):\(lineNumber): t_s \(values[0]) is past the latest time a recording can hold (\(maximumTimeSeconds) s, about 570 years); write t_s in seconds from the recording's start")
            }
            let t = UInt64((values[0] * 1e9).rounded())
            if let last = samples.last, t < last.timestampNanoseconds {
                throw .recording("\(name):\(lineNumber): t_s goes backwards (\(values[0]) s)")
            }
            samples.append(IMUSample(timestampNanoseconds: t,
                                     acceleration: SIMD3(values[4], values[5], values[6]),
                                     angularRate: SIMD3(values[1], values[2], values[3])))
        }
        guard !samples.isEmpty else {
            throw .recording("\(name): no samples after the header; expected one line per sample with t_s, gyr_x.., acc_x..")
        }
        return IMURecording(samples: samples)
    }

    /// The latest `t_s` a recording can hold (s): timestamps are `UInt64` nanoseconds, which end
    /// after 1.8447e10 s.
    public static let maximumTimeSeconds = 1.8e10

    private static let utf8ByteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// An empty line, or one holding only spaces, tabs or a carriage return.
    private static func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
        line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\r" || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\r" || l == "\t" { s.removeLast() }
        return String(s)
    }
}
