#if canImport(Glibc)
import Glibc  // exp: math only
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A whole recording of gyroscope and accelerometer samples, held compactly in memory for
/// `OfflinePlumbEstimator`.
///
/// Memory: 32 bytes per sample (timestamp as `Double`; the six readings as `Float`, whose 24-bit
/// significand keeps 7 significant digits, as much as a CSV recording or a 16-bit sensor gives).
/// An hour at 1 kHz (3.6 million samples) takes 115 MB.
public struct CompactIMURecording: Sendable {
    /// s, one per sample, in recording order.
    public private(set) var timestamps: [Double] = []
    /// gyr_x, gyr_y, gyr_z (rad/s), acc_x, acc_y, acc_z (m/s²) per sample.
    private var readings: [Float] = []

    public init() {}

    /// Reserves room for `count` samples.
    public mutating func reserveCapacity(_ count: Int) {
        timestamps.reserveCapacity(count)
        readings.reserveCapacity(6 * count)
    }

    /// Appends one sample (rad/s, m/s², s). Non-finite samples are kept: the estimator skips
    /// and counts them, as the real-time filters do.
    public mutating func append(gyroscope g: Vector3, accelerometer a: Vector3, timestamp: Double) {
        timestamps.append(timestamp)
        readings.append(contentsOf: [Float(g.x), Float(g.y), Float(g.z), Float(a.x), Float(a.y), Float(a.z)])
    }

    public var count: Int { timestamps.count }

    /// The gyroscope reading of sample `i`, rad/s.
    @inline(__always)
    public func gyroscope(_ i: Int) -> Vector3 {
        Vector3(Double(readings[6 * i]), Double(readings[6 * i + 1]), Double(readings[6 * i + 2]))
    }

    /// The accelerometer reading of sample `i`, m/s².
    @inline(__always)
    public func accelerometer(_ i: Int) -> Vector3 {
        Vector3(Double(readings[6 * i + 3]), Double(readings[6 * i + 4]), Double(readings[6 * i + 5]))
    }
}

/// Attitude estimated over a whole recording, one per sample.
public struct OfflineEstimate: Sendable {
    /// The attitude of each sample as (w, x, y, z) in `Float`, 16 bytes per sample; NaN where no
    /// usable accelerometer sample had been seen in either direction.
    private var quaternions: [Float]
    /// How many samples were skipped for a NaN or infinite value.
    public let skippedSampleCount: Int

    init(quaternions: [Float], skippedSampleCount: Int) {
        self.quaternions = quaternions
        self.skippedSampleCount = skippedSampleCount
    }

    public var count: Int { quaternions.count / 4 }

    /// The sensor frame relative to a z-up earth frame at sample `i`, or nil when unknown.
    /// Heading is the forward pass's (it is unobservable and drifts); inclination combines both
    /// passes.
    public func attitude(_ i: Int) -> Quaternion? {
        let q = Quaternion(w: Double(quaternions[4 * i]), x: Double(quaternions[4 * i + 1]),
                           y: Double(quaternions[4 * i + 2]), z: Double(quaternions[4 * i + 3]))
        return q.isFinite ? q.normalized() : nil
    }

    /// Unit vector toward the earth in the sensor frame at sample `i`, or nil when unknown.
    public func gravity(_ i: Int) -> Vector3? {
        attitude(i).map { -$0.upInSensorFrame }
    }
}

