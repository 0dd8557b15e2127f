import PlumbHAL

/// A data-ready pin whose edges are raised by an emulated chip in virtual time.
///
/// The chip calls ``raise(at:kind:)`` when its pin changes; the reader calls
/// ``waitForEdge(timeoutNanoseconds:)``, which returns a queued edge at once, or else moves the
/// ``VirtualClock`` forward to the ``source``'s next event (the chip's next sample), lets the chip
/// catch up, and looks again, until an edge arrives or the timeout passes. A one-hour 1 kHz run
/// therefore takes as long as the code it exercises, not an hour.
///
/// Edge semantics are those of ``InterruptLine``: only transitions are reported, rising edges
/// unless ``edges`` says otherwise. Edges are handed over in the order of their timestamps, and
/// only once their time has come: a chip may raise an edge ahead of time (the MPU's 50 µs pulse
/// raises its falling edge with its rising one), and storm edges raised later may fall between. Faults: ``lostEdgeProbability`` drops edges at random (the
/// libgpiod missed-edge reports), ``silentWindows`` drops every edge in a time window (a broken
/// wire), so a reader's watchdog can be tested; ``storms`` make the line fire on its own (a
/// floating or noisy input), so a reader's storm guard can be.
public final class SimulatedInterruptLine: InterruptLine {
    /// What the line has done.
    public struct Counters: Sendable, Equatable {
        /// Returns from a wait, with an edge or a timeout: how often the reader woke.
        public var wakeups = 0
        /// Edges handed to the reader.
        public var edgesDelivered = 0
        /// Edges dropped by a lost-interrupt fault.
        public var edgesLost = 0
        /// Waits that ended without an edge.
        public var timeouts = 0
        public init() {}
    }

    public let name: String
    public let clock: VirtualClock
    /// Which edges are reported. Default `.rising` (active-high data-ready).
    public var edges: EdgeSelection
    /// The chip that drives the pin; waits advance it through virtual time. The line holds it
    /// strongly, so the chip must hold the line weakly.
    public var source: (any VirtualTimeDriven)?
    /// Probability that an edge is lost. Default 0.
    public var lostEdgeProbability: Double = 0
    /// Windows of virtual time (nanoseconds) in which every edge is lost.
    public var silentWindows: [ClosedRange<UInt64>] = []

    /// An interrupt storm: within `window` the pin toggles every `periodNanoseconds` whatever the
    /// chip does (an unconnected or noisy input, or the wrong line), a rising edge at the start of
    /// each period and a falling one halfway.
    public struct Storm: Sendable, Equatable {
        public var window: ClosedRange<UInt64>
        public var periodNanoseconds: UInt64
        public init(window: ClosedRange<UInt64>, periodNanoseconds: UInt64) {
            precondition(periodNanoseconds >= 2, "a storm needs a period of at least 2 ns")
            self.window = window; self.periodNanoseconds = periodNanoseconds
        }
    }
    /// Storms to raise, in virtual time.
    public var storms: [Storm] = []
    /// The storm edges raised up to here (nanoseconds).
    private var stormRaisedThrough: UInt64?
    public private(set) var counters = Counters()
    /// The pin's level after the latest edge raised (by timestamp, not by when it was raised).
    public private(set) var isHigh = false
    /// The timestamp of the edge that set ``isHigh``.
    private var levelNanoseconds: UInt64 = 0
    /// Edges raised and not yet handed over, in timestamp order from `queueHead` once `queueSorted`.
    private var queue: [EdgeEvent] = []
    private var queueHead = 0
    private var queueSorted = true
    private var random: SeededRandom

    public init(name: String = "simulated data-ready line", clock: VirtualClock, edges: EdgeSelection = .rising, seed: UInt64 = 2) {
        self.name = name
        self.clock = clock
        self.edges = edges
        self.random = SeededRandom(seed: seed)
        queue.reserveCapacity(64)
    }

