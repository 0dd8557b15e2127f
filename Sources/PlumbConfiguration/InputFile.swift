import Foundation

/// Reads a file the user named (a configuration, a board file, a recording, a calibration),
/// with the reason it could not be read in words: "no such file", "is a directory, not a file".
///
/// Foundation's own errors for these read "The operation could not be completed.
/// (NSCocoaErrorDomain error 256.)" for a directory; the reasons here name the problem, and the
/// caller adds the path and the fix.
public enum InputFile {
    /// The file's contents.
    ///
    /// - Throws: ``InputFileError`` with the reason in words (without the path).
    public static func read(_ path: String) throws(InputFileError) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw InputFileError(reason: "no such file")
        }
        if isDirectory.boolValue { throw InputFileError(reason: "it is a directory, not a file") }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw InputFileError(reason: "permission denied")
        }
        do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
            if let underlying, underlying.domain == NSPOSIXErrorDomain, let message = strerror(Int32(underlying.code)) {
                throw InputFileError(reason: String(cString: message))
            }
            throw InputFileError(reason: error.localizedDescription)
        }
    }
}

/// Why ``InputFile/read(_:)`` failed: "no such file", "it is a directory, not a file",
/// "permission denied", or the system's words for an I/O error.
public struct InputFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}
