/// Which edges an interrupt line reports.
public enum EdgeSelection: String, Sendable, Equatable, CaseIterable {
    case rising, falling, both
}

/// The kind of one edge.
public enum EdgeKind: String, Sendable, Equatable {
    case rising, falling
}

/// One edge seen by the kernel.
public struct EdgeEvent: Sendable, Equatable {
    /// When the kernel saw the edge, CLOCK_MONOTONIC in nanoseconds (the clock of
    /// ``MonotonicClock``; uAPI v1 since Linux 5.7, v2 by default).
    public var timestampNanoseconds: UInt64
    public var kind: EdgeKind

    public init(timestampNanoseconds: UInt64, kind: EdgeKind) {
        self.timestampNanoseconds = timestampNanoseconds
        self.kind = kind
    }
}

/// A GPIO line requested for edge events, such as an IMU's data-ready pin.
///
/// Edge semantics: the line reports transitions, not levels. If the line is already high when a
/// wait starts, a rising-edge wait does not return until it goes low and high again (embedded-hal
/// `Wait`). Events queue in the kernel between waits; ``waitForEdge(timeout:)`` returns the oldest.
///
/// Implementations: `GPIODInterruptLine` (PlumbLinux, libgpiod) and the simulator's line.
public protocol InterruptLine: AnyObject {
    /// A name for messages, such as "gpiochip0 line 17 (GPIO17)".
    var name: String { get }

    /// Waits for the next edge, at most `timeoutNanoseconds`.
    ///
    /// - Returns: the edge, or `nil` when none came in time.
    func waitForEdge(timeoutNanoseconds: UInt64) throws(GPIOError) -> EdgeEvent?

    /// Returns every edge already queued, without waiting (possibly none).
    func readQueuedEdges() throws(GPIOError) -> [EdgeEvent]
}

/// A GPIO line driven as an output (an LED, an enable pin).
public protocol DigitalOutput: AnyObject {
    var name: String { get }
    /// Drives the line to its active (true) or inactive (false) level, honouring active-low.
    func set(_ active: Bool) throws(GPIOError)
}

/// A failed GPIO operation.
public struct GPIOError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// No chip matches the path, name or label.
        case chipNotFound
        /// The chip has no line with that offset or name.
        case lineNotFound
        /// Another consumer holds the line.
        case lineBusy
        /// Permission denied on /dev/gpiochipN.
        case permissionDenied
        /// The request was refused (unsupported flag, bias on an old kernel, ...).
        case requestFailed
        /// Waiting for or reading events failed.
        case eventFailed
        /// libgpiod is not available in this build.
        case unavailable
    }

    public var kind: Kind
    public var errno: Int32
    /// The full message, naming the chip, the line and, for a busy line, the consumer holding it.
    public var message: String
    /// A busy line (``Kind/lineBusy``) that another process holds under the consumer name this
    /// request gave (Plumb's "plumb"): another plumb process on the same chip, which frees it when
    /// it ends. False for a line this process holds itself, or one held under another name.
    public var isHeldByAnotherPlumbProcess: Bool

    public init(_ kind: Kind, errno: Int32 = 0, message: String, isHeldByAnotherPlumbProcess: Bool = false) {
        self.kind = kind
        self.errno = errno
        self.message = message
        self.isHeldByAnotherPlumbProcess = isHeldByAnotherPlumbProcess
    }

    public var description: String { message }
}
