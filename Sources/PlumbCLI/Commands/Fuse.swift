import Foundation
import PlumbFusion
import PlumbHAL

/// `plumb fuse`: runs a fusion filter over a recorded CSV file.
enum Fuse {
    static let spec = CommandSpec(
        name: "fuse",
        abstract: "Fuse gyroscope and accelerometer samples (a recording, or plumb read live) into attitude and gravity.",
        discussion: """
        Reads a CSV file whose header names the columns t_s (s), gyr_x, gyr_y, gyr_z (rad/s) and
        acc_x, acc_y, acc_z (m/s²), in any order (other columns are ignored), and writes one row per
        sample: t_s,qw,qx,qy,qz,gravity_x,gravity_y,gravity_z. The quaternion is the sensor frame
        relative to a z-up earth frame; gravity is the unit vector toward the earth in the sensor
        frame. Values are decimal numbers; nan marks a missing reading, and that sample is skipped
        (its row repeats the last state). With a real-time filter, rows before the first usable accelerometer sample are nan;
        a recording in which no sample gives gravity (the accelerometer zero or nan throughout) is refused.
        --input - reads the recording from standard input (plumb read --format csv | plumb fuse -i -),
        as it comes: each row's attitude is written as soon as the row is read, before fuse waits for
        more input, so the pipe gives live attitude at the sensor's rate. Messages then name
        "standard input" and the line. --output - writes standard output, as leaving --output out does.

        The real-time filters (plumb, madgwick, complementary) stream the file in constant memory,
        however large it is. plumb-offline is acausal: it estimates every sample from the whole
        recording, past and future (an offline gyroscope bias, then PlumbFilter passes backwards
        and forwards in time whose inclinations are averaged). No live sensor allows that, but for
        a recorded file it is the most accurate. It holds the recording in memory, readings as
        Float32: 88 bytes per sample while estimating (about 320 MB for an hour at 1 kHz). Its
        t_s column is the shortest decimal that reads back as the same number (the real-time
        filters copy the field as written).
        """,
        options: [
            .option("input", short: "i", value: "FILE", help: "The CSV file to read; - reads standard input.", required: true),
            .option("output", short: "o", value: "FILE", help: "Write the result here instead of standard output (a file is replaced only once every row was written); - writes standard output."),
            .option("filter", value: "NAME", help: "plumb (default, the most accurate real-time filter), madgwick, complementary, or plumb-offline (acausal: whole recording in memory, most accurate)."),
        ])

    static let command = Command(spec) { args, context in
        guard let path = args.string("input") else { throw CLIError.usage("Missing '--input <FILE>'.") }
        let name = try args.choice("filter", FusionAlgorithm.allCases.map(\.rawValue) + [offlineName])
        var reader = try IMUCSVReader(path: path, standardInput: context.standardInput)
        let input = reader.name
        if let output = args.string("output"), output != RowSink.standardOutputPath,
           path == IMUCSVReader.standardInputPath ? RowSink.isSameFile(descriptor: context.standardInput, output) : RowSink.isSameFile(path, output) {
            // Emptied for writing, the input would be read as it is overwritten: the recording lost.
            let what = path == IMUCSVReader.standardInputPath ? "the file standard input reads" : "the input file \(path)"
            throw CLIError.failure("--output \(output) is \(what): writing it would destroy the recording while it is read",
                                   fix: "Give --output another path.")
        }
        var sink = try RowSink(path: args.string("output"), context: context)
        let result: (samples: Int, skipped: Int, fused: Int)
        switch name.flatMap(FusionAlgorithm.init) {
        case nil where name == offlineName:
            result = try runOffline(reader: &reader, sink: &sink)
        case .plumb, nil:
            var filter = PlumbFilter()
            result = try run(&filter, reader: &reader, sink: &sink)
        case .madgwick:
            var filter = MadgwickFilter()
            result = try run(&filter, reader: &reader, sink: &sink)
        case .complementary:
            var filter = ComplementaryFilter()
            result = try run(&filter, reader: &reader, sink: &sink)
        }
        if result.samples > 0, result.fused == 0 {
            // Every row nan, exit 0: the result looked written. Not put in place (``RowSink``).
            throw CLIError.failure("\(input): no sample gives gravity (the accelerometer reads zero or nan on every line), so every row would be nan",
                                   fix: "Check the acc_x, acc_y and acc_z columns: specific force in m/s², about 9.8 in all at rest.")
        }
        try sink.finish()
        if result.skipped > 0 {
            context.err.line("warning: \(input): skipped \(result.skipped) of \(result.samples) samples with a missing (nan) reading.")
        }
        if let line = reader.firstBackwardLine {
            context.err.line("warning: \(input) line \(line): t_s goes backwards (\(reader.backwardSteps) time\(reader.backwardSteps == 1 ? "" : "s") in all); the gyroscope is not integrated across such a step.")
        }
    }

