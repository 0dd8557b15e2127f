#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlumbLinux

/// One colour channel's place in a pixel (`struct fb_bitfield`).
public struct FramebufferBitfield: Sendable, Equatable {
    public var offset: Int
    public var length: Int
    public init(offset: Int, length: Int) { self.offset = offset; self.length = length }
}

/// What fbdev says about a framebuffer: the visible and virtual size, the row stride and the
/// pixel layout (from `fb_var_screeninfo` and `fb_fix_screeninfo`).
public struct FramebufferGeometry: Sendable, Equatable {
    /// The driver's name for the device (`fb_fix_screeninfo.id`, "vfb", "RPi-Sense FB", "vc4drmfb").
    public var name: String
    public var width: Int
    public var height: Int
    /// The height of the memory the display can pan over (`yres_virtual`).
    public var virtualHeight: Int
    public var bitsPerPixel: Int
    /// Bytes per row (`line_length`).
    public var bytesPerRow: Int
    public var red: FramebufferBitfield
    public var green: FramebufferBitfield
    public var blue: FramebufferBitfield
    public var alpha: FramebufferBitfield
    /// Bytes of framebuffer memory (`smem_len`).
    public var memoryLength: Int

    public init(name: String, width: Int, height: Int, virtualHeight: Int? = nil, bitsPerPixel: Int, bytesPerRow: Int? = nil,
                red: FramebufferBitfield, green: FramebufferBitfield, blue: FramebufferBitfield,
                alpha: FramebufferBitfield = .init(offset: 0, length: 0), memoryLength: Int? = nil) {
        self.name = name; self.width = width; self.height = height
        self.virtualHeight = virtualHeight ?? height
        self.bitsPerPixel = bitsPerPixel
        self.bytesPerRow = bytesPerRow ?? width * bitsPerPixel / 8
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
        self.memoryLength = memoryLength ?? self.bytesPerRow * self.virtualHeight
    }

    /// What makes the geometry unusable for drawing, or `nil`: no pixels, a virtual height
    /// shorter than the screen, rows shorter than `width` pixels, or less memory than one screen.
    /// A driver without a mode (a display not connected at boot) reports such values; drawing
    /// with them would write outside the mapping.
    ///
    /// The fields come from the driver as 32-bit values, so their products are taken with
    /// overflow checks: a product past `Int.max` is too large a row or screen, not a trap.
    public var problem: String? {
        var problems: [String] = []
        if width <= 0 || height <= 0 { problems.append("a \(width)x\(height) screen") }
        if bitsPerPixel <= 0 { problems.append("\(bitsPerPixel) bits per pixel") }
        if height > 0, virtualHeight < height { problems.append("a virtual height of \(virtualHeight), less than the height \(height)") }
        if width > 0, bitsPerPixel > 0 {
            let rowBits = width.multipliedReportingOverflow(by: bitsPerPixel)
            let rowBytes = rowBits.overflow ? nil : rowBits.partialValue / 8 + (rowBits.partialValue % 8 == 0 ? 0 : 1)
            if rowBytes.map({ bytesPerRow < $0 }) ?? true {
                let needed = rowBytes.map { "\($0) bytes" } ?? "more bytes than memory holds"
                problems.append("rows of \(bytesPerRow) bytes, shorter than \(width) pixels at \(bitsPerPixel) bits per pixel (\(needed))")
            }
        }
        if problems.isEmpty {
            let screen = bytesPerRow.multipliedReportingOverflow(by: height)
            if screen.overflow || memoryLength < screen.partialValue {
                let needed = screen.overflow ? "\(bytesPerRow) × \(height)" : "\(screen.partialValue)"
                problems.append("\(memoryLength) bytes of memory, less than one screen (\(needed) bytes)")
            }
        }
        return problems.isEmpty ? nil : problems.joined(separator: ", ")
    }

    /// The values fbdev reported, for messages: "0x0 (virtual height 0), 32 bits per pixel, 0 bytes per row, 0 bytes of memory".
    public var summary: String {
        "\(width)x\(height) (virtual height \(virtualHeight)), \(bitsPerPixel) bits per pixel, \(bytesPerRow) bytes per row, \(memoryLength) bytes of memory"
    }

