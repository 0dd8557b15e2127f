import Foundation
import PlumbHAL
import Testing
@testable import PlumbDisplay

final class RecordedOutput: DigitalOutput {
    let name: String
    var value = false
    init(_ name: String) { self.name = name }
    func set(_ active: Bool) throws(GPIOError) { value = active }
}

@Suite struct TiltIndicatorTests {
    @Test func theFacePointingUpIsLit() throws {
        let outputs = TiltIndicator.faceNames.map(RecordedOutput.init)
        let cases: [(GravityReading, String)] = [
            (GravityReading(x: 0, y: 0, z: -1), "+z"), (GravityReading(x: 0, y: 0, z: 1), "-z"),
            (GravityReading(x: 0, y: -1, z: 0), "+y"), (GravityReading(x: 0.2, y: 0.9, z: 0.1), "-y"),
            (GravityReading(x: -0.8, y: 0.1, z: 0.3), "+x"), (GravityReading(x: 0.7, y: 0, z: -0.5), "-x"),
        ]
        for (g, face) in cases {
            try TiltIndicator.show(g, on: outputs, mode: .faces)
            #expect(outputs.filter(\.value).map(\.name) == [face])
        }
    }

    @Test func theArrowPointsToTheHighSide() throws {
        let outputs = TiltIndicator.arrowNames.map(RecordedOutput.init)
        func lit(_ g: GravityReading) throws -> [String] {
            try TiltIndicator.show(g, on: outputs, mode: .arrow)
            return outputs.filter(\.value).map(\.name)
        }
        let tilt = sin(10 * Double.pi / 180), flat = cos(10 * Double.pi / 180)
        // Lying flat, tilted so gravity has a −y part: the +y ("up") edge is high.
        #expect(try lit(GravityReading(x: 0, y: -tilt, z: -flat)) == ["up"])
        #expect(try lit(GravityReading(x: tilt, y: 0, z: -flat)) == ["left"])
        #expect(try lit(GravityReading(x: -tilt, y: tilt, z: -flat)) == ["right", "down"])
        // Within 3° of level: nothing lit.
        #expect(try lit(GravityReading(x: 0.02, y: 0.02, z: -1)) == [])
    }
}

@Suite struct SenseHATMatrixTests {
    @Test func arrowPointsUpWhenLevelAndTurnsBack() {
        let buffer = PixelBuffer(width: 8, height: 8, format: .rgb565)
        let matrix = SenseHATMatrix(mode: .arrow)
        matrix.draw(.turned(by: 0), into: buffer.surface)
        let upright = buffer.surface.snapshot()
        func bright(_ c: RGBA) -> Bool { Int(c.r) + Int(c.g) > 200 }
        #expect(bright(upright[3, 1]) || bright(upright[4, 1]))  // the head near the top
        #expect(bright(upright[3, 6]) && bright(upright[4, 6]))  // the stem near the bottom
        #expect(!bright(upright[0, 7]) && !bright(upright[7, 7]) && !bright(upright[0, 0]))
        // The board turned a quarter clockwise: the arrow is drawn pointing left (world up).
        matrix.draw(.turned(by: .pi / 2), into: buffer.surface)
        let turned = buffer.surface.snapshot()
        for y in 0..<8 {
            for x in 0..<8 { #expect(turned[x, y] == upright[7 - y, x], "(\(x), \(y))") }
        }
    }

    @Test func bubbleSitsInTheMiddleWhenLevelAndMovesToTheHighSide() {
        let buffer = PixelBuffer(width: 8, height: 8, format: .rgb565)
        let matrix = SenseHATMatrix(mode: .bubble)
        matrix.draw(GravityReading(x: 0, y: 0, z: -1), into: buffer.surface)
        for (x, y) in [(3, 3), (4, 3), (3, 4), (4, 4)] {  // green, in the middle: level
            let c = buffer.surface[x, y]
            #expect(c.r == 0 && c.g > 180)
        }
        // Gravity towards −x: the +x edge is high, the bubble goes right (to the edge at 30°).
        matrix.draw(GravityReading(x: -0.5, y: 0, z: -0.866), into: buffer.surface)
        let frame = buffer.surface.snapshot()
        #expect(Int(frame[7, 3].r) + Int(frame[7, 4].r) > 300)
        #expect(frame[0, 3] == .black)
    }
}
