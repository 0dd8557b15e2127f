import Foundation
import Testing
@testable import PlumbConfiguration

/// ``InputFile/read(_:limit:)`` reads a stream to its end (so /dev/null and pipes work), but no
/// further than its limit: `--config /dev/zero` read without end, taking all the memory there was.
@Suite struct InputFileLimitTests {
    @Test func aStreamThatNeverEndsIsRefusedAtTheLimit() {
        #expect(throws: InputFileError(reason: "it is longer than 1 MiB (a stream that never ends, such as /dev/zero?); give a file")) {
            _ = try InputFile.read("/dev/zero", limit: 1 << 20)
        }
    }

    @Test func aFileOfExactlyTheLimitIsRead() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-limit-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bytes = Data((0..<3000).map { UInt8($0 & 0x7F) })
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(try InputFile.read(path, limit: 3000) == bytes)
        #expect(throws: InputFileError(reason: "it is longer than 2999 bytes (a stream that never ends, such as /dev/zero?); give a file")) {
            _ = try InputFile.read(path, limit: 2999)
        }
    }

    @Test func theDefaultLimitIsNamedInMiB() {
        #expect(InputFile.sizeText(InputFile.defaultLimit) == "256 MiB")
    }
}