    /// - Returns: the samples read, those skipped for a nan reading, and the rows with an attitude.
    static func run<F: AttitudeFilter>(_ filter: inout F, reader: inout IMUCSVReader, sink: inout RowSink) throws(CLIError) -> (samples: Int, skipped: Int, fused: Int) {
        var count = 0
        var fused = 0
        sink.bytes.append(contentsOf: "t_s,qw,qx,qy,qz,gravity_x,gravity_y,gravity_z\n".utf8)
        // Rows go out whenever the input is used up, before the reader waits for more: a live
        // pipe (plumb read | plumb fuse -i -) gets each batch's attitude as the batch comes.
        while let sample = try reader.next(beforeWaiting: { () throws(CLIError) in try sink.send() }) {
            let state = filter.update(gyroscope: sample.gyroscope, accelerometer: sample.accelerometer, timestamp: sample.timestamp)
            count += 1
            if state.isInitialized { fused += 1 }
            reader.copyTimestamp(into: &sink.bytes)
            try appendRow(attitude: state.isInitialized ? state.attitude : nil, gravity: state.gravity, to: &sink)
        }
        return (count, filter.skippedSampleCount, fused)
    }

    /// The `--filter` name of `OfflinePlumbEstimator` (not a `FusionAlgorithm`: those are the
    /// real-time filters every live command can use).
    static let offlineName = "plumb-offline"

    /// Reads the whole file into a `CompactIMURecording`, estimates, then writes the rows.
    static func runOffline(reader: inout IMUCSVReader, sink: inout RowSink) throws(CLIError) -> (samples: Int, skipped: Int, fused: Int) {
        var recording = CompactIMURecording()
        while let sample = try reader.next() {
            recording.append(gyroscope: sample.gyroscope, accelerometer: sample.accelerometer, timestamp: sample.timestamp)
        }
        let estimate = OfflinePlumbEstimator().estimate(recording)
        sink.bytes.append(contentsOf: "t_s,qw,qx,qy,qz,gravity_x,gravity_y,gravity_z\n".utf8)
        var fused = 0
        for i in 0..<recording.count {
            sink.bytes.append(contentsOf: "\(recording.timestamps[i])".utf8)
            let q = estimate.attitude(i)
            if q != nil { fused += 1 }
            try appendRow(attitude: q, gravity: q.map { -$0.upInSensorFrame } ?? .zero, to: &sink)
        }
        return (recording.count, estimate.skippedSampleCount, fused)
    }

    /// Ends a row after its t_s field: the attitude and gravity, or nan without an attitude; flushes
    /// every 64 KiB.
    @inline(__always)
    static func appendRow(attitude: Quaternion?, gravity g: Vector3, to sink: inout RowSink) throws(CLIError) {
        if let q = attitude {
            let row = SIMD8<Double>(q.w, q.x, q.y, q.z, g.x, g.y, g.z, 0)
            for i in 0..<7 {
                sink.bytes.append(UInt8(ascii: ","))
                appendFixed(row[i], to: &sink.bytes)
            }
        } else {
            sink.bytes.append(contentsOf: ",nan,nan,nan,nan,nan,nan,nan".utf8)
        }
        sink.bytes.append(UInt8(ascii: "\n"))
        if sink.bytes.count >= 1 << 16 { try sink.flush() }
    }

