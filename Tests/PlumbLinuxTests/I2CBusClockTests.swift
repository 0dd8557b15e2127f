import Foundation
import Testing
@testable import PlumbLinux

@Suite("I2CBusClock")
struct I2CBusClockTests {
    /// A throw-away sysfs laid out as a Raspberry Pi 4's: the adapter device under its controller,
    /// /sys/bus/i2c/devices/i2c-N a symlink to it, of_node a symlink into the device tree.
    final class Tree {
        let root: String
        init() throws {
            root = NSTemporaryDirectory() + "plumb-i2cclock-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: root + "/bus/i2c/devices", withIntermediateDirectories: true)
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }

        /// Adds adapter i2c-`number`; with a device-tree node holding `clockCell` bytes when given
        /// (`nil` bytes: a node without clock-frequency).
        func adapter(_ number: Int, node: Bool, clockCell: [UInt8]? = nil) throws {
            let fm = FileManager.default
            let device = "\(root)/devices/platform/soc/controller\(number)/i2c-\(number)"
            try fm.createDirectory(atPath: device, withIntermediateDirectories: true)
            try "adapter \(number)\n".write(toFile: device + "/name", atomically: true, encoding: .utf8)
            try fm.createSymbolicLink(atPath: "\(root)/bus/i2c/devices/i2c-\(number)", withDestinationPath: device)
            guard node else { return }
            let dt = "\(root)/firmware/devicetree/base/soc/i2c@\(number)"
            try fm.createDirectory(atPath: dt, withIntermediateDirectories: true)
            try Data("brcm,bcm2711-i2c\0brcm,bcm2835-i2c\0".utf8).write(to: URL(fileURLWithPath: dt + "/compatible"))
            if let clockCell { try Data(clockCell).write(to: URL(fileURLWithPath: dt + "/clock-frequency")) }
            try fm.createSymbolicLink(atPath: device + "/of_node", withDestinationPath: dt)
        }
    }

    @Test func theDeviceTreeClockIsReadAsABigEndianCell() throws {
        let tree = try Tree()
        try tree.adapter(1, node: true, clockCell: [0x00, 0x01, 0x86, 0xA0])
        let clock = try I2CBusClock.read(busPath: "/dev/i2c-1", sysfsRoot: tree.root)
        #expect(clock.hertz == 100_000)
        #expect(clock.file == "\(tree.root)/bus/i2c/devices/i2c-1/of_node/clock-frequency")
        #expect(clock.description == "100 kHz (device tree)")

        try tree.adapter(3, node: true, clockCell: [0x00, 0x06, 0x1A, 0x80])
        #expect(try I2CBusClock.read(busPath: "/dev/i2c-3", sysfsRoot: tree.root).description == "400 kHz (device tree)")
    }

    @Test func anAdapterWithoutADeviceTreeNodeIsUnknownNotAnError() throws {
        let tree = try Tree()
        try tree.adapter(11, node: false)
        let clock = try I2CBusClock.read(busPath: "/dev/i2c-11", sysfsRoot: tree.root)
        #expect(clock.hertz == nil)
        #expect(clock.description == "unknown (i2c-11 has no device-tree node: an ACPI, PCI, USB or stub adapter)")
    }

    @Test func aNodeWithoutClockFrequencyOrNoAdapterIsUnknown() throws {
        let tree = try Tree()
        try tree.adapter(2, node: true, clockCell: nil)
        #expect(try I2CBusClock.read(busPath: "/dev/i2c-2", sysfsRoot: tree.root).unknownReason
            == "the device-tree node of i2c-2 has no clock-frequency")
        #expect(try I2CBusClock.read(busPath: "/dev/i2c-7", sysfsRoot: tree.root).unknownReason
            == "no adapter i2c-7 in \(tree.root)/bus/i2c/devices")
        #expect(try I2CBusClock.read(busPath: "/tmp/not-a-bus", sysfsRoot: tree.root).unknownReason
            == "/tmp/not-a-bus is not an i2c-dev node (/dev/i2c-N)")
    }

    @Test func aUdevAliasIsFollowedToItsAdapter() throws {
        let tree = try Tree()
        try tree.adapter(1, node: true, clockCell: [0x00, 0x06, 0x1A, 0x80])
        let alias = tree.root + "/imu-bus"
        try FileManager.default.createSymbolicLink(atPath: alias, withDestinationPath: "i2c-1")
        #expect(try I2CBusClock.read(busPath: alias, sysfsRoot: tree.root).hertz == 400_000)
    }

    @Test func aMalformedCellIsAnErrorNamingTheFile() throws {
        let tree = try Tree()
        try tree.adapter(1, node: true, clockCell: [0x01, 0x86, 0xA0])
        let file = "\(tree.root)/bus/i2c/devices/i2c-1/of_node/clock-frequency"
        #expect(throws: SysfsError(path: file, errno: 0, message: "holds 3 bytes (01 86 a0), not one 4-byte big-endian cell in hertz")) {
            try I2CBusClock.read(busPath: "/dev/i2c-1", sysfsRoot: tree.root)
        }
        try tree.adapter(4, node: true, clockCell: [0, 0, 0, 0])
        let zero = "\(tree.root)/bus/i2c/devices/i2c-4/of_node/clock-frequency"
        #expect(throws: SysfsError(path: zero, errno: 0, message: "holds 0 Hz, not a bus clock")) {
            try I2CBusClock.read(busPath: "/dev/i2c-4", sysfsRoot: tree.root)
        }
    }

    @Test func anUnreadableFileIsAnErrorWithItsErrno() throws {
        // Through the mocking layer: as root, a permission bit would not stop the read.
        let tree = try Tree()
        try tree.adapter(1, node: true, clockCell: [0x00, 0x01, 0x86, 0xA0])
        let file = "\(tree.root)/bus/i2c/devices/i2c-1/of_node/clock-frequency"
        let driver = MockingDriver { call in
            if case .readFile(let path) = call, path == file { return .fail(errno: EIO) }
            return .passThrough
        }
        #expect(throws: SysfsError(path: file, errno: EIO, message: String(cString: strerror(EIO)))) {
            try driver.withMocking { () throws(SysfsError) in _ = try I2CBusClock.read(busPath: "/dev/i2c-1", sysfsRoot: tree.root) }
        }
    }

    @Test func aNodeThatCannotBeListedIsAnErrorNamingIt() throws {
        let tree = try Tree()
        try tree.adapter(1, node: true, clockCell: [0x00, 0x01, 0x86, 0xA0])
        let node = "\(tree.root)/bus/i2c/devices/i2c-1/of_node"
        let driver = MockingDriver { call in
            if case .listDirectory(let path) = call, path == node { return .fail(errno: EACCES) }
            return .passThrough
        }
        #expect(throws: SysfsError(path: node, errno: EACCES, message: String(cString: strerror(EACCES)))) {
            try driver.withMocking { () throws(SysfsError) in _ = try I2CBusClock.read(busPath: "/dev/i2c-1", sysfsRoot: tree.root) }
        }
    }
}
