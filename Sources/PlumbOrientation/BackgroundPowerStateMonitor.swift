import Dispatch
import Foundation
import Synchronization

/// Reads another ``PowerStateMonitor`` on a thread of its own, so the sensor's thread never waits
/// for it: ``readPowerState()`` returns the latest state read, at once.
///
/// A monitor that asks a daemon over D-Bus (power-profiles-daemon: up to 100 ms when it hangs) or
/// reads sysfs may block; the notifier and `plumb run` poll the monitor from the thread that
/// drains the IMU, and at 833 Hz an uncompressed LSM6DSO FIFO holds about 0.25 s. Wrapped in this
/// type, those reads happen on a poller thread that keeps the latest result behind a `Mutex`.
///
/// Timing, so that a change is seen as soon as with a direct read:
/// - ``prepare()`` (or the first ``readPowerState()``) starts the poller; the first
///   ``readPowerState()`` of a session waits for its first read (at most ``firstReadTimeout``),
///   so the state is there from the start.
/// - After that the poller reads once per ``pollInterval``, timed to finish just before the
///   caller's next read is due (``lead`` before it), so each read the caller makes returns a
///   state at most ``lead`` old, as a direct read every ``pollInterval`` would. A caller that reads
///   more often (a simulation ahead of real time) still gets a read every ``pollInterval``, and
///   never more than one every ``lead``.
/// - ``sessionEnded()`` (the notifier's reader and `plumb run` call it when they stop), the
///   monitor's release, or no read for three poll intervals ends the poller thread; the next
///   ``readPowerState()`` starts a new one and waits for a fresh state again. A poller inside a
///   read when it is told to stop finishes that read (the wrapped monitor bounds it), drops the
///   result and exits.
///
/// The poller sleeps in real time (`DispatchTime`, CLOCK_MONOTONIC): it is a real thread whatever
/// clock the samples use.
public final class BackgroundPowerStateMonitor: PowerStateMonitor {
    /// The monitor read on the poller thread.
    public var monitor: any PowerStateMonitor { core.monitor }
    /// How often the caller reads, seconds (``EnergySettings/pollInterval``).
    public var pollInterval: Double { Double(core.interval) / 1e9 }
    /// How long the first read of a session may keep the caller waiting, seconds.
    public var firstReadTimeout: Double { Double(core.firstReadTimeout) / 1e9 }
    /// How long before the caller's next read the poller reads, seconds: a quarter of the poll
    /// interval, at most 0.25 s.
    public var lead: Double { Double(core.lead) / 1e9 }

    private let core: Core

    /// - Parameters:
    ///   - monitor: the monitor to read off the caller's thread.
    ///   - pollInterval: how often the caller reads, seconds. Default 2 (``EnergySettings/pollInterval``).
    ///     Held as ``EnergySettings/pollInterval`` holds it: to
    ///     ``EnergySettings/minimumPollInterval``…``OrientationClassifier/longestWait`` (0 or less
    ///     polls every 10 ms, `.infinity` that longest wait), not a number the default.
    ///   - firstReadTimeout: how long the first read of a session may wait, seconds. Default 0.2
    ///     (power-profiles-daemon's reader gives up after 0.1 s). Held to
    ///     0…``OrientationClassifier/longestWait`` (a negative one does not wait), not a number
    ///     the default.
    public init(_ monitor: any PowerStateMonitor, pollInterval: Double = EnergySettings.default.pollInterval,
                firstReadTimeout: Double = 0.2) {
        let interval = EnergySettings.held(pollInterval: pollInterval)
        let timeout = firstReadTimeout.isNaN ? 0.2 : min(max(firstReadTimeout, 0), OrientationClassifier.longestWait)
        core = Core(monitor: monitor, interval: UInt64((interval * 1e9).rounded()), firstReadTimeout: UInt64((timeout * 1e9).rounded()))
    }

    deinit { core.stop() }

    /// The latest state the poller read (or the error it met); the first call of a session waits
    /// for the first read, up to ``firstReadTimeout``.
    ///
    /// - Throws: the wrapped monitor's error from its latest read, or, when the first read has
    ///   not finished in time, an error saying so (the read goes on; the next call may have it).
    public func readPowerState() throws(PowerMonitorError) -> PowerState {
        try core.read().get()
    }

    /// Starts the poller, so that the first ``readPowerState()`` finds its first read done (or
    /// under way).
    public func prepare() { core.start() }

    /// Ends the poller thread (it exits once a read in progress returns).
    public func sessionEnded() { core.stop() }

    /// Poller threads that have not exited yet (0 or 1; briefly 2 after a stop while a read is
    /// in progress and a new session started).
    public var pollerThreads: Int { core.state.withLock { $0.threads } }

