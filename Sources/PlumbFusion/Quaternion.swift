#if canImport(Glibc)
import Glibc  // sin, cos, atan2, asin: math only, no system calls
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A rotation quaternion, scalar first (w, x, y, z), Hamilton convention.
///
/// As an attitude it rotates sensor-frame vectors into the earth frame: `v_earth = q ⊗ v ⊗ q*`,
/// which is the convention of the BROAD ground truth and of VQF's output (sensor frame relative to
/// a z-up earth frame). `rotationMatrix` is the matrix of that same map.
public struct Quaternion: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var w: Double
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable
    public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w; self.x = x; self.y = y; self.z = z
    }

    /// The identity rotation.
    public static let identity = Quaternion(w: 1, x: 0, y: 0, z: 0)

    /// The vector part (x, y, z).
    @inlinable @inline(__always)
    public var vector: Vector3 { Vector3(x, y, z) }

    /// The conjugate, which for a unit quaternion is the inverse rotation.
    @inlinable @inline(__always)
    public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }

    /// The Euclidean norm; 1 for a rotation.
    @inlinable
    public var norm: Double { (w * w + x * x + y * y + z * z).squareRoot() }

    /// This quaternion scaled to unit norm; the zero quaternion becomes the identity.
    @inlinable @inline(__always)
    public func normalized() -> Quaternion {
        let n = norm
        guard n > 0, n.isFinite else { return .identity }
        let s = 1 / n
        return Quaternion(w: w * s, x: x * s, y: y * s, z: z * s)
    }

    /// Renormalised by one Newton step, `q·(3 − |q|²)/2`: exact to rounding for a quaternion
    /// already within about 1e-4 of unit norm (a product of unit quaternions), and without a
    /// square root or division.
    @inlinable @inline(__always)
    public func nearUnitNormalized() -> Quaternion {
        let s = (3 - (w * w + x * x + y * y + z * z)) * 0.5
        return Quaternion(w: w * s, x: x * s, y: y * s, z: z * s)
    }

    /// True when all four components are finite.
    @inlinable @inline(__always)
    public var isFinite: Bool { w.isFinite && x.isFinite && y.isFinite && z.isFinite }

    /// The Hamilton product `lhs ⊗ rhs`: first rotate by `rhs`, then by `lhs`.
    @inlinable @inline(__always)
    public static func * (lhs: Quaternion, rhs: Quaternion) -> Quaternion {
        Quaternion(
            w: lhs.w * rhs.w - lhs.x * rhs.x - lhs.y * rhs.y - lhs.z * rhs.z,
            x: lhs.w * rhs.x + lhs.x * rhs.w + lhs.y * rhs.z - lhs.z * rhs.y,
            y: lhs.w * rhs.y - lhs.x * rhs.z + lhs.y * rhs.w + lhs.z * rhs.x,
            z: lhs.w * rhs.z + lhs.x * rhs.y - lhs.y * rhs.x + lhs.z * rhs.w)
    }

    /// Rotates `v` by this (unit) quaternion: `q ⊗ v ⊗ q*`.
    @inlinable @inline(__always)
    public func rotate(_ v: Vector3) -> Vector3 {
        // v + 2w(u × v) + 2 u × (u × v), u the vector part.
        let u = vector
        let t = 2 * u.cross(v)
        return v + w * t + u.cross(t)
    }

    /// Rotates `v` by the inverse rotation: `q* ⊗ v ⊗ q`.
    @inlinable @inline(__always)
    public func inverseRotate(_ v: Vector3) -> Vector3 {
        conjugate.rotate(v)
    }

    /// The earth's up axis (e_z) seen in the sensor frame: the third row of `rotationMatrix`.
    @inlinable @inline(__always)
    public var upInSensorFrame: Vector3 {
        Vector3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))
    }

    public var description: String { "Quaternion(w: \(w), x: \(x), y: \(y), z: \(z))" }
}

// MARK: - Axis-angle and rotation vectors

extension Quaternion {
    /// The rotation by `angle` (rad, right-handed) about `axis` (any non-zero length; a zero axis
    /// gives the identity).
    public init(axis: Vector3, angle: Double) {
        let n = axis.norm
        guard n > 0 else { self = .identity; return }
        let half = angle / 2
        let s = sin(half) / n
        self.init(w: cos(half), x: axis.x * s, y: axis.y * s, z: axis.z * s)
    }

