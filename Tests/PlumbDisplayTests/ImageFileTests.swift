import Foundation
import Testing
@testable import PlumbDisplay

@Suite struct ImageFileTests {
    @Test func pngRoundTripIsExactIncludingAlpha() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var image = gradientImage(width: 37, height: 21)
        image[3, 4] = RGBA(10, 20, 30, 0)
        image[36, 20] = RGBA(200, 100, 50, 128)
        let path = directory.file("snapshot.png")
        try ImageFile.savePNG(image, to: path)
        let loaded = try ImageFile.load(path)
        #expect(loaded == image)
    }

    @Test func jpegFromLibjpegDecodesWithinQuantisationError() throws {
        let image = gradientImage(width: 64, height: 48)
        for progressive in [false, true] {
            let data = try ImageFile.encodeJPEG(image, quality: 95, progressive: progressive)
            #expect(ImageFormat.sniff(data) == .jpeg)
            let loaded = try ImageFile.decode(data, path: "gradient.jpg")
            #expect(loaded.width == 64 && loaded.height == 48)
            let difference = loaded.difference(from: image)
            // Quality 95 with 4:2:0 chroma subsampling on a smooth gradient: a few levels at most.
            #expect(difference.max <= 12, "max error \(difference.max)")
            #expect(difference.mean <= 2.0, "mean error \(difference.mean)")
            #expect(loaded[10, 10].a == 255)
        }
    }

    @Test(.enabled(if: executableOnPath("cjpeg") != nil, "cjpeg (libjpeg-turbo-progs) is not installed"))
    func jpegMadeByCjpegDecodes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        // A binary PPM (netpbm P6) of the gradient, then cjpeg turns it into a progressive JPEG.
        let image = gradientImage(width: 50, height: 30)
        var ppm = Data("P6\n50 30\n255\n".utf8)
        for y in 0..<30 {
            for x in 0..<50 { let p = image[x, y]; ppm.append(contentsOf: [p.r, p.g, p.b]) }
        }
        try ppm.write(to: URL(fileURLWithPath: directory.file("in.ppm")))
        let status = try run(executableOnPath("cjpeg")!, ["-quality", "95", "-progressive", "-outfile",
                                                          directory.file("out.jpg"), directory.file("in.ppm")])
        #expect(status == 0)
        let loaded = try ImageFile.load(directory.file("out.jpg"))
        #expect(loaded.width == 50 && loaded.height == 30)
        #expect(loaded.difference(from: image).max <= 12)
    }

    @Test func grayscaleAnd16BitPNGsBecomeRGBA() throws {
        // A 2×1 16-bit greyscale PNG built by hand: IHDR, one stored (uncompressed) zlib block, IEND.
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            let length = UInt32(body.count), crc = crc32(typed)
            return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
                + typed + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        }
        let raw: [UInt8] = [0, 0xFF, 0xFF, 0x00, 0x00]  // filter 0, white, black (16-bit samples)
        var adler: (UInt32, UInt32) = (1, 0)
        for b in raw { adler.0 = (adler.0 + UInt32(b)) % 65521; adler.1 = (adler.1 + adler.0) % 65521 }
        let a = adler.1 << 16 | adler.0
        let zlib: [UInt8] = [0x78, 0x01, 0x01, UInt8(raw.count), 0, ~UInt8(raw.count), 0xFF] + raw
            + [UInt8(a >> 24), UInt8(a >> 16 & 0xFF), UInt8(a >> 8 & 0xFF), UInt8(a & 0xFF)]
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", [0, 0, 0, 2, 0, 0, 0, 1, 16, 0, 0, 0, 0]) + chunk("IDAT", zlib) + chunk("IEND", [])
        let image = try ImageFile.decode(Data(png), path: "grey16.png")
        #expect(image.width == 2 && image.height == 1)
        #expect(image[0, 0] == RGBA(255, 255, 255))
        #expect(image[1, 0] == RGBA(0, 0, 0))
    }

    @Test func missingFileNamesThePath() {
        #expect {
            try ImageFile.load("/nonexistent/picture.png")
        } throws: { error in
            guard let error = error as? ImageError else { return false }
            return error.kind == .unreadable && error.description.hasPrefix("/nonexistent/picture.png: ")
        }
    }

    @Test func aDirectoryIsNamedAsOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        #expect(throws: ImageError(.unreadable, path: directory.path, detail: "it is a directory, not a file")) {
            try ImageFile.load(directory.path)
        }
    }

    /// A header claiming 65000 x 65000 (or 100000 x 100000) is refused before the decoder
    /// allocates 16 GiB: named as too large, not as damaged.
    @Test func aPictureWithTooManyPixelsIsRefusedBeforeDecoding() throws {
        var png = [UInt8](try ImageFile.encodePNG(gradientImage(width: 4, height: 4)))
        png.replaceSubrange(16..<24, with: [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0])   // IHDR: 100000 x 100000
        let crc = crc32(png[12..<29])
        png.replaceSubrange(29..<33, with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        #expect(throws: ImageError(.unsupported, path: "big.png",
                                   detail: "PNG: 100000x100000 pixels is past the 64-megapixel limit; scale the picture down, to the screen's size at most")) {
            try ImageFile.decode(Data(png), path: "big.png")
        }
        var jpeg = [UInt8](try ImageFile.encodeJPEG(gradientImage(width: 16, height: 16)))
        // SOF0 (FF C0): length (2), precision (1), then height and width (ITU-T T.81, B.2.2).
        let sof = try #require((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg.replaceSubrange(sof + 5..<sof + 9, with: [0xFD, 0xE8, 0xFD, 0xE8])   // 65000 x 65000
        #expect(throws: ImageError(.unsupported, path: "big.jpg",
                                   detail: "JPEG: 65000x65000 pixels is past the 64-megapixel limit; scale the picture down, to the screen's size at most")) {
            try ImageFile.decode(Data(jpeg), path: "big.jpg")
        }
    }

    @Test func textFileIsNotAnImage() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("notes.jpg")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: ImageError(.notAnImage, path: path, detail: "it starts with bytes 68 65 6c 6c")) {
            try ImageFile.load(path)
        }
    }

    @Test func truncatedJPEGIsReportedAsTruncated() throws {
        let data = try ImageFile.encodeJPEG(gradientImage(width: 64, height: 64), quality: 90)
        let cut = data.prefix(data.count / 2)
        #expect {
            try ImageFile.decode(Data(cut), path: "cut.jpg")
        } throws: { error in
            guard let error = error as? ImageError else { return false }
            return error.kind == .truncated && error.description.contains("cut.jpg") && error.description.contains("JPEG")
        }
    }

    @Test func truncatedPNGIsReportedAsTruncated() throws {
        let data = try ImageFile.encodePNG(gradientImage(width: 64, height: 64))
        #expect {
            try ImageFile.decode(Data(data.prefix(data.count - 40)), path: "cut.png")
        } throws: { error in
            guard let error = error as? ImageError else { return false }
            return error.kind == .truncated && error.description.hasPrefix("cut.png: truncated image (PNG: ")
        }
    }

    @Test func unsupportedBitDepthIsNamed() throws {
        var bytes = [UInt8](try ImageFile.encodePNG(gradientImage(width: 4, height: 4)))
        // IHDR's data starts at byte 16; bit depth is its 9th byte. 3 is not a legal depth (PNG spec §11.2.2).
        bytes[24] = 3
        let crc = crc32(bytes[12..<29])
        bytes[29] = UInt8(crc >> 24); bytes[30] = UInt8(crc >> 16 & 0xFF); bytes[31] = UInt8(crc >> 8 & 0xFF); bytes[32] = UInt8(crc & 0xFF)
        #expect {
            try ImageFile.decode(Data(bytes), path: "odd.png")
        } throws: { error in
            guard let error = error as? ImageError else { return false }
            return error.kind == .unsupported && error.description.lowercased().contains("bit depth")
        }
    }

    @Test func hexColoursParse() {
        #expect(RGBA(hex: "#102030") == RGBA(0x10, 0x20, 0x30))
        #expect(RGBA(hex: "10203040") == RGBA(0x10, 0x20, 0x30, 0x40))
        #expect(RGBA(hex: "#12") == nil)
        #expect(RGBA(0x10, 0x20, 0x30).description == "#102030")
    }
}
