import Dispatch
import Foundation
import PlumbDisplay
import PlumbOrientation
import Synchronization

/// Runs a kiosk's ``KioskTurns`` — its turns, read-backs and retries, each a wlr-randr, xrandr or
/// user command — on a thread of its own, so that `plumb run`'s loop and `plumb kiosk`'s on the
/// board's IMU never wait for a tool.
///
/// `plumb run`'s loop reads the sensor, feeds every output and pings systemd's watchdog; `plumb
/// kiosk`'s reads the sensor and stops it on a signal. A tool run inside
/// it held all of that up: tens to hundreds of milliseconds for a healthy wlr-randr on a Pi Zero 2 W,
/// up to its deadline (``SystemActionRunner/deadline``, 3 s, and a second more to kill it) for a
/// compositor that froze; an MPU-6050's 1024-byte FIFO holds less than a second at 100 Hz, so
/// samples were lost and the stream reset. Now the loop only leaves requests here and takes the
/// reports; the thread ("plumb kiosk") runs the controller and its tools.
///
/// - Requests carry the loop's time: ``want(_:at:)`` passes an interface orientation on to the
///   controller (``KioskTurns/observe(_:at:)``), ``tick(at:)`` ticks it (``KioskTurns/tick(at:)``).
///   The hold-off, allowed set, retries and read-backs are the controller's, timed by those
///   times as before; the thread keeps no clock of its own.
/// - Coalesced: requests that come while a tool runs wait, and only the newest counts. The
///   orientations wanted meanwhile are kept as their last two that differ (which give the
///   controller the same pending turn, and its hold-off the same start, as all of them would), and
///   only the latest tick is made: three orientations wanted during one hung tool make one more
///   turn, to the newest, never a backlog of turns.
/// - In order: the reports (``KioskTurns/Report``: turned, failed with its fix, held back, the
///   screen showing something else) wait in a mailbox for ``takeReports()``, which the loop calls
///   every step (``DaemonOutput/takeEvents()``), oldest first; nothing is dropped.
/// - The end (``end(within:)``): the tool under way finishes (its deadline bounds it), nothing
///   more starts, and the thread exits; then the owner reads what the screen shows
///   (``shownAfterEnd()``) and turns it upright or hands it over to a reload's next kiosk
///   (``performAfterEnd(_:)``) on its own thread. An output released without its end closes its
///   worker (``close()``): the thread exits after the tool under way. So no tool runs once the
///   output is put back or handed over, and each output's thread is gone by then: reloads do not
///   pile threads up.
///
/// ``Placement/callersThread`` runs the same requests on the caller's thread instead, each before
/// it returns, as the loop did before: for sessions in virtual time (tests), whose timeline must
/// come out exactly.
final class KioskWorker: Sendable {
    /// Where the tools run.
    enum Placement: Sendable, Equatable {
        /// On a thread of the worker's own: `plumb run`, and `plumb kiosk` on the board's IMU.
        case ownThread
        /// On the caller's thread, inside ``want(_:at:)`` and ``tick(at:)``: sessions in virtual
        /// time (`plumb kiosk --simulate` and `--replay`, tests), where the loop would otherwise
        /// run ahead of the thread.
        case callersThread
    }

    /// How long the end waits for the tick under way (seconds; 15): a tick runs at most three
    /// tools one after the other (a read-back, the turn it calls for, and the listing that
    /// diagnoses a failed turn), each stopped at ``SystemActionRunner/deadline``, killed a second
    /// later and waited for a second more. A tool that answers takes milliseconds.
    static let endWait = 3 * (SystemActionRunner.deadline + 2)

    let placement: Placement
    /// The orientations the kiosk may take (``KioskController/Settings/allowed``), for the
    /// owner's ``KioskTurns/Gate``.
    let allowed: Set<InterfaceOrientation>

    /// An interface orientation wanted at a time (the loop's clock, nanoseconds).
    private struct Wanted: Sendable {
        var orientation: InterfaceOrientation
        var at: UInt64
    }