/// An acausal estimator: it uses the whole recording, past and future of every sample, and so
/// estimates inclination better than a real-time filter can. For recorded files only
/// (`plumb fuse --filter plumb-offline`); a live sensor needs `PlumbFilter`.
///
/// Method (this implementation's design, on the VQF method of `PlumbFilter`; filtering forwards
/// and backwards is the idea of the offline variant that VQF's authors publish, D. Laidig and
/// T. Seel, Information Fusion 2023, but nothing here is taken from their code):
///
/// 1. Offline bias: a first `PlumbFilter` pass runs forwards over the whole recording; its final
///    bias estimate has seen every rest phase and all of the motion.
/// 2. Backward pass: a `PlumbFilter` runs over the time-reversed recording (timestamps and angular
///    rate negated: the motion played backwards; the bias of the negated gyroscope is the negated
///    bias), starting from that bias. The step from sample k+1 back to k integrates the rate of
///    sample k+1, the exact inverse of the forward step from k to k+1, so both passes integrate
///    the same orientation path. Its up direction at each sample is kept (3 `Float`).
/// 3. Forward pass: a `PlumbFilter` runs forwards again, starting from the backward pass's final
///    bias (which has seen the whole recording once more).
/// 4. Each sample's inclination is the weighted mean of the two passes' up directions. A pass's
///    weight is 1 / (1 + exp(2(T − s)/τ)), with s the time it has run since its start or its last
///    gap, T `settlingTime` and τ the accelerometer time constant: a pass that started in motion
///    takes its first inclination from an accelerated reading, and that error decays only as
///    exp(−s/τ), so it defers to the other pass until it has settled (at rest both agree anyway).
///    Where both have settled the weights are equal: the two accelerometer low-passes lag
///    in opposite directions, so their mean cancels the lag (which is why the passes run without
///    `PlumbFilter`'s drift compensation, whose job that is in real time).
/// 5. Zero-phase direction: with the backward pass's bias, the gyroscope is integrated from the
///    identity (the almost-inertial frame: it drifts only with the residual bias), the
///    accelerometer is rotated into that frame, and each axis is low-passed by a second-order
///    Butterworth filter (`zeroPhaseCutoff`) run forwards and then backwards over each gap-free
///    stretch, so its phase lag cancels exactly rather than on average. Rotated back into the
///    sensor frame and normalised, it is a second estimate of up; where both passes have settled
///    it takes the share `zeroPhaseWeight` of the combined up direction (min(wf, wb) of it
///    elsewhere, since it starts from a possibly accelerated reading too).
/// 6. The attitude is the forward pass's, turned by the smallest rotation that takes its up
///    direction to the combined one (heading, unobservable, stays the forward pass's).
///
/// Measured on the 13 BROAD trials (`scripts/eval-fusion`): mean RMS inclination error 0.437°,
/// against 0.446° for VQF's own offline estimator in the same run and 0.582° for the real-time
/// `PlumbFilter` (0.462° without step 5).
///
/// Memory: the recording (`CompactIMURecording`, 32 bytes per sample), 16 bytes per sample for
/// the result, 12 + 4 for the backward pass and 24 for the zero-phase low-pass while estimating:
/// 88 bytes per sample in all. Time: three `PlumbFilter` passes and two gyroscope integrations.
public struct OfflinePlumbEstimator: Sendable {
    public struct Settings: Equatable, Sendable {
        /// The settings of the three `PlumbFilter` passes. Default: `PlumbFilter`'s defaults
        /// without drift compensation (the backward pass cancels the lag it compensates).
        public var filter: PlumbFilter.Settings = {
            var s = PlumbFilter.Settings()
            s.driftCompensation = 0
            return s
        }()
        /// s. Time T after its start or a gap at which a pass has earned half its weight.
        /// Default 10 s (an initial error of 30° has decayed to 0.1° by then, at τ = 3 s).
        public var settlingTime: Double = 10
        /// Hz. Cutoff of the second-order Butterworth low-pass run forwards and backwards over
        /// the accelerometer in the almost-inertial frame.
        /// Default 0.12 Hz (chosen on the 13 BROAD trials; 0.1–0.15 Hz give the same mean).
        public var zeroPhaseCutoff: Double = 0.12
        /// Share (0…1) of the zero-phase direction in the combined up direction where both
        /// passes have settled; the rest is the mean of the two passes. Default 0.5.
        public var zeroPhaseWeight: Double = 0.5

        public init() {}
        public static let `default` = Settings()
    }

    public let settings: Settings

    public init(settings: Settings = .default) {
        precondition(settings.settlingTime > 0, "OfflinePlumbEstimator.Settings: settlingTime must be positive")
        precondition(settings.zeroPhaseCutoff > 0, "OfflinePlumbEstimator.Settings: zeroPhaseCutoff must be positive")
        precondition((0...1).contains(settings.zeroPhaseWeight), "OfflinePlumbEstimator.Settings: zeroPhaseWeight must be in 0…1")
        self.settings = settings
    }