    /// True when two whole screens fit in the panning area, so frames can flip between them.
    public var canPageFlip: Bool {
        let rows = height.multipliedReportingOverflow(by: 2)
        let bytes = rows.partialValue.multipliedReportingOverflow(by: bytesPerRow)
        return !rows.overflow && !bytes.overflow && virtualHeight >= rows.partialValue && memoryLength >= bytes.partialValue
    }
}

/// A resolution and depth to ask a framebuffer driver for.
public struct FramebufferMode: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var bitsPerPixel: Int
    public init(width: Int, height: Int, bitsPerPixel: Int) {
        self.width = width; self.height = height; self.bitsPerPixel = bitsPerPixel
    }
}

/// A failed framebuffer operation: names the device, the call and the errno's meaning.
public struct FramebufferError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var errno: Int32
    public var message: String
    public var fix: String?

    public init(path: String, errno: Int32 = 0, message: String, fix: String? = nil) {
        self.path = path; self.errno = errno; self.message = message; self.fix = fix
    }

    public var description: String { message }
}

/// A Linux framebuffer (`/dev/fbN`) mapped into memory, with tear-free updates.
///
/// Draw each frame into ``drawBuffer`` and call ``present()``. When the virtual height holds two
/// screens the frame is drawn into the hidden page and shown with FBIOPAN_DISPLAY (a page flip,
/// no copy); otherwise it is drawn into a back buffer in memory and copied to the screen in one
/// pass. A file-backed framebuffer (``init(file:geometry:)``) takes the same path over a plain
/// file, for tests and for machines without /dev/fb*.
///
/// The corresponding ioctls are `FBIOGET_VSCREENINFO`, `FBIOGET_FSCREENINFO`, `FBIOPUT_VSCREENINFO`
/// and `FBIOPAN_DISPLAY` (<linux/fb.h>).
public final class Framebuffer {
    /// How frames reach the screen.
    public enum UpdateMode: String, Sendable, Equatable {
        /// Two pages in the virtual area; FBIOPAN_DISPLAY shows the one just drawn.
        case pageFlip = "page flip"
        /// A back buffer copied to the screen in one pass.
        case copy = "back buffer"
    }

    public let path: String
    public let geometry: FramebufferGeometry
    public let updateMode: UpdateMode
    /// The page being shown (0 or 1) when page flipping; always 0 when copying.
    public private(set) var visiblePage = 0
    /// Frames presented so far.
    public private(set) var framesPresented = 0

    private var fd: Int32
    private let isDevice: Bool
    private let mapping: UnsafeMutableRawPointer
    private let mappingLength: Int
    private let backBuffer: UnsafeMutableRawPointer?
    private var variableInfo: fb_var_screeninfo
    /// The screen info to put back on close when we changed it (to get two pages).
    private let originalVariableInfo: fb_var_screeninfo?

