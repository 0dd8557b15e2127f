import Foundation
import Testing
@testable import PlumbFusion

/// A reproducible source of random rotations (SplitMix64), so a failure can be replayed.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A rotation drawn uniformly (Shoemake's method).
    mutating func rotation() -> Quaternion {
        let u1 = Double.random(in: 0..<1, using: &self)
        let u2 = Double.random(in: 0..<(2 * .pi), using: &self)
        let u3 = Double.random(in: 0..<(2 * .pi), using: &self)
        let a = (1 - u1).squareRoot(), b = u1.squareRoot()
        return Quaternion(w: b * cos(u3), x: a * sin(u2), y: a * cos(u2), z: b * sin(u3))
    }

    mutating func vector(scale: Double = 1) -> Vector3 {
        Vector3(Double.random(in: -scale...scale, using: &self),
                Double.random(in: -scale...scale, using: &self),
                Double.random(in: -scale...scale, using: &self))
    }
}

/// The same rotation: q and −q both qualify.
func sameRotation(_ a: Quaternion, _ b: Quaternion, tolerance: Double = 1e-9) -> Bool {
    let d = abs(a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z)
    return abs(d - 1) <= tolerance
}

func close(_ a: Vector3, _ b: Vector3, _ tolerance: Double = 1e-9) -> Bool {
    (a - b).norm <= tolerance
}

func matrixClose(_ a: Matrix3, _ b: Matrix3, _ tolerance: Double) -> Bool {
    close(a.row0, b.row0, tolerance) && close(a.row1, b.row1, tolerance) && close(a.row2, b.row2, tolerance)
}

@Suite("Quaternion")
struct QuaternionTests {
    @Test("quaternion → matrix → quaternion returns the same rotation (1e-6), 2000 random rotations")
    func matrixRoundTrip() {
        var random = SeededRandom(seed: 1)
        for _ in 0..<2000 {
            let q = random.rotation()
            let m = q.rotationMatrix
            #expect(abs(m.determinant - 1) < 1e-9)
            #expect(matrixClose(m * m.transposed, .identity, 1e-9))
            let back = Quaternion(rotationMatrix: m)
            #expect(sameRotation(q, back, tolerance: 1e-6), "\(q) → \(back)")
            #expect(abs(back.norm - 1) < 1e-12)
            #expect(back.w >= 0)
        }
    }

    @Test("the matrix and the quaternion rotate vectors identically")
    func matrixMatchesRotation() {
        var random = SeededRandom(seed: 2)
        for _ in 0..<500 {
            let q = random.rotation(), v = random.vector(scale: 10)
            #expect(close(q.rotationMatrix * v, q.rotate(v), 1e-9))
            #expect(close(q.inverseRotate(q.rotate(v)), v, 1e-9))
            #expect(close(q.rotate(v), (q * Quaternion(w: 0, x: v.x, y: v.y, z: v.z) * q.conjugate).vector, 1e-9))
        }
    }

    @Test("a rotation by 90° about z takes x to y (right-handed)")
    func handedness() {
        let q = Quaternion(axis: Vector3(0, 0, 1), angle: .pi / 2)
        #expect(close(q.rotate(Vector3(1, 0, 0)), Vector3(0, 1, 0)))
        #expect(close(q.rotationMatrix * Vector3(0, 1, 0), Vector3(-1, 0, 0)))
    }

    @Test("the product composes rotations: (a ⊗ b)·v == a·(b·v)")
    func composition() {
        var random = SeededRandom(seed: 3)
        for _ in 0..<200 {
            let a = random.rotation(), b = random.rotation(), v = random.vector()
            #expect(close((a * b).rotate(v), a.rotate(b.rotate(v)), 1e-9))
            #expect(matrixClose((a * b).rotationMatrix, a.rotationMatrix * b.rotationMatrix, 1e-9))
        }
    }

    @Test("roll, pitch, yaw: closed forms for single axes and round trips away from gimbal lock")
    func rollPitchYaw() {
        #expect(sameRotation(Quaternion(roll: 0.3, pitch: 0, yaw: 0), Quaternion(axis: Vector3(1, 0, 0), angle: 0.3)))
        #expect(sameRotation(Quaternion(roll: 0, pitch: 0.3, yaw: 0), Quaternion(axis: Vector3(0, 1, 0), angle: 0.3)))
        #expect(sameRotation(Quaternion(roll: 0, pitch: 0, yaw: 0.3), Quaternion(axis: Vector3(0, 0, 1), angle: 0.3)))
        // Z-Y'-X'': yaw first in the earth frame.
        let composed = Quaternion(axis: Vector3(0, 0, 1), angle: 1.0) * Quaternion(axis: Vector3(0, 1, 0), angle: -0.4)
            * Quaternion(axis: Vector3(1, 0, 0), angle: 2.0)
        #expect(sameRotation(Quaternion(roll: 2.0, pitch: -0.4, yaw: 1.0), composed))
        var random = SeededRandom(seed: 4)
        for _ in 0..<1000 {
            let roll = Double.random(in: -3.1...3.1, using: &random)
            let pitch = Double.random(in: -1.5...1.5, using: &random)
            let yaw = Double.random(in: -3.1...3.1, using: &random)
            let angles = Quaternion(roll: roll, pitch: pitch, yaw: yaw).rollPitchYaw
            #expect(abs(angles.roll - roll) < 1e-9 && abs(angles.pitch - pitch) < 1e-9 && abs(angles.yaw - yaw) < 1e-9)
        }
        // Gimbal lock: the angles returned still describe the same rotation.
        let locked = Quaternion(roll: 0.7, pitch: .pi / 2, yaw: 0.2)
        let a = locked.rollPitchYaw
        #expect(sameRotation(Quaternion(roll: a.roll, pitch: a.pitch, yaw: a.yaw), locked, tolerance: 1e-6))
    }

