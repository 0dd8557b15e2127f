import PlumbOrientation
import Testing
@testable import PlumbDBus

@Suite struct OrientationMappingTests {
    @Test func propertyStringsAreIioSensorProxys() {
        // iio-sensor-proxy 3.0 D-Bus reference: the five values of AccelerometerOrientation.
        #expect(AccelerometerOrientation.allCases.map(\.rawValue) == ["undefined", "normal", "bottom-up", "left-up", "right-up"])
    }

    @Test func interfaceOrientationMapsToTheEdgeThatIsUp() {
        #expect(AccelerometerOrientation(InterfaceOrientation.portrait) == .normal)
        #expect(AccelerometerOrientation(InterfaceOrientation.portraitUpsideDown) == .bottomUp)
        // Interface landscapeLeft = device landscapeRight = the device's left edge up (UIKit).
        #expect(AccelerometerOrientation(InterfaceOrientation.landscapeLeft) == .leftUp)
        #expect(AccelerometerOrientation(InterfaceOrientation.landscapeRight) == .rightUp)
    }

    @Test(arguments: InterfaceOrientation.allCases)
    func mutterTurnsTheDesktopAsTheNotifierTurnsContent(_ interface: InterfaceOrientation) {
        // Both count degrees counter-clockwise; a wrong landscape mapping would swap 90 and 270.
        #expect(AccelerometerOrientation(interface).compositorRotationDegrees == interface.rotationDegrees)
    }

    @Test(arguments: InterfaceOrientation.allCases)
    func theUpEdgeIsTheDeviceOrientationsUpAxis(_ interface: InterfaceOrientation) throws {
        // The device frame: x to the screen's right edge, y to its top edge.
        let up = try #require(interface.deviceOrientation.upAxis)
        let edge: SIMD3<Double> = switch AccelerometerOrientation(interface) {
        case .normal: SIMD3(0, 1, 0)
        case .bottomUp: SIMD3(0, -1, 0)
        case .leftUp: SIMD3(-1, 0, 0)
        case .rightUp: SIMD3(1, 0, 0)
        case .undefined: .zero
        }
        #expect(up == edge)
    }
}

@Suite struct SensorClaimsTests {
    @Test func firstClaimStartsAndLastReleaseStops() {
        var claims = SensorClaims()
        do { let r = claims.claim(.accelerometer, by: ":1.1"); #expect(r) }
        do { let r = claims.claim(.accelerometer, by: ":1.2"); #expect(!r) }
        do { let r = claims.release(.accelerometer, by: ":1.1"); #expect(!r) }
        #expect(claims.isClaimed(.accelerometer))
        do { let r = claims.release(.accelerometer, by: ":1.2"); #expect(r) }
        #expect(!claims.isClaimed(.accelerometer))
    }

    @Test func claimsArePerClientNotCounted() {
        var claims = SensorClaims()
        do { let r = claims.claim(.accelerometer, by: ":1.1"); #expect(r) }
        do { let r = claims.claim(.accelerometer, by: ":1.1"); #expect(!r) }
        do { let r = claims.release(.accelerometer, by: ":1.1"); #expect(r) }
        do { let r = claims.release(.accelerometer, by: ":1.1"); #expect(!r) }
    }

    @Test func releasingWithoutAClaimChangesNothing() {
        var claims = SensorClaims()
        claims.claim(.accelerometer, by: ":1.1")
        do { let r = claims.release(.accelerometer, by: ":1.9"); #expect(!r) }
        do { let r = claims.release(.light, by: ":1.1"); #expect(!r) }
        #expect(claims.clients(of: .accelerometer) == [":1.1"])
    }

    @Test func aClientLeavingDropsEveryClaimItHeld() {
        var claims = SensorClaims()
        claims.claim(.accelerometer, by: ":1.1")
        claims.claim(.light, by: ":1.1")
        claims.claim(.light, by: ":1.2")
        claims.claim(.proximity, by: ":1.1")
        do { let r = claims.removeClient(":1.1"); #expect(r == [.accelerometer, .proximity]) }
        #expect(claims.clients(of: .light) == [":1.2"])
        do { let r = claims.removeClient(":1.1"); #expect(r == []) }
    }
}
