import CImageIO
import Foundation
import PlumbHAL

/// A failure to read or write an image file: names the file and what is wrong with it.
public struct ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// The file could not be opened or read (missing, permissions).
        case unreadable
        /// The file is neither a JPEG nor a PNG.
        case notAnImage
        /// The data ends before the image does.
        case truncated
        /// The image uses a feature the decoder does not handle (bit depth, colour space).
        case unsupported
        /// The data is damaged (bad checksum, bad marker, bad header).
        case corrupt
        /// The snapshot could not be encoded or written.
        case writeFailed
    }

    public var kind: Kind
    public var path: String
    /// The detail, in the decoder's words where it gave some.
    public var detail: String

    public init(_ kind: Kind, path: String, detail: String) {
        self.kind = kind; self.path = path; self.detail = detail
    }

    public var description: String {
        switch kind {
        case .unreadable: return "\(path): cannot read the file: \(detail)"
        case .notAnImage: return "\(path): not a JPEG or PNG image (\(detail))"
        case .truncated: return "\(path): truncated image (\(detail))"
        case .unsupported: return "\(path): unsupported image (\(detail))"
        case .corrupt: return "\(path): damaged image (\(detail))"
        case .writeFailed: return "\(path): cannot write the image: \(detail)"
        }
    }
}

/// The container formats ``ImageFile`` reads.
public enum ImageFormat: String, Sendable, Equatable {
    case jpeg, png

    /// The format whose signature `data` starts with, if any.
    ///
    /// PNG: the 8-byte signature 89 50 4E 47 0D 0A 1A 0A (PNG spec, §5.2). JPEG: the SOI marker
    /// FF D8 followed by another marker's FF (ITU-T T.81, B.1.1.3).
    public static func sniff<Bytes: Collection<UInt8>>(_ data: Bytes) -> ImageFormat? {
        let head = Array(data.prefix(8))
        if head == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return .png }
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        return nil
    }
}

