/// Why a recording could not be replayed.
public struct ReplayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The recording's name, usually its file path.
    public var source: String
    /// 1-based line number, when the problem is on one line.
    public var line: Int?
    public var message: String

    public var description: String {
        let at = line.map { ":\($0)" } ?? ""
        return "\(source)\(at): \(message)"
    }
}

extension MotionProfile {
    /// The columns a replayed recording must have (BROAD's format, ../shared/data/broad/README.md).
    public static let replayColumns = ["t_s", "gyr_x", "gyr_y", "gyr_z", "acc_x", "acc_y", "acc_z"]

    /// A recording played back: angular rate and specific force interpolated linearly between
    /// rows; the attitude from `true_qw…true_qz` when present and not `nan`.
    ///
    /// The CSV's gyroscope (rad/s) and accelerometer (m/s²) columns are taken as the truth, so
    /// the emulator adds its own noise and bias on top of the recording's.
    ///
    /// - Parameters:
    ///   - csv: the file's text (the caller reads the file; the simulator does no I/O).
    ///   - name: the source's name for messages, such as the path.
    /// - Throws: ``ReplayError`` naming the line when a column is missing or a value is not a number.
    public static func replay(csv: String, name: String) throws(ReplayError) -> MotionProfile {
        // Blank lines are kept here (and skipped below) so that line numbers match the file's.
        var lines = csv.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).makeIterator()
        guard let header = lines.next(), !header.trimmingCharacters().isEmpty else {
            throw ReplayError(source: name, line: nil, message: "the file is empty")
        }
        let columns = header.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters() }
        var index: [Int] = []
        for c in replayColumns {
            guard let i = columns.firstIndex(of: c) else {
                if columns.count == 1, let separator = [";", "\t"].first(where: { columns[0].contains($0) }) {
                    throw ReplayError(source: name, line: 1, message: "the columns are separated by \(separator == ";" ? "semicolons" : "tabs"), not commas")
                }
                throw ReplayError(source: name, line: 1, message: "no column '\(c)' (expected \(replayColumns.joined(separator: ",")))")
            }
            index.append(i)
        }
        let quaternion = ["true_qw", "true_qx", "true_qy", "true_qz"].map { columns.firstIndex(of: $0) }
        let hasTruth = quaternion.allSatisfy { $0 != nil }

        var times: [Double] = [], rates: [SIMD3<Double>] = [], forces: [SIMD3<Double>] = [], attitudes: [Rotation?] = []
        var lineNumber = 1
        while let line = lines.next() {
            lineNumber += 1
            if line.trimmingCharacters().isEmpty { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            func value(_ i: Int) throws(ReplayError) -> Double {
                guard i < fields.count, let v = Double(fields[i].trimmingCharacters()) else {
                    throw ReplayError(source: name, line: lineNumber, message: "column \(i + 1) (\(columns[i])) is missing or not a number")
                }
                return v
            }
            let t = try value(index[0])
            guard t.isFinite else {
                throw ReplayError(source: name, line: lineNumber, message: "t_s \(t) is not a time in seconds")
            }
            if let last = times.last, t <= last {
                throw ReplayError(source: name, line: lineNumber, message: "time \(t) does not increase")
            }
            times.append(t)
            rates.append(SIMD3(try value(index[1]), try value(index[2]), try value(index[3])))
            forces.append(SIMD3(try value(index[4]), try value(index[5]), try value(index[6])))
            if hasTruth {
                // A row too short for the truth columns has no truth (like a row holding nan).
                let q = quaternion.map { i in i! < fields.count ? Double(fields[i!].trimmingCharacters()) ?? .nan : .nan }
                attitudes.append(q.contains { !$0.isFinite } ? nil : Rotation(w: q[0], x: q[1], y: q[2], z: q[3]).normalized)
            } else {
                attitudes.append(nil)
            }
        }
        guard let first = times.first, let last = times.last, times.count >= 2 else {
            throw ReplayError(source: name, line: nil, message: "needs at least two rows of data")
        }
        let t0 = first
        let (ts, rs, fs, qs) = (times, rates, forces, attitudes)
        return MotionProfile(name: name, duration: last - t0) { t in
            let time = t + t0
            // Binary search for the row at or before `time`.
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
