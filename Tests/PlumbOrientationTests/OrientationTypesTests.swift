import Foundation
import Testing
@testable import PlumbOrientation

@Suite("Orientation types and geometry")
struct OrientationTypesTests {
    @Test func interfaceFollowsUIKitConvention() {
        #expect(DeviceOrientation.portrait.interfaceOrientation == .portrait)
        #expect(DeviceOrientation.portraitUpsideDown.interfaceOrientation == .portraitUpsideDown)
        #expect(DeviceOrientation.landscapeLeft.interfaceOrientation == .landscapeRight)
        #expect(DeviceOrientation.landscapeRight.interfaceOrientation == .landscapeLeft)
        #expect(DeviceOrientation.faceUp.interfaceOrientation == nil)
        #expect(DeviceOrientation.faceDown.interfaceOrientation == nil)
        #expect(DeviceOrientation.unknown.interfaceOrientation == nil)
        for i in InterfaceOrientation.allCases { #expect(i.deviceOrientation.interfaceOrientation == i) }
    }

    @Test func uikitRawValues() {
        #expect(DeviceOrientation.allCases.map(\.uikitValue) == [0, 1, 2, 3, 4, 5, 6])
        #expect(InterfaceOrientation.landscapeLeft.uikitValue == 4)
        #expect(InterfaceOrientation.landscapeRight.uikitValue == 3)
    }

    @Test func affineTransformsAreTheSeedsQuarterTurns() {
        #expect(InterfaceOrientation.portrait.affineTransform == .identity)
        let left = InterfaceOrientation.landscapeLeft.affineTransform
        #expect(left == AffineTransform2D(a: 0, b: 1, c: -1, d: 0, tx: 0, ty: 0))
        #expect(left.apply(to: SIMD2(1, 0)) == SIMD2(0, 1))
        let down = InterfaceOrientation.portraitUpsideDown.affineTransform
        #expect(down.apply(to: SIMD2(3, 2)) == SIMD2(-3, -2))
        let right = InterfaceOrientation.landscapeRight.affineTransform
        #expect(right.concatenating(left) == .identity)
        let general = AffineTransform2D(rotationAngle: 0.3)
        #expect(abs(general.a - cos(0.3)) < 1e-15 && abs(general.b - sin(0.3)) < 1e-15)
    }

    @Test func levelAngleIsTheSeeds() {
        // Upright portrait: gravity −y, angle −π... plus the seed's −π offset gives 0 mod 2π.
        #expect(abs(Level.signedAngle(gravity: SIMD3(0, -9.8, 0))) < 1e-12)
        #expect(abs(Level.angle(gravity: SIMD3(0, -1, 0)) - 0) < 1e-12 || abs(Level.angle(gravity: SIMD3(0, -1, 0)) + 2 * .pi) < 1e-12)
        #expect(abs(Level.signedAngle(gravity: SIMD3(-1, 0, 0)) - .pi / 2) < 1e-12)
        #expect(abs(Level.signedAngle(gravity: SIMD3(1, 0, 0)) + .pi / 2) < 1e-12)
        #expect(abs(Level.angle(gravity: SIMD3(0.3, 0.2, 0)) - (atan2(0.3, 0.2) - .pi)) < 1e-15)
        #expect(abs(Level.tilt(gravity: SIMD3(0, 0, -2)) - .pi / 2) < 1e-12)
    }

    @Test func upAxesPointTheDocumentedWay() {
        for face in DeviceOrientation.faces {
            let g = -(face.upAxis!)
            var c = OrientationClassifier(settings: .init(hysteresisDegrees: 7, settleTime: 0))
            #expect(c.update(gravity: g, timeNanoseconds: 0) == face)
        }
    }
}