    /// Opens and maps the framebuffer device at `path`.
    ///
    /// - Parameter allowResize: ask the driver for a virtual height of two screens when it has the
    ///   memory but is not set up for it (put back on close).
    ///   - mode: a resolution and depth to set with FBIOPUT_VSCREENINFO first (put back on close);
    ///     nil keeps the current one.
    public init(device path: String, allowResize: Bool = true, mode: FramebufferMode? = nil) throws(FramebufferError) {
        let fd = FBSys.open(path, O_RDWR)
        guard fd >= 0 else {
            let fix: String? = -fd == EACCES ? "Add the user to the 'video' group (sudo usermod -aG video $USER) and log in again." :
                -fd == ENOENT ? "List framebuffers with 'ls /sys/class/graphics'; on a Raspberry Pi with KMS, /dev/fb0 needs a display connected." : nil
            throw FramebufferError(path: path, errno: -fd, message: "cannot open \(path): \(FBSys.describe(-fd))", fix: fix)
        }
        var variable = fb_var_screeninfo()
        var fixed = fb_fix_screeninfo()
        var r = FBSys.variableInfo(fd, &variable)
        if r == 0 { r = FBSys.fixedInfo(fd, &fixed) }
        guard r == 0 else {
            FBSys.close(fd)
            throw FramebufferError(path: path, errno: -r, message: "\(path) is not a framebuffer: FBIOGET_VSCREENINFO failed: \(FBSys.describe(-r))")
        }
        var original: fb_var_screeninfo?
        if let mode {
            var wanted = variable
            wanted.xres = UInt32(mode.width); wanted.yres = UInt32(mode.height)
            wanted.xres_virtual = UInt32(mode.width); wanted.yres_virtual = UInt32(mode.height)
            wanted.xoffset = 0; wanted.yoffset = 0
            wanted.bits_per_pixel = UInt32(mode.bitsPerPixel)
            let r = FBSys.setVariableInfo(fd, &wanted)
            guard r == 0, FBSys.variableInfo(fd, &wanted) == 0, Int(wanted.xres) == mode.width, Int(wanted.yres) == mode.height,
                  Int(wanted.bits_per_pixel) == mode.bitsPerPixel else {
                _ = FBSys.setVariableInfo(fd, &variable)
                FBSys.close(fd)
                throw FramebufferError(path: path, errno: r < 0 ? -r : 0,
                                       message: "\(path) refused the mode \(mode.width)x\(mode.height) at \(mode.bitsPerPixel) bits per pixel\(r < 0 ? ": " + FBSys.describe(-r) : "")")
            }
            original = variable
            variable = wanted
            _ = FBSys.fixedInfo(fd, &fixed)
        }
        if allowResize, Self.wantsTwoPages(height: variable.yres, virtualHeight: variable.yres_virtual,
                                           bytesPerRow: fixed.line_length, memoryLength: fixed.smem_len) {
            var wanted = variable
            wanted.yres_virtual = 2 * variable.yres
            wanted.yoffset = 0
            if FBSys.setVariableInfo(fd, &wanted) == 0, FBSys.variableInfo(fd, &wanted) == 0, wanted.yres_virtual >= 2 * wanted.yres {
                original = original ?? variable
                variable = wanted
                _ = FBSys.fixedInfo(fd, &fixed)  // line_length can change with the mode
            }
        }
        let geometry = FramebufferGeometry(
            name: Self.string(fixed.id), width: Int(variable.xres), height: Int(variable.yres),
            virtualHeight: Int(variable.yres_virtual), bitsPerPixel: Int(variable.bits_per_pixel),
            bytesPerRow: Int(fixed.line_length),
            red: .init(offset: Int(variable.red.offset), length: Int(variable.red.length)),
            green: .init(offset: Int(variable.green.offset), length: Int(variable.green.length)),
            blue: .init(offset: Int(variable.blue.offset), length: Int(variable.blue.length)),
            alpha: .init(offset: Int(variable.transp.offset), length: Int(variable.transp.length)),
            memoryLength: Int(fixed.smem_len))
        if let problem = geometry.problem {
            if let original { var o = original; _ = FBSys.setVariableInfo(fd, &o) }
            FBSys.close(fd)
            throw FramebufferError(
                path: path,
                message: "\(path) (\"\(geometry.name)\") reports a mode Plumb cannot draw on: \(problem) (FBIOGET_VSCREENINFO/FSCREENINFO: \(geometry.summary))",
                fix: "The driver has no usable mode, which is what a display not connected and on at boot gives. Connect it and reboot, "
                    + "or set a mode: 'fbset -fb \(path) -xres 800 -yres 480 -depth 32' (or video=HDMI-A-1:800x480 on the kernel command line); "
                    + "'fbset -fb \(path) -i' shows what the driver reports.")
        }
        let length = geometry.memoryLength > 0 ? geometry.memoryLength : geometry.bytesPerRow * geometry.virtualHeight
        var error: Int32 = 0
        guard let mapping = FBSys.mapShared(fd, length: length, error: &error) else {
            if let original { var o = original; _ = FBSys.setVariableInfo(fd, &o) }
            FBSys.close(fd)
            throw FramebufferError(path: path, errno: error, message: "cannot map \(length) bytes of \(path): \(FBSys.describe(error))")
        }
        self.path = path
        self.fd = fd
        self.isDevice = true
        self.geometry = geometry
        self.mapping = mapping
        self.mappingLength = length
        self.variableInfo = variable
        self.originalVariableInfo = original
        self.updateMode = geometry.canPageFlip ? .pageFlip : .copy
        self.visiblePage = geometry.canPageFlip && Int(variable.yoffset) >= geometry.height ? 1 : 0
        self.backBuffer = updateMode == .copy ? Self.allocateBackBuffer(geometry) : nil
        // If a signal ends the process, put the mode (or the panning) back, as close() would.
        if var original {
            original.yoffset = 0
            _ = plumb_cleanup_add_fb_info(fd, UInt(FBIOPUT_VSCREENINFO), &original)
        } else if updateMode == .pageFlip {
            var home = variable
            home.xoffset = 0
            home.yoffset = 0
            _ = plumb_cleanup_add_fb_info(fd, UInt(FBIOPAN_DISPLAY), &home)
        }
        if original != nil || updateMode == .pageFlip { plumb_cleanup_install_signal_handlers() }
    }