    @Test("axis-angle and rotation vectors round-trip; the angle stays in 0...π")
    func axisAngle() {
        var random = SeededRandom(seed: 5)
        for _ in 0..<1000 {
            let axis = random.vector().normalized()
            let angle = Double.random(in: 0.001...(Double.pi - 0.001), using: &random)
            let q = Quaternion(axis: axis, angle: angle)
            let (a, theta) = q.axisAngle
            #expect(abs(theta - angle) < 1e-9 && close(a, axis, 1e-8))
            #expect(sameRotation(Quaternion(rotationVector: q.rotationVector), q))
            // −q is the same rotation and reports the same axis-angle.
            let negated = Quaternion(w: -q.w, x: -q.x, y: -q.y, z: -q.z)
            #expect(abs(negated.axisAngle.angle - angle) < 1e-9)
        }
        #expect(Quaternion.identity.axisAngle.angle == 0)
        #expect(Quaternion(axis: .zero, angle: 1) == .identity)
    }

    @Test("integrated(_:) matches the exact exponential, small and large steps")
    func integration() {
        var random = SeededRandom(seed: 6)
        for scale in [1e-9, 1e-4, 0.01, 0.2, 0.28, 1.5] {
            for _ in 0..<100 {
                let q = random.rotation(), v = random.vector(scale: scale)
                let exact = (q * Quaternion(rotationVector: v)).normalized()
                #expect(sameRotation(q.integrated(v), exact, tolerance: 1e-12))
                #expect(abs(q.integrated(v).norm - 1) < 1e-12)
            }
        }
    }

    @Test("from-to rotation: parallel, perpendicular and opposite directions")
    func fromTo() {
        var random = SeededRandom(seed: 7)
        for _ in 0..<500 {
            let a = random.vector(scale: 5), b = random.vector(scale: 5)
            let q = Quaternion(from: a, to: b)
            #expect(close(q.rotate(a.normalized()), b.normalized(), 1e-9))
            #expect(abs(q.axisAngle.axis.dot(a.normalized())) < 1e-6)   // smallest rotation: axis ⟂ a
        }
        let opposite = Quaternion(from: Vector3(0, 0, 2), to: Vector3(0, 0, -1))
        #expect(close(opposite.rotate(Vector3(0, 0, 1)), Vector3(0, 0, -1)))
        #expect(sameRotation(Quaternion(from: Vector3(1, 2, 3), to: Vector3(2, 4, 6)), .identity))
    }

    @Test("up in the sensor frame is the third row of R")
    func upDirection() {
        var random = SeededRandom(seed: 8)
        for _ in 0..<200 {
            let q = random.rotation()
            #expect(close(q.upInSensorFrame, q.rotationMatrix.row2, 1e-12))
            #expect(close(q.upInSensorFrame, q.inverseRotate(Vector3(0, 0, 1)), 1e-9))
        }
    }

    @Test("normalized() keeps unit norm and never produces NaN")
    func norms() {
        var random = SeededRandom(seed: 9)
        for _ in 0..<200 {
            let q = Quaternion(w: random.vector().x * 5, x: random.vector().y, y: 3, z: -2)
            #expect(abs(q.normalized().norm - 1) < 1e-12)
            #expect(abs(random.vector(scale: 100).normalized().norm - 1) < 1e-12)
        }
        #expect(Quaternion(w: 0, x: 0, y: 0, z: 0).normalized() == .identity)
        #expect(Quaternion(w: .nan, x: 0, y: 0, z: 0).normalized() == .identity)
        #expect(Vector3.zero.normalized() == .zero)
        #expect(Vector3(1, 2, 3).cross(Vector3(4, 5, 6)) == Vector3(-3, 6, -3))
        #expect(Vector3(1, 2, 3).dot(Vector3(4, 5, 6)) == 32)
    }
}

@Suite("Axis remaps")
struct AxisRemapTests {
    @Test("there are exactly 24 proper remaps, all distinct, identity first")
    func count() {
        #expect(AxisRemap.all.count == 24)
        #expect(Set(AxisRemap.all).count == 24)
        #expect(AxisRemap.all.first == .identity)
        // Mirror images are refused.
        #expect(AxisRemap("-x+y+z") == nil)
        #expect(AxisRemap("+x+x+z") == nil)
        #expect(AxisRemap("+y-x+z") != nil)
    }

    @Test("each of the 24: matrix, quaternion and apply agree; names round-trip; inverse undoes",
          arguments: AxisRemap.all)
    func remap(_ remap: AxisRemap) {
        #expect(AxisRemap(remap.description) == remap)
        let m = remap.matrix
        #expect(abs(m.determinant - 1) < 1e-12)
        let q = remap.quaternion
        #expect(abs(q.norm - 1) < 1e-12)
        // quaternion ↔ matrix at 1e-6 for the 180° cases too (Shepperd's method's branches).
        #expect(matrixClose(q.rotationMatrix, m, 1e-6))
        var random = SeededRandom(seed: 10)
        for _ in 0..<20 {
            let v = random.vector(scale: 3)
            #expect(close(remap.apply(v), m * v, 1e-12))
            #expect(close(remap.apply(v), q.rotate(v), 1e-9))
            #expect(close(remap.inverse.apply(remap.apply(v)), v, 1e-12))
        }
        // Each is a rotation by a multiple of 90° or 120° or 180°.
        let angle = q.axisAngle.angle * 180 / .pi
        #expect([0, 90, 120, 180].contains { abs(angle - Double($0)) < 1e-6 }, "\(remap): \(angle)°")
    }
}
