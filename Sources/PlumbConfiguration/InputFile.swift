import Foundation

/// Reads a file the user named (a configuration, a board file, a recording, a calibration),
/// with the reason it could not be read in words: "no such file", "is a directory, not a file".
///
/// Foundation's own errors for these read "The operation could not be completed.
/// (NSCocoaErrorDomain error 256.)" for a directory; the reasons here name the problem, and the
/// caller adds the path and the fix.
public enum InputFile {
    /// The most ``read(_:limit:)`` takes by default: 256 MiB, far above any configuration, board
    /// file, calibration or recording Plumb reads (a day of samples at 100 Hz is about 50 MB), and
    /// low enough that a stream that never ends (`--config /dev/zero`, `/dev/urandom`) is refused
    /// before it takes a small board's memory.
    public static let defaultLimit = 256 << 20

    /// The file's contents.
    ///
    /// - Parameter limit: the most bytes taken; a longer file or stream is refused.
    /// - Throws: ``InputFileError`` with the reason in words (without the path).
    public static func read(_ path: String, limit: Int = defaultLimit) throws(InputFileError) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw InputFileError(reason: "no such file")
        }
        if isDirectory.boolValue { throw InputFileError(reason: "it is a directory, not a file") }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw InputFileError(reason: "permission denied")
        }
        // Read as a stream to its end, so that a file that is not a regular one (/dev/null, a
        // pipe such as bash's <(…) or /dev/stdin) reads as what it holds: Data(contentsOf:)
        // refused those with "You don't have permission", even to root. Read in chunks up to
        // `limit`: readToEnd() on /dev/zero grew without end.
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)) } catch { throw reason(error) }
        var data = Data()
        do {
            while let chunk = try handle.read(upToCount: min(1 << 20, limit + 1 - data.count)), !chunk.isEmpty {
                data.append(chunk)
                if data.count > limit {
                    throw InputFileError(reason: "it is longer than \(sizeText(limit)) (a stream that never ends, such as /dev/zero?); give a file")
                }
            }
        } catch {
            let failure = error as? InputFileError ?? reason(error)
            do { try handle.close() } catch { throw failure }  // the read's failure is the one to tell
            throw failure
        }
        do { try handle.close() } catch { throw reason(error) }
        return data
    }

    /// "256 MiB", "1 KiB", "100 bytes".
    static func sizeText(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }

    /// `error` in words: the system's for an errno, else Foundation's.
    private static func reason(_ error: any Error) -> InputFileError {
        let nsError = error as NSError
        let posix = nsError.domain == NSPOSIXErrorDomain ? nsError : nsError.userInfo[NSUnderlyingErrorKey] as? NSError
        if let posix, posix.domain == NSPOSIXErrorDomain, let message = strerror(Int32(posix.code)) {
            return InputFileError(reason: String(cString: message))
        }
        return InputFileError(reason: error.localizedDescription)
    }
}

/// Why ``InputFile/read(_:)`` failed: "no such file", "it is a directory, not a file",
/// "permission denied", or the system's words for an I/O error.
public struct InputFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}
