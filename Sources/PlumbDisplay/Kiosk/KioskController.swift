import PlumbHAL
import PlumbOrientation

/// Runs a ``RotationAction`` (a process or a file write); the CLI's runner does it for real,
/// tests record.
public protocol RotationActionRunner: AnyObject {
    func perform(_ action: RotationAction) throws
}

/// Whether the user has locked the screen's orientation.
public protocol OrientationLock: AnyObject {
    var isLocked: Bool { get }
}

/// A lock that is never set.
public final class NoOrientationLock: OrientationLock {
    public init() {}
    public var isLocked: Bool { false }
}

/// Rotates a kiosk's screen to follow the interface orientation, after a hold-off.
///
/// A new orientation must stay for ``Settings/holdOff`` before the screen turns, so carrying the
/// screen past an orientation, or a knock, does not flip it back and forth. Orientations outside
/// ``Settings/allowed`` are ignored (the screen stays as it is); while the lock is set nothing
/// turns, and when it is released the screen turns at once to an orientation that has already
/// held for the hold-off. Time is the caller's (``observe(_:at:)`` and ``tick(at:)`` take
/// monotonic nanoseconds), so a timeline runs in virtual time.
public final class KioskController {
    /// Settings of the kiosk.
    public struct Settings: Sendable, Equatable {
        /// How long a new orientation must hold before the screen turns, in nanoseconds. Default 1 s.
        public var holdOff: UInt64 = Nanoseconds.perSecond
        /// The orientations the screen may take. Default: all four.
        public var allowed: Set<InterfaceOrientation> = Set(InterfaceOrientation.allCases)

        public init(holdOff: UInt64 = Nanoseconds.perSecond, allowed: Set<InterfaceOrientation> = Set(InterfaceOrientation.allCases)) {
            self.holdOff = holdOff; self.allowed = allowed
        }
    }

    /// Something the controller did or decided, for logs and tests.
    public enum Event: Sendable, Equatable {
        /// The screen was turned to this orientation with this action.
        case rotated(InterfaceOrientation, action: String, atNanoseconds: UInt64)
        /// The orientation is not in the allowed set.
        case ignoredNotAllowed(InterfaceOrientation, atNanoseconds: UInt64)
        /// Running the action failed; the screen stays as it was.
        case failed(InterfaceOrientation, action: String, atNanoseconds: UInt64)
        /// The orientation held long enough but the lock is set.
        case heldByLock(InterfaceOrientation, atNanoseconds: UInt64)
    }

    public let backend: KioskBackend
    public let settings: Settings
    private let runner: any RotationActionRunner
    private let lock: any OrientationLock
    /// What the screen shows, as far as we turned it; nil before the first turn.
    public private(set) var applied: InterfaceOrientation?
    /// The orientation waiting for its hold-off, and since when.
    public private(set) var pending: (orientation: InterfaceOrientation, since: UInt64)?
    public private(set) var events: [Event] = []
    private var reportedLock = false
    private var lastObserved: InterfaceOrientation?

    public init(backend: KioskBackend, settings: Settings = Settings(), runner: any RotationActionRunner,
                lock: any OrientationLock = NoOrientationLock()) {
        self.backend = backend; self.settings = settings; self.runner = runner; self.lock = lock
    }

    /// The interface orientation is now `orientation` (call on every change, or every reading).
    public func observe(_ orientation: InterfaceOrientation, at now: UInt64) {
        defer { lastObserved = orientation }
        if orientation == applied {
            pending = nil
            return
        }
        guard settings.allowed.contains(orientation) else {
            if lastObserved != orientation { events.append(.ignoredNotAllowed(orientation, atNanoseconds: now)) }
            pending = nil
            return
        }
        if pending?.orientation != orientation {
            pending = (orientation, now)
            reportedLock = false
        }
    }

    /// Turns the screen if the pending orientation has held for the hold-off and no lock is set.
    ///
    /// - Returns: the orientation turned to, if the screen turned.
    @discardableResult
    public func tick(at now: UInt64) throws -> InterfaceOrientation? {
        guard let (orientation, since) = pending, now >= since, now - since >= settings.holdOff else { return nil }
        if lock.isLocked {
            if !reportedLock { events.append(.heldByLock(orientation, atNanoseconds: now)); reportedLock = true }
            return nil
        }
        let action = backend.action(for: orientation)
        do {
            try runner.perform(action)
        } catch {
            // The screen stays; the next change tries again (no retry storm on a broken setup).
            pending = nil
            events.append(.failed(orientation, action: action.description, atNanoseconds: now))
            throw error
        }
        applied = orientation
        pending = nil
        events.append(.rotated(orientation, action: action.description, atNanoseconds: now))
        return orientation
    }

    /// When ``tick(at:)`` should next be called to turn the screen on time, if anything is pending.
    public var nextDeadline: UInt64? { pending.map { $0.since + settings.holdOff } }
}
