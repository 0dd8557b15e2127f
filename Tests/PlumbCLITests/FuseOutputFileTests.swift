import Foundation
import Testing
@testable import PlumbCLI

/// `plumb fuse --output` writes through the path (readme-audit), which brought two faults: the
/// path was opened twice (an empty write, then a handle), so a FIFO's reader saw its only writer
/// close and took it for the end while the second open waited for a reader for ever; and with
/// the input as output the recording was emptied while it was read (the rename it replaced had
/// left the reader the old file).
@Suite struct FuseOutputFileTests {
    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-fuse-out-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// inotify (inotify(7)) counts the opens of the output: one, so a FIFO's reader sees one writer.
    @Test func theOutputIsOpenedOnce() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/out.csv"
        let watch = inotify_init1(Int32(O_NONBLOCK | O_CLOEXEC))
        try #require(watch >= 0)
        defer { close(watch) }
        // IN_OPEN and IN_CLOSE_WRITE (<sys/inotify.h>): with the closes between them, two opens are
        // two events (identical events in a row are coalesced).
        let inOpen: UInt32 = 0x20, inCloseWrite: UInt32 = 0x08
        try #require(inotify_add_watch(watch, dir, inOpen | inCloseWrite) >= 0)
        var sink = try RowSink(path: path, context: CommandContext.capturing())
        sink.bytes.append(contentsOf: "t_s\n".utf8)
        try sink.finish()
        var buffer = [UInt8](repeating: 0, count: 8192)
        let count = read(watch, &buffer, buffer.count)
        try #require(count > 0)
        // struct inotify_event: wd (4), mask (4), cookie (4), len (4), then len bytes of name.
        var opens = 0
        var offset = 0
        while offset + 16 <= count {
            let mask = buffer[offset + 4..<offset + 8].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * $1.offset) }
            let length = buffer[offset + 12..<offset + 16].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            let name = String(decoding: buffer[offset + 16..<offset + 16 + length].prefix { $0 != 0 }, as: UTF8.self)
            // The rows go to a temporary name in the directory, renamed over out.csv at the end.
            if mask & inOpen != 0, !name.isEmpty { opens += 1 }
            offset += 16 + length
        }
        #expect(opens == 1)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "t_s\n")
    }

    @Test func theInputAsOutputIsRefusedAndKept() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/rec.csv"
        let recording = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n" + (0..<5000).map { "\(Double($0) / 100),0.01,0,0,0,0,9.8\n" }.joined()
        try recording.write(toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.csv", withDestinationPath: path)
        for output in [path, dir + "/link.csv"] {
            let r = runPlumb(["fuse", "--input", path, "--output", output])
            #expect(r.status == 1)
            #expect(r.err == "Error: --output \(output) is the input file \(path): writing it would destroy the recording while it is read\nFix: Give --output another path.\n")
            #expect(try String(contentsOfFile: path, encoding: .utf8) == recording)
        }
    }

    /// An input that fails on a line leaves the output as it was: before, the file was emptied at
    /// the start (a bad line 101) or held the rows before the bad line as if complete, and an
    /// earlier result there was lost. Through a symlink the link stays and its file is kept.
    @Test func anInputThatFailsLeavesTheOutputAsItWas() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let header = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        let good = (0..<3000).map { "\(Double($0) / 100),0.01,0,0,0,0,9.8\n" }.joined()
        try (header + good).write(toFile: dir + "/good.csv", atomically: false, encoding: .utf8)
        try (header + good + "30.5,abc,0,0,0,0,9.8\n").write(toFile: dir + "/bad.csv", atomically: false, encoding: .utf8)
        try "an earlier result\n".write(toFile: dir + "/out.csv", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.csv", withDestinationPath: dir + "/out.csv")
        for filter in ["plumb", "plumb-offline"] {
            for output in ["out.csv", "link.csv", "new.csv"] {
                let r = runPlumb(["fuse", "--input", dir + "/bad.csv", "--output", dir + "/" + output, "--filter", filter])
                #expect(r.status == 1)
                #expect(r.err.hasPrefix("Error: \(dir)/bad.csv:3002:"), "\(r.err)")
                #expect(try String(contentsOfFile: dir + "/out.csv", encoding: .utf8) == "an earlier result\n", "\(filter) \(output)")
                #expect(!FileManager.default.fileExists(atPath: dir + "/new.csv"))
                #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["bad.csv", "good.csv", "link.csv", "out.csv"],
                        "a temporary file left behind")
            }
        }
        // A good input replaces the file the link leads to; the link and the file's mode stay.
        #expect(chmod(dir + "/out.csv", 0o640) == 0)
        let r = runPlumb(["fuse", "--input", dir + "/good.csv", "--output", dir + "/link.csv"])
        #expect(r.status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link.csv") == dir + "/out.csv")
        #expect(try String(contentsOfFile: dir + "/out.csv", encoding: .utf8).hasPrefix("t_s,qw,qx,qy,qz,gravity_x,gravity_y,gravity_z\n"))
        var info = stat()
        #expect(stat(dir + "/out.csv", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["bad.csv", "good.csv", "link.csv", "out.csv"])
    }

    @Test func aDirectoryOrAMissingDirectoryIsNamed() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: CLIError.failure("\(dir): cannot be opened for writing (Is a directory).",
                                         fix: "Check that the directory exists and is writable, and that the path names a file.")) {
            _ = try RowSink(path: dir, context: CommandContext.capturing())
        }
        #expect(throws: CLIError.failure("\(dir)/none/out.csv: cannot be opened for writing (No such file or directory).",
                                         fix: "Check that the directory exists and is writable, and that the path names a file.")) {
            _ = try RowSink(path: dir + "/none/out.csv", context: CommandContext.capturing())
        }
    }
}
