import Foundation
import PlumbConfiguration
import PlumbDBus
import PlumbDrivers
import PlumbHAL
import PlumbLinux
import PlumbOrientation
import Synchronization

/// `plumb dbus --wait-for-sensor` (plumb-sensor-proxy.service): the service's source on a board
/// IMU that may not answer at start (nothing acknowledges its address: a HAT that powers up late,
/// a loose cable). The service then serves with HasAccelerometer false
/// (``SensorProxyService/init(source:busAddress:absentAtStart:events:)``) instead of exiting into
/// systemd's restarts; ``waitForSensor(service:clock:interval:shouldStop:)`` checks the chip every
/// second while no claim runs it and tells the service once it answers, so that desktops, which
/// claim only an accelerometer that is there, claim it.
///
/// One user of the chip at a time: a claim's start and a check take the same lock, so a desktop
/// claiming while a check runs waits for it (a check takes a few transfers), and no check runs
/// while a claim runs the sensor: the notifier says then whether it answers
/// (``SensorPresence/present`` once its samples come after a failure). A claim while the chip is
/// awaited checks it first, so a chip that answers by then is told present at once (the notifier
/// would see no failure to recover from, and say nothing).
final class DBusSensorWait: OrientationSource, @unchecked Sendable {
    /// What one check found (``attempt()``).
    enum Attempt: Equatable, Sendable {
        /// Nothing answers yet.
        case stillAbsent
        /// The chip answered now: the service was told.
        case answered
        /// The chip is not awaited (it answered at start, or since).
        case notAwaited
        /// A claim runs the sensor: its notifier follows the chip.
        case claimed
    }

    /// The service's source on the chip (the notifier).
    let inner: any OrientationSource
    /// The chip's source name ("IMU at 0x68 on /dev/i2c-1, polling").
    let name: String
    /// Why the chip was absent at start, or nil when it answered (no waiting then).
    let absentAtStart: String?
    /// Starts and stops the chip once: nil when it answered, the failure when nothing acknowledges
    /// its address; throws any other failure (``DBusLiveSensor/check(_:normal:configurationPath:positions:waitsForSensor:)``).
    private let check: @Sendable () throws(CLIError) -> MotionSourceError?
    /// Held across a claim's start and stop and across a check.
    private let access = NSLock()
    private let state: Mutex<(running: Bool, awaiting: Bool)>
    /// Whether the last check found the chip claimed by another plumb process
    /// (``I2CError/isClaimedByAnotherProcess``) rather than silent: the line said once it is
    /// taken names the process letting go.
    private let claimed: Mutex<Bool>
    /// Where the lines said while waiting go (`plumb dbus` prints them to standard error): the
    /// other plumb process letting go of a chip that then does not answer, or that a client's
    /// claim finds answering. The line said once the chip answers between claims is
    /// ``waitForSensor(service:clock:interval:shouldStop:)``'s.
    private let log: @Sendable (String) -> Void

    init(inner: any OrientationSource, name: String, absentAtStart: String?, claimedAtStart: Bool = false,
         log: @escaping @Sendable (String) -> Void = { _ in },
         check: @escaping @Sendable () throws(CLIError) -> MotionSourceError?) {
        self.inner = inner
        self.name = name
        self.absentAtStart = absentAtStart
        self.log = log
        self.check = check
        state = Mutex((running: false, awaiting: absentAtStart != nil))
        claimed = Mutex(claimedAtStart)
    }

    /// Whether the chip is still awaited.
    var isAwaiting: Bool { state.withLock { $0.awaiting } }

    func start(report: @escaping @Sendable (AccelerometerOrientation) -> Void) throws {
        try start(report: report, presence: { _ in })
    }

    func start(report: @escaping @Sendable (AccelerometerOrientation) -> Void,
               presence: @escaping @Sendable (SensorPresence) -> Void) throws {
        access.lock()
        defer { access.unlock() }
        state.withLock { $0.running = true }
        if state.withLock({ $0.awaiting }) {
            do {
                let failure = try check()
                let wasClaimed = follow(failure)
                if failure == nil {
                    state.withLock { $0.awaiting = false }
                    if wasClaimed { log("the other plumb process let go of \(name); a client's claim starts it (HasAccelerometer true)") }
                    presence(.present)
                }
            } catch {
                // Another chip answers at the address now: the notifier's start says it as its
                // failure (the claim stands, HasAccelerometer stays false).
            }
        }
        do {
            try inner.start(report: report, presence: { [weak self] told in
                if told == .present { self?.state.withLock { $0.awaiting = false } }
                presence(told)
            })
        } catch {
            state.withLock { $0.running = false }
            throw error
        }
    }

    func stop() {
        access.lock()
        defer { access.unlock() }
        inner.stop()
        state.withLock { $0.running = false }
    }

    /// One check of an awaited chip, unless a claim runs it; throws a failure other than silence
    /// at the address (another chip's WHO_AM_I there now). `answered` runs when the chip answers,
    /// still under the lock a claim's start takes: a claim starting next, whose notifier may find
    /// the chip gone again and say so, says it after this, not before.
    func attempt(answered: () -> Void = {}) throws(CLIError) -> Attempt {
        access.lock()
        defer { access.unlock() }
        let (running, awaiting) = state.withLock { ($0.running, $0.awaiting) }
        guard awaiting else { return .notAwaited }
        guard !running else { return .claimed }
        if let failure = try check() {
            follow(failure)
            return .stillAbsent
        }
        state.withLock { $0.awaiting = false }
        answered()
        return .answered
    }

