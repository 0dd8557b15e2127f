/// A face of the sensor: which sensor axis points up.
public enum Face: String, Sendable, Equatable, CaseIterable, Codable {
    case zUp = "+z", zDown = "-z", yUp = "+y", yDown = "-y", xUp = "+x", xDown = "-x"

    /// The axis index (0 = x) and sign of "up".
    public var axis: (index: Int, sign: Double) {
        switch self {
        case .xUp: return (0, 1)
        case .xDown: return (0, -1)
        case .yUp: return (1, 1)
        case .yDown: return (1, -1)
        case .zUp: return (2, 1)
        case .zDown: return (2, -1)
        }
    }

    /// What to tell the user: "z up (chip face up)".
    public var instruction: String {
        switch self {
        case .zUp: return "z axis up (chip face up, flat on the table)"
        case .zDown: return "z axis down (upside down)"
        case .yUp: return "y axis up (standing on its -y edge)"
        case .yDown: return "y axis down (standing on its +y edge)"
        case .xUp: return "x axis up (standing on its -x edge)"
        case .xDown: return "x axis down (standing on its +x edge)"
        }
    }
}

/// Calibrates from the sensor held still on each of its six faces: gyroscope bias from every
/// still moment; accelerometer offset and scale per axis from the two faces along it
/// (offset = (up + down) / 2, scale = 2g / (up − down)).
///
/// Feed samples with ``add(_:)`` in any order of faces; a face counts once the sensor has been
/// still on it for ``holdSeconds``. Still means: over each half-second block the accelerometer
/// varies by less than ``accelerationTolerance`` (standard deviation), the gyroscope by less
/// than ``rateTolerance``, and the mean specific force is within 15 % of g.
///
/// Time is the samples' own timestamps. A sample stamped before its block's start (a stream
/// restarted on a new time base, a batch's reconstructed stamps stepping back) moves the start
/// back to it: the block keeps its samples and is judged on all of them, and it closes
/// ``blockSeconds`` after the earliest stamp it holds. A block whose start moved back before
/// the end of the run's previous block counts only from that end, so the time a face counts as
/// held is never more than its stamps span (on one time base; a block wholly before the previous
/// one's end, a new time base, counts whole). (It counted the step back as about 584 years
/// elapsed, so one such sample closed the block at once, and a still block then captured its
/// face at once.)
public struct SixPositionCalibrator: Sendable {
    /// Seconds of stillness needed per face. Default 2.
    public var holdSeconds = 2.0
    /// Standard deviation allowed within a still block, m/s². Default 0.2.
    public var accelerationTolerance = 0.2
    /// Standard deviation allowed within a still block, rad/s. Default 0.02.
    public var rateTolerance = 0.02
    /// Block length, seconds. Default 0.5.
    public var blockSeconds = 0.5

    /// Where the calibration stands.
    public struct Progress: Sendable, Equatable {
        /// Faces captured so far, in order.
        public var done: [Face]
        /// The face the sensor is still on now, if any, and for how long (seconds).
        public var current: Face?
        public var heldSeconds: Double
        public var remaining: [Face] { Face.allCases.filter { !done.contains($0) } }
        public var isComplete: Bool { done.count == 6 }
    }

    private struct Block {
        var n = 0.0
        var a = SIMD3<Double>.zero, a2 = SIMD3<Double>.zero
        var g = SIMD3<Double>.zero, g2 = SIMD3<Double>.zero
        var start: UInt64 = 0
        var temperature = 0.0, temperatureCount = 0.0
    }

    private var block = Block()
    private var run = Block()          // consecutive still blocks on the current face
    private var runFace: Face?
    private var faces: [Face: SIMD3<Double>] = [:]
    private var order: [Face] = []
    private var gyroSum = SIMD3<Double>.zero, gyroCount = 0.0
    private var temperatureSum = 0.0, temperatureCount = 0.0

    public init() {}

    public var progress: Progress {
        Progress(done: order, current: runFace, heldSeconds: run.n > 0 ? Double(runDuration) / 1e9 : 0)
    }
    private var runDuration: UInt64 = 0
    /// The end of the run's last block (0 before one): a block whose start a sample moved back
    /// before it counts only from there, so a stretch of stamps is not counted twice.
    private var runEnd: UInt64 = 0

