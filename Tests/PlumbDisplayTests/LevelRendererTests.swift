import Foundation
import Testing
@testable import PlumbDisplay

/// The renderer's contract, computed the slow, obvious way: double precision, every texel fetched
/// with a bounds check, background outside the image.
func referenceRotation(_ source: PreparedSource, angle: Double, width: Int, height: Int, background: RGBA) -> RGBAImage {
    let c = cos(angle), s = sin(angle)
    func texel(_ i: Int, _ j: Int) -> (Double, Double, Double) {
        guard i >= 0, j >= 0, i < source.width, j < source.height else {
            return (Double(background.r), Double(background.g), Double(background.b))
        }
        let p = source.pixels[(j + 1) * source.stride + i + 1]
        return (Double(p >> 16 & 0xFF), Double(p >> 8 & 0xFF), Double(p & 0xFF))
    }
    return RGBAImage(width: width, height: height) { x, y in
        let dx = Double(x) + 0.5 - Double(width) / 2, dy = Double(y) + 0.5 - Double(height) / 2
        let u = (c * dx + s * dy) / source.scaleX + Double(source.width) / 2 - 0.5
        let v = (-s * dx + c * dy) / source.scaleY + Double(source.height) / 2 - 0.5
        let i = Int(u.rounded(.down)), j = Int(v.rounded(.down))
        let fx = u - Double(i), fy = v - Double(j)
        let a = texel(i, j), b = texel(i + 1, j), d = texel(i, j + 1), e = texel(i + 1, j + 1)
        func mix(_ p: Double, _ q: Double, _ r: Double, _ t: Double) -> UInt8 {
            let top = p * (1 - fx) + q * fx, bottom = r * (1 - fx) + t * fx
            return UInt8((top * (1 - fy) + bottom * fy).rounded())
        }
        return RGBA(mix(a.0, b.0, d.0, e.0), mix(a.1, b.1, d.1, e.1), mix(a.2, b.2, d.2, e.2))
    }
}

func render(_ renderer: LevelRenderer, angle: Double, format: PixelFormat = .xrgb8888) -> RGBAImage {
    let buffer = PixelBuffer(width: renderer.screenWidth, height: renderer.screenHeight, format: format)
    renderer.render(angle: angle, into: buffer.surface)
    return buffer.surface.snapshot()
}

let goldenDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path
let goldenBackground = RGBA(20, 30, 40)

/// The golden scene: the test pattern, 96×64, on a 96×64 screen (so no resampling is involved).
func goldenRenderer() -> LevelRenderer {
    LevelRenderer(image: TestPattern.image(width: 96, height: 64), screenWidth: 96, screenHeight: 64,
                  options: .init(scaleMode: .fit, background: goldenBackground))
}

@Suite struct LevelRendererTests {
    /// Golden images at 0°, 90°, 180° and 30°: stored PNGs made by ``referenceRotation`` (rewrite
    /// them with PLUMB_UPDATE_GOLDENS=1). The renderer's 8-bit weights and 16.16 coordinates
    /// stay within 3 levels of the exact result, and within 0.5 on average.
    @Test(arguments: [0, 90, 180, 30])
    func matchesGoldenImage(degrees: Int) throws {
        let renderer = goldenRenderer()
        let angle = Double(degrees) * .pi / 180
        let path = "\(goldenDirectory)/level-\(degrees).png"
        let reference = referenceRotation(renderer.source, angle: angle, width: 96, height: 64, background: goldenBackground)
        if ProcessInfo.processInfo.environment["PLUMB_UPDATE_GOLDENS"] == "1" {
            try ImageFile.savePNG(reference, to: path)
        }
        let golden = try ImageFile.load(path)
        #expect(golden == reference, "the stored golden no longer matches the reference rotation")
        let drawn = render(renderer, angle: angle)
        let difference = drawn.difference(from: golden)
        #expect(difference.max <= 3, "max error \(difference.max) at \(degrees)°")
        #expect(difference.mean <= 0.5, "mean error \(difference.mean) at \(degrees)°")
    }

    @Test func quarterTurnsMovePixelsExactly() {
        let image = gradientImage(width: 32, height: 32)
        let renderer = LevelRenderer(image: image, screenWidth: 32, screenHeight: 32)
        let level = render(renderer, angle: 0)
        #expect(level == image)
        // Clockwise by 90°: the image's top row becomes the screen's right column.
        let quarter = render(renderer, angle: .pi / 2)
        let upsideDown = render(renderer, angle: .pi)
        for y in 0..<32 {
            for x in 0..<32 {
                #expect(quarter[x, y] == image[y, 31 - x])
                #expect(upsideDown[x, y] == image[31 - x, 31 - y])
            }
        }
    }