/// Reads JPEG (libjpeg-turbo) and PNG (libpng) files into ``RGBAImage`` and writes PNG snapshots.
public enum ImageFile {
    /// Loads the JPEG or PNG at `path` (the format comes from the file's signature, not its name).
    public static func load(_ path: String) throws(ImageError) -> RGBAImage {
        let data: Data
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ImageError(.unreadable, path: path, detail: "no such file")
        }
        if isDirectory.boolValue {
            throw ImageError(.unreadable, path: path, detail: "it is a directory, not a file")
        }
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ImageError(.unreadable, path: path, detail: Self.reason(error))
        }
        return try decode(data, path: path)
    }

    /// Decodes JPEG or PNG bytes; `path` names the source in errors.
    public static func decode(_ data: Data, path: String) throws(ImageError) -> RGBAImage {
        guard let format = ImageFormat.sniff(data) else {
            let head = data.prefix(4).map { String($0, radix: 16) }.joined(separator: " ")
            throw ImageError(.notAnImage, path: path, detail: data.isEmpty ? "the file is empty" : "it starts with bytes \(head)")
        }
        if format == .png, let problem = pngHeaderProblem(data) {
            throw ImageError(.unsupported, path: path, detail: "PNG: \(problem)")
        }
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: UInt32 = 0, height: UInt32 = 0
        var error = plumb_imageio_error()
        let status: Int32 = data.withUnsafeBytes { raw in
            let base = raw.bindMemory(to: UInt8.self).baseAddress!
            switch format {
            case .jpeg: return plumb_jpeg_decode(base, raw.count, &pixels, &width, &height, &error)
            case .png: return plumb_png_decode(base, raw.count, &pixels, &width, &height, &error)
            }
        }
        guard status == 0, let pixels else {
            throw classify(message(error), format: format, path: path)
        }
        defer { plumb_imageio_free(pixels) }
        let count = Int(width) * Int(height) * 4
        guard count > 0 else { throw ImageError(.corrupt, path: path, detail: "the image has no pixels") }
        let bytes = [UInt8](UnsafeBufferPointer(start: pixels, count: count))
        return RGBAImage(width: Int(width), height: Int(height), bytes: bytes)
    }

    /// Encodes `image` as an 8-bit RGBA PNG.
    public static func encodePNG(_ image: RGBAImage, path: String = "<memory>") throws(ImageError) -> Data {
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var error = plumb_imageio_error()
        let status = image.bytes.withUnsafeBufferPointer {
            plumb_png_encode($0.baseAddress!, UInt32(image.width), UInt32(image.height), &out, &size, &error)
        }
        guard status == 0, let out else { throw ImageError(.writeFailed, path: path, detail: message(error)) }
        defer { plumb_imageio_free(out) }
        return Data(bytes: out, count: size)
    }

    /// Encodes `image` as a JPEG (alpha is dropped). Quality 1...100.
    public static func encodeJPEG(_ image: RGBAImage, quality: Int = 90, progressive: Bool = false,
                                  path: String = "<memory>") throws(ImageError) -> Data {
        precondition((1...100).contains(quality), "JPEG quality is 1...100")
        var out: UnsafeMutablePointer<UInt8>?
        var size = 0
        var error = plumb_imageio_error()
        let status = image.bytes.withUnsafeBufferPointer {
            plumb_jpeg_encode($0.baseAddress!, UInt32(image.width), UInt32(image.height), Int32(quality),
                              progressive ? 1 : 0, &out, &size, &error)
        }
        guard status == 0, let out else { throw ImageError(.writeFailed, path: path, detail: message(error)) }
        defer { plumb_imageio_free(out) }
        return Data(bytes: out, count: size)
    }

    /// Writes `image` to `path` as a PNG, as a ``ReplacedFile``: a new or regular file is put in
    /// place at once when all of it was written (a viewer never reads half a PNG), keeping a
    /// replaced file's mode and, as root, its owner; through a symlink its file is replaced and the
    /// link stays; a pipe or a device is written where it leads, as a shell's `>` does (a rename
    /// would replace the link itself: as root, `/dev/stdout` for everyone).
    public static func savePNG(_ image: RGBAImage, to path: String) throws(ImageError) {
        let data = try encodePNG(image, path: path)
        do throws(ReplacedFileError) {
            let file = try ReplacedFile(path: path)
            var failure: ReplacedFileError?
            data.withUnsafeBytes { raw in
                do throws(ReplacedFileError) { try file.write(raw) } catch { failure = error }
            }
            if let failure { throw failure }
            try file.commit()
        } catch {
            throw ImageError(.writeFailed, path: path, detail: writeProblem(error))
        }
    }

    /// What went wrong writing a snapshot, with what to do: the directory named when it is missing
    /// (Foundation said "The file doesn't exist"), an empty path said as such (it said
    /// "NSCocoaErrorDomain error 512").
    static func writeProblem(_ error: ReplacedFileError) -> String {
        if error.path.isEmpty { return "the path is empty; give a file name such as level.png" }
        switch (error.stage, error.code) {
        case (.open, EISDIR):
            return "it is a directory; give a file name such as \(error.path.hasSuffix("/") ? error.path : error.path + "/")level.png"
        case (.open, ENOENT):
            return "the directory \(error.directory) does not exist"
        default:
            return error.reason
        }
    }

    /// Checks the IHDR chunk's bit depth and colour type against the PNG spec's table (§11.2.2),
    /// so a bad depth is named as such (libpng's simplified API only says "Invalid IHDR data").
    static func pngHeaderProblem(_ data: Data) -> String? {
        let bytes = [UInt8](data.prefix(26))
        guard bytes.count == 26, bytes[12...15].elementsEqual("IHDR".utf8) else { return nil }
        let depth = bytes[24], colourType = bytes[25]
        let allowed: [UInt8: [UInt8]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        guard let depths = allowed[colourType] else { return "colour type \(colourType) is not a PNG colour type" }
        guard depths.contains(depth) else {
            return "bit depth \(depth) is not supported for colour type \(colourType) (allowed: \(depths.map(String.init).joined(separator: ", ")))"
        }
        return nil
    }

    private static func message(_ error: plumb_imageio_error) -> String {
        withUnsafeBytes(of: error.message) { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let end = bytes.firstIndex(of: 0) ?? bytes.count
            return String(decoding: bytes[..<end], as: UTF8.self)
        }
    }

    /// Sorts a decoder message into a kind. The phrases are libjpeg-turbo's (jerror.h: JWRN_JPEG_EOF
    /// "Premature end of JPEG file", JERR_INPUT_EMPTY, JERR_CONVERSION_NOTIMPL) and libpng's
    /// (png.c/pngread.c "Not enough image data", "read beyond end of data").
    static func classify(_ message: String, format: ImageFormat, path: String) -> ImageError {
        let lower = message.lowercased()
        let name = format == .jpeg ? "JPEG" : "PNG"
        let detail = "\(name): \(message.isEmpty ? "the decoder gave no reason" : message)"
        if lower.contains("premature end") || lower.contains("not enough") || lower.contains("read error")
            || lower.contains("empty input") || lower.contains("beyond end") || lower.contains("unexpected end") || lower.contains("truncated") {
            return ImageError(.truncated, path: path, detail: detail)
        }
        if lower.contains("bit depth") || lower.contains("unsupported") || lower.contains("not implemented")
            || lower.contains("notimpl") || lower.contains("color conversion") {
            return ImageError(.unsupported, path: path, detail: detail)
        }
        // Our own limit (PLUMB_IMAGEIO_MAX_PIXELS), malloc failing, libpng's "image too large" or libjpeg's
        // JERR_IMAGE_TOO_BIG ("Maximum supported image dimension is 65500 pixels"):
        // the file may be fine, the picture is too big to hold.
        if lower.contains("megapixel limit") || lower.contains("out of memory") || lower.contains("too large")
            || lower.contains("maximum supported image dimension") {
            return ImageError(.unsupported, path: path, detail: detail + "; scale the picture down, to the screen's size at most")
        }
        return ImageError(.corrupt, path: path, detail: detail)
    }

    private static func reason(_ error: any Error) -> String {
        let ns = error as NSError
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
           let code = POSIXErrorCode(rawValue: Int32(underlying.code)) {
            return String(cString: strerror(code.rawValue))
        }
        return ns.localizedDescription
    }
}
