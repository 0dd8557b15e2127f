import CPixman
import PlumbDisplay

/// `plumb bench render`: the level renderer's frames per second beside pixman doing the same
/// bilinear rotation, for each screen size and pixel format, in the same run.
///
/// Both draw the same prepared source (the test pattern, or --image, fitted to the screen) through
/// the same inverse transform; pixman gets it with PIXMAN_REPEAT_PAD over the one-pixel background
/// border, so both fill the same background, and PIXMAN_FILTER_BILINEAR with PIXMAN_OP_SRC through
/// pixman_image_composite32. Rounds alternate between the two; the best round of each counts,
/// which is the figure least disturbed by other work on the machine. One thread each.
enum BenchRender {
    static let command = Command(CommandSpec(
        name: "render",
        abstract: "Frames per second of the level renderer beside pixman's bilinear rotation.",
        options: [
            .option("size", value: "WxH", help: "A screen size (repeatable; default 800x480 and 1920x1080).", repeatable: true),
            .option("format", value: "FORMAT", help: "A pixel format (repeatable; default xrgb8888 and rgb565).", repeatable: true),
            .option("image", value: "FILE", help: "A JPEG or PNG to rotate instead of the test pattern."),
            .option("rounds", value: "N", help: "Rounds per renderer, alternating (default 5)."),
            .option("seconds", value: "S", help: "Length of one round (default 0.25)."),
        ])) { args, context in
        let sizes = try args.strings("size").map(parseSize)
        let formats = try args.strings("format").map { name throws(CLIError) -> (String, PixelFormat) in
            guard let format = PixelFormat(name: name), pixmanFormat(format) != nil else {
                throw .usage("The value '\(name)' is invalid for '--format': expected one of xrgb8888, argb8888, xbgr8888, abgr8888, rgb565, bgr565, rgb888, bgr888.")
            }
            return (name.lowercased(), format)
        }
        let rounds = try args.int("rounds", in: 1...100) ?? 5
        let seconds = try args.double("seconds", in: 0.01...60) ?? 0.25
        var image: RGBAImage?
        if let path = args.string("image") {
            do { image = try ImageFile.load(path) } catch let error as ImageError { throw CLIError.failure(error.description, fix: "Give a readable JPEG or PNG file.") }
        }
        #if DEBUG
        context.err.line("Warning: this is a debug build; measure with `swift build -c release`.")
        #endif
        context.out.line("plumb bench render: bilinear rotation, one thread, best of \(rounds) alternating rounds of \(seconds) s")
        context.out.line(pad("size", 11) + pad("format", 10) + padLeft("plumb fps", 11) + padLeft("pixman fps", 12)
                         + padLeft("ratio", 8) + padLeft("max diff", 10))
        for (width, height) in sizes.isEmpty ? [(800, 480), (1920, 1080)] : sizes {
            let picture = image ?? TestPattern.image(width: width, height: height)
            let renderer = LevelRenderer(image: picture, screenWidth: width, screenHeight: height,
                                         options: .init(background: RGBA(20, 30, 40)))
            for (name, format) in formats.isEmpty ? [("xrgb8888", PixelFormat.xrgb8888), ("rgb565", .rgb565)] : formats {
                let result = try measure(renderer, format: format, rounds: rounds, seconds: seconds)
                context.out.line(pad("\(width)x\(height)", 11) + pad(name, 10)
                                 + padLeft(fixed(result.plumb, 1), 11) + padLeft(fixed(result.pixman, 1), 12)
                                 + padLeft(fixed(result.plumb / result.pixman, 2), 8) + padLeft(String(result.maxDifference), 10))
                context.out.flush()
            }
        }
        context.out.line("ratio = plumb fps / pixman fps; max diff = largest channel difference between the two frames at 30° (pixman weights are 7-bit, plumb's 8-bit).")
    }

    struct Result { var plumb: Double; var pixman: Double; var maxDifference: Int }

