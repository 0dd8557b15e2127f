import Foundation
import Testing
@testable import PlumbCLI
import PlumbDisplay


private func temporaryPath(_ name: String) -> String {
    NSTemporaryDirectory() + "plumb-level-\(UUID().uuidString)-\(name)"
}

@Suite struct LevelCommandTests {
    @Test func pngSnapshotIsTheRenderedFrame() throws {
        let path = temporaryPath("level.png")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = runPlumb(["level", "--angle", "30", "--png", path, "--size", "64x40", "--background", "#102030"])
        #expect(result.status == 0)
        #expect(result.out == "wrote \(path): 64x40, angle 30.0° (fixed 30.0°)\n")
        #expect(result.err == "")
        let written = try ImageFile.load(path)
        let renderer = LevelRenderer(image: TestPattern.image(width: 64, height: 40), screenWidth: 64, screenHeight: 40,
                                     options: .init(background: RGBA(0x10, 0x20, 0x30)))
        let buffer = PixelBuffer(width: 64, height: 40, format: .xrgb8888)
        renderer.render(angle: 30 * .pi / 180, into: buffer.surface)
        #expect(written == buffer.surface.snapshot())
        #expect(written[0, 0] == RGBA(0x10, 0x20, 0x30))
    }

    /// `--png` through a symlink writes the file the link names and leaves the link. The atomic
    /// write renamed a new file over the path: the link was replaced (run as root, `--png
    /// /dev/stdout` replaced the system's /dev/stdout with a regular file).
    @Test func pngThroughASymlinkWritesItsTarget() throws {
        let target = temporaryPath("target.png"), link = temporaryPath("link.png")
        defer {
            try? FileManager.default.removeItem(atPath: link)
            try? FileManager.default.removeItem(atPath: target)
        }
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let result = runPlumb(["level", "--angle", "30", "--png", link, "--size", "64x40"])
        #expect(result.status == 0)
        #expect(result.err == "")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        let written = try ImageFile.load(target)
        #expect(written.width == 64 && written.height == 40)
    }

    @Test func aTerminalPreviewTooLargeToPrintIsRefused() {
        let result = runPlumb(["level", "--terminal", "--size", "16384x16384", "--angle", "0"])
        #expect(result.status == 64)
        #expect(result.out.isEmpty)
        #expect(result.err.contains("at most 1000x1000 cells"))
    }

    @Test func terminalPreviewDrawsHalfBlocks() {
        let result = runPlumb(["level", "--terminal", "--size", "12x4", "--angle", "0"])
        #expect(result.status == 0)
        #expect(result.out.hasPrefix("\u{1B}[H"))
        let lines = result.out.split(separator: "\n", omittingEmptySubsequences: false)
        // Four rows of cells, then the newline written after the last frame when not on a terminal.
        #expect(lines.count == 5)
        for line in lines.prefix(4) {
            #expect(line.filter { $0 == "▀" }.count == 12)
            #expect(line.hasSuffix("\u{1B}[0m"))
        }
        // The test pattern's sky is at the top: a blue foreground colour in the first cell.
        #expect(lines[0].contains("\u{1B}[38;2;"))
    }

    /// The tour profile holds +y up (upright) at 8 s, −y at 19 s, −x at 25 s and +x at 32 s: the
    /// picture turns back by 0°, 180°, 90° anticlockwise and 90° clockwise.
    @Test(arguments: [(8, 0.0), (19, 180.0), (25, -90.0), (32, 90.0)])
    func simulatedIMUTurnsThePicture(seconds: Int, expected: Double) throws {
        let path = temporaryPath("sim.png")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = runPlumb(["level", "--simulate", "--png", path, "--size", "40x24", "--duration", String(seconds)])
        #expect(result.status == 0, "\(result.err)")
        let text = result.out.split(separator: " ").drop { $0 != "angle" }.dropFirst().first ?? ""
        let angle = Double(text.dropLast(2)) ?? .nan
        var error = abs(angle - expected).truncatingRemainder(dividingBy: 360)
        if error > 180 { error = 360 - error }
        #expect(error < 2, "angle \(angle)° at \(seconds) s, expected \(expected)°")
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func simulationOptionsNeedSimulate() {
        let result = runPlumb(["level", "--png", "x.png", "--profile", "tour"])
        #expect(result.status == 64)
        #expect(result.err.hasPrefix("Error: '--profile' and '--filter' need '--simulate'.\n"))
    }

    @Test func conflictingOutputsAreAUsageError() {
        let result = runPlumb(["level", "--terminal", "--png", "x.png"])
        #expect(result.status == 64)
        #expect(result.err.hasPrefix("Error: Give only one of '--fb', '--png' and '--terminal'.\n"))
    }

    @Test func badColourIsAUsageError() {
        let result = runPlumb(["level", "--png", "x.png", "--background", "blue"])
        #expect(result.status == 64)
        #expect(result.err.hasPrefix("Error: The value 'blue' is invalid for '--background': expected #rrggbb.\n"))
    }

    @Test func missingImageNamesTheFile() {
        let result = runPlumb(["level", "--png", temporaryPath("x.png"), "--image", "/nonexistent/photo.jpg"])
        #expect(result.status == 1)
        #expect(result.err.hasPrefix("Error: /nonexistent/photo.jpg: cannot read the file: "))
        #expect(result.err.contains("Fix: Give a JPEG or PNG file, or leave out --image for the test pattern."))
    }

    @Test func missingFramebufferSuggestsAnotherOutput() {
        let result = runPlumb(["level", "--fb", "/dev/plumb-no-fb", "--angle", "10"])
        #expect(result.status == 1)
        #expect(result.err.hasPrefix("Error: cannot open /dev/plumb-no-fb: No such file or directory\n"))
    }

    @Test func benchRenderPrintsOneRowPerCase() {
        let result = runPlumb(["bench", "render", "--size", "32x16", "--format", "rgb565", "--rounds", "1", "--seconds", "0.01"])
        #expect(result.status == 0)
        let lines = result.out.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[1].hasPrefix("size"))
        #expect(lines[2].hasPrefix("32x16      rgb565"))
        // pixman and plumb draw the same frame: the last column, max diff, is small.
        #expect((Int(lines[2].split(separator: " ").last ?? "") ?? 99) <= 9)
    }
}
