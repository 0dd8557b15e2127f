/// How an image is scaled to the screen before it is rotated.
public enum ScaleMode: String, Sendable, CaseIterable {
    /// The whole image is visible (letterboxed) when level.
    case fit
    /// The image covers the whole screen when level (edges cropped).
    case fill
}

/// An image made ready for one screen: composited over the background, resampled to about one
/// source pixel per screen pixel (area averaging when shrinking, so a large photo does not alias),
/// stored as 0x00RRGGBB with a one-pixel border of background colour so bilinear filtering at the
/// image's edge blends into the background without a bounds check per pixel.
struct PreparedSource {
    /// Size without the border.
    let width: Int
    let height: Int
    /// width + 2: pixels from one padded row to the next.
    let stride: Int
    /// (width + 2) × (height + 2) pixels, 0x00RRGGBB; the image starts at (1, 1).
    let pixels: [UInt32]
    /// Screen pixels per prepared pixel along x and y (1 after shrinking; > 1 when enlarging).
    let scaleX: Double
    let scaleY: Double

    init(image: RGBAImage, screenWidth: Int, screenHeight: Int, mode: ScaleMode, background: RGBA) {
        let sx = Double(screenWidth) / Double(image.width), sy = Double(screenHeight) / Double(image.height)
        let scale = mode == .fit ? min(sx, sy) : max(sx, sy)
        let opaque = PreparedSource.composite(image, over: background)
        var w = image.width, h = image.height
        var pixels = opaque
        if scale < 1 {
            w = max(1, Int((Double(image.width) * scale).rounded()))
            h = max(1, Int((Double(image.height) * scale).rounded()))
            pixels = PreparedSource.areaResample(opaque, width: image.width, height: image.height, toWidth: w, toHeight: h)
            scaleX = scale * Double(image.width) / Double(w)
            scaleY = scale * Double(image.height) / Double(h)
        } else {
            scaleX = scale
            scaleY = scale
        }
        width = w
        height = h
        stride = w + 2
        var padded = [UInt32](repeating: background.xrgb, count: (w + 2) * (h + 2))
        for y in 0..<h {
            for x in 0..<w { padded[(y + 1) * stride + x + 1] = pixels[y * w + x] }
        }
        self.pixels = padded
    }

    /// The image's pixels as 0x00RRGGBB, each composited over `background` (source-over).
    static func composite(_ image: RGBAImage, over background: RGBA) -> [UInt32] {
        var out = [UInt32](repeating: 0, count: image.width * image.height)
        image.bytes.withUnsafeBufferPointer { b in
            for i in 0..<out.count {
                let c = RGBA(b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3])
                out[i] = (c.a == 255 ? c : c.over(background)).xrgb
            }
        }
        return out
    }

    /// Shrinks `pixels` to `toWidth` × `toHeight` by area averaging: each output pixel is the mean
    /// of the input area it covers, partial pixels weighted by their covered fraction. Separable:
    /// rows first, then columns.
    static func areaResample(_ pixels: [UInt32], width: Int, height: Int, toWidth: Int, toHeight: Int) -> [UInt32] {
        /// For each output index, the input indices it covers and their weights (summing to 1).
        func taps(from n: Int, to m: Int) -> [[(Int, Float)]] {
            let ratio = Double(n) / Double(m)
            return (0..<m).map { o in
                let start = Double(o) * ratio, end = Double(o + 1) * ratio
                var list: [(Int, Float)] = []
                var i = Int(start)
                while Double(i) < end && i < n {
                    let covered = min(end, Double(i + 1)) - max(start, Double(i))
                    if covered > 0 { list.append((i, Float(covered / ratio))) }
                    i += 1
                }
                return list
            }
        }
        let across = taps(from: width, to: toWidth), down = taps(from: height, to: toHeight)
        // Rows: height × toWidth × 3 floats.
        var rows = [Float](repeating: 0, count: height * toWidth * 3)
        for y in 0..<height {
            for ox in 0..<toWidth {
                var r: Float = 0, g: Float = 0, b: Float = 0
                for (i, w) in across[ox] {
                    let p = pixels[y * width + i]
                    r += Float(p >> 16 & 0xFF) * w; g += Float(p >> 8 & 0xFF) * w; b += Float(p & 0xFF) * w
                }
                let o = (y * toWidth + ox) * 3
                rows[o] = r; rows[o + 1] = g; rows[o + 2] = b
            }
        }
        var out = [UInt32](repeating: 0, count: toWidth * toHeight)
        for oy in 0..<toHeight {
            for ox in 0..<toWidth {
                var r: Float = 0, g: Float = 0, b: Float = 0
                for (j, w) in down[oy] {
                    let o = (j * toWidth + ox) * 3
                    r += rows[o] * w; g += rows[o + 1] * w; b += rows[o + 2] * w
                }
                func channel(_ v: Float) -> UInt32 { UInt32(min(255, max(0, (v + 0.5).rounded(.down)))) }
                out[oy * toWidth + ox] = channel(r) << 16 | channel(g) << 8 | channel(b)
            }
        }
        return out
    }
}
