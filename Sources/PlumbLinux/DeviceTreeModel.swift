import Glibc

/// The device-tree model string, which names the board ("Raspberry Pi 4 Model B Rev 1.4").
///
/// The firmware or bootloader fills the root node's `model` property; the kernel exposes it at
/// `/sys/firmware/devicetree/base/model`, and `/proc/device-tree` is a symlink to that directory.
/// The file holds the string followed by a NUL. x86 machines and most VMs have no device tree.
public enum DeviceTreeModel {
    /// The files tried, in order, relative to the filesystem root.
    public static let paths = ["/proc/device-tree/model", "/sys/firmware/devicetree/base/model"]

    /// Reads the model string, or returns `nil` when the machine has no device tree.
    ///
    /// - Parameter root: a directory standing in for `/` (tests); `""` for the real root.
    /// - Throws: ``DeviceTreeError`` when a model file exists but cannot be read.
    public static func read(root: String = "") throws(DeviceTreeError) -> String? {
        for path in paths {
            let full = root + path
            var error: Int32 = 0
            guard let text = Sys.readFile(full, error: &error) else {
                if error == ENOENT || error == ENOTDIR { continue }
                throw DeviceTreeError(path: full, reason: Sys.describe(errno: error))
            }
            return model(text)
        }
        return nil
    }

    /// The model string in a `model` file's content: the string without the NULs and newlines
    /// that end it (the Devicetree Specification v0.4 §2.2.4 stores a `<string>` NUL-terminated).
    /// No system call: for tests and the fuzzer.
    public static func model(_ content: String) -> String {
        var bytes = Array(content.utf8)
        while let last = bytes.last, last == 0 || last == 0x0A { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A device-tree model file that exists but could not be read.
public struct DeviceTreeError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "cannot read \(path): \(reason)" }
}