    /// A framebuffer over a plain file of `geometry.bytesPerRow × geometry.virtualHeight` bytes
    /// (created or resized to that). Page flipping, when the virtual height allows it, only
    /// records which page is visible (``visiblePage``): there is no display to pan.
    public init(file path: String, geometry: FramebufferGeometry) throws(FramebufferError) {
        let length = geometry.bytesPerRow * geometry.virtualHeight
        var checked = geometry
        checked.memoryLength = length
        if let problem = checked.problem {
            throw FramebufferError(path: path, message: "cannot make a framebuffer file \(path) with \(problem) (\(checked.summary))",
                                   fix: "Give a width and height of at least 1, a virtual height of at least the height, and rows of at least width × bits per pixel / 8 bytes.")
        }
        let fd = FBSys.open(path, O_RDWR | O_CREAT)
        guard fd >= 0 else {
            throw FramebufferError(path: path, errno: -fd, message: "cannot open \(path): \(FBSys.describe(-fd))")
        }
        let r = FBSys.truncate(fd, length: length)
        var error: Int32 = -r
        guard r == 0, let mapping = FBSys.mapShared(fd, length: length, error: &error) else {
            FBSys.close(fd)
            throw FramebufferError(path: path, errno: error, message: "cannot size or map \(path) (\(length) bytes): \(FBSys.describe(error))")
        }
        var geometry = geometry
        geometry.memoryLength = length
        self.path = path
        self.fd = fd
        self.isDevice = false
        self.geometry = geometry
        self.mapping = mapping
        self.mappingLength = length
        self.variableInfo = fb_var_screeninfo()
        self.originalVariableInfo = nil
        self.updateMode = geometry.canPageFlip ? .pageFlip : .copy
        self.backBuffer = updateMode == .copy ? Self.allocateBackBuffer(geometry) : nil
    }

    deinit { close() }

    /// Where to draw the next frame: the hidden page, or the back buffer. Rows are
    /// `geometry.bytesPerRow` apart. Valid until the next ``present()``.
    public var drawBuffer: UnsafeMutableRawPointer {
        if let backBuffer { return backBuffer }
        return mapping + (1 - visiblePage) * geometry.height * geometry.bytesPerRow
    }

    /// The memory being shown now (the visible page, or the one screen).
    public var visibleBuffer: UnsafeRawPointer {
        UnsafeRawPointer(mapping + visiblePage * geometry.height * geometry.bytesPerRow)
    }

    /// Shows the frame drawn into ``drawBuffer``: pans to its page, or copies the back buffer.
    public func present() throws(FramebufferError) {
        precondition(fd >= 0, "present() after close()")
        if let backBuffer {
            mapping.copyMemory(from: backBuffer, byteCount: geometry.height * geometry.bytesPerRow)
        } else {
            let next = 1 - visiblePage
            if isDevice {
                variableInfo.xoffset = 0
                variableInfo.yoffset = UInt32(next * geometry.height)
                let r = FBSys.pan(fd, &variableInfo)
                guard r == 0 else {
                    throw FramebufferError(path: path, errno: -r, message: "FBIOPAN_DISPLAY to row \(next * geometry.height) of \(path) failed: \(FBSys.describe(-r))")
                }
            }
            visiblePage = next
        }
        framesPresented += 1
    }