    /// The rotation whose axis is `v`'s direction and whose angle is `|v|` (rad): the
    /// exponential map, as used to integrate an angular rate over a time step (ω·Δt).
    @inlinable
    public init(rotationVector v: Vector3) {
        let angle = v.norm
        if angle < 1e-8 {
            // Second-order series, exact to rounding for such small angles.
            self = Quaternion(w: 1 - angle * angle / 8, x: v.x / 2, y: v.y / 2, z: v.z / 2)
        } else {
            let s = sin(angle / 2) / angle
            self = Quaternion(w: cos(angle / 2), x: v.x * s, y: v.y * s, z: v.z * s)
        }
    }

    /// `self ⊗ exp(v)`, renormalised: this attitude (a unit quaternion) turned by rotation vector
    /// `v` (rad) in its own (sensor) frame, the step that integrates an angular rate ω over Δt with v = ω·Δt.
    ///
    /// For the small angles of one sample step (|v| < 0.5 rad) the exponential uses its Taylor
    /// series to the sixth power (relative error below 1e-11), which needs neither a square root
    /// nor a trigonometric function.
    @inlinable @inline(__always)
    public func integrated(_ v: Vector3) -> Quaternion {
        let t2 = v.squaredNorm
        let step: Quaternion
        if t2 < 0.25 {
            // cos(θ/2) and sin(θ/2)/θ as series in θ².
            let c = 1 + t2 * (-1.0 / 8 + t2 * (1.0 / 384 - t2 / 46_080))
            let s = 0.5 + t2 * (-1.0 / 48 + t2 * (1.0 / 3_840 - t2 / 645_120))
            step = Quaternion(w: c, x: v.x * s, y: v.y * s, z: v.z * s)
        } else {
            step = Quaternion(rotationVector: v)
        }
        return (self * step).nearUnitNormalized()
    }

    /// The axis (unit) and angle (rad, in 0...π) of this rotation. The identity returns the
    /// x axis and 0.
    public var axisAngle: (axis: Vector3, angle: Double) {
        let q = w < 0 ? Quaternion(w: -w, x: -x, y: -y, z: -z) : self
        let s = q.vector.norm
        guard s > 1e-15 else { return (Vector3(1, 0, 0), 0) }
        return (q.vector / s, 2 * atan2(s, q.w))
    }

    /// The rotation vector (axis × angle, rad) of this rotation: the logarithmic map.
    public var rotationVector: Vector3 {
        let (axis, angle) = axisAngle
        return axis * angle
    }

    /// The smallest rotation that turns direction `from` into direction `to` (neither need be
    /// unit length). Opposite directions rotate by π about an axis perpendicular to `from`.
    public init(from: Vector3, to: Vector3) {
        let a = from.normalized(), b = to.normalized()
        let c = a.dot(b)
        if c < -1 + 1e-12 {
            // Any perpendicular axis: cross with the coordinate axis least aligned with a.
            let helper = abs(a.x) < 0.9 ? Vector3(1, 0, 0) : Vector3(0, 1, 0)
            self.init(axis: a.cross(helper), angle: .pi)
            return
        }
        let v = a.cross(b)
        self = Quaternion(w: 1 + c, x: v.x, y: v.y, z: v.z).normalized()
    }
}

// MARK: - Roll, pitch, yaw

extension Quaternion {
    /// The rotation yaw about z, then pitch about the new y, then roll about the new x
    /// (aerospace Z-Y'-X'' Tait–Bryan angles, rad): `q = q_z(yaw) ⊗ q_y(pitch) ⊗ q_x(roll)`.
    public init(roll: Double, pitch: Double, yaw: Double) {
        let (sr, cr) = (sin(roll / 2), cos(roll / 2))
        let (sp, cp) = (sin(pitch / 2), cos(pitch / 2))
        let (sy, cy) = (sin(yaw / 2), cos(yaw / 2))
        self.init(w: cy * cp * cr + sy * sp * sr,
                  x: cy * cp * sr - sy * sp * cr,
                  y: cy * sp * cr + sy * cp * sr,
                  z: sy * cp * cr - cy * sp * sr)
    }

    /// Roll (−π...π), pitch (−π/2...π/2) and yaw (−π...π), rad, in the convention of
    /// `init(roll:pitch:yaw:)`. At pitch ±π/2 (gimbal lock) roll and yaw share one degree of
    /// freedom; the split returned there is one valid choice.
    public var rollPitchYaw: (roll: Double, pitch: Double, yaw: Double) {
        let sinPitch = max(-1, min(1, 2 * (w * y - z * x)))
        if abs(sinPitch) > 1 - 1e-12 {
            // Gimbal lock: report roll 0 and put the whole turn about the vertical into yaw,
            // from R = R_z(yaw)·R_y(±π/2): yaw = atan2(−R01, R11).
            let yaw = atan2(-2 * (x * y - w * z), 1 - 2 * (x * x + z * z))
            return (0, sinPitch > 0 ? .pi / 2 : -.pi / 2, yaw)
        }
        let roll = atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
        let pitch = asin(sinPitch)
        let yaw = atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
        return (roll, pitch, yaw)
    }
}

