/// Turns the renderer's working colour (0x00RRGGBB) into one target format's pixel and stores it.
///
/// One conforming type per family of layouts, so the renderer's inner loop is specialised for the
/// format once per frame instead of deciding per pixel.
@usableFromInline protocol PixelWriter {
    func write(_ xrgb: UInt32, row: UnsafeMutableRawPointer, x: Int)
}

/// 32-bit 0xXXRRGGBB (XRGB8888/ARGB8888): the working colour plus the spare/alpha bits.
@usableFromInline struct XRGB32Writer: PixelWriter {
    @usableFromInline let spare: UInt32
    @inlinable @inline(__always) func write(_ c: UInt32, row: UnsafeMutableRawPointer, x: Int) {
        row.assumingMemoryBound(to: UInt32.self)[x] = c | spare
    }
}

/// 32-bit 0xXXBBGGRR (XBGR8888/ABGR8888): red and blue swapped.
@usableFromInline struct XBGR32Writer: PixelWriter {
    @usableFromInline let spare: UInt32
    @inlinable @inline(__always) func write(_ c: UInt32, row: UnsafeMutableRawPointer, x: Int) {
        row.assumingMemoryBound(to: UInt32.self)[x] = (c & 0x00FF00) | (c >> 16 & 0xFF) | (c & 0xFF) << 16 | spare
    }
}

/// Any other 16- or 32-bit layout: each channel truncated to its length and shifted to its offset.
@usableFromInline struct ShiftWriter<Storage: FixedWidthInteger & UnsignedInteger>: PixelWriter {
    @usableFromInline let redDrop: UInt32, greenDrop: UInt32, blueDrop: UInt32
    @usableFromInline let redOffset: UInt32, greenOffset: UInt32, blueOffset: UInt32
    @usableFromInline let spare: UInt32

    init(_ format: PixelFormat) {
        redDrop = UInt32(8 - format.red.length); greenDrop = UInt32(8 - format.green.length); blueDrop = UInt32(8 - format.blue.length)
        redOffset = UInt32(format.red.offset); greenOffset = UInt32(format.green.offset); blueOffset = UInt32(format.blue.offset)
        spare = format.alpha.length > 0 ? format.pack(RGBA(0, 0, 0, 255)) : format.spareBits
    }

    @inlinable @inline(__always) func write(_ c: UInt32, row: UnsafeMutableRawPointer, x: Int) {
        let r = (c >> 16 & 0xFF) >> redDrop, g = (c >> 8 & 0xFF) >> greenDrop, b = (c & 0xFF) >> blueDrop
        let value = r << redOffset | g << greenOffset | b << blueOffset | spare
        row.assumingMemoryBound(to: Storage.self)[x] = Storage(truncatingIfNeeded: value)
    }
}

/// 24-bit, three bytes per pixel, channels byte-aligned.
@usableFromInline struct Packed24Writer: PixelWriter {
    @usableFromInline let redByte: Int, greenByte: Int, blueByte: Int

    init(_ format: PixelFormat) {
        redByte = format.red.offset / 8; greenByte = format.green.offset / 8; blueByte = format.blue.offset / 8
    }

    @inlinable @inline(__always) func write(_ c: UInt32, row: UnsafeMutableRawPointer, x: Int) {
        let p = row.assumingMemoryBound(to: UInt8.self) + 3 * x
        p[redByte] = UInt8(truncatingIfNeeded: c >> 16)
        p[greenByte] = UInt8(truncatingIfNeeded: c >> 8)
        p[blueByte] = UInt8(truncatingIfNeeded: c)
    }
}

/// 16-bit RRRRRGGG GGGBBBBB (RGB565, the Sense HAT's and most small TFTs' format).
@usableFromInline struct RGB565Writer: PixelWriter {
    @inlinable @inline(__always) func write(_ c: UInt32, row: UnsafeMutableRawPointer, x: Int) {
        let value = (c >> 8 & 0xF800) | (c >> 5 & 0x07E0) | (c >> 3 & 0x001F)
        row.assumingMemoryBound(to: UInt16.self)[x] = UInt16(truncatingIfNeeded: value)
    }
}