    /// Notes what a check found (`failure`, nil when the chip answered) and returns whether the
    /// check before found the chip claimed by another plumb process. When that process let go
    /// and the chip it left does not answer, says so (``log``) and what is awaited now, as `plumb
    /// run` does; whether it was claimed stays known when the chip answered, for the line said then.
    @discardableResult
    private func follow(_ failure: MotionSourceError?) -> Bool {
        guard let failure else { return claimed.withLock { $0 } }
        let isClaimed = failure.busError?.isClaimedByAnotherProcess == true
        let wasClaimed = claimed.withLock { was in
            defer { was = isClaimed }
            return was
        }
        if wasClaimed, !isClaimed {
            for line in ["the other plumb process let go of \(name)"] + Self.waitLines(source: name, error: failure) { log(line) }
        }
        return wasClaimed
    }

    /// Checks the awaited chip every `interval` nanoseconds on `clock` until it answers (then
    /// tells `service` it is present and returns the log line), it is found by a claim's notifier
    /// (nil), or `shouldStop` says the service stopped (nil). Throws a failure other than silence
    /// at the address, which ends `plumb dbus` as it would have at start.
    func waitForSensor(service: SensorProxyService, clock: any MonotonicClock, interval: UInt64 = Nanoseconds.perSecond,
                       shouldStop: () -> Bool) throws(CLIError) -> String? {
        let since = clock.nowNanoseconds
        while true {
            clock.sleep(nanoseconds: interval)
            // Asked after the sleep, which a stop ends early: no check after a stop (it would
            // start the chip once more, and a check that blocks would keep the stop waiting).
            if shouldStop() { return nil }
            switch try attempt(answered: { service.sensorPresenceChanged(.present) }) {
            case .answered:
                let waited = (clock.nowNanoseconds &- since) / Nanoseconds.perSecond
                if claimed.withLock({ $0 }) {
                    return "the other plumb process let go of \(name) after \(waited) s of waiting (HasAccelerometer true)"
                }
                return "\(name) answers after \(waited) s of waiting (HasAccelerometer true)"
            case .notAwaited:
                return nil
            case .stillAbsent, .claimed:
                continue
            }
        }
    }

    /// The lines `plumb dbus` prints to standard error when it starts without its chip: what it
    /// waits for, and the wiring fix (or, for a chip another plumb process claims, which process).
    static func waitLines(source: String, error: MotionSourceError) -> [String] {
        if error.busError?.isClaimedByAnotherProcess == true {
            return ["\(source): \(error.description); serving without it (HasAccelerometer false), trying to claim the chip every second",
                    "fix: " + SensorPipeline.claimedFix]
        }
        return ["\(source) does not answer (\(error.description)); serving without it (HasAccelerometer false), trying it every second",
         "fix: " + SensorPipeline.stopFix(error, then: "plumb dbus takes it within a second once it answers.")]
    }
}

/// The thread on which `plumb dbus --wait-for-sensor` runs
/// ``DBusSensorWait/waitForSensor(service:clock:interval:shouldStop:)``, and its end.
///
/// ``stopAndJoin()`` wakes the thread from its wait between checks and returns only once the
/// thread has ended. A detached thread left running when the command returned was ended with the
/// process wherever it was: in the middle of a check, between the chip's start and its stop, it
/// left the chip running (measuring, drawing current) with no one to stop it; and a check that
/// failed after the service's run had returned was lost (the command exited 0).
final class DBusSensorWaitThread: @unchecked Sendable {
    /// Guards ``stopped``, ``finished`` and ``failure``; signalled when one changes.
    private let condition = NSCondition()
    private var stopped = false
    private var finished = false
    private var failure: CLIError?

    /// Starts checking `awaited` every `interval` on `clock` (its time, and the limit of each wait,
    /// which ``stopAndJoin()`` cuts short). `said` gets the line when the chip answers; a failure
    /// other than silence at the address stops `service` and is returned by ``stopAndJoin()``.
    init(awaited: DBusSensorWait, service: SensorProxyService, clock: any MonotonicClock = SystemClock(),
         interval: UInt64 = Nanoseconds.perSecond, said: @escaping @Sendable (String) -> Void) {
        let pausing = PausingClock(base: clock, owner: self)
        Thread.detachNewThread { [self] in
            do throws(CLIError) {
                if let line = try awaited.waitForSensor(service: service, clock: pausing, interval: interval,
                                                        shouldStop: { self.isStopped }) {
                    said(line)
                }
            } catch {
                condition.withLock { failure = error }
                service.stop()
            }
            condition.withLock {
                finished = true
                condition.broadcast()
            }
        }
    }

    /// Whether ``stopAndJoin()`` was called.
    var isStopped: Bool { condition.withLock { stopped } }

    /// Ends the waits, then waits for the thread to end (a check under way finishes, stopping the
    /// chip it started). Returns the failure that ended the checking, if one did.
    func stopAndJoin() -> CLIError? {
        condition.withLock {
            stopped = true
            condition.broadcast()
            while !finished { condition.wait() }
            return failure
        }
    }

    /// Waits up to `nanoseconds` of `base`'s time, less once ``stopAndJoin()`` was called.
    fileprivate func pause(_ nanoseconds: UInt64, base: any MonotonicClock) {
        let end = base.nowNanoseconds &+ nanoseconds
        condition.withLock {
            while !stopped {
                let now = base.nowNanoseconds
                guard now < end else { return }
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(end - now) / 1e9))
            }
        }
    }

    /// `base`'s time, whose sleeps end early once the owner is stopped.
    private final class PausingClock: MonotonicClock, @unchecked Sendable {
        let base: any MonotonicClock
        unowned let owner: DBusSensorWaitThread
        init(base: any MonotonicClock, owner: DBusSensorWaitThread) {
            self.base = base
            self.owner = owner
        }
        var nowNanoseconds: UInt64 { base.nowNanoseconds }
        func sleep(nanoseconds: UInt64) { owner.pause(nanoseconds, base: base) }
    }
}
