import PlumbHAL
import Testing
@testable import PlumbDisplay

@Suite struct LevelSessionTests {
    @Test func redrawsOnlyWhenTheBoardTurnsAndHoldsWhenFlat() throws {
        let degree = Double.pi / 180
        let readings: [GravityReading] = [
            .turned(by: 0), .turned(by: 0.1 * degree), .turned(by: 10 * degree),
            GravityReading(x: 0.01, y: 0.02, z: 1),  // flat: keep the last angle
            .turned(by: 10.1 * degree), .turned(by: -20 * degree),
        ]
        let clock = VirtualClock()
        let display = OffscreenDisplay(width: 16, height: 12, format: .rgb565)
        let renderer = LevelRenderer(image: TestPattern.image(width: 16, height: 12), screenWidth: 16, screenHeight: 12)
        let session = LevelSession(renderer: renderer, display: display, source: ScriptedGravity(readings),
                                   pacer: FramePacer(clock: clock, rate: 50))
        var angles: [Double?] = []
        try session.run { angles.append($0.angle) }
        #expect(session.framesDrawn == 3)
        #expect(session.framesSkipped == 3)
        #expect(session.flatReadings == 1)
        #expect(display.framesPresented == 3)
        // Turned clockwise by 10°, the picture is drawn 10° anticlockwise.
        #expect(abs(angles[2]! + 10 * degree) < 1e-9)
        #expect(abs(angles[3]! + 10 * degree) < 1e-9)
        #expect(abs(renderer.lastAngle! - 20 * degree) < 1e-9)
        // Six readings, paced at 50 Hz: five waits of 20 ms.
        #expect(clock.nowNanoseconds == 100_000_000)
    }

    @Test func frameLimitStopsAnEndlessSource() throws {
        let display = OffscreenDisplay(width: 4, height: 4)
        let session = LevelSession(renderer: LevelRenderer(image: RGBAImage(width: 4, height: 4), screenWidth: 4, screenHeight: 4),
                                   display: display, source: FixedGravity(deviceTurnedBy: 5), pacer: FramePacer(clock: VirtualClock()))
        var frames = 0
        try session.run(frames: 7) { _ in frames += 1 }
        #expect(frames == 7)
        #expect(session.framesDrawn == 1)
    }

    @Test func terminalTextUsesUpperHalfBlocksAndSkipsRepeatedColours() {
        let buffer = PixelBuffer(width: 2, height: 2, format: .xrgb8888)
        buffer.surface[0, 0] = RGBA(255, 0, 0); buffer.surface[1, 0] = RGBA(255, 0, 0)
        buffer.surface[0, 1] = RGBA(0, 0, 255); buffer.surface[1, 1] = RGBA(0, 10, 255)
        let text = TerminalPreview.text(for: buffer.surface, home: false)
        #expect(text == "\u{1B}[38;2;255;0;0m\u{1B}[48;2;0;0;255m▀\u{1B}[48;2;0;10;255m▀\u{1B}[0m")
    }
}
