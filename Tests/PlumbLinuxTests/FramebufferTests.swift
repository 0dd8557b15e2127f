import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import PlumbLinux

private func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "plumb-fb-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

private let senseHAT = FramebufferGeometry(
    name: "RPi-Sense FB", width: 8, height: 8, bitsPerPixel: 16,
    red: .init(offset: 11, length: 5), green: .init(offset: 5, length: 6), blue: .init(offset: 0, length: 5))

@Suite struct FramebufferTests {
    @Test func fileBackedCopyModeWritesTheFileOnPresent() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/fb"
        let fb = try Framebuffer(file: path, geometry: senseHAT)
        #expect(fb.updateMode == .copy)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == 128)
        fb.drawBuffer.storeBytes(of: 0xF800, toByteOffset: 2 * 9, as: UInt16.self)
        // Not on screen until presented.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path))[18] == 0)
        try fb.present()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data[18] == 0x00 && data[19] == 0xF8)
        #expect(fb.framesPresented == 1)
        fb.close()
    }

    @Test func fileBackedPageFlipAlternatesPages() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var geometry = senseHAT
        geometry.virtualHeight = 16
        let fb = try Framebuffer(file: directory + "/fb", geometry: geometry)
        #expect(fb.updateMode == .pageFlip)
        #expect(fb.visiblePage == 0)
        fb.drawBuffer.storeBytes(of: 0x1234, as: UInt16.self)
        try fb.present()
        #expect(fb.visiblePage == 1)
        #expect(fb.visibleBuffer.load(as: UInt16.self) == 0x1234)
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/fb"))
        #expect(data.count == 256 && data[128] == 0x34 && data[129] == 0x12)
        // The next frame goes to page 0, not the one on screen.
        #expect(fb.drawBuffer == UnsafeMutableRawPointer(mutating: fb.visibleBuffer) - 128)
    }

    @Test func rowStrideLongerThanTheRowIsKept() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let geometry = FramebufferGeometry(name: "vfb", width: 10, height: 4, bitsPerPixel: 32, bytesPerRow: 64,
                                           red: .init(offset: 16, length: 8), green: .init(offset: 8, length: 8), blue: .init(offset: 0, length: 8))
        let fb = try Framebuffer(file: directory + "/fb", geometry: geometry)
        #expect(fb.geometry.memoryLength == 256)
        #expect(!fb.geometry.canPageFlip)
    }

    @Test func findsAFramebufferByName() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        for (node, name) in [("fb0", "vc4drmfb"), ("fb1", "RPi-Sense FB"), ("fbcon", "")] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(node)", withIntermediateDirectories: true)
            if !name.isEmpty { try (name + "\n").write(toFile: "\(root)/\(node)/name", atomically: true, encoding: .utf8) }
        }
        #expect(try Framebuffer.find(named: "RPi-Sense FB", sysfsRoot: root) == "/dev/fb1")
        #expect(throws: FramebufferError(path: root, message: "no framebuffer named \"vfb\" (found: fb0 \"vc4drmfb\", fb1 \"RPi-Sense FB\")")) {
            try Framebuffer.find(named: "vfb", sysfsRoot: root)
        }
    }

    @Test func missingDeviceNamesThePath() {
        #expect {
            try Framebuffer(device: "/dev/plumb-no-such-fb")
        } throws: { error in
            guard let error = error as? FramebufferError else { return false }
            return error.message == "cannot open /dev/plumb-no-such-fb: No such file or directory" && error.fix != nil
        }
    }

    @Test func aFileThatIsNotAFramebufferIsRefused() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: directory + "/plain"))
        #expect {
            try Framebuffer(device: directory + "/plain")
        } throws: { error in
            (error as? FramebufferError)?.message.contains("is not a framebuffer: FBIOGET_VSCREENINFO failed") == true
        }
    }

    @Test func consoleGuardLeavesANonTerminalAlone() {
        let guardian = ConsoleGuard(candidates: ["/dev/null"])
        #expect(guardian.state == .unchanged(reason: "/dev/null: not a virtual terminal"))
        guardian.restore()
    }
}

@Suite struct CleanupTests {
    @Test func registeredWritesRunOnceNewestFirst() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        TerminalCleanup.onExit(write: Array("first;".utf8), to: fds[1])
        TerminalCleanup.onExit(write: Array("second;".utf8), to: fds[1])
        TerminalCleanup.runNow()
        TerminalCleanup.runNow()  // the list is empty now: nothing more is written
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(fds[0], &buffer, 64)
        #expect(String(decoding: buffer[0..<max(0, n)], as: UTF8.self) == "second;first;")
    }
}
