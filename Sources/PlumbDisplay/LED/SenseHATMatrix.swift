import Foundation

/// Pictures for the Sense HAT's 8×8 LED matrix, an RGB565 framebuffer named "RPi-Sense FB"
/// (raspberrypi/documentation, sense-hat hardware.adoc): an arrow that keeps pointing up, or a
/// bubble level.
///
/// The arrow is the level renderer at work: a 32×32 arrow is shrunk to 8×8 by area averaging
/// (smooth edges on 64 LEDs) and rotated by the level angle like any picture.
public final class SenseHATMatrix {
    public enum Mode: String, Sendable, CaseIterable {
        /// An arrow pointing up, whichever way the board is turned.
        case arrow
        /// A bubble that moves to the high side, like a spirit level's.
        case bubble
    }

    public let mode: Mode
    public let color: RGBA
    private let arrowRenderer: LevelRenderer

    public init(mode: Mode, color: RGBA = RGBA(255, 80, 0)) {
        self.mode = mode
        self.color = color
        arrowRenderer = LevelRenderer(image: Self.arrowImage(color: color, size: 32), screenWidth: 8, screenHeight: 8,
                                      options: .init(scaleMode: .fit, background: .black, redrawThreshold: 2 * .pi / 180))
    }

    /// Draws the picture for `gravity` into an 8×8 surface.
    public func draw(_ gravity: GravityReading, into surface: PixelSurface) {
        precondition(surface.width == 8 && surface.height == 8, "the Sense HAT matrix is 8×8")
        switch mode {
        case .arrow:
            arrowRenderer.render(angle: gravity.isNearlyFlat() ? (arrowRenderer.lastAngle ?? 0) : gravity.levelAngle, into: surface)
        case .bubble:
            drawBubble(gravity, into: surface)
        }
    }

    /// A bubble two LEDs wide: centred when level, at the edge when tilted by 30° or more. The
    /// bubble goes to the high side, so it moves against gravity's part in the board's plane.
    private func drawBubble(_ g: GravityReading, into surface: PixelSurface) {
        let norm = max(1e-9, (g.x * g.x + g.y * g.y + g.z * g.z).squareRoot())
        let full = sin(30 * Double.pi / 180)
        let bx = max(-1, min(1, -g.x / norm / full)), by = max(-1, min(1, -g.y / norm / full))
        // Screen y points down; the board's y points up.
        let cx = 4 + bx * 3, cy = 4 - by * 3
        let level = abs(bx) < 0.1 && abs(by) < 0.1
        let dot = level ? RGBA(0, 255, 0) : color
        for y in 0..<8 {
            for x in 0..<8 {
                let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                let d = (dx * dx + dy * dy).squareRoot()
                let coverage = max(0, min(1, 1.5 - d))
                let ring = (x == 3 || x == 4) && (y == 3 || y == 4) ? RGBA(30, 30, 30) : .black
                surface[x, y] = mix(ring, dot, coverage)
            }
        }
    }

    private func mix(_ a: RGBA, _ b: RGBA, _ t: Double) -> RGBA {
        func m(_ p: UInt8, _ q: UInt8) -> UInt8 { UInt8((Double(p) * (1 - t) + Double(q) * t).rounded()) }
        return RGBA(m(a.r, b.r), m(a.g, b.g), m(a.b, b.b))
    }

    /// An upward arrow on black: a triangle head over a stem.
    static func arrowImage(color: RGBA, size: Int) -> RGBAImage {
        let s = Double(size)
        return RGBAImage(width: size, height: size) { x, y in
            let px = Double(x) + 0.5, py = Double(y) + 0.5
            let cx = s / 2
            if py >= s * 0.06, py <= s * 0.5, abs(px - cx) <= (py - s * 0.06) * 0.95 { return color }
            if py > s * 0.5, py <= s * 0.94, abs(px - cx) <= s * 0.14 { return color }
            return .black
        }
    }
}
