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
/// unless ``edges`` says otherwise. Faults: ``lostEdgeProbability`` drops edges at random (the
/// libgpiod missed-edge reports), ``silentWindows`` drops every edge in a time window (a broken
/// wire), so a reader's watchdog can be tested.
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
    public private(set) var counters = Counters()
    /// The pin's level, as last raised.
    public private(set) var isHigh = false
    private var queue: [EdgeEvent] = []
    private var queueHead = 0
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
        isHigh = kind == .rising
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
        queue.append(EdgeEvent(timestampNanoseconds: nanoseconds, kind: kind))
    }

    public func waitForEdge(timeoutNanoseconds: UInt64) throws(GPIOError) -> EdgeEvent? {
        let deadline = clock.nowNanoseconds &+ timeoutNanoseconds
        while true {
            source?.advance(to: clock.nowNanoseconds)
            if queueHead < queue.count {
                let edge = queue[queueHead]
                queueHead += 1
                counters.wakeups += 1
                counters.edgesDelivered += 1
                return edge
            }
            let now = clock.nowNanoseconds
            guard let next = source?.nextEventNanoseconds(after: now), next > now, next <= deadline else {
                clock.advance(to: deadline)
                source?.advance(to: deadline)
                if queueHead < queue.count { continue }
                counters.wakeups += 1
                counters.timeouts += 1
                return nil
            }
            clock.advance(to: next)
        }
    }

    public func readQueuedEdges() throws(GPIOError) -> [EdgeEvent] {
        source?.advance(to: clock.nowNanoseconds)
        let edges = Array(queue[queueHead...])
        counters.edgesDelivered += edges.count
        queue.removeAll(keepingCapacity: true)
        queueHead = 0
        return edges
    }

    public func resetCounters() { counters = Counters() }
}
