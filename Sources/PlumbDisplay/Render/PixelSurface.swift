/// Memory the renderer draws into: a framebuffer's mapping, a back buffer, or a ``PixelBuffer``.
///
/// It does not own the memory; whoever hands it out keeps the memory alive while it is drawn.
public struct PixelSurface {
    public let base: UnsafeMutableRawPointer
    public let width: Int
    public let height: Int
    /// Bytes from one row to the next (fbdev's `line_length`), at least width × bytes per pixel.
    public let bytesPerRow: Int
    public let format: PixelFormat

    public init(base: UnsafeMutableRawPointer, width: Int, height: Int, bytesPerRow: Int, format: PixelFormat) {
        precondition(width > 0 && height > 0, "a surface needs at least one pixel")
        precondition(bytesPerRow >= width * format.bytesPerPixel, "a row must hold width × bytes per pixel")
        precondition(format.unsupportedReason == nil, "unsupported pixel format \(format)")
        self.base = base; self.width = width; self.height = height
        self.bytesPerRow = bytesPerRow; self.format = format
    }

    /// The raw pixel value at (x, y).
    public func value(x: Int, y: Int) -> UInt32 {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)×\(height)")
        let p = base + y * bytesPerRow + x * format.bytesPerPixel
        switch format.bytesPerPixel {
        case 2: return UInt32(p.loadUnaligned(as: UInt16.self))
        case 3: return UInt32(p.load(as: UInt8.self)) | UInt32(p.load(fromByteOffset: 1, as: UInt8.self)) << 8
                    | UInt32(p.load(fromByteOffset: 2, as: UInt8.self)) << 16
        default: return p.loadUnaligned(as: UInt32.self)
        }
    }

    /// Writes a raw pixel value at (x, y).
    public func setValue(_ value: UInt32, x: Int, y: Int) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)×\(height)")
        let p = base + y * bytesPerRow + x * format.bytesPerPixel
        switch format.bytesPerPixel {
        case 2: p.storeBytes(of: UInt16(truncatingIfNeeded: value), as: UInt16.self)
        case 3:
            p.storeBytes(of: UInt8(value & 0xFF), as: UInt8.self)
            p.storeBytes(of: UInt8(value >> 8 & 0xFF), toByteOffset: 1, as: UInt8.self)
            p.storeBytes(of: UInt8(value >> 16 & 0xFF), toByteOffset: 2, as: UInt8.self)
        default: p.storeBytes(of: value, as: UInt32.self)
        }
    }

    public subscript(x: Int, y: Int) -> RGBA {
        get { format.unpack(value(x: x, y: y)) }
        nonmutating set { setValue(format.pack(newValue), x: x, y: y) }
    }

    /// Fills the whole surface with one colour.
    public func fill(_ color: RGBA) {
        let packed = format.pack(color)
        for y in 0..<height { fillRow(y, from: 0, to: width, packed: packed) }
    }

    /// Writes `packed` into row `y`, columns `from..<to`.
    @inlinable func fillRow(_ y: Int, from start: Int, to end: Int, packed: UInt32) {
        guard start < end else { return }
        let row = base + y * bytesPerRow
        switch format.bytesPerPixel {
        case 4:
            let p = row.assumingMemoryBound(to: UInt32.self)
            (p + start).update(repeating: packed, count: end - start)
        case 2:
            let p = row.assumingMemoryBound(to: UInt16.self)
            (p + start).update(repeating: UInt16(truncatingIfNeeded: packed), count: end - start)
        default:
            let p = row.assumingMemoryBound(to: UInt8.self)
            let b0 = UInt8(packed & 0xFF), b1 = UInt8(packed >> 8 & 0xFF), b2 = UInt8(packed >> 16 & 0xFF)
            for x in start..<end { p[3 * x] = b0; p[3 * x + 1] = b1; p[3 * x + 2] = b2 }
        }
    }

    /// The surface's contents as an image (for PNG snapshots and tests).
    public func snapshot() -> RGBAImage {
        var image = RGBAImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                var c = self[x, y]
                c.a = 255
                image[x, y] = c
            }
        }
        return image
    }

    /// Copies every row of `other` (same size and format) into this surface.
    public func copy(from other: PixelSurface) {
        precondition(other.width == width && other.height == height && other.format == format, "surfaces differ")
        let rowBytes = width * format.bytesPerPixel
        for y in 0..<height {
            (base + y * bytesPerRow).copyMemory(from: other.base + y * other.bytesPerRow, byteCount: rowBytes)
        }
    }
}

/// Pixel memory owned by Swift: an off-screen target for snapshots, tests, benchmarks and back buffers.
public final class PixelBuffer {
    public let surface: PixelSurface
    private let storage: UnsafeMutableRawPointer

    public init(width: Int, height: Int, format: PixelFormat, bytesPerRow: Int? = nil) {
        let stride = bytesPerRow ?? width * format.bytesPerPixel
        storage = .allocate(byteCount: stride * height, alignment: 64)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: stride * height)
        surface = PixelSurface(base: storage, width: width, height: height, bytesPerRow: stride, format: format)
    }

    deinit { storage.deallocate() }
}
