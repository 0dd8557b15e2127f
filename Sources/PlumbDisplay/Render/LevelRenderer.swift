import Foundation

/// Draws an image rotated about the screen's centre, kept level as the board turns.
///
/// Each frame maps every screen pixel back into the image (the inverse rotation), samples it with
/// bilinear filtering and writes the result straight into the target's pixel format. The inner
/// loop is fixed point (16.16): per row the source coordinates start at an exact value and step by
/// a constant, the columns whose sample would fall outside the image are found with integer
/// arithmetic first and filled with the background, and the remaining span needs no bounds checks.
/// Nothing allocates per frame.
///
/// Angles are in radians; a positive angle turns the picture clockwise on the screen (screen y
/// points down), the sense of `CGAffineTransform(rotationAngle:)` in UIKit, so the seed's
/// ``LevelAngle`` can be passed straight in.
public final class LevelRenderer {
    /// Settings of the renderer.
    public struct Options: Sendable, Equatable {
        /// Fit (letterbox) or fill (crop) the screen when level. Default `.fit`.
        public var scaleMode: ScaleMode = .fit
        /// The colour around and behind the image. Default black.
        public var background: RGBA = .black
        /// The smallest change of angle, in radians, that causes a redraw. Default 0.25° (0.00436 rad):
        /// at 800 px wide, the image's corner moves about 2 px.
        public var redrawThreshold: Double = 0.25 * .pi / 180

        public init(scaleMode: ScaleMode = .fit, background: RGBA = .black, redrawThreshold: Double = 0.25 * .pi / 180) {
            self.scaleMode = scaleMode; self.background = background; self.redrawThreshold = redrawThreshold
        }
    }

    public let screenWidth: Int
    public let screenHeight: Int
    public let options: Options
    let source: PreparedSource
    /// The angle of the last frame drawn, or nil before the first.
    public private(set) var lastAngle: Double?

    /// Prepares `image` for a screen of `screenWidth` × `screenHeight` pixels.
    public init(image: RGBAImage, screenWidth: Int, screenHeight: Int, options: Options = Options()) {
        precondition(screenWidth > 0 && screenHeight > 0, "the screen needs at least one pixel")
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.options = options
        source = PreparedSource(image: image, screenWidth: screenWidth, screenHeight: screenHeight,
                                mode: options.scaleMode, background: options.background)
    }

    /// The size of the image after it was prepared for the screen.
    public var preparedSize: (width: Int, height: Int) { (source.width, source.height) }

    /// True when no frame has been drawn yet or `angle` differs from the last one drawn by more
    /// than the threshold (the difference taken the short way round the circle). Never for an
    /// angle that is not finite (gravity of zero length from a broken sensor): the last frame stays.
    public func needsRedraw(angle: Double) -> Bool {
        guard angle.isFinite else { return false }
        guard let lastAngle else { return true }
        return abs(LevelAngle.difference(angle, lastAngle)) > options.redrawThreshold
    }

    /// Draws the frame for `angle` if ``needsRedraw(angle:)``; returns whether it drew.
    @discardableResult
    public func renderIfNeeded(angle: Double, into surface: PixelSurface) -> Bool {
        guard needsRedraw(angle: angle) else { return false }
        render(angle: angle, into: surface)
        return true
    }

    /// Draws the image rotated by `angle` radians (clockwise on screen) into `surface`, which must
    /// be the screen's size. An angle that is not finite draws nothing.
    public func render(angle: Double, into surface: PixelSurface) {
        precondition(surface.width == screenWidth && surface.height == screenHeight,
                     "surface \(surface.width)×\(surface.height) is not the screen's \(screenWidth)×\(screenHeight)")
        guard angle.isFinite else { return }
        let format = surface.format
        if format.bytesPerPixel == 4, format.red.length == 8, format.green.length == 8, format.blue.length == 8,
           format.green.offset == 8, (format.alpha.length == 0 || format.alpha == .init(offset: 24, length: 8)) {
            let spare = format.pack(.black)
            if format.red.offset == 16 && format.blue.offset == 0 {
                draw(angle: angle, into: surface, writer: XRGB32Writer(spare: spare))
            } else if format.red.offset == 0 && format.blue.offset == 16 {
                draw(angle: angle, into: surface, writer: XBGR32Writer(spare: spare))
            } else {
                draw(angle: angle, into: surface, writer: ShiftWriter<UInt32>(format))
            }
        } else if format.bytesPerPixel == 4 {
            draw(angle: angle, into: surface, writer: ShiftWriter<UInt32>(format))
        } else if format == .rgb565 {
            draw(angle: angle, into: surface, writer: RGB565Writer())
        } else if format.bytesPerPixel == 2 {
            draw(angle: angle, into: surface, writer: ShiftWriter<UInt16>(format))
        } else {
            draw(angle: angle, into: surface, writer: Packed24Writer(format))
        }
        lastAngle = angle
    }