    @Test func outsideTheImageIsBackground() {
        // A 40×20 image fitted on a 40×40 screen leaves 10 rows above and below.
        let renderer = LevelRenderer(image: RGBAImage(width: 40, height: 20, color: .white), screenWidth: 40, screenHeight: 40,
                                     options: .init(background: RGBA(0, 0, 255)))
        let frame = render(renderer, angle: 0)
        #expect(frame[20, 5] == RGBA(0, 0, 255))
        #expect(frame[20, 20] == .white)
        #expect(frame[0, 39] == RGBA(0, 0, 255))
        // Turned 45°, the screen's corners see no image.
        let turned = render(renderer, angle: .pi / 4)
        #expect(turned[0, 0] == RGBA(0, 0, 255))
        #expect(turned[20, 20] == .white)
    }

    @Test func fitAndFillChooseTheScale() {
        let image = gradientImage(width: 200, height: 100)
        let fit = LevelRenderer(image: image, screenWidth: 100, screenHeight: 100, options: .init(scaleMode: .fit))
        let fill = LevelRenderer(image: image, screenWidth: 100, screenHeight: 100, options: .init(scaleMode: .fill))
        #expect(fit.preparedSize == (100, 50))
        #expect(fill.preparedSize == (200, 100))
        let enlarged = LevelRenderer(image: gradientImage(width: 10, height: 10), screenWidth: 40, screenHeight: 20)
        #expect(enlarged.source.scaleX == 2 && enlarged.source.scaleY == 2)
    }

    @Test func shrinkingAveragesAreas() {
        // 4×2 → 2×1: each output pixel is the mean of a 2×2 block.
        let image = RGBAImage(width: 4, height: 2, bytes: [
            0, 0, 0, 255, 100, 0, 0, 255, 0, 0, 0, 255, 0, 200, 0, 255,
            100, 0, 0, 255, 200, 0, 0, 255, 0, 0, 40, 255, 0, 0, 0, 255,
        ])
        let source = PreparedSource(image: image, screenWidth: 2, screenHeight: 1, mode: .fit, background: .black)
        #expect(source.width == 2 && source.height == 1)
        #expect(source.pixels[1 * source.stride + 1] == 0x64_00_00)
        #expect(source.pixels[1 * source.stride + 2] == 0x00_32_0A)
    }

    @Test func transparentPixelsShowTheBackground() {
        let image = RGBAImage(width: 2, height: 1, bytes: [255, 255, 255, 0, 255, 255, 255, 128])
        let pixels = PreparedSource.composite(image, over: RGBA(0, 0, 0))
        #expect(pixels == [0, 0x80_80_80])
    }

    @Test(arguments: PixelFormat.named.map(\.name))
    func everyFormatGetsTheSameColours(name: String) {
        let format = PixelFormat(name: name)!
        let renderer = LevelRenderer(image: gradientImage(width: 30, height: 20), screenWidth: 30, screenHeight: 20,
                                     options: .init(background: RGBA(200, 10, 90)))
        let angle = 0.4
        let reference = PixelBuffer(width: 30, height: 20, format: .xrgb8888)
        renderer.render(angle: angle, into: reference.surface)
        // A stride wider than the row checks that rows are addressed by bytesPerRow.
        let target = PixelBuffer(width: 30, height: 20, format: format, bytesPerRow: 30 * format.bytesPerPixel + 12)
        renderer.render(angle: angle, into: target.surface)
        for y in 0..<20 {
            for x in 0..<30 {
                let expected = format.pack(reference.surface[x, y])
                #expect(target.surface.value(x: x, y: y) == expected, "\(name) at (\(x), \(y))")
            }
        }
    }

    @Test func spanClampingMatchesBruteForce() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let start = Int.random(in: -300_000...300_000, using: &generator)
            let step = Int.random(in: -70_000...70_000, using: &generator)
            let limit = Int.random(in: 1...200_000, using: &generator)
            let span = LevelRenderer.clamp(0..<40, start: start, step: step, limit: limit)
            let inside = (0..<40).filter { (0..<limit).contains(start + $0 * step) }
            #expect(Array(span) == inside, "start \(start) step \(step) limit \(limit)")
        }
    }

    @Test func redrawsOnlyWhenTheAngleMovesPastTheThreshold() {
        let renderer = LevelRenderer(image: gradientImage(width: 8, height: 8), screenWidth: 8, screenHeight: 8,
                                     options: .init(redrawThreshold: 0.01))
        let buffer = PixelBuffer(width: 8, height: 8, format: .rgb565)
        #expect(renderer.renderIfNeeded(angle: 0.5, into: buffer.surface))
        #expect(!renderer.renderIfNeeded(angle: 0.505, into: buffer.surface))
        #expect(!renderer.renderIfNeeded(angle: 0.495, into: buffer.surface))
        #expect(renderer.renderIfNeeded(angle: 0.515, into: buffer.surface))
        #expect(renderer.lastAngle == 0.515)
        // Across ±π the short way round counts.
        renderer.render(angle: .pi - 0.001, into: buffer.surface)
        #expect(!renderer.needsRedraw(angle: -.pi + 0.001))
    }

    @Test func anAngleThatIsNotFiniteKeepsTheLastFrame() {
        let renderer = LevelRenderer(image: gradientImage(width: 8, height: 8), screenWidth: 8, screenHeight: 8)
        let buffer = PixelBuffer(width: 8, height: 8, format: .xrgb8888)
        // Before any frame too: nothing is drawn, nothing traps.
        #expect(!renderer.renderIfNeeded(angle: .nan, into: buffer.surface))
        #expect(renderer.lastAngle == nil)
        #expect(renderer.renderIfNeeded(angle: 0.3, into: buffer.surface))
        let before = buffer.surface.snapshot()
        for angle in [Double.nan, .infinity, -.infinity] {
            #expect(!renderer.renderIfNeeded(angle: angle, into: buffer.surface))
            renderer.render(angle: angle, into: buffer.surface)
        }
        #expect(buffer.surface.snapshot() == before)
        #expect(renderer.lastAngle == 0.3)
    }
}