    static func measure(_ renderer: LevelRenderer, format: PixelFormat, rounds: Int, seconds: Double) throws(CLIError) -> Result {
        let width = renderer.screenWidth, height = renderer.screenHeight
        let ours = PixelBuffer(width: width, height: height, format: format)
        let theirs = PixelBuffer(width: width, height: height, format: format)
        guard let pixman = PixmanRotation(renderer: renderer, target: theirs.surface) else {
            throw .failure("pixman could not create its images for \(width)x\(height) \(format)")
        }
        // The angle sequence both draw: 5° and up in steps of 0.7°, so no frame is a special case.
        func angle(_ i: Int) -> Double { (5 + 0.7 * Double(i % 500)) * .pi / 180 }
        func framesPerSecond(frames: Int, _ draw: (Double) -> Void) -> Double {
            let clock = ContinuousClock()
            let start = clock.now
            for i in 0..<frames { draw(angle(i)) }
            let elapsed = start.duration(to: clock.now)
            let s = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            return Double(frames) / s
        }
        let drawOurs: (Double) -> Void = { renderer.render(angle: $0, into: ours.surface) }
        let drawTheirs: (Double) -> Void = { pixman.render(angle: $0) }
        // Calibrate the number of frames per round from a short first run of each.
        let estimate = min(framesPerSecond(frames: 3, drawOurs), framesPerSecond(frames: 3, drawTheirs))
        let frames = max(3, Int(estimate * seconds))
        var best = (plumb: 0.0, pixman: 0.0)
        for _ in 0..<rounds {
            best.plumb = max(best.plumb, framesPerSecond(frames: frames, drawOurs))
            best.pixman = max(best.pixman, framesPerSecond(frames: frames, drawTheirs))
        }
        let check = 30 * Double.pi / 180
        renderer.render(angle: check, into: ours.surface)
        pixman.render(angle: check)
        var largest = 0
        for y in 0..<height {
            for x in 0..<width {
                let a = ours.surface[x, y], b = theirs.surface[x, y]
                largest = max(largest, abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)))
            }
        }
        return Result(plumb: best.plumb, pixman: best.pixman, maxDifference: largest)
    }

    /// pixman's code for a format, if it has one.
    static func pixmanFormat(_ format: PixelFormat) -> pixman_format_code_t? {
        switch format {
        case .xrgb8888: return PIXMAN_x8r8g8b8
        case .argb8888: return PIXMAN_a8r8g8b8
        case .xbgr8888: return PIXMAN_x8b8g8r8
        case .abgr8888: return PIXMAN_a8b8g8r8
        case .rgb565: return PIXMAN_r5g6b5
        case .bgr565: return PIXMAN_b5g6r5
        case .rgb888: return PIXMAN_r8g8b8
        case .bgr888: return PIXMAN_b8g8r8
        default: return nil
        }
    }

    static func parseSize(_ text: String) throws(CLIError) -> (Int, Int) {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...16384).contains(w), (1...16384).contains(h) else {
            throw .usage("The value '\(text)' is invalid for '--size': expected WIDTHxHEIGHT, each 1...16384, such as 800x480.")
        }
        return (w, h)
    }
}

/// The reference: pixman rotating the renderer's prepared source into a surface.
final class PixmanRotation {
    private let renderer: LevelRenderer
    private let source: OpaquePointer
    private let destination: OpaquePointer
    private let sourcePixels: UnsafeMutablePointer<UInt32>

    init?(renderer: LevelRenderer, target: PixelSurface) {
        guard let format = BenchRender.pixmanFormat(target.format) else { return nil }
        self.renderer = renderer
        let (pixels, width, height) = renderer.withPaddedSource { buffer, w, h -> (UnsafeMutablePointer<UInt32>, Int, Int) in
            let copy = UnsafeMutablePointer<UInt32>.allocate(capacity: buffer.count)
            copy.initialize(from: buffer.baseAddress!, count: buffer.count)
            return (copy, w, h)
        }
        sourcePixels = pixels
        guard let source = pixman_image_create_bits(PIXMAN_x8r8g8b8, Int32(width), Int32(height), pixels, Int32(width * 4)),
              let destination = pixman_image_create_bits(format, Int32(target.width), Int32(target.height),
                                                         target.base.assumingMemoryBound(to: UInt32.self), Int32(target.bytesPerRow))
        else { pixels.deallocate(); return nil }
        self.source = source
        self.destination = destination
        pixman_image_set_filter(source, PIXMAN_FILTER_BILINEAR, nil, 0)
        pixman_image_set_repeat(source, PIXMAN_REPEAT_PAD)
    }

    deinit {
        pixman_image_unref(source)
        pixman_image_unref(destination)
        sourcePixels.deallocate()
    }

    func render(angle: Double) {
        let t = renderer.sourceTransform(angle: angle)
        func fixed(_ v: Double) -> pixman_fixed_t { pixman_fixed_t((v * 65536).rounded()) }
        var transform = pixman_transform(matrix: (
            (fixed(t.a), fixed(t.b), fixed(t.tx)),
            (fixed(t.c), fixed(t.d), fixed(t.ty)),
            (0, 0, 1 << 16)))
        pixman_image_set_transform(source, &transform)
        pixman_image_composite32(PIXMAN_OP_SRC, source, nil, destination, 0, 0, 0, 0, 0, 0,
                                 Int32(renderer.screenWidth), Int32(renderer.screenHeight))
    }
}

