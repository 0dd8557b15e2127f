#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A 2-D affine transform with `CGAffineTransform`'s layout: a point (x, y) maps to
/// (a·x + c·y + tx, b·x + d·y + ty).
public struct AffineTransform2D: Sendable, Equatable, CustomStringConvertible {
    public var a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a; self.b = b; self.c = c; self.d = d; self.tx = tx; self.ty = ty
    }

    public static let identity = AffineTransform2D(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    /// A rotation by `angle` radians, counter-clockwise in a y-up frame (`CGAffineTransformMakeRotation`).
    ///
    /// Quarter turns are exact (cos 90° is 0, not 6e-17), so integer pixel maps stay integral.
    public init(rotationAngle angle: Double) {
        let quarter = angle / (.pi / 2)
        let (sine, cosine): (Double, Double)
        if abs(quarter - quarter.rounded()) < 1e-12 {
            switch ((Int(quarter.rounded()) % 4) + 4) % 4 {
            case 0: (sine, cosine) = (0, 1)
            case 1: (sine, cosine) = (1, 0)
            case 2: (sine, cosine) = (0, -1)
            default: (sine, cosine) = (-1, 0)
            }
        } else {
            (sine, cosine) = (sin(angle), cos(angle))
        }
        self.init(a: cosine, b: sine, c: -sine, d: cosine, tx: 0, ty: 0)
    }

    /// Where `point` goes.
    public func apply(to point: SIMD2<Double>) -> SIMD2<Double> {
        SIMD2(a * point.x + c * point.y + tx, b * point.x + d * point.y + ty)
    }

    /// This transform followed by `other`.
    public func concatenating(_ other: AffineTransform2D) -> AffineTransform2D {
        AffineTransform2D(a: a * other.a + b * other.c, b: a * other.b + b * other.d,
                          c: c * other.a + d * other.c, d: c * other.b + d * other.d,
                          tx: tx * other.a + ty * other.c + other.tx, ty: tx * other.b + ty * other.d + other.ty)
    }

    public var description: String { "[\(a) \(b) \(c) \(d) \(tx) \(ty)]" }
}

/// Angles derived from gravity that a display needs.
public enum Level {
    /// The seed library's level angle: `atan2(gravity.x, gravity.y) − π`, in radians.
    ///
    /// `gravity` is the direction towards the earth in the device frame (x right, y up the
    /// screen, z out of it), any length. Held upright in portrait (gravity along −y) the angle is
    /// 0 (up to a multiple of 2π); the result lies in (−2π, 0]. Rotating content by minus this
    /// angle keeps it level. Undefined (returns −π) when the screen lies flat and gravity has no
    /// x or y component.
    public static func angle(gravity: SIMD3<Double>) -> Double {
        atan2(gravity.x, gravity.y) - .pi
    }

    /// The level angle wrapped into [−π, π): 0 in portrait, +π/2 with the right edge up
    /// (device landscapeLeft), −π/2 with the left edge up.
    public static func signedAngle(gravity: SIMD3<Double>) -> Double {
        var a = angle(gravity: gravity)
        while a < -.pi { a += 2 * .pi }
        while a >= .pi { a -= 2 * .pi }
        return a
    }

    /// How far the screen is tilted from upright, in radians: 0 upright, π/2 flat.
    public static func tilt(gravity: SIMD3<Double>) -> Double {
        let n = (gravity * gravity).sum().squareRoot()
        guard n > 0 else { return 0 }
        return asin(min(1, abs(gravity.z) / n))
    }
}
