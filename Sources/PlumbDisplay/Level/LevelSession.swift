import PlumbHAL

/// Somewhere frames are shown: a framebuffer, a PNG snapshot, a terminal preview.
public protocol LevelDisplay: AnyObject {
    /// The memory for the next frame (with page flipping, this changes after each present).
    func nextSurface() -> PixelSurface
    /// Shows the frame drawn into the last ``nextSurface()``.
    func present() throws
}

/// The loop of `plumb level`: gravity in, a level picture out, redrawn only when the angle moves
/// past the renderer's threshold, paced to the display's rate.
public final class LevelSession {
    public let renderer: LevelRenderer
    public let display: any LevelDisplay
    public let source: any GravitySource
    public let pacer: FramePacer
    /// Frames drawn (redraws) and frames skipped because the angle had not moved enough.
    public private(set) var framesDrawn = 0
    public private(set) var framesSkipped = 0
    /// Readings taken with the screen nearly flat, where the last angle was kept.
    public private(set) var flatReadings = 0
    /// The angle of the last frame drawn.
    public var angle: Double? { renderer.lastAngle }

    public init(renderer: LevelRenderer, display: any LevelDisplay, source: any GravitySource, pacer: FramePacer) {
        self.renderer = renderer; self.display = display; self.source = source; self.pacer = pacer
    }

    /// Runs until the source ends or `frames` frame times have passed (nil: no limit).
    ///
    /// With the screen nearly flat (gravity almost along z) the angle is meaningless and jumps
    /// with noise; the picture then keeps its last angle.
    public func run(frames: Int? = nil, afterFrame: ((LevelSession) throws -> Void)? = nil) throws {
        var count = 0
        while frames.map({ count < $0 }) ?? true {
            guard let gravity = try source.nextGravity() else { break }
            var angle = gravity.levelAngle
            if gravity.isNearlyFlat() {
                flatReadings += 1
                angle = renderer.lastAngle ?? 0
            }
            if renderer.needsRedraw(angle: angle) {
                renderer.render(angle: angle, into: display.nextSurface())
                try display.present()
                framesDrawn += 1
            } else {
                framesSkipped += 1
            }
            try afterFrame?(self)
            count += 1
            if frames.map({ count < $0 }) ?? true { pacer.waitForNextFrame() }
        }
    }
}

/// An off-screen display: frames land in a ``PixelBuffer`` (for PNG snapshots and tests).
public final class OffscreenDisplay: LevelDisplay {
    public let buffer: PixelBuffer
    public private(set) var framesPresented = 0

    public init(width: Int, height: Int, format: PixelFormat = .xrgb8888) {
        buffer = PixelBuffer(width: width, height: height, format: format)
    }

    public func nextSurface() -> PixelSurface { buffer.surface }
    public func present() throws { framesPresented += 1 }
}
