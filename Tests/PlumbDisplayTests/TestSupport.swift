import Foundation
@testable import PlumbDisplay

/// A fresh temporary directory, removed by the caller with `cleanUp`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "plumb-display-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func cleanUp() { try? FileManager.default.removeItem(atPath: path) }
}

/// A smooth, asymmetric colour image (gradients and a corner mark) that shows every rotation
/// and channel swap and that bilinear filtering reproduces closely.
func gradientImage(width: Int, height: Int) -> RGBAImage {
    RGBAImage(width: width, height: height) { x, y in
        let r = UInt8(x * 255 / max(1, width - 1))
        let g = UInt8(y * 255 / max(1, height - 1))
        let b = UInt8((x + y) * 255 / max(1, width + height - 2))
        return RGBA(r, g, b)
    }
}

/// The path of an executable on PATH, if any.
func executableOnPath(_ name: String) -> String? {
    let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    for directory in paths where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
        return "\(directory)/\(name)"
    }
    return nil
}

/// Runs a program and waits; returns its exit status.
@discardableResult
func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}

/// CRC-32 as PNG chunks use it (ISO 3309, polynomial 0xEDB88320), for building damaged files.
func crc32(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}
