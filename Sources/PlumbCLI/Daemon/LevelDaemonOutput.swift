import PlumbDisplay
import PlumbHAL
import PlumbLinux
import PlumbOrientation

/// `outputs.level`: the image kept level on a framebuffer, redrawn from the latest gravity at
/// most `frameRate` times a second and only when the angle moved past the renderer's threshold.
/// Restoring blanks the screen (both pages of a page-flipping framebuffer) and releases the framebuffer.
///
/// The text console is left alone: a service has no virtual terminal to switch to graphics mode
/// (that is `plumb level`'s ConsoleGuard, whose signal handlers would also take over the daemon's).
final class LevelDaemonOutput: DaemonOutput {
    let name: String
    let framebuffer: Framebuffer
    let display: FramebufferDisplay
    let renderer: LevelRenderer
    let clock: any MonotonicClock
    let frameInterval: UInt64
    private var lastFrame: UInt64?
    private(set) var framesDrawn = 0

    init(framebuffer: Framebuffer, image: RGBAImage, imagePath: String, clock: any MonotonicClock, frameRate: Double = 30) throws {
        self.framebuffer = framebuffer
        display = try FramebufferDisplay(framebuffer)
        let g = framebuffer.geometry
        renderer = LevelRenderer(image: image, screenWidth: g.width, screenHeight: g.height)
        self.clock = clock
        frameInterval = UInt64((1e9 / frameRate).rounded())
        name = "level \(imagePath) on \(framebuffer.path)"
    }

    func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws {}

    func gravityUpdated(_ gravity: SIMD3<Double>) throws {
        let now = clock.nowNanoseconds
        if let lastFrame, now &- lastFrame < frameInterval { return }
        let reading = GravityReading(x: gravity.x, y: gravity.y, z: gravity.z)
        // Lying flat the angle is noise: keep the picture as it is.
        if reading.isNearlyFlat(), renderer.lastAngle != nil { return }
        let angle = reading.isNearlyFlat() ? 0 : reading.levelAngle
        guard renderer.renderIfNeeded(angle: angle, into: display.nextSurface()) else { return }
        try display.present()
        lastFrame = now
        framesDrawn += 1
    }

    func restore() throws {
        defer { framebuffer.close() }
        // close() pans a page-flipping framebuffer back to row 0 (the console's page), which may
        // hold the last frame while the black one went to the other page: blank every page.
        for _ in 0..<(framebuffer.updateMode == .pageFlip ? 2 : 1) {
            display.nextSurface().fill(.black)
            try display.present()
        }
    }
}
