import Foundation
import Testing
@testable import PlumbDisplay

/// ``ImageFile/savePNG(_:to:)`` over an existing regular file: atomic, and the file keeps its
/// permission bits. Foundation's atomic write made a new file with the default mode (0644 under
/// umask 022), so a snapshot kept at 0640 was opened to everyone at the next write.
@Suite struct PNGReplaceTests {
    @Test func aReplacedSnapshotKeepsItsModeAndLeavesNoTemporaryFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("level.png")
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, 0o640) == 0)
        let image = gradientImage(width: 9, height: 5)
        try ImageFile.savePNG(image, to: path)
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o640)
        #expect(try ImageFile.load(path) == image)
        let url = URL(fileURLWithPath: path).deletingLastPathComponent()
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path) == ["level.png"])
    }

    /// Run as root (`sudo plumb level --png`), a user's snapshot stays the user's.
    @Test(.enabled(if: geteuid() == 0)) func rootKeepsTheOwner() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("level.png")
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        #expect(chown(path, 1234, 2345) == 0)
        try ImageFile.savePNG(gradientImage(width: 9, height: 5), to: path)
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_uid == 1234 && info.st_gid == 2345)
    }
}
