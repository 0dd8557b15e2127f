import PlumbHAL
import CGPIOD

/// A GPIO line requested for edge events through libgpiod: an IMU's data-ready pin.
///
/// Works with libgpiod 1.6 and 2.x (the CGPIOD shim picks the API at compile time). Timestamps are
/// the kernel's CLOCK_MONOTONIC nanoseconds: uAPI v1 uses it since Linux 5.7, and the v2 request
/// asks for it explicitly, so they compare directly with ``SystemClock``.
///
/// Edge semantics: edges, not levels. If the line is already high, a rising-edge wait does not
/// return until the line goes low and high again. Edges queue in the kernel between waits.
///
/// The corresponding calls are `gpiod_line_request_*_edge_events` / `gpiod_line_event_wait` (v1)
/// and `gpiod_chip_request_lines` / `gpiod_line_request_wait_edge_events` (v2).
public final class GPIODInterruptLine: InterruptLine {
    public var name: String { request.name }
    /// The edges requested.
    public let edges: EdgeSelection

    private let request: GPIODRequest
    private let events: UnsafeMutablePointer<plumb_gpio_event>
    private static let capacity: Int32 = 64

    /// Requests `line` for edge events.
    ///
    /// - Parameters:
    ///   - edges: rising, falling or both.
    ///   - bias: pull resistor; `.pullDown` suits an active-high data-ready pin left floating.
    ///   - activeLow: swap rising and falling (for an active-low interrupt pin).
    ///   - consumer: the name other programs see in `gpioinfo`. Default "plumb".
    /// - Throws: ``GPIOError``; a busy line's message names the consumer holding it.
    public init(_ line: GPIOLineSelector, edges: EdgeSelection, bias: GPIOBias = .asIs, activeLow: Bool = false,
                consumer: String = "plumb") throws(GPIOError) {
        request = try GPIODRequest(line, output: false, edges: edges, bias: bias, activeLow: activeLow,
                                   initialValue: false, consumer: consumer)
        self.edges = edges
        events = .allocate(capacity: Int(Self.capacity))
    }

    deinit { events.deallocate() }

    public func waitForEdge(timeoutNanoseconds: UInt64) throws(GPIOError) -> EdgeEvent? {
        let timeout = Int64(clamping: timeoutNanoseconds)
        let deadline = Sys.monotonicNanoseconds() &+ timeoutNanoseconds
        var remaining = timeout
        while true {
            let r = Sys.gpioWait(request.handle, remaining)
            if r == 0 { return nil }
            if r == -Errno.EINTR {
                let now = Sys.monotonicNanoseconds()
                if now >= deadline { return nil }
                remaining = Int64(clamping: deadline - now)
                continue
            }
            if r < 0 { throw failure("waiting for an edge", errno: -r) }
            break
        }
        let n = Sys.gpioRead(request.handle, events, 1)
        if n < 0 { throw failure("reading an edge event", errno: -n) }
        guard n >= 1 else { return nil }
        return Self.event(events[0])
    }

    public func readQueuedEdges() throws(GPIOError) -> [EdgeEvent] {
        var result: [EdgeEvent] = []
        while true {
            let ready = Sys.gpioWait(request.handle, 0)
            if ready == 0 { return result }
            if ready < 0 { throw failure("polling for edges", errno: -ready) }
            let n = Sys.gpioRead(request.handle, events, Self.capacity)
            if n < 0 { throw failure("reading edge events", errno: -n) }
            for i in 0..<Int(n) { result.append(Self.event(events[i])) }
            if n < Self.capacity { return result }
        }
    }

    /// Reads the line's current logical level (true = active).
    public func readValue() throws(GPIOError) -> Bool {
        let r = Sys.gpioGetValue(request.handle)
        if r < 0 { throw failure("reading the value", errno: -r) }
        return r != 0
    }

    private static func event(_ e: plumb_gpio_event) -> EdgeEvent {
        EdgeEvent(timestampNanoseconds: e.timestamp_ns, kind: e.rising == 1 ? .rising : .falling)
    }

    private func failure(_ what: String, errno: Int32) -> GPIOError {
        GPIOError(.eventFailed, errno: errno, message: "\(what) on \(name) failed: \(Sys.describe(errno: errno)) (errno \(errno))")
    }
}
