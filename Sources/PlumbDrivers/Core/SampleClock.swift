/// Sample times from interrupt edge timestamps, with the chip's real period estimated.
///
/// A chip's sample clock runs a percent or two off its nominal rate, so "drain time minus n
/// periods" drifts. The model here is `t(k) = anchor + (k − anchorIndex) · period`, where `k`
/// counts records since the FIFO was last reset. Each data-ready edge is a sample instant seen by
/// the kernel: it is matched to the nearest index (the idea of the kernel's `inv_sensors_timestamp`,
/// which accepts edges within a few percent of the period), and the line is a least-squares fit
/// of edge time against record index over the matched edges: the period is its slope and the
/// anchor sits on the fitted line at the newest matched record. One edge, stray or jittered,
/// moves it by its share of the fit only, and once the fit holds an edge far from it is left out
/// (``observe(edge:newestIndex:record:)``). Without edges (polling) the model keeps the last
/// estimate.
public struct SampleClock: Sendable, Equatable {
    /// The configured period, nanoseconds.
    public private(set) var nominalPeriod: Double
    /// The estimated period, nanoseconds.
    public private(set) var period: Double
    /// How far the period estimate may move from nominal (fraction). Default 0.1.
    public var tolerance = 0.1
    private var anchorTime = 0.0
    private var anchorIndex = 0.0
    private var firstIndex = 0.0
    /// The least-squares fit of edge time against record index over the matched edges since the
    /// anchor, kept as running weighted means and centred co-moments (West's update), so it is
    /// O(1) in memory and time and stays exact for hours of nanosecond timestamps: sums of raw
    /// squares would cancel (indices past 10⁷ at 1 kHz, squared, beside their spread).
    private var fitWeight = 0.0
    private var fitMeanIndex = 0.0
    private var fitMeanTime = 0.0
    private var fitIndexVariance = 0.0
    private var fitCovariance = 0.0
    /// True while the fitted line is the timeline (its slope ``period``, the anchor on it).
    private var fitHolds = false
    /// How far matched edges fall from the fit, nanoseconds (a running mean of the distance,
    /// each clipped at ``fitReach``): the kernel's interrupt latency varies from edge to edge.
    private var residualScale = 0.0
    /// Matched edges in a row the fit left out as too far from it.
    private var rejectedEdges = 0
    /// True once an edge (or a polling guess) has fixed the time of some index.
    public private(set) var isAnchored = false
    /// True when the anchor came from an edge rather than a guess.
    public private(set) var hasEdgeAnchor = false
    /// How far one matched edge moves the timeline toward itself (fraction of its offset).
    static let phaseGain = 0.25
    /// Edges in a row that fit no record; at ``unmatchedEdgesBeforeRestart`` the anchor is
    /// forgotten, since the chip's own edges would fit a timeline that is right.
    private var unmatchedEdges = 0
    /// The newest record an edge was matched to since the anchor (each record gives one edge).
    private var lastMatchedIndex = 0.0
    /// Unmatched edges in a row that make the timeline start again: a timeline anchored on a
    /// stray edge (a storm at start-up) half a period off the chip's own edges matched none of
    /// them, and stayed there. Stray edges in a storm fit some record most of the time, and the
    /// chip's edges fit a right timeline, so a healthy or storming line resets the count.
    static let unmatchedEdgesBeforeRestart = 8
    /// True once ``period`` has been estimated from edges (false: the nominal period).
    private var periodFromEdges = false
    /// How far a timeline still on the nominal period may drift from the chip, in records per
    /// record since the anchor: an MPU's internal oscillator, which runs its low-energy mode
    /// (accelerometer only), is within ±5 % at 25 °C (MPU-6000/6050 Product Specification rev 3.4
    /// §6.6, internal clock source, CLK_SEL = 0), and further over temperature; the period is
    /// accepted up to ``tolerance`` (10 %) off, so the drift allowed is as wide. At 5 %, one edge
    /// every 7 records moved 0.56 periods a drain at 8 % off, past the match, and the period
    /// was never learnt (12.5 Hz, watermark 7: 35 ms RMS).
    static let nominalDriftPerRecord = 0.1
    /// Records the fit must span before its slope is taken for the period: a latched pin's second
    /// edge at watermark 7 (one edge per drain) is 6 to 8 records after the first. Waiting for 8,
    /// a timeline on the nominal period 8 % off was most of a period away by the third edge.
    static let fitSpanBeforeEstimate = 6.0
    /// How far an edge may be from a fit that holds, in periods, before it is left out of it: a
    /// stray edge (a storm's) that fits some record is otherwise taken in at the edge's weight.
    /// The chip's own edges sit within the kernel's interrupt latency of the line.
    static let fitReach = 0.15
    /// The narrowest reach, in periods: an edge is left out past four times the usual distance of
    /// edges from the fit (``residualScale``), but never nearer than this, so the chip's own
    /// edges, jittered by the kernel's interrupt latency, stay in. With 0.15 periods for every edge,
    /// a storm at start-up's strays near the line stayed in the fit: an MPU-6050 at 50 Hz,
    /// watermark 16, latched, 3 % fast, was 7.9 ms RMS after the storm instead of 0.017 ms.
    static let fitReachFloor = 0.02
    /// Edges in the fit before it leaves any out: a fit of a few edges, one of them stray, is
    /// itself off, and left the chip's own edges out (a storm at start-up, 8 % off at 50 Hz).
    static let edgesBeforeRejecting = 8.0
    /// Edges in a row left out before the fit starts again from the newest: a fit started from a
    /// stray edge (the anchor, in a storm at start-up) leaves the chip's own edges out.
    static let rejectedEdgesBeforeRefit = 3
    /// The fit's memory, in edges: past it older edges weigh less (exponential forgetting), so an
    /// oscillator that drifts with temperature is followed. 1024 latched edges at 12.5 Hz and
    /// watermark 16 are 22 minutes; pulsed at 1 kHz, a second.
    static let fitMemory = 1024.0
    /// The widest match for an edge whose record is known (``observe(edge:newestIndex:record:)``),
    /// in periods: past half a period a stray edge can be taken for the record's own, so only a
    /// little further, while the period is still nominal.
    static let widestKnownRecordReach = 0.6

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
        firstIndex = anchorIndex
        lastMatchedIndex = anchorIndex
        startFit(time: anchorTime, index: anchorIndex)
        isAnchored = true
        hasEdgeAnchor = true
    }

    /// Starts the fit again from one edge.
    private mutating func startFit(time: Double, index: Double) {
        fitWeight = 1; fitMeanIndex = index; fitMeanTime = time
        fitIndexVariance = 0; fitCovariance = 0
        fitHolds = false
        rejectedEdges = 0
        residualScale = 0
    }

    /// Adds an edge to the fit.
    private mutating func addToFit(time: Double, index: Double) {
        let decay = fitWeight >= Self.fitMemory ? 1 - 1 / Self.fitMemory : 1
        let dx = index - fitMeanIndex, dy = time - fitMeanTime
        fitWeight = decay * fitWeight + 1
        fitMeanIndex += dx / fitWeight
        fitMeanTime += dy / fitWeight
        fitIndexVariance = decay * fitIndexVariance + dx * (index - fitMeanIndex)
        fitCovariance = decay * fitCovariance + dx * (time - fitMeanTime)
    }

    /// Where `nanoseconds` falls on the timeline, in records (fractional; `nil` before an anchor).
    public func position(of nanoseconds: UInt64) -> Double? {
        guard isAnchored else { return nil }
        return (Double(nanoseconds) - anchorTime) / period + anchorIndex
    }

    /// Takes one edge timestamp once anchored: matches it to the nearest record index and adds it
    /// to the least-squares fit of edge time against index. Once the fit spans
    /// ``fitSpanBeforeEstimate`` records with a slope within ``tolerance`` of nominal, the slope
    /// is the period and the anchor goes onto the fitted line at this record (the fit "holds");
    /// before that the anchor moves a quarter of the way toward the edge on the period it has.
    /// Against a fit that holds (``edgesBeforeRejecting`` edges or more), an edge further from
    /// the line than ``fitReach`` (or four times the usual distance, ``fitReachFloor`` at least)
    /// is left out and returns `nil`; ``rejectedEdgesBeforeRefit`` in a row start the fit again
    /// from the newest. After ``unmatchedEdgesBeforeRestart`` edges in a row that fit no record,
    /// forgets the anchor (as ``restart()``), so the next edge anchors again.
    ///
    /// An edge that fits a record not counted yet (`newestIndex` was read after the edge, so its
    /// record would have been counted: the edge found no data), or a record an edge was matched
    /// to already (each record gives one edge), fits no record either: it does not move the
    /// timeline (the chip's own edges, matched, reset the count). In a slow storm such edges, a
    /// third of a period off, moved the period estimate by 0.1–0.7 %, which the reader then
    /// extrapolated while it polled (and withheld the storm's edges): a sawtooth error of up to
    /// half a period (±19 ms on an MPU at 26 Hz), each tooth ended by
    /// ``keepAnchorIfConsistent(newestIndex:readTime:)``.
    ///
    /// - Parameters:
    ///   - newestIndex: the index of the newest record counted so far, read after the edge.
    ///   - record: the record the edge belongs to when the caller knows it without the timeline
    ///     (a latched pin's one edge per status read, from the FIFO count); `nil`: the nearest.
    /// - Returns: the index matched, or `nil` when the edge fits no record or is a stray one (ignored).
    @discardableResult
    public mutating func observe(edge: UInt64, newestIndex: Int, record: Int? = nil) -> Int? {
        guard hasEdgeAnchor else { return nil }
        let te = Double(edge)
        let position = (te - anchorTime) / period + anchorIndex
        let k = record.map(Double.init) ?? position.rounded()
        // A record known from the FIFO count may be further from a timeline that still runs on
        // the nominal period: one edge every 7 records (12.5 Hz, watermark 7) at 5 % off moves
        // 0.35 periods a drain, and matched none, so the period was never learnt (28-40 ms RMS);
        // at 8 % off, 0.56 (``nominalDriftPerRecord``).
        let drift = periodFromEdges || record == nil ? 0 : Self.nominalDriftPerRecord * max(0, k - firstIndex - 1)
        let reach = min(Self.widestKnownRecordReach, 0.35 + drift)
        guard abs(position - k) < reach, k <= Double(newestIndex), k > lastMatchedIndex else {
            unmatchedEdges += 1
            if unmatchedEdges >= Self.unmatchedEdgesBeforeRestart { restart() }
            return nil
        }
        unmatchedEdges = 0
        // Against a fit that holds, an edge far from the line is stray (a storm's, fitting some
        // record), left out; several in a row say the fit is what is off (started from a stray
        // edge), and it starts again from the newest.
        if fitHolds, fitWeight >= Self.edgesBeforeRejecting {
            let residual = abs(te - (fitMeanTime + (k - fitMeanIndex) * period))
            let reach = min(Self.fitReach * period, max(Self.fitReachFloor * period, 4 * residualScale))
            residualScale += (min(residual, Self.fitReach * period) - residualScale) / 16
            if residual > reach {
                rejectedEdges += 1
                guard rejectedEdges >= Self.rejectedEdgesBeforeRefit else { return nil }
                lastMatchedIndex = k
                startFit(time: te, index: k)
                anchorTime = te; anchorIndex = k
                return Int(k)
            }
        }
        rejectedEdges = 0
        lastMatchedIndex = k
        addToFit(time: te, index: k)
        if fitWeight >= 2, fitIndexVariance > 0, k - firstIndex >= Self.fitSpanBeforeEstimate {
            let estimate = fitCovariance / fitIndexVariance
            if abs(estimate / nominalPeriod - 1) <= tolerance {
                // The anchor goes onto the fitted line, not onto this edge: a timeline placed
                // with the nominal period was as far off as the chip's clock, and the first
                // estimate re-anchored on one edge, which in a storm at start-up was a stray one
                // a third of a period off (23.7 ms worst on an MPU-6500 at 50 Hz, watermark 16).
                period = estimate
                periodFromEdges = true
                fitHolds = true
                anchorIndex = k
                anchorTime = fitMeanTime + (k - fitMeanIndex) * period
                return Int(k)
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

    /// Forgets the anchor (as ``restart()``) and the period estimate (back to nominal) when the
    /// timeline disagrees with the host clock: record `newestIndex` is known to have been sampled
    /// in the period before `readTime` (it was in the FIFO when the count was read then), so a
    /// timeline that puts it more than half a period outside that is wrong (a locked timeline is
    /// within the 0.35 period edges are matched in). Stray edges (a storm's, handed over while
    /// they looked plausible) can walk the timeline until the chip's own edges match the wrong
    /// records; nothing else brings it back, and it stayed whole records (up to 0.9 s) off after
    /// the storm. A period estimated from such edges is as wrong, and self-consistent: one edge
    /// per 16 records matched 17 records on, so each new anchor drifted off again.
    ///
    /// - Returns: `true` when the anchor was kept.
    @discardableResult
    public mutating func keepAnchorIfConsistent(newestIndex: Int, readTime: UInt64) -> Bool {
        guard isAnchored else { return true }
        let t = anchorTime + (Double(newestIndex) - anchorIndex) * period
        let read = Double(readTime)
        guard t < read - 1.5 * period || t > read + 0.5 * period else { return true }
        // The period too: one estimated from stray edges (or from a latched pin's one edge per
        // read matched a record off, 16 records taken for 17) keeps the timeline wrong, and may
        // match the chip's own edges to it, so it starts again from the nominal period.
        period = nominalPeriod
        periodFromEdges = false
        restart()
        return false
    }

    /// The time of record `index`, nanoseconds: 0 before the clock's origin and `UInt64.max` past
    /// its end. A timeline anchored on an edge stamped near the end of the 64-bit range (a line on
    /// another clock, a corrupted event) puts later records past it, where the conversion trapped
    /// (found by scripts/fuzz decoders).
    public func time(of index: Int) -> UInt64 {
        Self.nanoseconds(anchorTime + (Double(index) - anchorIndex) * period)
    }

    /// `t` rounded to whole nanoseconds and clamped to `0...UInt64.max` (NaN gives 0), never a trap.
    @inline(__always)
    public static func nanoseconds(_ t: Double) -> UInt64 { UInt64(roundingClamped: t) }
}

extension UInt64 {
    /// `x` rounded to the nearest whole number and clamped to `0...UInt64.max` (NaN gives 0): a
    /// conversion that cannot trap, for times and tick counts computed from values a chip or a
    /// bus handed over (found by scripts/fuzz: `UInt64(_:)` traps on a Double past the range).
    @inline(__always)
    init(roundingClamped x: Double) {
        let r = x.rounded()
        if r > 0 { self = r < 0x1p64 ? UInt64(r) : .max } else { self = 0 }
    }
}
