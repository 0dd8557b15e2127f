import Foundation
import Testing
import PlumbDrivers
@testable import PlumbCLI

/// `plumb fuse --input -` reads standard input and `--output -` writes standard output. The old
/// code looked for a file named "-" (`-: no such file.`) and wrote one in the working directory;
/// its usage line showed `--input`, which fuse cannot do without, as optional.
@Suite struct FuseStandardStreamsTests {
    static let input = FuseTests.input

    /// Runs `plumb fuse` in-process with `text` on a pipe as its standard input.
    static func fuse(_ arguments: [String], stdin text: String) throws -> (status: Int32, out: String, err: String) {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let bytes = Array(text.utf8)   // small: fits the pipe's buffer, so no writer thread is needed
        try #require(bytes.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) } == bytes.count)
        close(fds[1])
        var context = CommandContext.capturing()
        context.standardInput = fds[0]
        let status = PlumbTool.main(["fuse"] + arguments, context: context)
        return (status, context.out.captured, context.err.captured)
    }

    @Test(arguments: [["-i", "-"], ["--input", "-"], ["--input=-", "--output", "-"]])
    func aDashReadsStandardInputAsAFileIsRead(arguments: [String]) throws {
        let scratch = try FuseTests.Scratch()
        let path = try scratch.file("in.csv", Self.input)
        let fromFile = runPlumb(["fuse", "--input", path])
        let fromPipe = try Self.fuse(arguments, stdin: Self.input)
        #expect(fromPipe.status == 0)
        #expect(fromPipe.err == "")
        #expect(fromPipe.out == fromFile.out)
        #expect(fromPipe.out.split(separator: "\n").count == 4)
    }