    /// The state and the poller thread, shared by the monitor and its thread (which must not keep
    /// the monitor itself alive, so that releasing it stops the thread).
    private final class Core: Sendable {
        struct State {
            var latest: Result<PowerState, PowerMonitorError>?
            /// The poller thread that is current; others exit.
            var generation = 0
            var running = false
            var threads = 0
            var lastCall: UInt64 = 0
            /// When the last read started.
            var lastRead: UInt64?
            /// Callers waiting for a session's first read.
            var waiting = 0
            /// A caller already waited for this session's first read in vain: the next ones do
            /// not wait.
            var firstReadLate = false

            /// Ends the session: the current poller exits, and the next read starts a new one and
            /// waits for a fresh state.
            mutating func endSession() {
                running = false
                generation += 1
                latest = nil
                lastRead = nil
                firstReadLate = false
            }
        }

        let monitor: any PowerStateMonitor
        let interval: UInt64
        let firstReadTimeout: UInt64
        let lead: UInt64
        let state = Mutex(State())
        /// Wakes the poller early (a stop).
        let wake = DispatchSemaphore(value: 0)
        /// Signalled once per waiting caller after a read.
        let firstRead = DispatchSemaphore(value: 0)

        init(monitor: any PowerStateMonitor, interval: UInt64, firstReadTimeout: UInt64) {
            self.monitor = monitor
            self.interval = interval
            self.firstReadTimeout = firstReadTimeout
            lead = min(interval / 4, 250_000_000)
        }

        static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

        /// Starts a poller thread unless one runs; counts as a read by the caller.
        func start() {
            let now = Self.now()
            let generation = state.withLock { s -> Int? in
                s.lastCall = now
                return Self.claimThread(&s)
            }
            if let generation { spawn(generation) }
        }

        /// Marks a new poller thread as running, if none is; its generation.
        private static func claimThread(_ s: inout State) -> Int? {
            guard !s.running else { return nil }
            s.running = true
            s.generation += 1
            s.threads += 1
            return s.generation
        }

        private func spawn(_ generation: Int) {
            let thread = Thread { [self] in poll(generation: generation) }
            thread.name = "plumb power poller"
            thread.start()
        }

        func read() -> Result<PowerState, PowerMonitorError> {
            let now = Self.now()
            let (latest, newThread, wait) = state.withLock { s -> (Result<PowerState, PowerMonitorError>?, Int?, Bool) in
                s.lastCall = now
                let start = Self.claimThread(&s)
                let wait = s.latest == nil && !s.firstReadLate
                if wait { s.waiting += 1 }
                return (s.latest, start, wait)
            }
            if let generation = newThread { spawn(generation) }
            if let latest { return latest }
            if wait {
                // The session's first read: wait for it, a bounded time, once.
                let deadline = DispatchTime(uptimeNanoseconds: now &+ firstReadTimeout)
                while true {
                    if let latest = state.withLock({ $0.latest }) { return latest }
                    if firstRead.wait(timeout: deadline) == .timedOut { break }
                }
                let late = state.withLock { s -> Result<PowerState, PowerMonitorError>? in
                    if s.latest == nil { s.firstReadLate = true }
                    return s.latest
                }
                if let late { return late }
            }
            return .failure(PowerMonitorError(path: "power state",
                message: "the first read has taken longer than \(Double(firstReadTimeout) / 1e9) s; it goes on in the background, and a later poll uses it"))
        }

        func stop() {
            state.withLock { s in
                if s.running { s.endSession() }
            }
            wake.signal()
        }

        private enum Step { case read, sleep(until: UInt64), exit }

        /// The poller thread: reads when due, sleeps until the next read is due, exits when it is
        /// no longer the current poller or nobody has read for three poll intervals.
        func poll(generation: Int) {
            defer { state.withLock { $0.threads -= 1 } }
            while true {
                let step = state.withLock { s -> Step in
                    guard s.generation == generation else { return .exit }
                    let now = Self.now()
                    if now &- s.lastCall > 3 * interval {
                        s.endSession()
                        return .exit
                    }
                    guard let last = s.lastRead else { return .read }
                    // Just before the caller's next read, at most one interval after the last
                    // read, at least `lead` after it.
                    let due = max(last &+ lead, min(s.lastCall &+ interval &- lead, last &+ interval))
                    return now >= due ? .read : .sleep(until: due)
                }
                switch step {
                case .exit:
                    return
                case .sleep(let until):
                    _ = wake.wait(timeout: DispatchTime(uptimeNanoseconds: until))
                case .read:
                    let started = Self.now()
                    let result: Result<PowerState, PowerMonitorError>
                    do throws(PowerMonitorError) {
                        result = .success(try monitor.readPowerState())
                    } catch {
                        result = .failure(error)
                    }
                    let waiting = state.withLock { s -> Int in
                        guard s.generation == generation else { return 0 }
                        s.latest = result
                        s.lastRead = started
                        defer { s.waiting = 0 }
                        return s.waiting
                    }
                    for _ in 0..<waiting { firstRead.signal() }
                }
            }
        }
    }
}
