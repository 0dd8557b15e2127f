import Foundation
import Testing
@testable import PlumbCLI

/// `plumb fuse`, run as the tool runs it: arguments in, stdout, stderr and exit status out.
@Suite("plumb fuse")
struct FuseTests {
    /// A scratch directory with one CSV file; removed when the test ends.
    final class Scratch {
        let directory: URL
        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-fuse-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        func file(_ name: String, _ text: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            try text.write(to: url, atomically: true, encoding: .utf8)
            return url.path
        }
        deinit { try? FileManager.default.removeItem(at: directory) }
    }

    /// Still and level, then tilted 90° about x (y up): columns in an unusual order, one extra.
    static let input = """
    note,acc_z,acc_y,acc_x,gyr_z,gyr_y,gyr_x,t_s
    a,9.80665,0,0,0,0,0,0.00
    b,9.80665,0,0,0,0,0,0.01
    c,0,9.80665,0,0,0,0,10.0

    """

    /// `--output` writes where the path leads, as a shell's `>` does. It used to write a new file
    /// and rename it over the path, so a symlink (run as root, `--output /dev/stdout`: the
    /// system's /dev/stdout) was replaced by a regular file and its target left as it was.
    @Test("--output writes through a symlink and leaves the link in place")
    func outputThroughASymlink() throws {
        let scratch = try Scratch()
        let input = try scratch.file("in.csv", Self.input)
        let target = try scratch.file("target.csv", "old contents, longer than nothing\n")
        let link = scratch.directory.appendingPathComponent("link.csv").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let result = runPlumb(["fuse", "--input", input, "--output", link])
        #expect(result.status == 0)
        #expect(result.err == "")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        let written = try String(contentsOfFile: target, encoding: .utf8)
        #expect(written.hasPrefix("t_s,qw,qx,qy,qz,gravity_x,gravity_y,gravity_z\n0.00,"))
        #expect(written.split(separator: "\n").count == 4)
    }

