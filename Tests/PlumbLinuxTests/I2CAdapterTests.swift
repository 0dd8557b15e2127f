import Testing
import Foundation
import PlumbHAL
@testable import PlumbLinux

@Suite struct I2CAdapterTests {
    /// A fake sysfs with two adapters, and a /dev without nodes.
    private func makeSysfs() throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-sysfs-\(UUID().uuidString)").path
        for (n, name) in [(1, "bcm2835 (i2c@7e804000)"), (0, "SMBus stub driver"), (11, "Synopsys DesignWare I2C adapter")] {
            let dir = "\(root)/class/i2c-adapter/i2c-\(n)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try (name + "\n").write(toFile: "\(dir)/name", atomically: true, encoding: .utf8)
        }
        try FileManager.default.createDirectory(atPath: "\(root)/dev", withIntermediateDirectories: true)
        return root
    }

    @Test func listsAdaptersInNumberOrderWithNames() throws {
        let root = try makeSysfs()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let adapters = try I2CAdapter.list(sysfsRoot: root, deviceDirectory: "\(root)/dev")
        #expect(adapters.map(\.number) == [0, 1, 11])
        #expect(adapters.map(\.name) == ["SMBus stub driver", "bcm2835 (i2c@7e804000)", "Synopsys DesignWare I2C adapter"])
        #expect(adapters[1].devicePath == "\(root)/dev/i2c-1")
        #expect(adapters.allSatisfy { $0.functionality == nil })
        #expect(adapters[0].unavailableReason == "no \(root)/dev/i2c-0: load i2c-dev (`sudo modprobe i2c-dev`; on a Raspberry Pi, dtparam=i2c_arm=on in /boot/firmware/config.txt loads it)")
    }

    @Test func decodesFunctionalityFromEachNode() throws {
        let root = try makeSysfs()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let kernel = FakeKernel(functionality: FakeKernel.stubFunctionality)
        let adapters = try kernel.run { () throws(I2CError) in try I2CAdapter.list(sysfsRoot: root, deviceDirectory: "/dev") }
        #expect(adapters.count == 3)
        #expect(adapters[0].functionality?.rawValue == 0x0c7f_0000)
        #expect(adapters[0].functionality?.decoded == [
            "SMBUS_QUICK", "SMBUS_READ_BYTE", "SMBUS_WRITE_BYTE", "SMBUS_READ_BYTE_DATA", "SMBUS_WRITE_BYTE_DATA",
            "SMBUS_READ_WORD_DATA", "SMBUS_WRITE_WORD_DATA", "SMBUS_READ_I2C_BLOCK", "SMBUS_WRITE_I2C_BLOCK",
        ])
        #expect(kernel.calls.contains(.open(path: "/dev/i2c-11", flags: O_RDWR)))
    }

    @Test func missingSysfsClassIsAnError() {
        #expect(throws: I2CError.self) { try I2CAdapter.list(sysfsRoot: "/nonexistent-sysfs") }
    }

    @Test func functionalityDescription() {
        let f = I2CFunctionality(rawValue: 0x0000_0001 | 0x0400_0000)
        #expect(f.description == "0x04000001 (I2C, SMBUS_READ_I2C_BLOCK)")
        #expect(f.contains(.i2c) && f.contains(.smbusReadI2CBlock) && !f.contains(.smbusQuick))
    }
}
