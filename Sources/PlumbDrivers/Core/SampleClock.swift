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
    /// How far one matched edge moves the timeline toward itself (fraction of its offset).
    static let phaseGain = 0.25
    /// Edges in a row that fit no record; at ``unmatchedEdgesBeforeRestart`` the anchor is
    /// forgotten, since the chip's own edges would fit a timeline that is right.
    private var unmatchedEdges = 0
    /// Unmatched edges in a row that make the timeline start again: a timeline anchored on a
    /// stray edge (a storm at start-up) half a period off the chip's own edges matched none of
    /// them, and stayed there. Stray edges in a storm fit some record most of the time, and the
    /// chip's edges fit a right timeline, so a healthy or storming line resets the count.
    static let unmatchedEdgesBeforeRestart = 8

    /// The FIFO count's measure of the period: a count read's host time and the index of the
    /// newest record it counted, at the start of the span (``checkPeriod(newestIndex:countTime:)``).
    private var countBaselineTime: Double?
    private var countBaselineIndex = 0.0
    /// Records the count's span needs before it judges the period (its error is one period over
    /// the span), and the span at which it starts again, so a clock that drifts with temperature
    /// is judged by its recent rate.
    static let countSpanToJudge = 64.0
    static let countSpanToRestart = 1024.0
    /// The period the FIFO count measured last (kept across FIFO resets: the chip's rate does not
    /// change with them), and how far an edge's estimate may be from it (fraction): the count's
    /// own error (1.5 periods over at least 64, and a clock's drift) and a margin.
    private var countPeriod: Double?
    static let countAgreement = 0.03

    public init(nominalPeriodNanoseconds: Double) {
        nominalPeriod = nominalPeriodNanoseconds
        period = nominalPeriodNanoseconds
    }

    /// Forgets the anchor (after a FIFO reset); keeps the period estimate.
    public mutating func restart() {
        isAnchored = false
        hasEdgeAnchor = false
        unmatchedEdges = 0
    }

    /// Forgets the FIFO count's span: after a FIFO reset (the record indices start again), or a
    /// burst that may or may not have popped its records (the indices may run ahead of the chip's).
    public mutating func forgetCountSpan() {
        countBaselineTime = nil
    }

    /// Checks the period against the FIFO count, which stray edges cannot fool: the newest record
    /// counted by a read of FIFO_COUNT at host time `countTime` was sampled within the period
    /// before it, so `n` records after an earlier count the span between the two reads is n
    /// periods, give or take one. A period outside that (and half a percent for a clock that
    /// drifts) was learnt from edges matched to the wrong records: stray edges of a storm that
    /// fell near a record's time, after which the chip's own edges, matched with the wrong
    /// period, kept it wrong (9 % short for good after a 277 Hz storm on a 500 Hz MPU-6500, the
    /// samples up to 3 periods off, in the differential test). The period is then the count's,
    /// and the timeline starts again. Before any edge has measured it, the count's period
    /// replaces the nominal one, so polled samples are timed by the chip's real rate.
    ///
    /// - Returns: `false` when the period was replaced.
    @discardableResult
    public mutating func checkPeriod(newestIndex: Int, countTime: UInt64) -> Bool {
        guard newestIndex >= 0 else { return true }
        let t = Double(countTime), k = Double(newestIndex)
        guard let baseTime = countBaselineTime, k > countBaselineIndex, t > baseTime else {
            countBaselineTime = t; countBaselineIndex = k
            return true
        }
        let n = k - countBaselineIndex
        guard n >= Self.countSpanToJudge else { return true }
        let measured = (t - baseTime) / n
        if n >= Self.countSpanToRestart { countBaselineTime = t; countBaselineIndex = k }
        guard abs(measured / nominalPeriod - 1) <= tolerance else { return true } // not this chip's rate: a count misread
        countPeriod = measured
        let allowed = 1.5 * measured / n + 0.005 * measured
        if period == nominalPeriod && !hasEdgeAnchor {
            period = measured
            return true
        }
        guard abs(period - measured) > allowed else { return true }
        period = measured
        restart()
        return false
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

    /// Fixes the time of record `index` from an edge known to belong to it (the driver knows
    /// which edge came first after its last status read).
    public mutating func anchor(edge: UInt64, index: Int) {
        anchorTime = Double(edge); anchorIndex = Double(index)
        firstTime = anchorTime; firstIndex = anchorIndex
        isAnchored = true
        hasEdgeAnchor = true
    }

    /// Takes one edge timestamp once anchored: matches it to the nearest record index, moves the
    /// anchor there and refines the period. After ``unmatchedEdgesBeforeRestart`` edges in a row
    /// that fit no record, forgets the anchor (as ``restart()``), so the next edge anchors again.
    ///
    /// - Parameter newestIndex: the index of the newest record counted so far.
    /// - Returns: the index matched, or `nil` when the edge fits no record (ignored).
    @discardableResult
    public mutating func observe(edge: UInt64, newestIndex: Int) -> Int? {
        guard hasEdgeAnchor else { return nil }
        let te = Double(edge)
        let position = (te - anchorTime) / period + anchorIndex
        let k = position.rounded()
        guard abs(position - k) < 0.35, k <= Double(newestIndex) + 1 else {
            unmatchedEdges += 1
            if unmatchedEdges >= Self.unmatchedEdgesBeforeRestart { restart() }
            return nil
        }
        unmatchedEdges = 0
        if k - firstIndex >= 8 {
            let estimate = (te - firstTime) / (k - firstIndex)
            // Within the count's measure too, once it has one (``checkPeriod(newestIndex:countTime:)``):
            // an edge matched 0.35 period off (a storm's, near a record) puts this estimate up to
            // 4 % off, two such 9 %, and the chip's own edges matched with the wrong period then
            // kept it there.
            if abs(estimate / nominalPeriod - 1) <= tolerance, countPeriod.map({ abs(estimate / $0 - 1) <= Self.countAgreement }) ?? true {
                period = estimate
            }
        }
        // Toward the edge, not onto it: a stray edge (a floating or noisy line) that lands near a
        // record's time moves the timeline by a quarter of its offset, and the chip's next edges
        // bring it back. Snapped onto each edge, two strays in a row could walk the timeline so
        // far that the chip's own edges matched the wrong records, and it stayed whole records off.
        let predicted = anchorTime + (k - anchorIndex) * period
        anchorTime = predicted + Self.phaseGain * (te - predicted)
        anchorIndex = k
        return Int(k)
    }

    /// Forgets the anchor (as ``restart()``) when the timeline disagrees with the host clock: record
    /// `newestIndex` is known to have been sampled in the period before `readTime` (it was in the
    /// FIFO when the count was read then), so a timeline that puts it more than half a period
    /// outside that is wrong (a locked timeline is within the 0.35 period edges are matched in).
    /// Stray edges (a storm's, handed over while they looked plausible)
    /// can walk the timeline until the chip's own edges match the wrong records; nothing else
    /// brings it back, and it stayed whole records (up to 0.9 s) off after the storm.
    ///
    /// - Returns: `true` when the anchor was kept.
    @discardableResult
    public mutating func keepAnchorIfConsistent(newestIndex: Int, readTime: UInt64) -> Bool {
        guard isAnchored else { return true }
        let t = anchorTime + (Double(newestIndex) - anchorIndex) * period
        let read = Double(readTime)
        guard t < read - 1.5 * period || t > read + 0.5 * period else { return true }
        restart()
        return false
    }

    /// The time of record `index`, nanoseconds.
    public func time(of index: Int) -> UInt64 {
        let t = anchorTime + (Double(index) - anchorIndex) * period
        return t <= 0 ? 0 : UInt64(t.rounded())
    }
}