    /// What the loop and the thread share.
    private struct Mailbox: Sendable {
        /// Orientations wanted and not yet passed to the controller, oldest first: at most the
        /// last two that differ.
        var wanted: [Wanted] = []
        /// The latest time a tick was asked for and not yet made.
        var tickAt: UInt64?
        /// What the turns told, oldest first, until ``takeReports()``.
        var reports: [KioskTurns.Report] = []
        /// What the screen shows as far as the controller knows, after its last tick.
        var applied: InterfaceOrientation?
        /// The thread waits for ``wake``: the next request signals it.
        var idle = false
        /// Inside a tick (a tool may be running).
        var busy = false
        /// ``end(within:)`` (or the release) asked for the end: nothing more starts.
        var ending = false
        /// The thread returned (or, on the caller's thread, the end was asked for).
        var ended = false

        /// Takes the requests waiting (marking the worker busy), or nil when there are none or
        /// the end was asked for.
        mutating func take() -> Batch? {
            guard !ending, let tickAt else { return nil }
            defer {
                wanted.removeAll()
                self.tickAt = nil
                busy = true
            }
            return Batch(wanted: wanted, tickAt: tickAt)
        }
    }

    /// The turns and the runner they run tools with: held by whoever runs a tool — the thread for
    /// each tick, the owner after the end — so that two tools never run at once.
    private struct Held {
        let turns: KioskTurns
        let runner: any RotationActionRunner & Sendable
    }

    private let held: Mutex<Held>
    private let mailbox: Mutex<Mailbox>
    /// Wakes the thread: a request while it is idle, or the end.
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled when the thread returns (and again by each waiter, for the next).
    private let finished = DispatchSemaphore(value: 0)

    /// Makes the kiosk's ``KioskTurns`` and, with ``Placement/ownThread``, starts the thread that
    /// runs them.
    ///
    /// - Parameters:
    ///   - settings: the controller's (``KioskTurns/init(backend:settings:runner:lock:shown:)``
    ///     fills in the retries and read-backs).
    ///   - runner: runs the tools, on the thread (and on the owner's after the end).
    ///   - lock: holds the screen as it is while set (`plumb kiosk`'s lock file and SIGUSR1),
    ///     read on the thread.
    ///   - shown: what the screen shows already (a reload's handover), or `nil`.
    init(backend: KioskBackend, settings: KioskController.Settings, runner: any RotationActionRunner & Sendable,
         lock: any OrientationLock & Sendable = NoOrientationLock(), shown: InterfaceOrientation?, placement: Placement) {
        self.placement = placement
        allowed = settings.allowed
        let turns = KioskTurns(backend: backend, settings: settings, runner: runner, lock: lock, shown: shown)
        mailbox = Mutex(Mailbox(applied: turns.controller.applied))
        held = Mutex(Held(turns: turns, runner: runner))
        guard placement == .ownThread else { return }
        let thread = Thread { [self] in runLoop() }
        thread.name = "plumb kiosk"
        thread.start()
    }

    /// Passes `orientation`, wanted since `now` (the loop's clock), on to the controller and ticks
    /// it at `now`.
    func want(_ orientation: InterfaceOrientation, at now: UInt64) {
        post { m in
            // The same as the last one waiting changes nothing the controller keeps.
            if m.wanted.last?.orientation != orientation { m.wanted.append(Wanted(orientation: orientation, at: now)) }
            if m.wanted.count > 2 { m.wanted.removeFirst(m.wanted.count - 2) }
            m.tickAt = max(m.tickAt ?? now, now)
        }
    }

    /// Ticks the controller at `now` (the loop's clock): a turn whose hold-off or retry pause has
    /// passed is made, and the screen is read back when that is due.
    func tick(at now: UInt64) {
        post { m in m.tickAt = max(m.tickAt ?? now, now) }
    }

    /// The reports since the last call, oldest first.
    func takeReports() -> [KioskTurns.Report] {
        mailbox.withLock { m in
            defer { m.reports.removeAll() }
            return m.reports
        }
    }

    /// What the screen shows as far as the controller knew after its last tick (the shown
    /// rotation a reload handed over before the first).
    var applied: InterfaceOrientation? { mailbox.withLock { $0.applied } }

    /// Whether a tick is under way (a tool may be running).
    var isBusy: Bool { mailbox.withLock { $0.busy } }

