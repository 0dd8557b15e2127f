import PlumbHAL
import PlumbOrientation

/// Runs a ``RotationAction`` (a process or a file write); the CLI's runner does it for real,
/// tests record.
public protocol RotationActionRunner: AnyObject {
    func perform(_ action: RotationAction) throws
    /// Runs `action` (a listing, ``KioskBackend/listingAction``) and returns what it printed, or
    /// `nil` when this runner cannot (then nothing is checked).
    func capture(_ action: RotationAction) throws -> String?
}

extension RotationActionRunner {
    public func capture(_ action: RotationAction) throws -> String? { nil }
}

/// Whether the user has locked the screen's orientation.
public protocol OrientationLock: AnyObject {
    var isLocked: Bool { get }
}

/// A lock that is never set.
public final class NoOrientationLock: OrientationLock, Sendable {
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
///
/// A turn that fails is dropped (the next change tries again), or, with ``Settings/retry``, kept
/// and tried again after a growing pause until it works: a service may start before the
/// compositor it turns (plumb.service and a desktop session start side by side at boot), and a
/// kiosk that stands still would otherwise keep the wrong turn until it is moved.
///
/// With ``Settings/verifyInterval``, what the screen shows is read back now and then
/// (``KioskBackend/listingAction``) while no turn is pending: a compositor that restarted, or a
/// screen plugged in again, comes back upright while the controller still believes its last turn
/// is on screen, and a kiosk standing still would never be turned again. When the listing shows
/// another rotation, the turn is made again (``Event/drifted(_:shown:atNanoseconds:)``).
public final class KioskController {
    /// When a failed turn is tried again: `first` after the first failure, then twice as long
    /// after each further one, never longer than `maximum`.
    public struct Retry: Sendable, Equatable {
        /// The pause after the first failure, in nanoseconds.
        public var first: UInt64
        /// The longest pause, in nanoseconds.
        public var maximum: UInt64

        public init(first: UInt64, maximum: UInt64) {
            precondition(first > 0 && maximum >= first, "Retry needs 0 < first <= maximum")
            self.first = first; self.maximum = maximum
        }

        /// The pause after the `failures`-th failure in a row (1, 2, ...), in nanoseconds.
        public func pause(afterFailures failures: Int) -> UInt64 {
            var pause = first
            for _ in 1..<max(failures, 1) {
                guard pause < maximum else { break }
                pause = pause > maximum / 2 ? maximum : pause * 2
            }
            return min(pause, maximum)
        }
    }

    /// Settings of the kiosk.
    public struct Settings: Sendable, Equatable {
        /// How long a new orientation must hold before the screen turns, in nanoseconds. Default 1 s.
        public var holdOff: UInt64 = Nanoseconds.perSecond
        /// The orientations the screen may take. Default: all four.
        public var allowed: Set<InterfaceOrientation> = Set(InterfaceOrientation.allCases)
        /// How a failed turn is tried again. Default `nil`: it is dropped, and the next change tries.
        public var retry: Retry?
        /// How often what the screen shows is read back and a lost turn made again, in
        /// nanoseconds. Default `nil`: never.
        public var verifyInterval: UInt64?

        public init(holdOff: UInt64 = Nanoseconds.perSecond, allowed: Set<InterfaceOrientation> = Set(InterfaceOrientation.allCases),
                    retry: Retry? = nil, verifyInterval: UInt64? = nil) {
            self.holdOff = holdOff; self.allowed = allowed; self.retry = retry; self.verifyInterval = verifyInterval
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
        /// The screen was turned to this orientation, but the backend's listing shows `shown`
        /// (its own word) now: the turn is made again.
        case drifted(InterfaceOrientation, shown: String, atNanoseconds: UInt64)
    }

    public let backend: KioskBackend
    public let settings: Settings
    private let runner: any RotationActionRunner
    private let lock: any OrientationLock
    /// What the screen shows, as far as we (or the controller that handed it over: `shown` at
    /// ``init(backend:settings:runner:lock:shown:)``) turned it; nil before the first turn.
    public private(set) var applied: InterfaceOrientation?
    /// The orientation waiting for its hold-off, and since when.
    public private(set) var pending: (orientation: InterfaceOrientation, since: UInt64)?
    /// What happened since the last ``takeEvents()``, oldest first. A long-running owner (the
    /// daemon, `plumb kiosk`) takes them after every tick, so the list stays short: a setup whose
    /// turn keeps failing adds one every 10 s for as long as it runs.
    public private(set) var events: [Event] = []