    @Test("writes the header and one row per sample; columns are found by name")
    func rows() throws {
        let scratch = try Scratch()
        let path = try scratch.file("in.csv", Self.input)
        let result = runPlumb(["fuse", "--input", path])
        #expect(result.status == 0)
        #expect(result.err == "")
        let lines = result.out.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[0] == "t_s,qw,qx,qy,qz,gravity_x,gravity_y,gravity_z")
        // Level: identity, gravity −z. After the 10 s gap the inclination comes from the new
        // sample: y up, gravity −y; the t_s field is copied exactly as written.
        #expect(lines[1] == "0.00,1.0000000,0.0000000,0.0000000,0.0000000,0.0000000,0.0000000,-1.0000000")
        #expect(lines[3].hasPrefix("10.0,"))
        #expect(lines[3].hasSuffix(",0.0000000,-1.0000000,0.0000000"))
    }

    @Test("every filter runs; --output writes a file and nothing to stdout", arguments: ["plumb", "madgwick", "complementary", "plumb-offline"])
    func filters(_ name: String) throws {
        let scratch = try Scratch()
        let path = try scratch.file("in.csv", Self.input)
        let output = scratch.directory.appendingPathComponent("out.csv").path
        let result = runPlumb(["fuse", "--input", path, "--output", output, "--filter", name])
        #expect(result.status == 0 && result.out == "" && result.err == "")
        let written = try String(contentsOfFile: output, encoding: .utf8)
        #expect(written.split(separator: "\n").count == 4)
    }

    @Test("plumb-offline: one row per sample, the inclination of each side of the gap, timestamps as numbers")
    func offline() throws {
        let scratch = try Scratch()
        let path = try scratch.file("in.csv", Self.input)
        let result = runPlumb(["fuse", "--input", path, "--filter", "plumb-offline"])
        #expect(result.status == 0 && result.err == "")
        let lines = result.out.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[0] == "t_s,qw,qx,qy,qz,gravity_x,gravity_y,gravity_z")
        #expect(lines[1].hasPrefix("0.0,") && lines[1].hasSuffix(",0.0000000,0.0000000,-1.0000000"))
        #expect(lines[2].hasPrefix("0.01,") && lines[2].hasSuffix(",0.0000000,0.0000000,-1.0000000"))
        #expect(lines[3].hasPrefix("10.0,") && lines[3].hasSuffix(",0.0000000,-1.0000000,0.0000000"))
    }

    @Test("a number that is not one names the file, the line and the column")
    func badNumber() throws {
        let scratch = try Scratch()
        let path = try scratch.file("bad.csv", "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n0,0,0,0,0,0,9.8\n0.01,0,0,0,0,9.x,9.8\n")
        let result = runPlumb(["fuse", "--input", path])
        #expect(result.status == 1)
        #expect(result.err == """
            Error: \(path):3:14: acc_y: '9.x' is not a decimal number.
            Fix: Write decimal numbers such as -0.0123, 9.81 or 1.5e-3; write nan for a missing gyroscope or accelerometer reading (that sample is skipped).

            """)
    }

    @Test("a missing column is named, with the header that was found")
    func missingColumn() throws {
        let scratch = try Scratch()
        let path = try scratch.file("short.csv", "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y\n0,0,0,0,0,0\n")
        let result = runPlumb(["fuse", "--input", path])
        #expect(result.status == 1)
        #expect(result.err.hasPrefix("Error: \(path):1: no column 'acc_z' in the header (t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y).\n"))
    }

    @Test("a line with the wrong number of fields is named")
    func fieldCount() throws {
        let scratch = try Scratch()
        let path = try scratch.file("ragged.csv", "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n0,0,0,0,0,0,9.8\n0.01,0,0,0,0,9.8\n")
        let result = runPlumb(["fuse", "--input", path])
        #expect(result.status == 1)
        #expect(result.err.hasPrefix("Error: \(path):3: 6 fields, but the header has 7 and 'acc_z' is field 7.\n"))
    }

    @Test("NaN samples are skipped, counted on stderr, and still get a row")
    func nanSamples() throws {
        let scratch = try Scratch()
        let path = try scratch.file("nan.csv", "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\r\n0,0,0,0,0,0,9.8\r\n0.01,nan,0,0,0,0,9.8\r\n0.02,0,0,0,0,0,NaN")
        let result = runPlumb(["fuse", "--input", path])
        #expect(result.status == 0)
        #expect(result.out.split(separator: "\n").count == 4)
        #expect(result.err == "warning: \(path): skipped 2 of 3 samples with a missing (nan) reading.\n")
    }

    /// An accelerometer that reads zero throughout gave every row nan and exit status 0.
    @Test("a recording with no sample that gives gravity is refused, and no output file is written",
          arguments: ["plumb", "madgwick", "complementary", "plumb-offline"])
    func noGravity(_ filter: String) throws {
        let scratch = try Scratch()
        let path = try scratch.file("zero.csv", "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n" + (0..<200).map { "\(Double($0) / 100),0.01,0,0,0,0,0\n" }.joined())
        let output = scratch.directory.appendingPathComponent("out.csv").path
        let result = runPlumb(["fuse", "--input", path, "--output", output, "--filter", filter])
        #expect(result.status == 1)
        #expect(result.err == "Error: \(path): no sample gives gravity (the accelerometer reads zero or nan on every line), so every row would be nan\nFix: Check the acc_x, acc_y and acc_z columns: specific force in m/s², about 9.8 in all at rest.\n")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("usage errors exit 64: no --input, unknown filter")
    func usage() {
        #expect(runPlumb(["fuse"]).status == 64)
        let result = runPlumb(["fuse", "--input", "x.csv", "--filter", "kalman"])
        #expect(result.status == 64)
        #expect(result.err.hasPrefix("Error: The value 'kalman' is invalid for '--filter': expected one of plumb, madgwick, complementary, plumb-offline.\n"))
    }

    @Test("a file that does not exist is a failure with a fix")
    func missingFile() {
        let result = runPlumb(["fuse", "--input", "/nonexistent/imu.csv"])
        #expect(result.status == 1)
        #expect(result.err.hasPrefix("Error: /nonexistent/imu.csv: no such file.\nFix: "))
    }

    @Test("a file larger than the read buffer streams through intact")
    func largeFile() throws {
        let scratch = try Scratch()
        var text = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        for i in 0..<40_000 { text += "\(Double(i) / 100),0.01,0,0,0,0,9.80665\n" }   // about 1.3 MB
        let path = try scratch.file("big.csv", text)
        let output = scratch.directory.appendingPathComponent("out.csv").path
        let result = runPlumb(["fuse", "--input", path, "--output", output])
        #expect(result.status == 0)
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 40_001)
        #expect(lines.last?.hasPrefix("399.99,") == true)
    }
}

/// `plumb bench fusion` runs every estimator and prints one row each. (Speed itself is measured
/// only by running the command on a release build, never asserted in a test.)
@Suite("plumb bench fusion")
struct BenchFusionTests {
    @Test("one round on the BROAD excerpt: a row per estimator, the VQF rows explain why they are missing")
    func rows() {
        let context = CommandContext.capturing()
        let status = PlumbTool.main(["bench", "fusion", "--rounds", "1", "--python", "/nonexistent/python"], context: context)
        #expect(status == 0)
        let lines = context.out.captured.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("plumb bench fusion: 17143 samples from Tests/PlumbFusionTests/Fixtures/broad-08-first-60s.csv") == true)
        for name in ["C Madgwick, same equations", "MadgwickFilter (Swift)", "ComplementaryFilter (Swift)", "PlumbFilter (Swift, default)"] {
            let row = lines.first { $0.hasPrefix(name) }
            #expect(row != nil, "no row for \(name)")
            if let row, let ratio = row.split(separator: " ").last.flatMap({ Double($0) }) { #expect(ratio > 0) }
        }
        #expect(lines.contains { $0.hasPrefix("VQF 6D, C++ updateBatch") && $0.hasSuffix("not measured: no /nonexistent/python (scripts/eval-fusion creates .venv with vqf)") })
    }

    @Test("a missing input file is a failure, not a crash")
    func missingInput() {
        let context = CommandContext.capturing()
        #expect(PlumbTool.main(["bench", "fusion", "--input", "/nonexistent.csv"], context: context) == 1)
    }
}
