/// Sample times from interrupt edge timestamps, with the chip's real period estimated.
///
/// A chip's sample clock runs a percent or two off its nominal rate, so "drain time minus n
/// periods" drifts. The model here is `t(k) = anchor + (k − anchorIndex) · period`, where `k`
/// counts records since the FIFO was last reset. Each data-ready edge is a sample instant seen by
/// the kernel: it is matched to the nearest index, the anchor moves to it, and the period is
/// re-estimated from the span between the first and the latest matched edge (the idea of the
/// kernel's `inv_sensors_timestamp`, which accepts edges within a few percent of the period).
/// Without edges (polling) the model keeps the last estimate.
public struct SampleClock: Sendable, Equatable {
    /// The configured period, nanoseconds.
    public private(set) var nominalPeriod: Double
    /// The estimated period, nanoseconds.
    public private(set) var period: Double
    /// How far the period estimate may move from nominal (fraction). Default 0.1.
    public var tolerance = 0.1
    private var anchorTime = 0.0
    private var anchorIndex = 0.0
    private var firstTime = 0.0
    private var firstIndex = 0.0
    /// True once an edge (or a polling guess) has fixed the time of some index.
    public private(set) var isAnchored = false
    /// True when the anchor came from an edge rather than a guess.
    public private(set) var hasEdgeAnchor = false

    public init(nominalPeriodNanoseconds: Double) {
        nominalPeriod = nominalPeriodNanoseconds
        period = nominalPeriodNanoseconds
    }

    /// Forgets the anchor (after a FIFO reset); keeps the period estimate.
    public mutating func restart() {
        isAnchored = false
        hasEdgeAnchor = false
    }

    /// Sets a new nominal period (after a rate change) and forgets everything.
    public mutating func reset(nominalPeriodNanoseconds: Double) {
        self = SampleClock(nominalPeriodNanoseconds: nominalPeriodNanoseconds)
    }

    /// Anchors by the newest record when no edge is known: record `newestIndex` was sampled at
    /// most one period before `readTime` (half a period on average).
    public mutating func guess(newestIndex: Int, readTime: UInt64) {
        guard !isAnchored else { return }
        anchorTime = Double(readTime) - period / 2
        anchorIndex = Double(newestIndex)
        isAnchored = true
    }

    /// Takes one edge timestamp.
    ///
    /// - Parameters:
    ///   - edge: the kernel timestamp of a data-ready edge, nanoseconds.
    ///   - newestIndex: the index of the newest record in the FIFO when it was counted.
    ///   - countTime: when the FIFO was counted (edges after it are ignored by the caller).
    /// - Returns: the index matched to the edge, or `nil` when the edge did not fit.
    @discardableResult
    public mutating func observe(edge: UInt64, newestIndex: Int, countTime: UInt64) -> Int? {
        let te = Double(edge)
        if !hasEdgeAnchor {
            // The newest record is the last sample at or before the count; the edge is a sample
            // instant, so floor((count − edge) / period) samples followed it.
            let behind = ((Double(countTime) - te) / period + 1e-6).rounded(.down)
            guard behind >= 0 else { return nil }
            let k = Double(newestIndex) - behind
            anchorTime = te; anchorIndex = k
            firstTime = te; firstIndex = k
            isAnchored = true
            hasEdgeAnchor = true
            return Int(k)
        }
        let position = (te - anchorTime) / period + anchorIndex
        let k = position.rounded()
        guard abs(position - k) < 0.35, k <= Double(newestIndex) + 1 else { return nil }
        if k - firstIndex >= 8 {
            let estimate = (te - firstTime) / (k - firstIndex)
            if abs(estimate / nominalPeriod - 1) <= tolerance { period = estimate }
        }
        anchorTime = te
        anchorIndex = k
        return Int(k)
    }

    /// The time of record `index`, nanoseconds.
    public func time(of index: Int) -> UInt64 {
        let t = anchorTime + (Double(index) - anchorIndex) * period
        return t <= 0 ? 0 : UInt64(t.rounded())
    }
}