    /// Appends `value` with 7 decimals (1e-7 of a unit vector is 6e-6°).
    static func appendFixed(_ value: Double, to bytes: inout [UInt8]) {
        guard value.isFinite, abs(value) < 1e9 else {
            bytes.append(contentsOf: "\(value)".utf8)
            return
        }
        var scaled = Int64((abs(value) * 1e7).rounded())
        if value < 0, scaled != 0 { bytes.append(UInt8(ascii: "-")) }
        let integer = scaled / 10_000_000
        scaled %= 10_000_000
        bytes.append(contentsOf: String(integer).utf8)
        bytes.append(UInt8(ascii: "."))
        var divisor: Int64 = 1_000_000
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(scaled / divisor))
            scaled %= divisor
            divisor /= 10
        }
    }
}

/// Where `plumb fuse` writes rows: a file, or the command's standard output.
///
/// A file is a ``ReplacedFile``: a regular one is put in place only when every row was written,
/// so an input that fails on a line (a cell that is no number, time going backwards) leaves an
/// earlier result as it was. Before, the file was emptied at the start and, at a bad line, left
/// holding the rows before it as if complete. A FIFO or /dev/stdout is written where it leads;
/// `-` is the command's standard output, as for no path.
struct RowSink {
    /// The path that names standard output.
    static let standardOutputPath = "-"

    var bytes: [UInt8] = []
    private let file: ReplacedFile?
    private let context: CommandContext

    /// True when `a` and `b` lead to the same regular file (device and inode, through symlinks);
    /// false when either does not exist or is no regular file (a terminal is both /dev/stdin
    /// and /dev/stdout, and reads and writes apart).
    static func isSameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat()
        guard stat(a, &sa) == 0 else { return false }
        return isSameFile(sa, b)
    }

    /// ``isSameFile(_:_:)`` for the file open on `descriptor` (standard input redirected from
    /// the file `--output` names: `plumb fuse -i - -o x.csv < x.csv`).
    static func isSameFile(descriptor: Int32, _ b: String) -> Bool {
        var sa = stat()
        guard fstat(descriptor, &sa) == 0 else { return false }
        return isSameFile(sa, b)
    }

    private static func isSameFile(_ sa: stat, _ b: String) -> Bool {
        var sb = stat()
        guard stat(b, &sb) == 0, sa.st_mode & S_IFMT == S_IFREG else { return false }
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino
    }

    init(path: String?, context: CommandContext) throws(CLIError) {
        self.context = context
        bytes.reserveCapacity(1 << 17)
        guard let path, path != Self.standardOutputPath else { file = nil; return }
        do throws(ReplacedFileError) { file = try ReplacedFile(path: path) } catch { throw Self.failure(error) }
    }

    /// The CLI form of a failure to write `--output`.
    static func failure(_ error: ReplacedFileError) -> CLIError {
        switch error.stage {
        case .open:
            return .failure("\(error.path): \(error).", fix: "Check that the directory exists and is writable, and that the path names a file.")
        case .write:
            return .failure("\(error.path): \(error)", fix: error.code == ENOSPC || error.code == EDQUOT ? "Free space on the disk, or write elsewhere." : "Check the device the path is on.")
        case .commit:
            return .failure("\(error.path): \(error)", fix: "Check that the directory is writable and the device it is on.")
        }
    }

    mutating func flush() throws(CLIError) {
        defer { bytes.removeAll(keepingCapacity: true) }
        guard let file else {
            context.out.write(String(decoding: bytes, as: UTF8.self))
            return
        }
        do throws(ReplacedFileError) { try file.write(bytes) } catch { throw Self.failure(error) }
    }

    /// Writes what is buffered on to where it goes now: the file, or standard output's file
    /// descriptor (``flush()`` leaves standard output's share in its own 64 KiB buffer).
    mutating func send() throws(CLIError) {
        guard !bytes.isEmpty else { return }
        try flush()
        if file == nil { context.out.flush() }
    }

    /// Writes what is left and puts the file in place; without it (an error thrown on the way),
    /// the path is left as it was.
    mutating func finish() throws(CLIError) {
        try flush()
        do throws(ReplacedFileError) { try file?.commit() } catch { throw Self.failure(error) }
    }
}