    /// Takes one sample (in sensor axes, uncalibrated).
    public mutating func add(_ s: IMUSample) {
        // The earliest stamp is the start (see the type's discussion): elapsed time is never negative.
        if block.n == 0 || s.timestampNanoseconds < block.start { block.start = s.timestampNanoseconds }
        block.n += 1
        block.a += s.acceleration; block.a2 += s.acceleration * s.acceleration
        block.g += s.angularRate; block.g2 += s.angularRate * s.angularRate
        if let t = s.temperature { block.temperature += t; block.temperatureCount += 1 }
        if Double(s.timestampNanoseconds - block.start) >= blockSeconds * 1e9 { closeBlock(end: s.timestampNanoseconds) }
    }

    private mutating func closeBlock(end: UInt64) {
        defer { block = Block() }
        guard block.n >= 5 else { return }
        let n = block.n
        let meanA = block.a / n, meanG = block.g / n
        let sdA = (block.a2 / n - meanA * meanA).clamped(lowerBound: .zero, upperBound: SIMD3(repeating: .infinity)).squareRoot()
        let sdG = (block.g2 / n - meanG * meanG).clamped(lowerBound: .zero, upperBound: SIMD3(repeating: .infinity)).squareRoot()
        let magnitude = (meanA * meanA).sum().squareRoot()
        let still = sdA.max() < accelerationTolerance && sdG.max() < rateTolerance
            && abs(magnitude / MotionConstants.standardGravity - 1) < 0.15
        guard still else { runFace = nil; run = Block(); runDuration = 0; runEnd = 0; return }
        let index = [abs(meanA.x), abs(meanA.y), abs(meanA.z)].enumerated().max { $0.element < $1.element }!.offset
        let face: Face = switch (index, meanA[index] > 0) {
        case (0, true): .xUp
        case (0, false): .xDown
        case (1, true): .yUp
        case (1, false): .yDown
        case (2, true): .zUp
        default: .zDown
        }
        // The dominant axis must really be vertical (within about 25°).
        guard abs(meanA[index]) > 0.9 * magnitude else { runFace = nil; run = Block(); runDuration = 0; runEnd = 0; return }
        gyroSum += block.g; gyroCount += n
        temperatureSum += block.temperature; temperatureCount += block.temperatureCount
        if face != runFace { runFace = face; run = Block(); runDuration = 0; runEnd = 0 }
        run.n += n; run.a += block.a
        // end ≥ start: add(_:) keeps the start the block's earliest stamp. A start before the
        // previous block's end (a stamp stepped back across the boundary) counts from that end;
        // a block that ends at or before it lies on a new time base and counts whole.
        let from = block.start < runEnd && runEnd < end ? runEnd : block.start
        runDuration += end - from
        runEnd = end
        if Double(runDuration) / 1e9 >= holdSeconds, faces[face] == nil {
            faces[face] = run.a / run.n
            order.append(face)
        }
    }

    /// The calibration, once all six faces are in; `nil` before.
    public func result(part: String? = nil, mounting: Mounting = .identity) -> Calibration? {
        guard faces.count == 6, gyroCount > 0 else { return nil }
        var offset = SIMD3<Double>.zero, scale = SIMD3<Double>(1, 1, 1)
        let pairs: [(Face, Face)] = [(.xUp, .xDown), (.yUp, .yDown), (.zUp, .zDown)]
        for (i, pair) in pairs.enumerated() {
            let up = faces[pair.0]![i], down = faces[pair.1]![i]
            offset[i] = (up + down) / 2
            scale[i] = 2 * MotionConstants.standardGravity / (up - down)
        }
        return Calibration(gyroscopeBias: gyroSum / gyroCount, accelerometerOffset: offset, accelerometerScale: scale,
                           mounting: mounting, part: part,
                           temperature: temperatureCount > 0 ? temperatureSum / temperatureCount : nil)
    }

    /// The gyroscope bias from the still moments so far (rad/s), or `nil` before any.
    public var gyroscopeBias: SIMD3<Double>? { gyroCount > 0 ? gyroSum / gyroCount : nil }
}
