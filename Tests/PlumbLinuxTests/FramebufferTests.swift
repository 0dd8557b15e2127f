import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import PlumbLinux
import CPlumbLinux

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

@Suite(.serialized) struct CleanupTests {  // serialized: the cleanup list is one per process
    /// The daemon installs SignalMonitor, then opens a page-flipping framebuffer for the level
    /// image, whose cleanup installs its own handlers: those must not replace the daemon's, or
    /// SIGHUP (systemctl reload) and SIGTERM kill it instead of reloading and stopping in order
    /// (seen in scripts/service-vm-test: the daemon was gone after `systemctl reload plumb`).
    @Test func cleanupHandlersKeepTheDaemonsSignalHandlers() throws {
        // The test process's own dispositions come back at the end (no other test sends these signals).
        let signals = [SIGHUP, SIGTERM, SIGINT]
        var saved: [sigaction] = signals.map { _ in sigaction() }
        for (i, signal) in signals.enumerated() { #expect(sigaction(signal, nil, &saved[i]) == 0) }
        defer { for (i, signal) in signals.enumerated() { sigaction(signal, &saved[i], nil) } }
        try SignalMonitor.shared.install()
        func handler(_ signal: Int32) -> OpaquePointer? {
            var current = sigaction()
            #expect(sigaction(signal, nil, &current) == 0)
            return unsafeBitCast(current.__sigaction_handler.sa_handler, to: OpaquePointer?.self)
        }
        let before = signals.map(handler)
        plumb_cleanup_install_signal_handlers()
        #expect(signals.map(handler) == before)
        // And the signal still arrives as a value: a reload, not the process's end.
        _ = SignalMonitor.shared.take()
        SignalMonitor.shared.raise(.reload)
        #expect(SignalMonitor.shared.take() == [.reload])
        // Ctrl-C is a terminate that says it was SIGINT (plumb run logs "stopping on SIGINT").
        _ = raise(SIGINT)
        #expect(SignalMonitor.shared.takeReceived() == [ReceivedSignal(action: .terminate, number: SIGINT)])
        _ = raise(SIGINT)
        _ = raise(SIGTERM)
        #expect(SignalMonitor.shared.takeReceived().map(\.description) == ["SIGTERM", "SIGINT"])
        _ = raise(SIGINT)
        #expect(SignalMonitor.shared.take() == [.terminate])
    }

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

/// A driver whose mode is broken (a display not connected at boot, a buggy driver) reports values
/// fbdev allows but nothing can draw on: each is a typed error naming the device and what it
/// reported, not a trap. The fbdev ioctls are answered by the mocking layer.
@Suite struct FramebufferModeTests {
    /// vfb's 320×240 XRGB8888 mode with two pages, as the VM test sees it.
    static func mode(width: UInt32 = 320, height: UInt32 = 240, virtualHeight: UInt32 = 480,
                     lineLength: UInt32 = 1280, memory: UInt32 = 1 << 20) -> (fb_var_screeninfo, fb_fix_screeninfo) {
        var variable = fb_var_screeninfo()
        variable.xres = width; variable.yres = height
        variable.xres_virtual = width; variable.yres_virtual = virtualHeight
        variable.bits_per_pixel = 32
        variable.red = fb_bitfield(offset: 16, length: 8, msb_right: 0)
        variable.green = fb_bitfield(offset: 8, length: 8, msb_right: 0)
        variable.blue = fb_bitfield(offset: 0, length: 8, msb_right: 0)
        var fixed = fb_fix_screeninfo()
        withUnsafeMutableBytes(of: &fixed.id) { raw in
            for (i, byte) in "vfb".utf8.enumerated() { raw[i] = byte }
        }
        fixed.line_length = lineLength
        fixed.smem_len = memory
        return (variable, fixed)
    }

    static func open(_ info: (fb_var_screeninfo, fb_fix_screeninfo)) -> (Result<Framebuffer, FramebufferError>, [MockingDriver.Call]) {
        let driver = MockingDriver { call in
            switch call {
            case .open: .value(9)
            case .framebufferVariableInfo: .variableScreenInfo(info.0)
            case .framebufferFixedInfo: .fixedScreenInfo(info.1)
            case .framebufferSetVariableInfo: .fail(errno: EINVAL)
            case .mapShared: .fail(errno: ENOMEM)
            default: .value(0)
            }
        }
        let result = driver.withMocking { () -> Result<Framebuffer, FramebufferError> in
            do throws(FramebufferError) { return .success(try Framebuffer(device: "/dev/fb1")) } catch { return .failure(error) }
        }
        return (result, driver.calls)
    }

    @Test("an unusable mode is an error naming the device and what it reported", arguments: [
        (mode(width: 0, height: 0, virtualHeight: 0, lineLength: 0, memory: 0),
         "a 0x0 screen (FBIOGET_VSCREENINFO/FSCREENINFO: 0x0 (virtual height 0), 32 bits per pixel, 0 bytes per row, 0 bytes of memory)"),
        (mode(virtualHeight: 200),
         "a virtual height of 200, less than the height 240 (FBIOGET_VSCREENINFO/FSCREENINFO: 320x240 (virtual height 200), 32 bits per pixel, 1280 bytes per row, 1048576 bytes of memory)"),
        (mode(lineLength: 640),
         "rows of 640 bytes, shorter than 320 pixels at 32 bits per pixel (1280 bytes) (FBIOGET_VSCREENINFO/FSCREENINFO: 320x240 (virtual height 480), 32 bits per pixel, 640 bytes per row, 1048576 bytes of memory)"),
        (mode(memory: 4096),
         "4096 bytes of memory, less than one screen (307200 bytes) (FBIOGET_VSCREENINFO/FSCREENINFO: 320x240 (virtual height 480), 32 bits per pixel, 1280 bytes per row, 4096 bytes of memory)"),
    ])
    func unusableMode(info: (fb_var_screeninfo, fb_fix_screeninfo), reported: String) {
        let (result, calls) = Self.open(info)
        guard case .failure(let error) = result else {
            Issue.record("a broken mode was accepted")
            return
        }
        #expect(error.path == "/dev/fb1")
        #expect(error.message == "/dev/fb1 (\"vfb\") reports a mode Plumb cannot draw on: " + reported)
        #expect(error.fix?.contains("fbset -fb /dev/fb1 -i") == true)
        // Nothing was mapped, and the device was closed.
        #expect(!calls.contains { if case .mapShared = $0 { true } else { false } })
        #expect(calls.last == .close(fd: 9))
    }

    @Test func aUsableModeGetsAsFarAsMapping() {
        // The mapping is refused by the mock: proof the geometry passed the checks.
        let (result, calls) = Self.open(Self.mode())
        guard case .failure(let error) = result else { Issue.record("mapped a mocked device"); return }
        #expect(error.message == "cannot map 1048576 bytes of /dev/fb1: \(String(cString: strerror(ENOMEM)))")
        #expect(calls.contains(.mapShared(fd: 9, length: 1 << 20)))
    }

    @Test func aFileBackedFramebufferWithABadGeometryIsAnErrorNotATrap() throws {
        var geometry = senseHAT
        geometry.virtualHeight = 4
        #expect(throws: FramebufferError.self) { try Framebuffer(file: "/nonexistent/fb", geometry: geometry) }
        geometry = senseHAT
        geometry.width = 0
        do {
            _ = try Framebuffer(file: "/nonexistent/fb", geometry: geometry)
            Issue.record("accepted a 0-pixel-wide framebuffer file")
        } catch {
            #expect(error.message.hasPrefix("cannot make a framebuffer file /nonexistent/fb with a 0x8 screen"))
        }
    }
}

/// Screen info the fuzzer (scripts/fuzz system) handed over: each field is a 32-bit value from the
/// driver, and products of two such values pass Int.max (a driver without a mode, a corrupted
/// FBIOGET_VSCREENINFO). Each must give a problem or a decision, not a trap.
@Suite struct FramebufferScreenInfoTests {
    /// fuzz system: xres and bits_per_pixel near 2^32 trapped in `problem` computing the row's
    /// bytes ("arithmetic overflow", Framebuffer.swift), before Framebuffer(device:) could refuse
    /// the mode with its message.
    @Test func rowsWiderThanAnIntHoldsAreAProblem() {
        let huge = Int(UInt32.max)
        let g = FramebufferGeometry(name: "x", width: huge, height: 8, virtualHeight: 8, bitsPerPixel: huge, bytesPerRow: 16,
                                    red: .init(offset: 11, length: 5), green: .init(offset: 5, length: 6), blue: .init(offset: 0, length: 5),
                                    memoryLength: 128)
        #expect(g.problem?.contains("rows of 16 bytes, shorter than \(huge) pixels") == true)
        #expect(!g.canPageFlip)
    }

    /// Rows and heights whose screen passes Int.max: not enough memory, and no page flipping.
    @Test func aScreenLargerThanAnIntHoldsIsAProblem() {
        let huge = Int(UInt32.max)
        let g = FramebufferGeometry(name: "x", width: 1, height: huge, virtualHeight: huge, bitsPerPixel: 8, bytesPerRow: huge,
                                    red: .init(offset: 0, length: 3), green: .init(offset: 3, length: 3), blue: .init(offset: 6, length: 2),
                                    memoryLength: huge)
        #expect(g.problem?.contains("bytes of memory, less than one screen") == true)
        #expect(!g.canPageFlip)
        let pages = FramebufferGeometry(name: "x", width: 1, height: huge, virtualHeight: huge, bitsPerPixel: 8, bytesPerRow: huge,
                                        red: .init(offset: 0, length: 3), green: .init(offset: 3, length: 3), blue: .init(offset: 6, length: 2),
                                        memoryLength: Int.max)
        #expect(!pages.canPageFlip)
    }

    /// The resize decision takes the fields as the kernel gives them: 2 × yres past UInt32.max,
    /// or two screens past Int.max, never ask for two pages (the request's yres_virtual is a __u32).
    @Test func twoPagesAreNotAskedForBeyondThe32BitFields() {
        #expect(Framebuffer.wantsTwoPages(height: 480, virtualHeight: 480, bytesPerRow: 3200, memoryLength: 3200 * 960))
        #expect(!Framebuffer.wantsTwoPages(height: 480, virtualHeight: 960, bytesPerRow: 3200, memoryLength: 3200 * 960))
        #expect(!Framebuffer.wantsTwoPages(height: 480, virtualHeight: 480, bytesPerRow: 3200, memoryLength: 3200 * 959))
        #expect(!Framebuffer.wantsTwoPages(height: UInt32.max, virtualHeight: 0, bytesPerRow: UInt32.max, memoryLength: UInt32.max))
        #expect(!Framebuffer.wantsTwoPages(height: 1 << 31, virtualHeight: 0, bytesPerRow: 0, memoryLength: UInt32.max))
    }
}
