import PlumbHAL

/// An interrupt line in front of a real one (the emulated chip's) that lets the fuzzer add stray
/// edges with any timestamp (another clock, a stepped clock, the distant past or future), drop
/// edges, and fail waits: what the kernel hands over from a noisy or floating pin.
public final class GarbledLine: InterruptLine {
    public let inner: any InterruptLine
    public let input: FuzzInput
    public let clock: any MonotonicClock
    public var name: String { inner.name }

    public init(_ inner: any InterruptLine, input: FuzzInput, clock: any MonotonicClock) {
        self.inner = inner
        self.input = input
        self.clock = clock
    }

    /// A stray edge: near now (either side), or any 64-bit time.
    func strayEdge() -> EdgeEvent {
        let kind: EdgeKind = input.bool() ? .rising : .falling
        let now = clock.nowNanoseconds
        let t: UInt64
        switch input.byte() % 4 {
        case 0: t = now &+ UInt64(input.uint32())
        case 1: t = now &- UInt64(input.uint32())
        case 2: t = now &+ UInt64(input.uint16()) &* 1000
        default: t = input.uint64()
        }
        return EdgeEvent(timestampNanoseconds: t, kind: kind)
    }

    public func waitForEdge(timeoutNanoseconds: UInt64) throws(GPIOError) -> EdgeEvent? {
        guard !input.isEmpty else { return try inner.waitForEdge(timeoutNanoseconds: timeoutNanoseconds) }
        switch input.byte() {
        case 0..<0xC0:
            return try inner.waitForEdge(timeoutNanoseconds: timeoutNanoseconds)
        case 0xC0..<0xE0:
            // A stray edge at once (time still moves: the harness advances the clock a little).
            clock.sleep(nanoseconds: UInt64(input.uint16()) * 100)
            return strayEdge()
        case 0xE0..<0xF0:
            // The chip's edge lost: the wait times out.
            _ = try inner.waitForEdge(timeoutNanoseconds: timeoutNanoseconds)
            clock.sleep(nanoseconds: timeoutNanoseconds)
            return nil
        default:
            throw GPIOError(.eventFailed, errno: Errno.EIO, message: "fuzzed edge read failure on \(name)")
        }
    }

    public func readQueuedEdges() throws(GPIOError) -> [EdgeEvent] {
        var edges = try inner.readQueuedEdges()
        guard !input.isEmpty else { return edges }
        let control = input.byte()
        if control >= 0xE0 {
            for _ in 0..<Int(control & 0x07) { edges.append(strayEdge()) }
        } else if control >= 0xD0, !edges.isEmpty {
            edges.removeFirst()
        }
        return edges
    }
}