    /// Estimates the attitude of every sample of `recording`.
    public func estimate(_ recording: CompactIMURecording) -> OfflineEstimate {
        let n = recording.count
        let gapLimit = settings.filter.input.maximumSamplePeriod
        let t = recording.timestamps

        // 1. Offline bias from a whole forward pass.
        var first = PlumbFilter(settings: settings.filter)
        for i in 0..<n {
            first.update(gyroscope: recording.gyroscope(i), accelerometer: recording.accelerometer(i), timestamp: t[i])
        }

        // 2. Backward pass over the time-reversed recording.
        var backward = PlumbFilter(settings: settings.filter)
        backward.gyroscopeBias = -first.gyroscopeBias
        var backwardUp = [Float](repeating: .nan, count: 3 * n)
        var backwardSince = [Float](repeating: 0, count: n)
        var since = 0.0, last = Double.nan
        for i in stride(from: n - 1, through: 0, by: -1) {
            let rate = recording.gyroscope(min(i + 1, n - 1))
            let state = backward.update(gyroscope: -rate, accelerometer: recording.accelerometer(i), timestamp: -t[i])
            since = advance(since, from: last, to: -t[i], gapLimit: gapLimit)
            if t[i].isFinite { last = -t[i] }
            guard state.isInitialized else { continue }
            let up = state.attitude.upInSensorFrame
            backwardUp[3 * i] = Float(up.x); backwardUp[3 * i + 1] = Float(up.y); backwardUp[3 * i + 2] = Float(up.z)
            backwardSince[i] = Float(since)
        }

        // Zero-phase low-pass of the accelerometer in the almost-inertial frame.
        let bias = -backward.gyroscopeBias
        var zeroPhase = [Double](repeating: .nan, count: 3 * n)
        zeroPhaseLowPass(recording, bias: bias, cutoff: settings.zeroPhaseCutoff, gapLimit: gapLimit, into: &zeroPhase)
        var inertial = Quaternion.identity
        var lastZ = Double.nan

        // 3 and 4. Forward pass, combined with the backward one sample by sample.
        var forward = PlumbFilter(settings: settings.filter)
        forward.gyroscopeBias = -backward.gyroscopeBias
        var result = [Float](repeating: .nan, count: 4 * n)
        since = 0; last = .nan
        let slope = 2 / settings.filter.accelerometerTimeConstant
        let settling = settings.settlingTime
        for i in 0..<n {
            let state = forward.update(gyroscope: recording.gyroscope(i), accelerometer: recording.accelerometer(i), timestamp: t[i])
            since = advance(since, from: last, to: t[i], gapLimit: gapLimit)
            if t[i].isFinite { last = t[i] }
            let b = Vector3(Double(backwardUp[3 * i]), Double(backwardUp[3 * i + 1]), Double(backwardUp[3 * i + 2]))
            var zp = Vector3(.nan, .nan, .nan)
            inertial = step(inertial, recording: recording, index: i, last: &lastZ, bias: bias, gapLimit: gapLimit)
            let a = Vector3(zeroPhase[3 * i], zeroPhase[3 * i + 1], zeroPhase[3 * i + 2])
            if a.isFinite && a != .zero { zp = inertial.inverseRotate(a).normalized() }
            var attitude: Quaternion
            if state.isInitialized {
                attitude = state.attitude
                if b.isFinite {
                    let f = attitude.upInSensorFrame
                    let wf = 1 / (1 + exp(slope * (settling - since)))
                    let wb = 1 / (1 + exp(slope * (settling - Double(backwardSince[i]))))
                    var combined = (wf * f + wb * b).normalized()
                    if zp.isFinite {
                        // The zero-phase direction gets its share where both passes have settled.
                        let w = settings.zeroPhaseWeight * min(wf, wb)
                        combined = (combined * (1 - w) + zp * w).normalized()
                    }
                    // 5. q' = q ⊗ r with r taking the combined up to the forward up, so that
                    //    q' maps the combined up (sensor frame) to +z.
                    if combined != .zero { attitude = attitude * Quaternion(from: combined, to: f) }
                }
            } else if b.isFinite {
                // Only the backward pass knows this sample (before the first usable forward one).
                attitude = Quaternion(from: b, to: Vector3(0, 0, 1))
            } else {
                continue
            }
            attitude = attitude.normalized()
            result[4 * i] = Float(attitude.w); result[4 * i + 1] = Float(attitude.x)
            result[4 * i + 2] = Float(attitude.y); result[4 * i + 3] = Float(attitude.z)
        }
        return OfflineEstimate(quaternions: result, skippedSampleCount: forward.skippedSampleCount)
    }

