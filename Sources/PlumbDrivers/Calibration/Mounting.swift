import Foundation

/// How the sensor sits in the device: a rotation from sensor axes to device axes.
///
/// Either one of the 24 axis alignments (each device axis is ± one sensor axis, right-handed),
/// named like `"x,y,z"` (identity) or `"-y,x,z"` (device x = −sensor y, device y = sensor x,
/// device z = sensor z), or any 3×3 matrix, as the kernel's device-tree `mount-matrix`.
public struct Mounting: Sendable, Equatable, Codable {
    /// Rows of the matrix: `device = matrix · sensor`.
    public private(set) var rows: [[Double]] {
        didSet { simd = Mounting.simdRows(rows) }
    }
    private var simd: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)

    public static let identity = Mounting(checkedRows: [[1, 0, 0], [0, 1, 0], [0, 0, 1]])

    private init(checkedRows: [[Double]]) {
        rows = checkedRows
        simd = Mounting.simdRows(checkedRows)
    }

    private static func simdRows(_ r: [[Double]]) -> (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
        (SIMD3(r[0][0], r[0][1], r[0][2]), SIMD3(r[1][0], r[1][1], r[1][2]), SIMD3(r[2][0], r[2][1], r[2][2]))
    }

    private enum CodingKeys: String, CodingKey { case rows }

    public init(from decoder: any Decoder) throws {
        let rows = try decoder.container(keyedBy: CodingKeys.self).decode([[Double]].self, forKey: .rows)
        do { try self.init(matrix: rows) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath + [CodingKeys.rows], debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(rows, forKey: .rows)
    }

    public static func == (a: Mounting, b: Mounting) -> Bool { a.rows == b.rows }

    /// A mounting from a 3×3 rotation matrix (row-major), as the kernel's device-tree
    /// `mount-matrix` or iio-sensor-proxy's `ACCEL_MOUNT_MATRIX` write it.
    ///
    /// Row *i* is device axis *i* written in sensor axes, so the rows must be unit vectors at
    /// right angles to each other, right-handed: a rotation (the kernel's iio core exposes the
    /// mounting as "a rotation matrix", commit dfc57732ad38; its MPU-6050 ABI calls it "a 3x3
    /// unitary matrix", Documentation/ABI/testing/sysfs-bus-iio-mpu6050). A matrix that also
    /// scaled would distort the angular rate, a singular one would lose an axis, and a mirror
    /// image (determinant −1) would turn every rotation the wrong way; scale factors belong in
    /// ``Calibration/accelerometerScale``. Rounded entries such as 0.7071 are fine: each entry of
    /// `M·Mᵀ` may differ from the identity's by ``orthonormalityTolerance``.
    ///
    /// - Throws: ``IMUError/invalidConfiguration(_:)`` unless there are 3 rows of 3 finite numbers
    ///   forming a rotation; the message names the rows that are wrong and how to fix them.
    public init(matrix: [[Double]]) throws(IMUError) {
        guard matrix.count == 3, matrix.allSatisfy({ $0.count == 3 && $0.allSatisfy(\.isFinite) }) else {
            throw .invalidConfiguration("a mounting matrix needs 3 rows of 3 numbers")
        }
        if let problem = Mounting.rotationProblem(matrix) {
            throw .invalidConfiguration("the mounting matrix \(Mounting.describe(matrix)) is not a rotation: \(problem). "
                + "Each row is one device axis in sensor axes: rows of length 1 at right angles, right-handed (row 3 = row 1 × row 2), "
                + "such as [[0,-1,0],[1,0,0],[0,0,1]] for -y,x,z; scale factors belong in accelerometerScale")
        }
        rows = matrix
        simd = Mounting.simdRows(matrix)
    }

    /// How far each entry of `M·Mᵀ` may be from the identity's: 0.01, which admits entries
    /// rounded to two decimals (0.71 for √½) and refuses a row 1 % too long or rows 0.6° from
    /// perpendicular.
    public static let orthonormalityTolerance = 0.01

    /// What keeps `m` from being a rotation, naming the rows, or `nil` for a rotation.
    static func rotationProblem(_ m: [[Double]]) -> String? {
        let r = simdRows(m)
        let rows = [r.0, r.1, r.2]
        func dot(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { (a * b).sum() }
        func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
            SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
        }
        var problems: [String] = []
        for i in 0..<3 where rows[i] == .zero {
            problems.append("row \(i + 1) is all zeros")
        }
        for i in 0..<3 {
            for j in (i + 1)..<3 where rows[i] != .zero && rows[j] != .zero {
                if (cross(rows[i], rows[j]) * cross(rows[i], rows[j])).sum().squareRoot() < 1e-9 * (dot(rows[i], rows[i]) * dot(rows[j], rows[j])).squareRoot() {
                    problems.append("rows \(i + 1) and \(j + 1) point along the same axis")
                }
            }
        }
        if !problems.isEmpty { return problems.joined(separator: "; ") + " (the matrix is singular: it would lose an axis)" }
        for i in 0..<3 {
            let length = dot(rows[i], rows[i]).squareRoot()
            if abs(length * length - 1) > orthonormalityTolerance {
                problems.append("row \(i + 1) has length \(rounded(length)), not 1")
            }
        }
        for i in 0..<3 {
            for j in (i + 1)..<3 where abs(dot(rows[i], rows[j])) > orthonormalityTolerance {
                let cosine = dot(rows[i], rows[j]) / (dot(rows[i], rows[i]) * dot(rows[j], rows[j])).squareRoot()
                problems.append("rows \(i + 1) and \(j + 1) are \(rounded(acos(max(-1, min(1, cosine))) * 180 / .pi, scale: 10))° apart, not 90°")
            }
        }
        if !problems.isEmpty { return problems.joined(separator: "; ") }
        if determinant(m) < 0 {
            let negated = m[2].map { $0 == 0 ? 0 : -$0 }
            return "it is a mirror image (determinant \(rounded(determinant(m)))); negate one row, for example row 3 to \(describe([negated]).dropFirst().dropLast())"
        }
        return nil
    }

    private static func rounded(_ x: Double) -> String { rounded(x, scale: 1000) }

    /// `x` to `1/scale`, as a whole number when it is one. Entries far past any rotation's (a
    /// typo of 1e120 in calibration.json) stay in Double's own notation: `Int(_:)` would trap
    /// (found by scripts/fuzz configuration).
    private static func rounded(_ x: Double, scale: Double) -> String {
        let r = (x * scale).rounded() / scale
        return r.isFinite && abs(r) < 1e15 && r == r.rounded() ? String(Int(r)) : String(r)
    }

    private static func describe(_ m: [[Double]]) -> String {
        "[" + m.map { "[" + $0.map(rounded).joined(separator: ",") + "]" }.joined(separator: ",") + "]"
    }

    /// One of the 24 alignments by name ("x,y,z", "-y,x,z", …).
    ///
    /// - Throws: ``IMUError/invalidConfiguration(_:)`` for a name that is not a right-handed
    ///   permutation of the axes with signs.
    public init(alignment name: String) throws(IMUError) {
        let parts = name.lowercased().split(separator: ",").map { $0.trimmingCharacters() }
        var rows: [[Double]] = []
        for p in parts {
            let negative = p.hasPrefix("-")
            let axis = negative ? String(p.dropFirst()) : (p.hasPrefix("+") ? String(p.dropFirst()) : p)
            guard let index = ["x", "y", "z"].firstIndex(of: axis) else { rows = []; break }
            var row = [0.0, 0.0, 0.0]
            row[index] = negative ? -1 : 1
            rows.append(row)
        }
        guard rows.count == 3, Set(rows.map { $0.firstIndex { $0 != 0 }! }).count == 3,
              Mounting.determinant(rows) > 0 else {
            throw .invalidConfiguration("'\(name)' is not an axis alignment: expected three of x, y, z with signs, right-handed, such as x,y,z or -y,x,z")
        }
        self.rows = rows
        simd = Mounting.simdRows(rows)
    }

    /// The 24 right-handed axis alignments.
    public static let alignments: [Mounting] = {
        var result: [Mounting] = []
        let permutations = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
        for p in permutations {
            for signs in 0..<8 {
                var rows = [[Double]](repeating: [0, 0, 0], count: 3)
                for r in 0..<3 { rows[r][p[r]] = (signs >> r) & 1 == 1 ? -1 : 1 }
                if determinant(rows) > 0 { result.append(Mounting(checkedRows: rows)) }
            }
        }
        return result
    }()

    /// The alignment's name ("-y,x,z"), or `nil` for a general matrix.
    public var alignmentName: String? {
        var names: [String] = []
        for row in rows {
            let nonzero = row.enumerated().filter { $0.element != 0 }
            guard nonzero.count == 1, abs(nonzero[0].element) == 1 else { return nil }
            names.append((nonzero[0].element < 0 ? "-" : "") + ["x", "y", "z"][nonzero[0].offset])
        }
        return names.joined(separator: ",")
    }

    /// `matrix · v`.
    public func apply(_ v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((simd.0 * v).sum(), (simd.1 * v).sum(), (simd.2 * v).sum())
    }

    static func determinant(_ m: [[Double]]) -> Double {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    }
}

extension Substring {
    func trimmingCharacters() -> String {
        var s = self
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