    /// Returns the events since the last call and forgets them.
    public func takeEvents() -> [Event] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }
    /// Turns that failed in a row (0 after a turn that worked).
    public private(set) var failuresInARow = 0
    /// When the first of those failures happened.
    public private(set) var failingSince: UInt64?
    /// With ``Settings/retry``: no turn is tried before this time after a failure.
    public private(set) var retryAt: UInt64?
    private var reportedLock = false
    private var lastObserved: InterfaceOrientation?
    /// With ``Settings/verifyInterval``: when the screen is next read back.
    private var nextVerify: UInt64?

    /// - Parameter shown: what the screen shows already because an earlier controller on the
    ///   same backend turned it (`plumb run` hands its kiosk's screen over across a SIGHUP
    ///   reload), or `nil` (the default) when nothing is known: the first turn is then made to
    ///   whatever is observed. With it the controller starts as if it had made that turn: an
    ///   observed `shown` turns nothing, and the read-back (``Settings/verifyInterval``) checks it.
    public init(backend: KioskBackend, settings: Settings = Settings(), runner: any RotationActionRunner,
                lock: any OrientationLock = NoOrientationLock(), shown: InterfaceOrientation? = nil) {
        self.backend = backend; self.settings = settings; self.runner = runner; self.lock = lock
        applied = shown
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
        verifyIfDue(at: now)
        guard let (orientation, since) = pending, now >= since, now - since >= settings.holdOff else { return nil }
        if let retryAt, now < retryAt { return nil }
        if lock.isLocked {
            if !reportedLock { events.append(.heldByLock(orientation, atNanoseconds: now)); reportedLock = true }
            return nil
        }
        let action = backend.action(for: orientation)
        do {
            try runner.perform(action)
        } catch {
            // The screen stays. Without a retry the next change tries again; with one, this turn
            // (or a newer orientation's) is tried after a pause that grows: no storm of attempts.
            failuresInARow += 1
            if failingSince == nil { failingSince = now }
            if let retry = settings.retry {
                retryAt = now + retry.pause(afterFailures: failuresInARow)
            } else {
                pending = nil
            }
            events.append(.failed(orientation, action: action.description, atNanoseconds: now))
            throw error
        }
        applied = orientation
        pending = nil
        failuresInARow = 0
        failingSince = nil
        retryAt = nil
        events.append(.rotated(orientation, action: action.description, atNanoseconds: now))
        return orientation
    }

    /// Reads back what the screen shows, at most every ``Settings/verifyInterval``, while the
    /// last turn stands (nothing pending, no retry's pause running, no lock). A listing that cannot
    /// be had (the compositor is away) or does not say is no finding: the next check looks again.
    /// A failed turn given up (the orientation went back to the one turned to) stops the read-back
    /// only for its retry's pause.
    private func verifyIfDue(at now: UInt64) {
        guard let interval = settings.verifyInterval, let applied, pending == nil, retryAt.map({ now >= $0 }) ?? true,
              let listingAction = backend.listingAction else { return }
        if let nextVerify, now < nextVerify { return }
        nextVerify = now + interval
        guard !lock.isLocked else { return }
        let listing: String?
        do { listing = try runner.capture(listingAction) } catch { return }
        guard let listing, let shown = backend.shownRotation(inListing: listing),
              shown != backend.shownWord(for: applied) else { return }
        events.append(.drifted(applied, shown: shown, atNanoseconds: now))
        self.applied = nil
        // Due at once: the orientation has held all along.
        pending = (applied, now >= settings.holdOff ? now - settings.holdOff : 0)
    }

    /// When ``tick(at:)`` should next be called to turn the screen on time, if anything is pending.
    public var nextDeadline: UInt64? { pending.map { max($0.since + settings.holdOff, retryAt ?? 0) } }
}