    /// One gyroscope integration step to sample `i` in the almost-inertial frame (rate of sample
    /// `i` over the period since the last usable timestamp; no turn across a gap or a bad sample).
    @inline(__always)
    private func step(_ q: Quaternion, recording: CompactIMURecording, index i: Int, last: inout Double,
                      bias: Vector3, gapLimit: Double) -> Quaternion {
        let t = recording.timestamps[i]
        guard t.isFinite else { return q }
        defer { last = t }
        let dt = t - last
        let g = recording.gyroscope(i)
        guard dt > 0, dt <= gapLimit, g.isFinite else { return q }
        return q.integrated((g - bias) * dt)
    }

    /// The accelerometer rotated into the almost-inertial frame (gyroscope integration from the
    /// identity), low-passed by a second-order Butterworth filter run forwards and then
    /// backwards over each gap-free stretch: zero phase, magnitude response squared.
    private func zeroPhaseLowPass(_ recording: CompactIMURecording, bias: Vector3, cutoff: Double,
                                  gapLimit: Double, into out: inout [Double]) {
        let n = recording.count
        var q = Quaternion.identity
        var last = Double.nan
        var segmentStarts: [Int] = []
        var previousGood = Double.nan
        for i in 0..<n {
            let t = recording.timestamps[i]
            let gap = !(t - previousGood <= gapLimit)
            q = step(q, recording: recording, index: i, last: &last, bias: bias, gapLimit: gapLimit)
            let a = recording.accelerometer(i)
            guard t.isFinite, a.isFinite, a != .zero else { continue }
            if gap { segmentStarts.append(i) }
            previousGood = t
            let r = q.rotate(a)
            out[3 * i] = r.x; out[3 * i + 1] = r.y; out[3 * i + 2] = r.z
        }
        segmentStarts.append(n)
        for s in 0..<(segmentStarts.count - 1) {
            let lo = segmentStarts[s], hi = segmentStarts[s + 1]
            let span = recording.timestamps[hi - 1] - recording.timestamps[lo]
            let count = hi - lo
            guard count > 1, span > 0 else { continue }
            let rate = Double(count - 1) / span
            let k = tan(Double.pi * min(cutoff / rate, 0.45))
            let norm = 1 / (1 + 2.0.squareRoot() * k + k * k)
            let b0 = k * k * norm, b1 = 2 * b0, b2 = b0
            let a1 = 2 * (k * k - 1) * norm, a2 = (1 - 2.0.squareRoot() * k + k * k) * norm
            for axis in 0..<3 {
                for pass in 0..<2 {
                    // Start in the steady state of the first finite value (no start-up transient).
                    var x1 = Double.nan, x2 = Double.nan, y1 = Double.nan, y2 = Double.nan
                    var j = pass == 0 ? lo : hi - 1
                    let stride = pass == 0 ? 1 : -1
                    while j >= lo && j < hi {
                        let x = out[3 * j + axis]
                        if x.isFinite {
                            if !x1.isFinite { x1 = x; x2 = x; y1 = x; y2 = x }
                            let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
                            x2 = x1; x1 = x; y2 = y1; y1 = y
                            out[3 * j + axis] = y
                        }
                        j += stride
                    }
                }
            }
        }
    }

    /// Time a pass has run without a gap, after a step from `last` to `now` (both in the pass's
    /// own increasing time).
    @inline(__always)
    private func advance(_ since: Double, from last: Double, to now: Double, gapLimit: Double) -> Double {
        guard now.isFinite else { return since }
        let dt = now - last
        if dt.isNaN || dt > gapLimit { return 0 }
        return dt > 0 ? since + dt : since
    }
}
