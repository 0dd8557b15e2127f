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
            throw DecodingError.dataCorrupted(.init(codingPath: [CodingKeys.rows], debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(rows, forKey: .rows)
    }

    public static func == (a: Mounting, b: Mounting) -> Bool { a.rows == b.rows }

    /// A mounting from any 3×3 matrix (row-major).
    ///
    /// - Throws: ``IMUError/invalidConfiguration(_:)`` unless there are 3 rows of 3 finite numbers.
    public init(matrix: [[Double]]) throws(IMUError) {
        guard matrix.count == 3, matrix.allSatisfy({ $0.count == 3 && $0.allSatisfy(\.isFinite) }) else {
            throw .invalidConfiguration("a mounting matrix needs 3 rows of 3 numbers")
        }
        rows = matrix
        simd = Mounting.simdRows(matrix)
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
