import Foundation

/// A unit quaternion, scalar first, for the simulator's ground truth (the sensor frame relative to
/// an east-north-up earth frame, as the BROAD data set writes it).
///
/// PlumbSimulation may not import PlumbFusion, so it keeps this small one of its own.
public struct Rotation: Sendable, Equatable {
    public var w: Double, x: Double, y: Double, z: Double

    public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w; self.x = x; self.y = y; self.z = z
    }

    public static let identity = Rotation(w: 1, x: 0, y: 0, z: 0)

    /// A rotation by `angle` radians about `axis` (normalised here).
    public init(axis: SIMD3<Double>, angle: Double) {
        let n = (axis * axis).sum().squareRoot()
        let a = n > 0 ? axis / n : SIMD3(0, 0, 1)
        let s = sin(angle / 2)
        self.init(w: cos(angle / 2), x: a.x * s, y: a.y * s, z: a.z * s)
    }

    /// `self` followed by `other` in the body frame (Hamilton product self ⊗ other).
    public static func * (p: Rotation, q: Rotation) -> Rotation {
        Rotation(w: p.w * q.w - p.x * q.x - p.y * q.y - p.z * q.z,
                 x: p.w * q.x + p.x * q.w + p.y * q.z - p.z * q.y,
                 y: p.w * q.y - p.x * q.z + p.y * q.w + p.z * q.x,
                 z: p.w * q.z + p.x * q.y - p.y * q.x + p.z * q.w)
    }

    public var conjugate: Rotation { Rotation(w: w, x: -x, y: -y, z: -z) }

    public var normalized: Rotation {
        let n = (w * w + x * x + y * y + z * z).squareRoot()
        return Rotation(w: w / n, x: x / n, y: y / n, z: z / n)
    }

    /// `v` (in the sensor frame) expressed in the earth frame.
    public func rotate(_ v: SIMD3<Double>) -> SIMD3<Double> {
        let u = SIMD3(x, y, z)
        let t = 2 * cross(u, v)
        return v + w * t + cross(u, t)
    }

    /// `v` (in the earth frame) expressed in the sensor frame.
    public func inverseRotate(_ v: SIMD3<Double>) -> SIMD3<Double> { conjugate.rotate(v) }

    /// The earth's up direction (+z of east-north-up) in the sensor frame.
    public var up: SIMD3<Double> { inverseRotate(SIMD3(0, 0, 1)) }
}

@inline(__always) func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

@inline(__always) func length(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }
