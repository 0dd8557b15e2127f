// Framebuffer and the level renderer against vfb (/dev/fb0, 1 MiB of video memory): a frame
// drawn through the mapping and shown with FBIOPAN_DISPLAY (or copied from a back buffer) is
// read back through read(2) on /dev/fb0, independently of the mapping, and must be the frame
// the renderer draws off-screen, turned the way the angle says.
import Glibc
import PlumbDisplay
import PlumbLinux

extension VMChecks {
    static let display: [VMCheck] = [
        VMCheck(name: "display.vfb-page-flip-xrgb8888") { _ in
            try levelFrameCheck(mode: FramebufferMode(width: 320, height: 240, bitsPerPixel: 32), expectFlip: true)
        },
        VMCheck(name: "display.vfb-back-buffer-rgb565") { _ in
            // 640×480×2 bytes twice is more than vfb's 1 MiB: no room for a second page.
            try levelFrameCheck(mode: FramebufferMode(width: 640, height: 480, bitsPerPixel: 16), expectFlip: false)
        },
        VMCheck(name: "display.vfb-find-by-name") { _ in
            let path = try Framebuffer.find(named: "Virtual FB")
            try require(path == "/dev/fb0", "found \(path)")
            return "\"Virtual FB\" is \(path)"
        },
    ]

    /// Draws the picture (red top half, blue bottom half) turned 90° clockwise, presents it, and
    /// reads the screen back with read(2).
    static func levelFrameCheck(mode: FramebufferMode, expectFlip: Bool) throws -> String {
        let fb = try Framebuffer(device: "/dev/fb0", mode: mode)
        defer { fb.close() }
        let g = fb.geometry
        func channel(_ b: FramebufferBitfield) -> PixelFormat.Channel { .init(offset: b.offset, length: b.length) }
        let format = PixelFormat(bitsPerPixel: g.bitsPerPixel, red: channel(g.red), green: channel(g.green),
                                 blue: channel(g.blue), alpha: channel(g.alpha))
        try require(format.unsupportedReason == nil, "vfb's format \(format): \(format.unsupportedReason ?? "")")
        try require((fb.updateMode == .pageFlip) == expectFlip, "update mode \(fb.updateMode.rawValue), virtual height \(g.virtualHeight)")
        let picture = RGBAImage(width: g.width, height: g.height) { _, y in y < g.height / 2 ? RGBA(255, 0, 0) : RGBA(0, 0, 255) }
        let renderer = LevelRenderer(image: picture, screenWidth: g.width, screenHeight: g.height, options: .init(background: .black))
        let angle = Double.pi / 2
        // Two frames, so a page flip goes to page 1 and back to page 0.
        for frame in 0..<2 {
            renderer.render(angle: angle + Double(frame) * 1e-3, into: PixelSurface(base: fb.drawBuffer, width: g.width, height: g.height,
                                                                                   bytesPerRow: g.bytesPerRow, format: format))
            try fb.present()
        }
        try require(fb.visiblePage == 0, "visible page \(fb.visiblePage) after two presents")
        let expected = PixelBuffer(width: g.width, height: g.height, format: format, bytesPerRow: g.bytesPerRow)
        renderer.render(angle: angle + 1e-3, into: expected.surface)

        // Read the visible page through read(2).
        let fd = open("/dev/fb0", O_RDONLY)
        try require(fd >= 0, "open /dev/fb0 for reading: errno \(errno)")
        defer { close(fd) }
        let length = g.bytesPerRow * g.height
        var screen = [UInt8](repeating: 0, count: length)
        let offset = off_t(fb.visiblePage * length)
        let n = screen.withUnsafeMutableBytes { pread(fd, $0.baseAddress, length, offset) }
        try require(n == length, "read \(n) of \(length) bytes")
        let readBack = PixelBuffer(width: g.width, height: g.height, format: format, bytesPerRow: g.bytesPerRow)
        screen.withUnsafeBytes { readBack.surface.base.copyMemory(from: $0.baseAddress!, byteCount: length) }
        let same = memcmp(readBack.surface.base, expected.surface.base, length) == 0
        try require(same, "the screen read back differs from the frame drawn off-screen")
        let back = readBack.surface
        // Turned 90° clockwise: the picture's top (red) is on the right, its bottom (blue) on the left.
        let right = back[g.width / 2 + g.height / 4, g.height / 2], left = back[g.width / 2 - g.height / 4, g.height / 2]
        try require(right.r > 200 && right.b < 50, "right of centre is \(right), expected red")
        try require(left.b > 200 && left.r < 50, "left of centre is \(left), expected blue")
        try require(back[0, 0] == RGBA(0, 0, 0), "corner is \(back[0, 0]), expected the black background")
        return "\(g.width)x\(g.height) \(format), \(fb.updateMode.rawValue), read back equal, red right and blue left of centre"
    }
}
