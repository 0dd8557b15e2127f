/// A vector in three dimensions: a gyroscope rate (rad/s), a specific force (m/s²), a direction.
///
/// This is the standard library's `SIMD3<Double>`, so samples from the drivers (which are
/// `SIMD3<Double>` already) pass to the filters without conversion, and arithmetic maps to the
/// target's vector unit (NEON on a Raspberry Pi) without intrinsics.
public typealias Vector3 = SIMD3<Double>

extension SIMD3 where Scalar == Double {
    /// The scalar (dot) product.
    @inlinable @inline(__always)
    public func dot(_ other: Self) -> Double {
        (self * other).sum()
    }

    /// The vector (cross) product `self × other` (right-handed).
    @inlinable @inline(__always)
    public func cross(_ other: Self) -> Self {
        Self(y * other.z - z * other.y,
             z * other.x - x * other.z,
             x * other.y - y * other.x)
    }

    /// The Euclidean length.
    @inlinable @inline(__always)
    public var norm: Double { dot(self).squareRoot() }

    /// The squared Euclidean length (cheaper than `norm` when only comparing).
    @inlinable @inline(__always)
    public var squaredNorm: Double { dot(self) }

    /// The unit vector with this direction; the zero vector (and only it) stays zero, so a
    /// missing reading never turns into NaN.
    @inlinable @inline(__always)
    public func normalized() -> Self {
        let n = norm
        return n > 0 ? self / n : .zero
    }

    /// True when every component is finite (neither NaN nor infinite).
    @inlinable @inline(__always)
    public var isFinite: Bool {
        x.isFinite && y.isFinite && z.isFinite
    }
}