    /// Records a transition of the pin at `nanoseconds` (called by the emulated chip).
    public func raise(at nanoseconds: UInt64, kind: EdgeKind) {
        if nanoseconds >= levelNanoseconds {
            isHigh = kind == .rising
            levelNanoseconds = nanoseconds
        }
        let wanted: Bool
        switch edges {
        case .rising: wanted = kind == .rising
        case .falling: wanted = kind == .falling
        case .both: wanted = true
        }
        guard wanted else { return }
        if silentWindows.contains(where: { $0.contains(nanoseconds) }) || random.chance(lostEdgeProbability) {
            counters.edgesLost += 1
            return
        }
        if queueHead > 0, queueHead == queue.count { queue.removeAll(keepingCapacity: true); queueHead = 0 }
        if let last = queue.last, queueHead < queue.count, last.timestampNanoseconds > nanoseconds { queueSorted = false }
        queue.append(EdgeEvent(timestampNanoseconds: nanoseconds, kind: kind))
    }

    /// The oldest edge not yet handed over, if its time has come by `t`.
    private func dueEdge(by t: UInt64) -> EdgeEvent? {
        sortQueue()
        guard queueHead < queue.count, queue[queueHead].timestampNanoseconds <= t else { return nil }
        return queue[queueHead]
    }

    /// Puts the edges not yet handed over in timestamp order (raising order for equal times).
    private func sortQueue() {
        guard !queueSorted else { return }
        queueSorted = true
        // Indices break ties, so equal timestamps keep the order they were raised in.
        let pending = queue[queueHead...].enumerated().sorted {
            ($0.element.timestampNanoseconds, $0.offset) < ($1.element.timestampNanoseconds, $1.offset)
        }
        for (i, edge) in pending.enumerated() { queue[queueHead + i] = edge.element }
    }

    public func waitForEdge(timeoutNanoseconds: UInt64) throws(GPIOError) -> EdgeEvent? {
        let deadline = clock.nowNanoseconds &+ timeoutNanoseconds
        while true {
            catchUp(to: clock.nowNanoseconds)
            if let edge = dueEdge(by: clock.nowNanoseconds) {
                queueHead += 1
                counters.wakeups += 1
                counters.edgesDelivered += 1
                return edge
            }
            let now = clock.nowNanoseconds
            let chipNext = source?.nextEventNanoseconds(after: now)
            let stormNext = nextStormEdge(after: now)
            // An edge raised ahead of its time (checked above: it is later than now).
            let raisedNext = queueHead < queue.count ? queue[queueHead].timestampNanoseconds : nil
            let soonest = [chipNext, stormNext, raisedNext].compactMap { $0 }.min()
            guard let next = soonest, next > now, next <= deadline else {
                clock.advance(to: deadline)
                catchUp(to: deadline)
                if dueEdge(by: deadline) != nil { continue }
                counters.wakeups += 1
                counters.timeouts += 1
                return nil
            }
            clock.advance(to: next)
        }
    }

    public func readQueuedEdges() throws(GPIOError) -> [EdgeEvent] {
        let now = clock.nowNanoseconds
        catchUp(to: now)
        sortQueue()
        var end = queueHead
        while end < queue.count, queue[end].timestampNanoseconds <= now { end += 1 }
        let edges = Array(queue[queueHead..<end])
        counters.edgesDelivered += edges.count
        queueHead = end
        if queueHead == queue.count { queue.removeAll(keepingCapacity: true); queueHead = 0 }
        return edges
    }

    public func resetCounters() { counters = Counters() }

    /// Brings the chip and the storms up to `t` (the queue is put in time order when it is read).
    private func catchUp(to t: UInt64) {
        source?.advance(to: t)
        guard !storms.isEmpty else { return }
        let from = stormRaisedThrough.map { $0 + 1 } ?? 0
        guard t >= from else { return }
        stormRaisedThrough = t
        for storm in storms {
            let p = storm.periodNanoseconds
            let start = max(from, storm.window.lowerBound)
            let end = min(t, storm.window.upperBound)
            guard start <= end else { continue }
            // Edges at window start + k·p/2: rising for even k, falling for odd.
            let half = p / 2
            var k = (start - storm.window.lowerBound + half - 1) / half
            while storm.window.lowerBound + k * half <= end {
                raise(at: storm.window.lowerBound + k * half, kind: k % 2 == 0 ? .rising : .falling)
                k += 1
            }
        }
    }

    /// The first storm edge after `t`, if any.
    private func nextStormEdge(after t: UInt64) -> UInt64? {
        var best: UInt64?
        for storm in storms where storm.window.upperBound > t {
            let half = storm.periodNanoseconds / 2
            let base = storm.window.lowerBound
            let next = t < base ? base : base + ((t - base) / half + 1) * half
            if next <= storm.window.upperBound { best = min(best ?? next, next) }
        }
        return best
    }
}