// MARK: - Rotation matrices

/// A 3 × 3 matrix stored by rows; as a rotation it maps sensor-frame vectors to the earth frame.
public struct Matrix3: Equatable, Sendable {
    public var row0: Vector3
    public var row1: Vector3
    public var row2: Vector3

    @inlinable
    public init(rows row0: Vector3, _ row1: Vector3, _ row2: Vector3) {
        self.row0 = row0; self.row1 = row1; self.row2 = row2
    }

    public static let identity = Matrix3(rows: Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1))

    /// Element at `row`, `column` (0-based).
    public subscript(row: Int, column: Int) -> Double {
        switch row {
        case 0: return row0[column]
        case 1: return row1[column]
        default: return row2[column]
        }
    }

    /// The transpose (for a rotation, its inverse).
    public var transposed: Matrix3 {
        Matrix3(rows: Vector3(row0.x, row1.x, row2.x),
                Vector3(row0.y, row1.y, row2.y),
                Vector3(row0.z, row1.z, row2.z))
    }

    /// The determinant (+1 for a rotation).
    public var determinant: Double { row0.dot(row1.cross(row2)) }

    @inlinable
    public static func * (m: Matrix3, v: Vector3) -> Vector3 {
        Vector3(m.row0.dot(v), m.row1.dot(v), m.row2.dot(v))
    }

    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let bt = b.transposed
        return Matrix3(rows: bt * a.row0, bt * a.row1, bt * a.row2)
    }
}

extension Quaternion {
    /// The rotation matrix R with `R·v == rotate(v)` (for a unit quaternion).
    public var rotationMatrix: Matrix3 {
        let (xx, yy, zz) = (x * x, y * y, z * z)
        let (xy, xz, yz) = (x * y, x * z, y * z)
        let (wx, wy, wz) = (w * x, w * y, w * z)
        return Matrix3(rows: Vector3(1 - 2 * (yy + zz), 2 * (xy - wz), 2 * (xz + wy)),
                       Vector3(2 * (xy + wz), 1 - 2 * (xx + zz), 2 * (yz - wx)),
                       Vector3(2 * (xz - wy), 2 * (yz + wx), 1 - 2 * (xx + yy)))
    }

    /// The unit quaternion (w ≥ 0) of rotation matrix `m`, by Shepperd's method: it builds the
    /// quaternion from the largest of w², x², y², z² so no branch divides by a small number
    /// (S. W. Shepperd, "Quaternion from rotation matrix", J. Guidance and Control 1(3), 1978).
    public init(rotationMatrix m: Matrix3) {
        let (m00, m11, m22) = (m.row0.x, m.row1.y, m.row2.z)
        let trace = m00 + m11 + m22
        var q: Quaternion
        if trace >= m00, trace >= m11, trace >= m22 {
            let s = 2 * (1 + trace).squareRoot()  // 4w
            q = Quaternion(w: s / 4, x: (m.row2.y - m.row1.z) / s, y: (m.row0.z - m.row2.x) / s, z: (m.row1.x - m.row0.y) / s)
        } else if m00 >= m11, m00 >= m22 {
            let s = 2 * (1 + m00 - m11 - m22).squareRoot()  // 4x
            q = Quaternion(w: (m.row2.y - m.row1.z) / s, x: s / 4, y: (m.row0.y + m.row1.x) / s, z: (m.row0.z + m.row2.x) / s)
        } else if m11 >= m22 {
            let s = 2 * (1 - m00 + m11 - m22).squareRoot()  // 4y
            q = Quaternion(w: (m.row0.z - m.row2.x) / s, x: (m.row0.y + m.row1.x) / s, y: s / 4, z: (m.row1.z + m.row2.y) / s)
        } else {
            let s = 2 * (1 - m00 - m11 + m22).squareRoot()  // 4z
            q = Quaternion(w: (m.row1.x - m.row0.y) / s, x: (m.row0.z + m.row2.x) / s, y: (m.row1.z + m.row2.y) / s, z: s / 4)
        }
        if q.w < 0 { q = Quaternion(w: -q.w, x: -q.x, y: -q.y, z: -q.z) }
        self = q.normalized()
    }
}
