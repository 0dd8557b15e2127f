import Foundation
import Testing
@testable import PlumbLinux

@Suite struct DeviceTreeModelTests {
    func root(_ files: [String: [UInt8]]) throws -> String {
        let dir = NSTemporaryDirectory() + "plumb-dt-\(UUID().uuidString)"
        for (path, bytes) in files {
            let full = dir + path
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: full))
        }
        return dir
    }

    @Test func readsTheNulTerminatedModel() throws {
        let dir = try root(["/proc/device-tree/model": Array("Raspberry Pi 5 Model B Rev 1.0".utf8) + [0]])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try DeviceTreeModel.read(root: dir) == "Raspberry Pi 5 Model B Rev 1.0")
    }

    @Test func fallsBackToSysfs() throws {
        let dir = try root(["/sys/firmware/devicetree/base/model": Array("Raspberry Pi Zero 2 W Rev 1.0".utf8) + [0]])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try DeviceTreeModel.read(root: dir) == "Raspberry Pi Zero 2 W Rev 1.0")
    }

    @Test func noDeviceTreeIsNil() throws {
        let dir = try root([:])
        #expect(try DeviceTreeModel.read(root: dir) == nil)
    }
}