@Suite struct PixelFormatTests {
    @Test func packsKnownLayouts() {
        let c = RGBA(0x12, 0x34, 0x56)
        #expect(PixelFormat.xrgb8888.pack(c) == 0xFF12_3456)
        #expect(PixelFormat.argb8888.pack(RGBA(0x12, 0x34, 0x56, 0x78)) == 0x7812_3456)
        #expect(PixelFormat.xbgr8888.pack(c) == 0xFF56_3412)
        #expect(PixelFormat.rgb565.pack(RGBA(255, 0, 0)) == 0xF800)
        #expect(PixelFormat.rgb565.pack(RGBA(0, 255, 0)) == 0x07E0)
        #expect(PixelFormat.bgr565.pack(RGBA(255, 0, 0)) == 0x001F)
        #expect(PixelFormat.rgb888.pack(c) == 0x12_3456)
        #expect(PixelFormat.bgr888.pack(c) == 0x56_3412)
    }

    @Test func rgb888StoresBlueGreenRedBytes() {
        let buffer = PixelBuffer(width: 1, height: 1, format: .rgb888)
        buffer.surface[0, 0] = RGBA(0x12, 0x34, 0x56)
        let bytes = (0..<3).map { buffer.surface.base.load(fromByteOffset: $0, as: UInt8.self) }
        #expect(bytes == [0x56, 0x34, 0x12])
    }

    @Test(arguments: PixelFormat.named.map(\.name))
    func unpackWidensShortChannels(name: String) {
        let format = PixelFormat(name: name)!
        #expect(format.unpack(format.pack(.white)) == .white)
        #expect(format.unpack(format.pack(.black)) == .black)
        for v in stride(from: 0, through: 255, by: 5) {
            let c = RGBA(UInt8(v), UInt8(255 - v), UInt8(v / 2))
            let back = format.unpack(format.pack(c))
            let tolerance = format.bitsPerPixel == 16 ? 8 : 0
            #expect(abs(Int(back.r) - Int(c.r)) <= tolerance && abs(Int(back.g) - Int(c.g)) <= tolerance
                    && abs(Int(back.b) - Int(c.b)) <= tolerance, "\(name): \(c) came back as \(back)")
        }
    }

    @Test func rejectsLayoutsItCannotDraw() {
        #expect(PixelFormat(bitsPerPixel: 8, red: .init(offset: 5, length: 3), green: .init(offset: 2, length: 3),
                            blue: .init(offset: 0, length: 2)).unsupportedReason != nil)
        #expect(PixelFormat(bitsPerPixel: 32, red: .init(offset: 20, length: 10), green: .init(offset: 10, length: 10),
                            blue: .init(offset: 0, length: 10)).unsupportedReason == "red is 10 bits wide (1...8 are supported)")
        #expect(PixelFormat(bitsPerPixel: 16, red: .init(offset: 8, length: 8), green: .init(offset: 4, length: 8),
                            blue: .init(offset: 0, length: 4)).unsupportedReason == "green overlaps another channel")
        for (_, format) in PixelFormat.named { #expect(format.unsupportedReason == nil) }
    }
}

@Suite struct LevelAngleTests {
    @Test func uprightIsZeroAndTurnsCompensate() {
        #expect(abs(LevelAngle.from(gravityX: 0, gravityY: -1)) < 1e-12)
        // Device turned clockwise by 30°: gravity (sin 30°, −cos 30°); the picture turns back by 30°.
        let theta = 30.0 * .pi / 180
        #expect(abs(LevelAngle.from(gravityX: sin(theta), gravityY: -cos(theta)) + theta) < 1e-12)
        #expect(abs(abs(LevelAngle.from(gravityX: 0, gravityY: 1)) - .pi) < 1e-12)
        #expect(abs(LevelAngle.from(gravityX: 1, gravityY: 0) + .pi / 2) < 1e-12)
    }

    @Test func differenceTakesTheShortWay() {
        #expect(abs(LevelAngle.difference(.pi - 0.1, -.pi + 0.1) + 0.2) < 1e-12)
        #expect(abs(LevelAngle.normalized(3 * .pi) - .pi) < 1e-12)
    }
}
