/// How a pixel's colour channels sit in memory, described the way fbdev does it.
///
/// Each channel has a bit offset and a length inside the little-endian pixel value
/// (`struct fb_bitfield` in `<linux/fb.h>`: offset, length, msb_right). Common layouts have names:
/// ``xrgb8888`` is the value 0xXXRRGGBB (bytes B, G, R, X in memory), ``rgb565`` is
/// RRRRRGGG GGGBBBBB, ``rgb888`` stores bytes B, G, R.
public struct PixelFormat: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// One channel's place in the pixel value (`struct fb_bitfield`).
    public struct Channel: Sendable, Equatable, Hashable {
        /// Bit offset of the least significant bit.
        public var offset: Int
        /// Bits in the channel; 0 when the format has no such channel.
        public var length: Int

        public init(offset: Int, length: Int) { self.offset = offset; self.length = length }

        public static let none = Channel(offset: 0, length: 0)
    }

    /// 16, 24 or 32.
    public var bitsPerPixel: Int
    public var red: Channel
    public var green: Channel
    public var blue: Channel
    /// Alpha (`transp` in fbdev); length 0 for X formats, where the spare bits are written as 1s.
    public var alpha: Channel

    public init(bitsPerPixel: Int, red: Channel, green: Channel, blue: Channel, alpha: Channel = .none) {
        self.bitsPerPixel = bitsPerPixel
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
    }

    public var bytesPerPixel: Int { bitsPerPixel / 8 }

    public static let xrgb8888 = PixelFormat(bitsPerPixel: 32, red: .init(offset: 16, length: 8), green: .init(offset: 8, length: 8), blue: .init(offset: 0, length: 8))
    public static let argb8888 = PixelFormat(bitsPerPixel: 32, red: .init(offset: 16, length: 8), green: .init(offset: 8, length: 8), blue: .init(offset: 0, length: 8), alpha: .init(offset: 24, length: 8))
    public static let xbgr8888 = PixelFormat(bitsPerPixel: 32, red: .init(offset: 0, length: 8), green: .init(offset: 8, length: 8), blue: .init(offset: 16, length: 8))
    public static let abgr8888 = PixelFormat(bitsPerPixel: 32, red: .init(offset: 0, length: 8), green: .init(offset: 8, length: 8), blue: .init(offset: 16, length: 8), alpha: .init(offset: 24, length: 8))
    public static let rgb565 = PixelFormat(bitsPerPixel: 16, red: .init(offset: 11, length: 5), green: .init(offset: 5, length: 6), blue: .init(offset: 0, length: 5))
    public static let bgr565 = PixelFormat(bitsPerPixel: 16, red: .init(offset: 0, length: 5), green: .init(offset: 5, length: 6), blue: .init(offset: 11, length: 5))
    public static let rgb888 = PixelFormat(bitsPerPixel: 24, red: .init(offset: 16, length: 8), green: .init(offset: 8, length: 8), blue: .init(offset: 0, length: 8))
    public static let bgr888 = PixelFormat(bitsPerPixel: 24, red: .init(offset: 0, length: 8), green: .init(offset: 8, length: 8), blue: .init(offset: 16, length: 8))

    /// Every named format, for `--format` options and tests.
    public static let named: [(name: String, format: PixelFormat)] = [
        ("xrgb8888", .xrgb8888), ("argb8888", .argb8888), ("xbgr8888", .xbgr8888), ("abgr8888", .abgr8888),
        ("rgb565", .rgb565), ("bgr565", .bgr565), ("rgb888", .rgb888), ("bgr888", .bgr888),
    ]

    /// The format named `name` ("xrgb8888", "rgb565", ...), case-insensitive.
    public init?(name: String) {
        guard let found = Self.named.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = found.format
    }

    /// Why this layout cannot be drawn, or `nil` when it can: 16, 24 or 32 bits per pixel, every
    /// colour channel 1...8 bits wide, inside the pixel and not overlapping another.
    public var unsupportedReason: String? {
        guard [16, 24, 32].contains(bitsPerPixel) else { return "\(bitsPerPixel) bits per pixel (16, 24 or 32 are supported)" }
        var used: UInt64 = 0
        for (name, channel) in [("red", red), ("green", green), ("blue", blue), ("alpha", alpha)] {
            if channel.length == 0 && name == "alpha" { continue }
            guard (1...8).contains(channel.length) else { return "\(name) is \(channel.length) bits wide (1...8 are supported)" }
            guard channel.offset >= 0, channel.offset + channel.length <= bitsPerPixel else {
                return "\(name) at bits \(channel.offset)+\(channel.length) lies outside a \(bitsPerPixel)-bit pixel"
            }
            let mask = ((UInt64(1) << UInt64(channel.length)) - 1) << UInt64(channel.offset)
            guard used & mask == 0 else { return "\(name) overlaps another channel" }
            used |= mask
        }
        if bitsPerPixel == 24 && [red, green, blue].contains(where: { $0.length != 8 || $0.offset % 8 != 0 }) {
            return "24-bit pixels need byte-aligned 8-bit channels"
        }
        return nil
    }

    /// The pixel value of a colour: each channel keeps its top `length` bits; alpha, if the
    /// format has it, is stored; bits no channel uses are set to 1 (X formats read as opaque).
    @inlinable public func pack(_ color: RGBA) -> UInt32 {
        func place(_ value: UInt8, _ channel: Channel) -> UInt32 {
            channel.length == 0 ? 0 : (UInt32(value) >> UInt32(8 - channel.length)) << UInt32(channel.offset)
        }
        var value = place(color.r, red) | place(color.g, green) | place(color.b, blue)
        value |= alpha.length > 0 ? place(color.a, alpha) : spareBits
        return bitsPerPixel == 32 ? value : value & ((1 << UInt32(bitsPerPixel)) - 1)
    }

    /// The colour of a pixel value: channels shorter than 8 bits are widened by repeating their top
    /// bits (so 5-bit 31 becomes 255); alpha is 255 when the format has none.
    @inlinable public func unpack(_ value: UInt32) -> RGBA {
        func take(_ channel: Channel) -> UInt8 {
            guard channel.length > 0 else { return 255 }
            let bits = (value >> UInt32(channel.offset)) & ((1 << UInt32(channel.length)) - 1)
            var wide = bits << UInt32(8 - channel.length)
            var filled = channel.length
            while filled < 8 { wide |= wide >> UInt32(filled); filled *= 2 }
            return UInt8(wide & 0xFF)
        }
        return RGBA(take(red), take(green), take(blue), alpha.length > 0 ? take(alpha) : 255)
    }

    /// Bits of the pixel that no channel uses (written as 1s).
    @inlinable var spareBits: UInt32 {
        let all: UInt32 = bitsPerPixel == 32 ? 0xFFFF_FFFF : (1 << UInt32(bitsPerPixel)) - 1
        var used: UInt32 = 0
        for channel in [red, green, blue, alpha] where channel.length > 0 {
            used |= ((1 << UInt32(channel.length)) - 1) << UInt32(channel.offset)
        }
        return all & ~used
    }

    public var description: String {
        if let named = Self.named.first(where: { $0.format == self }) { return named.name }
        func c(_ n: String, _ ch: Channel) -> String { "\(n)\(ch.offset)+\(ch.length)" }
        return "\(bitsPerPixel)bpp " + [c("r", red), c("g", green), c("b", blue), c("a", alpha)].joined(separator: " ")
    }
}