    /// Ends the worker: requests waiting are dropped, nothing more starts, and the tick under way
    /// (with ``Placement/ownThread``) is waited for, at most `seconds`. Returns whether the
    /// worker has ended; once it has, ``shownAfterEnd()`` and ``performAfterEnd(_:)`` may be
    /// called. Called again, it waits again, as long.
    @discardableResult
    func end(within seconds: Double) -> Bool {
        let ended = mailbox.withLock { m -> Bool in
            m.ending = true
            m.wanted.removeAll()
            m.tickAt = nil
            if placement == .callersThread { m.ended = true }
            return m.ended
        }
        if ended { return true }
        wake.signal()
        guard finished.wait(timeout: .now() + seconds) == .success else { return false }
        finished.signal()
        return true
    }

    /// Asks for the end without waiting (the output is released): the thread exits after the
    /// tick under way.
    func close() {
        mailbox.withLock { m in
            m.ending = true
            m.wanted.removeAll()
            m.tickAt = nil
        }
        wake.signal()
    }

    /// After ``end(within:)`` returned true: what the screen shows as far as the controller knows.
    func shownAfterEnd() -> InterfaceOrientation? {
        held.withLock { $0.turns.controller.applied }
    }

    /// After ``end(within:)`` returned true: the last failure (its message and fix) when the
    /// screen does not show the orientation because its turn still fails
    /// (``KioskTurns/isFailing``), else `nil`. `plumb kiosk` ends with it.
    func failureAfterEnd() -> CLIError? {
        held.withLock { h in
            guard h.turns.isFailing, let failure = h.turns.lastFailure else { return nil }
            return .failure(failure.message, fix: failure.fix)
        }
    }

    /// With ``Placement/callersThread``: when the controller next has something to do (a hold-off
    /// or a retry's pause ends), for a loop in virtual time to tick it exactly then.
    var nextDeadline: UInt64? {
        held.withLock { $0.turns.controller.nextDeadline }
    }

    /// After ``end(within:)`` returned true: runs `action` (the turn upright on stop, or after a
    /// reload no output took) with the turns' runner, on the caller's thread.
    func performAfterEnd(_ action: RotationAction) throws {
        try held.withLock { h throws in try h.runner.perform(action) }
    }

    // MARK: - Requests

    /// Leaves a request in the mailbox and wakes the thread if it is idle; on the caller's thread,
    /// makes it at once. Nothing is left once the end was asked for.
    private func post(_ change: (inout Mailbox) -> Void) {
        let signal = mailbox.withLock { m -> Bool in
            guard !m.ending else { return false }
            change(&m)
            defer { m.idle = false }
            return m.idle
        }
        switch placement {
        case .ownThread:
            if signal { wake.signal() }
        case .callersThread:
            if let batch = mailbox.withLock({ $0.take() }) { run(batch) }
        }
    }

    /// The requests waiting: the orientations wanted and the tick time.
    private struct Batch: Sendable {
        var wanted: [Wanted]
        var tickAt: UInt64
    }

    /// Passes the batch to the controller and ticks it (the tools run here), then leaves its
    /// reports and what the screen shows in the mailbox.
    private func run(_ batch: Batch) {
        let (reports, applied) = held.withLock { h -> ([KioskTurns.Report], InterfaceOrientation?) in
            for wanted in batch.wanted { h.turns.observe(wanted.orientation, at: wanted.at) }
            let reports = h.turns.tick(at: batch.tickAt)
            return (reports, h.turns.controller.applied)
        }
        mailbox.withLock { m in
            m.reports += reports
            m.applied = applied
            m.busy = false
        }
    }

    /// The thread: runs each batch as it comes, waits while there is none, returns at the end.
    private func runLoop() {
        defer {
            mailbox.withLock { $0.ended = true }
            finished.signal()
        }
        while true {
            enum Step { case run(Batch), wait, exit }
            let step = mailbox.withLock { m -> Step in
                if m.ending { return .exit }
                if let batch = m.take() { return .run(batch) }
                m.idle = true
                return .wait
            }
            switch step {
            case .exit: return
            case .wait: wake.wait()
            case .run(let batch): run(batch)
            }
        }
    }
}
