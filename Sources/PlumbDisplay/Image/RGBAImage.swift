/// One colour with 8-bit channels, not premultiplied.
public struct RGBA: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8
    public var a: UInt8

    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }

    public static let black = RGBA(0, 0, 0)
    public static let white = RGBA(255, 255, 255)

    /// Parses "#rrggbb", "rrggbb" or "#rrggbbaa".
    public init?(hex: String) {
        var text = Substring(hex)
        if text.hasPrefix("#") { text = text.dropFirst() }
        guard text.count == 6 || text.count == 8, let value = UInt32(text, radix: 16) else { return nil }
        if text.count == 6 {
            self.init(UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
        } else {
            self.init(UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
        }
    }

    /// The colour as 0x00RRGGBB, the renderer's working format (alpha dropped).
    @inlinable public var xrgb: UInt32 { UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b) }

    /// This colour composited over an opaque `background` (source-over, 8-bit rounding).
    public func over(_ background: RGBA) -> RGBA {
        let alpha = UInt32(a), rest = 255 - alpha
        func mix(_ f: UInt8, _ b: UInt8) -> UInt8 { UInt8((UInt32(f) * alpha + UInt32(b) * rest + 127) / 255) }
        return RGBA(mix(r, background.r), mix(g, background.g), mix(b, background.b), 255)
    }

    public var description: String {
        func hex(_ v: UInt8) -> String { let s = String(v, radix: 16); return s.count == 1 ? "0" + s : s }
        return "#" + hex(r) + hex(g) + hex(b) + (a == 255 ? "" : hex(a))
    }
}

/// An image in memory: 8-bit RGBA, rows top to bottom, packed (4 × width bytes per row).
///
/// Loaded from JPEG or PNG by ``ImageFile``, produced by the renderer's snapshots and by
/// ``TestPattern``.
public struct RGBAImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// width × height × 4 bytes: R, G, B, A.
    public var bytes: [UInt8]

    /// An image filled with `color`.
    public init(width: Int, height: Int, color: RGBA = .black) {
        precondition(width > 0 && height > 0, "an image needs at least one pixel")
        self.width = width
        self.height = height
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for i in stride(from: 0, to: bytes.count, by: 4) {
            bytes[i] = color.r; bytes[i + 1] = color.g; bytes[i + 2] = color.b; bytes[i + 3] = color.a
        }
        self.bytes = bytes
    }

    /// An image over existing RGBA bytes.
    public init(width: Int, height: Int, bytes: [UInt8]) {
        precondition(width > 0 && height > 0 && bytes.count == width * height * 4, "RGBA bytes must be width × height × 4")
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    /// An image whose pixels come from `pixel(x, y)`.
    public init(width: Int, height: Int, pixel: (Int, Int) -> RGBA) {
        self.init(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width { self[x, y] = pixel(x, y) }
        }
    }

    public subscript(x: Int, y: Int) -> RGBA {
        get {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)×\(height)")
            let i = (y * width + x) * 4
            return RGBA(bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3])
        }
        set {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)×\(height)")
            let i = (y * width + x) * 4
            bytes[i] = newValue.r; bytes[i + 1] = newValue.g; bytes[i + 2] = newValue.b; bytes[i + 3] = newValue.a
        }
    }

    /// The largest difference of any channel between two images of the same size, and the mean.
    public func difference(from other: RGBAImage) -> (max: Int, mean: Double) {
        precondition(width == other.width && height == other.height, "images differ in size")
        var largest = 0
        var total = 0
        for i in 0..<bytes.count {
            let d = abs(Int(bytes[i]) - Int(other.bytes[i]))
            largest = max(largest, d)
            total += d
        }
        return (largest, Double(total) / Double(bytes.count))
    }
}
