/// One of the 24 ways a sensor can be mounted square to a board: a signed permutation of the
/// axes with determinant +1 (a proper rotation; mirror images are not physical mountings).
///
/// `AxisRemap("+y-x+z")` means: the board's x axis is the sensor's +y, the board's y axis is the
/// sensor's −x and the board's z axis is the sensor's +z. The same 24 alignments are what x-io
/// Fusion's `FusionRemap` offers; Linux expresses the same thing as an IIO `mount-matrix`.
public struct AxisRemap: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// For each output axis (x, y, z): which input axis (0, 1, 2) it takes.
    public let source: SIMD3<Int>
    /// For each output axis: +1 or −1.
    public let sign: SIMD3<Double>

    /// The remap that changes nothing.
    public static let identity = AxisRemap(uncheckedSource: SIMD3(0, 1, 2), sign: SIMD3(1, 1, 1))

    private init(uncheckedSource source: SIMD3<Int>, sign: SIMD3<Double>) {
        self.source = source; self.sign = sign
    }

    /// Parses a name such as "+x+y+z" or "-z+x-y"; `nil` unless it names a proper rotation.
    public init?(_ name: String) {
        let characters = Array(name.lowercased())
        guard characters.count == 6 else { return nil }
        var source = SIMD3<Int>(0, 0, 0), sign = SIMD3<Double>(0, 0, 0)
        for i in 0..<3 {
            switch characters[2 * i] { case "+": sign[i] = 1; case "-": sign[i] = -1; default: return nil }
            switch characters[2 * i + 1] { case "x": source[i] = 0; case "y": source[i] = 1; case "z": source[i] = 2; default: return nil }
        }
        self.init(source: source, sign: sign)
    }

    /// A remap from its parts; `nil` if `source` is not a permutation or the result is a mirror.
    public init?(source: SIMD3<Int>, sign: SIMD3<Double>) {
        let sorted = [source.x, source.y, source.z].sorted()
        guard sorted == [0, 1, 2], [sign.x, sign.y, sign.z].allSatisfy({ $0 == 1 || $0 == -1 }) else { return nil }
        let candidate = AxisRemap(uncheckedSource: source, sign: sign)
        guard candidate.matrix.determinant > 0 else { return nil }
        self = candidate
    }

    /// All 24 proper axis alignments, identity first.
    public static let all: [AxisRemap] = {
        var result: [AxisRemap] = []
        let permutations: [SIMD3<Int>] = [SIMD3(0, 1, 2), SIMD3(0, 2, 1), SIMD3(1, 0, 2), SIMD3(1, 2, 0), SIMD3(2, 0, 1), SIMD3(2, 1, 0)]
        for permutation in permutations {
            for bits in 0..<8 {
                let sign = SIMD3<Double>(bits & 1 == 0 ? 1 : -1, bits & 2 == 0 ? 1 : -1, bits & 4 == 0 ? 1 : -1)
                if let remap = AxisRemap(source: permutation, sign: sign) { result.append(remap) }
            }
        }
        return result
    }()

    /// The remapped vector: component i is `sign[i] · v[source[i]]`.
    @inlinable
    public func apply(_ v: Vector3) -> Vector3 {
        Vector3(v[source.x], v[source.y], v[source.z]) * sign
    }

    /// The matrix M with `M·v == apply(v)`.
    public var matrix: Matrix3 {
        var rows = [Vector3.zero, .zero, .zero]
        for i in 0..<3 { rows[i][source[i]] = sign[i] }
        return Matrix3(rows: rows[0], rows[1], rows[2])
    }

    /// The rotation with `quaternion.rotate(v) == apply(v)`.
    public var quaternion: Quaternion { Quaternion(rotationMatrix: matrix) }

    /// The remap that undoes this one.
    public var inverse: AxisRemap {
        var source = SIMD3<Int>(0, 0, 0), sign = SIMD3<Double>(0, 0, 0)
        for i in 0..<3 { source[self.source[i]] = i; sign[self.source[i]] = self.sign[i] }
        return AxisRemap(uncheckedSource: source, sign: sign)
    }

    public var description: String {
        (0..<3).map { (sign[$0] > 0 ? "+" : "-") + ["x", "y", "z"][source[$0]] }.joined()
    }
}