    /// The whole frame for one writer type (specialised per format).
    private func draw<Writer: PixelWriter>(angle: Double, into surface: PixelSurface, writer: Writer) {
        let one = 65536.0
        let t = sourceTransform(angle: angle)
        // Bilinear sampling puts texel centres at integer coordinates: hence the −0.5.
        let dU = Int((t.a * one).rounded()), dV = Int((t.c * one).rounded())
        let uLimit = (source.width + 1) << 16, vLimit = (source.height + 1) << 16
        let background = surface.format.pack(options.background)
        let stride = source.stride
        source.pixels.withUnsafeBufferPointer { buffer in
            let pixels = buffer.baseAddress!
            for y in 0..<screenHeight {
                let u0 = Int(((t.u(0.5, Double(y) + 0.5) - 0.5) * one).rounded())
                let v0 = Int(((t.v(0.5, Double(y) + 0.5) - 0.5) * one).rounded())
                let row = surface.base + y * surface.bytesPerRow
                var span = 0..<screenWidth
                span = Self.clamp(span, start: u0, step: dU, limit: uLimit)
                span = Self.clamp(span, start: v0, step: dV, limit: vLimit)
                if span.isEmpty {
                    surface.fillRow(y, from: 0, to: screenWidth, packed: background)
                    continue
                }
                surface.fillRow(y, from: 0, to: span.lowerBound, packed: background)
                surface.fillRow(y, from: span.upperBound, to: screenWidth, packed: background)
                var u = u0 + span.lowerBound * dU, v = v0 + span.lowerBound * dV
                for x in span {
                    writer.write(Self.sample(pixels, stride: stride, u: u, v: v), row: row, x: x)
                    u &+= dU
                    v &+= dV
                }
            }
        }
    }

    /// The map from a point on the screen to a point in the padded prepared source for the frame
    /// at `angle` (continuous coordinates: pixel (i, j) covers [i, i+1) × [j, j+1)).
    ///
    ///     u = ( cos·dx + sin·dy) / scaleX + width/2  + 1
    ///     v = (−sin·dx + cos·dy) / scaleY + height/2 + 1
    ///
    /// where (dx, dy) is the point relative to the screen centre and the +1 skips the border.
    public func sourceTransform(angle: Double) -> AffineTransform {
        let c = cos(angle), s = sin(angle)
        let halfW = Double(screenWidth) / 2, halfH = Double(screenHeight) / 2
        let a = c / source.scaleX, b = s / source.scaleX, cc = -s / source.scaleY, d = c / source.scaleY
        return AffineTransform(a: a, b: b, c: cc, d: d,
                               tx: -a * halfW - b * halfH + Double(source.width) / 2 + 1,
                               ty: -cc * halfW - d * halfH + Double(source.height) / 2 + 1)
    }

    /// Calls `body` with the prepared source: 0x00RRGGBB pixels, (width + 2) × (height + 2) with
    /// a one-pixel background border, rows packed. For benchmarks against other rasterisers.
    public func withPaddedSource<R>(_ body: (UnsafeBufferPointer<UInt32>, _ width: Int, _ height: Int) throws -> R) rethrows -> R {
        try source.pixels.withUnsafeBufferPointer { try body($0, source.stride, source.height + 2) }
    }

    /// The part of `span` where `start + x·step` lies in 0..<limit (exact integer arithmetic).
    @inline(__always)
    static func clamp(_ span: Range<Int>, start: Int, step: Int, limit: Int) -> Range<Int> {
        var low = span.lowerBound, high = span.upperBound - 1
        if step == 0 {
            return (0..<limit).contains(start) ? span : span.lowerBound..<span.lowerBound
        } else if step > 0 {
            low = max(low, ceilDiv(-start, step))
            high = min(high, floorDiv(limit - 1 - start, step))
        } else {
            low = max(low, ceilDiv(limit - 1 - start, step))
            high = min(high, floorDiv(-start, step))
        }
        return low <= high ? low..<(high + 1) : span.lowerBound..<span.lowerBound
    }

    @inline(__always) static func floorDiv(_ a: Int, _ b: Int) -> Int {
        let q = a / b
        return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q
    }

    @inline(__always) static func ceilDiv(_ a: Int, _ b: Int) -> Int {
        let q = a / b
        return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q
    }

    /// Bilinear sample at 16.16 padded coordinates (u, v), 8-bit weights. The three channels are
    /// spread into 16-bit lanes of a UInt64 (B, R, G) so each interpolation is two multiplies.
    @inline(__always)
    static func sample(_ pixels: UnsafePointer<UInt32>, stride: Int, u: Int, v: Int) -> UInt32 {
        let p = pixels + ((v >> 16) * stride + (u >> 16))
        let fx = UInt64(truncatingIfNeeded: u >> 8) & 0xFF, fy = UInt64(truncatingIfNeeded: v >> 8) & 0xFF
        let top = lerp(spread(p[0]), spread(p[1]), fx)
        let bottom = lerp(spread(p[stride]), spread(p[stride + 1]), fx)
        let c = lerp(top, bottom, fy)
        return UInt32(truncatingIfNeeded: c & 0xFF00FF) | UInt32(truncatingIfNeeded: c >> 24) & 0xFF00
    }

    @inline(__always) static func spread(_ p: UInt32) -> UInt64 {
        UInt64(p & 0xFF00FF) | UInt64(p & 0xFF00) << 24
    }

    @inline(__always) static func lerp(_ a: UInt64, _ b: UInt64, _ t: UInt64) -> UInt64 {
        ((a &* (256 &- t) &+ b &* t) >> 8) & 0x0000_00FF_00FF_00FF
    }
}

/// A 2-D affine map: u = a·x + b·y + tx, v = c·x + d·y + ty.
public struct AffineTransform: Sendable, Equatable {
    public var a, b, c, d, tx, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.tx = tx; self.ty = ty
    }

    @inlinable public func u(_ x: Double, _ y: Double) -> Double { a * x + b * y + tx }
    @inlinable public func v(_ x: Double, _ y: Double) -> Double { c * x + d * y + ty }
}
