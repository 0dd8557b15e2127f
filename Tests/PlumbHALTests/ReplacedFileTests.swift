import Foundation
import Testing
@testable import PlumbHAL

/// ``ReplacedFile``: what `plumb fuse --output` and `plumb level --png` write through.
@Suite struct ReplacedFileTests {
    static func directory() throws -> String {
        let path = NSTemporaryDirectory() + "plumb-replaced-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func contents(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
    }

    @Test func aFileIsReplacedOnlyAtCommitAndKeepsItsMode() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/out.csv"
        try "before\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, 0o640) == 0)
        let file = try ReplacedFile(path: path)
        try file.write(Array("after\n".utf8))
        #expect(try Self.contents(path) == "before\n", "replaced before the commit")
        try file.commit()
        #expect(try Self.contents(path) == "after\n")
        #expect(Self.mode(path) == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["out.csv"])
    }

    @Test func withoutACommitThePathStaysAsItWasAndNothingIsLeft() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "before\n".write(toFile: dir + "/out.csv", atomically: false, encoding: .utf8)
        do {
            let file = try ReplacedFile(path: dir + "/out.csv")
            try file.write(Array("half".utf8))
            let new = try ReplacedFile(path: dir + "/new.csv")
            try new.write(Array("half".utf8))
        }
        #expect(try Self.contents(dir + "/out.csv") == "before\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["out.csv"])
    }

    /// A new file gets the mode open(2) gives a new file here (0666 less the umask).
    @Test func aNewFileGetsTheModeOpenGives() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let reference = open(dir + "/reference", O_WRONLY | O_CREAT | O_EXCL, 0o666)
        try #require(reference >= 0)
        close(reference)
        let file = try ReplacedFile(path: dir + "/new.csv")
        try file.commit()
        #expect(Self.mode(dir + "/new.csv") == Self.mode(dir + "/reference"))
    }

    /// Through a symlink its file is replaced and the link stays; a dangling link is written where
    /// it leads.
    @Test func aSymlinksFileIsReplacedAndTheLinkStays() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "before\n".write(toFile: dir + "/target.csv", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.csv", withDestinationPath: dir + "/target.csv")
        var file = try ReplacedFile(path: dir + "/link.csv")
        try file.write(Array("after\n".utf8))
        try file.commit()
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link.csv") == dir + "/target.csv")
        #expect(try Self.contents(dir + "/target.csv") == "after\n")
        try FileManager.default.createSymbolicLink(atPath: dir + "/dangling.csv", withDestinationPath: dir + "/made.csv")
        file = try ReplacedFile(path: dir + "/dangling.csv")
        try file.write(Array("made\n".utf8))
        try file.commit()
        #expect(try Self.contents(dir + "/made.csv") == "made\n")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/dangling.csv") == dir + "/made.csv")
    }

    @Test func aDirectoryOrAMissingDirectoryIsRefusedWithItsErrno() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: ReplacedFileError(path: dir, stage: .open, code: EISDIR)) { try ReplacedFile(path: dir) }
        #expect(throws: ReplacedFileError(path: dir + "/none/out.csv", stage: .open, code: ENOENT)) { try ReplacedFile(path: dir + "/none/out.csv") }
        #expect(ReplacedFileError(path: dir + "/none/out.csv", stage: .open, code: ENOENT).directory == dir + "/none")
        #expect(ReplacedFileError(path: "/x.png", stage: .open, code: ENOENT).directory == "/")
        #expect(ReplacedFileError(path: "x.png", stage: .open, code: ENOENT).directory == ".")
    }

    /// An empty path is refused at once (it made "./..plumb-…" and failed at the rename, at the end).
    @Test func anEmptyPathIsRefused() {
        #expect(throws: ReplacedFileError(path: "", stage: .open, code: ENOENT)) { try ReplacedFile(path: "") }
    }

    /// A file this user may not write is refused as open(2) refuses it, not replaced by a rename
    /// the directory allows. Root may write any file, so this runs only as another user.
    @Test(.enabled(if: geteuid() != 0, "root may write any file"))
    func aFileThatMayNotBeWrittenIsRefused() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/kept.csv"
        try "kept\n".write(toFile: path, atomically: false, encoding: .utf8)
        #expect(chmod(path, 0o444) == 0)
        #expect(throws: ReplacedFileError(path: path, stage: .open, code: EACCES)) { try ReplacedFile(path: path) }
        #expect(try Self.contents(path) == "kept\n")
    }

    /// A device is written where it leads (it cannot be replaced): /dev/full says ENOSPC.
    @Test func aDeviceIsWrittenInPlace() throws {
        let file = try ReplacedFile(path: "/dev/full")
        #expect(throws: ReplacedFileError(path: "/dev/full", stage: .write, code: ENOSPC)) { try file.write(Array("x".utf8)) }
    }
}