    /// Unmaps the memory, puts back the screen info if it was changed, and closes the device.
    public func close() {
        guard fd >= 0 else { return }
        if isDevice, var original = originalVariableInfo {
            original.yoffset = 0
            _ = FBSys.setVariableInfo(fd, &original)
        } else if isDevice, visiblePage != 0 {
            // Leave the console's page showing.
            variableInfo.yoffset = 0
            _ = FBSys.pan(fd, &variableInfo)
        }
        if isDevice { plumb_cleanup_remove_fd(fd) }
        FBSys.unmap(mapping, length: mappingLength)
        backBuffer?.deallocate()
        FBSys.close(fd)
        fd = -1
    }

    /// Whether to ask the driver for a virtual height of two screens: it has fewer now, the
    /// memory (`smem_len`) holds two, and 2 × `height` fits the request's 32-bit `yres_virtual`
    /// (the FBIOGET_VSCREENINFO / FSCREENINFO fields as the kernel hands them over, in 64-bit
    /// arithmetic, where their products cannot overflow). No system call: for tests and the fuzzer.
    public static func wantsTwoPages(height: UInt32, virtualHeight: UInt32, bytesPerRow: UInt32, memoryLength: UInt32) -> Bool {
        let rows = 2 * UInt64(height)
        guard rows <= UInt64(UInt32.max), UInt64(virtualHeight) < rows else { return false }
        return UInt64(memoryLength) >= rows * UInt64(bytesPerRow)
    }

    private static func allocateBackBuffer(_ geometry: FramebufferGeometry) -> UnsafeMutableRawPointer {
        let bytes = geometry.height * geometry.bytesPerRow
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        return buffer
    }

    private static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

extension Framebuffer {
    /// The /dev path of the framebuffer whose name (`/sys/class/graphics/fbN/name`) is `name`,
    /// such as the Sense HAT's "RPi-Sense FB" (python-sense-hat finds it the same way).
    ///
    /// - Parameters:
    ///   - sysfsRoot: the class directory, replaceable for tests.
    ///   - devRoot: where the device nodes are.
    public static func find(named name: String, sysfsRoot: String = "/sys/class/graphics",
                            devRoot: String = "/dev") throws(FramebufferError) -> String {
        let found = try list(sysfsRoot: sysfsRoot)
        if let match = found.first(where: { $0.name == name }) { return devRoot + "/" + match.node }
        let names = found.map { "\($0.node) \"\($0.name)\"" }.joined(separator: ", ")
        throw FramebufferError(path: sysfsRoot, message: "no framebuffer named \"\(name)\" (found: \(names.isEmpty ? "none" : names))",
                               fix: name == "RPi-Sense FB" ? "Enable the Sense HAT: add 'dtoverlay=rpi-sense' to /boot/firmware/config.txt and reboot." : nil)
    }

    /// Every framebuffer under `sysfsRoot`: its node name ("fb0") and driver name, in node order.
    public static func list(sysfsRoot: String = "/sys/class/graphics") throws(FramebufferError) -> [(node: String, name: String)] {
        var error: Int32 = 0
        guard let entries = Sys.listDirectory(sysfsRoot, error: &error) else {
            if error == ENOENT { return [] }
            throw FramebufferError(path: sysfsRoot, errno: error, message: "cannot list \(sysfsRoot): \(FBSys.describe(error))")
        }
        var result: [(node: String, name: String)] = []
        for entry in entries where entry.hasPrefix("fb") && Int(entry.dropFirst(2)) != nil {
            var readError: Int32 = 0
            let text = Sys.readFile("\(sysfsRoot)/\(entry)/name", error: &readError) ?? ""
            result.append((entry, text.trimmingSpace()))
        }
        return result.sorted { Int($0.node.dropFirst(2))! < Int($1.node.dropFirst(2))! }
    }
}

extension String {
    func trimmingSpace() -> String {
        var s = Substring(self)
        while let c = s.last, c == "\n" || c == " " || c == "\t" || c == "\r" { s.removeLast() }
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        return String(s)
    }
}