    @Test func errorsNameStandardInputAndTheLine() throws {
        let bad = try Self.fuse(["-i", "-"], stdin: "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n0,0,0,0,0,0,9.8\n0.01,x,0,0,0,0,9.8\n")
        #expect(bad.status == 1)
        #expect(bad.err == """
            Error: standard input:3:6: gyr_x: 'x' is not a decimal number.
            Fix: \(RecordingCSV.numberFix)

            """)
        let backwards = try Self.fuse(["-i", "-"], stdin: "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n1,0,0,0,0,0,9.8\n0.5,0,0,0,0,0,9.8\n")
        #expect(backwards.status == 0)
        #expect(backwards.err == "warning: standard input line 3: t_s goes backwards (1 time in all); the gyroscope is not integrated across such a step.\n")
        let empty = try Self.fuse(["-i", "-"], stdin: "")
        #expect(empty.status == 1)
        #expect(empty.err == "Error: standard input is empty.\nFix: The first line must be a header naming the columns t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z.\n")
    }

    /// `plumb read --format jsonl | plumb fuse -i -` is told what it is; it was told that the
    /// header had no column t_s, quoting the first sample as the header.
    @Test func jsonLinesAreNamedAsSuch() throws {
        let jsonl = try Self.fuse(["-i", "-"], stdin: #"{"t_s":0.000000,"gyr_x":0.0,"gyr_y":0.0,"gyr_z":0.0,"acc_x":0.0,"acc_y":0.0,"acc_z":9.8,"temp_c":27.50}"# + "\n")
        #expect(jsonl.status == 1)
        #expect(jsonl.err == """
            Error: standard input:1: this is JSON Lines (plumb read --format jsonl); the input must be CSV
            Fix: Leave out --format jsonl (plumb read writes CSV by default): plumb read | plumb fuse -i -.

            """)
    }

    /// `plumb fuse -i - -o x.csv < x.csv` would replace the recording it reads, as `-i x.csv -o x.csv` would.
    @Test func theFileStandardInputReadsIsRefusedAsTheOutput() throws {
        let scratch = try FuseTests.Scratch()
        let path = try scratch.file("in.csv", Self.input)
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        var context = CommandContext.capturing()
        context.standardInput = fd
        let status = PlumbTool.main(["fuse", "-i", "-", "-o", path], context: context)
        #expect(status == 1)
        #expect(context.err.captured == "Error: --output \(path) is the file standard input reads: writing it would destroy the recording while it is read\nFix: Give --output another path.\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == Self.input)
    }

    @Test func theUsageShowsInputAsRequired() {
        let help = runPlumb(["fuse", "--help"])
        #expect(help.out.contains("\nUSAGE: plumb fuse --input <FILE> [--output <FILE>] [--filter <NAME>]\n"))
        #expect(help.out.contains("  -i, --input <FILE>      The CSV file to read; - reads standard input.\n"))
        let missing = runPlumb(["fuse", "--filter", "madgwick"])
        #expect(missing.status == 64)
        #expect(missing.err == """
            Error: Missing '--input <FILE>'.
            Usage: plumb fuse --input <FILE> [--output <FILE>] [--filter <NAME>]
              See 'plumb fuse --help' for more information.

            """)
    }

    /// The real process, its standard input a file and its working directory a scratch one:
    /// `-o -` writes standard output and leaves no file named "-" (the old code wrote one there).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: plumbBinary), "needs the plumb binary (swift build)"),
          arguments: [["-i", "-", "-o", "-"], ["-i", "in.csv", "-o", "-"]])
    func theProcessReadsItsStandardInputAndWritesItsStandardOutput(arguments: [String]) throws {
        let scratch = try FuseTests.Scratch()
        let path = try scratch.file("in.csv", Self.input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: plumbBinary)
        process.arguments = ["fuse"] + arguments
        process.currentDirectoryURL = scratch.directory
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let written = out.fileHandleForReading.readDataToEndOfFile()
        let said = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(String(decoding: said, as: UTF8.self) == "")
        #expect(String(decoding: written, as: UTF8.self) == runPlumb(["fuse", "--input", path]).out)
        #expect(!FileManager.default.fileExists(atPath: scratch.directory.appendingPathComponent("-").path))
    }

    /// Reads what `fd` delivers until `done` says it is complete, or the deadline passes.
    static func read(_ fd: Int32, until done: (String) -> Bool, seconds: Double) -> String {
        var bytes: [UInt8] = []
        let end = Date().addingTimeInterval(seconds)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !done(String(decoding: bytes, as: UTF8.self)), Date() < end {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 50) > 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A live pipe (`plumb read | plumb fuse -i -`) gets each row's attitude as the row comes, with
    /// standard input still open. Before, fuse read a whole megabyte of input before the first row
    /// and then wrote 64 KiB at a time: on a live sensor at 100 Hz, nothing for minutes, and every
    /// row only when the sensor stopped.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: plumbBinary), "needs the plumb binary (swift build)"))
    func rowsFromALivePipeComeOutAsTheyComeIn() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: plumbBinary)
        process.arguments = ["fuse", "-i", "-"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { signalAndAwaitExit(process, SIGKILL) } }
        let fd = output.fileHandleForReading.fileDescriptor
        input.fileHandleForWriting.write(Data("t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n0.00,0,0,0,0,0,9.80665\n0.01,0,0,0,0,0,9.80665\n".utf8))
        let first = Self.read(fd, until: { $0.split(separator: "\n").count >= 3 }, seconds: 10)
        #expect(first == """
            t_s,qw,qx,qy,qz,gravity_x,gravity_y,gravity_z
            0.00,1.0000000,0.0000000,0.0000000,0.0000000,0.0000000,0.0000000,-1.0000000
            0.01,1.0000000,0.0000000,0.0000000,0.0000000,0.0000000,0.0000000,-1.0000000

            """)
        // A row written in two pieces comes out once its line is whole.
        input.fileHandleForWriting.write(Data("0.02,0,0,0,".utf8))
        usleep(100_000)
        input.fileHandleForWriting.write(Data("0,0,9.80665\n".utf8))
        let next = Self.read(fd, until: { $0.hasSuffix("\n") }, seconds: 10)
        #expect(next == "0.02,1.0000000,0.0000000,0.0000000,0.0000000,0.0000000,0.0000000,-1.0000000\n")
        #expect(process.isRunning, "standard input is still open")
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
