import Dispatch
import Foundation
import PlumbHAL
import PlumbSimulation
import Synchronization
import Testing
@testable import PlumbOrientation

/// A monitor whose reads can be held inside, as a hung daemon holds a D-Bus read: `hold()` makes
/// the next reads wait at a gate until `release()` (or 60 s, so a test that would otherwise hang
/// fails instead).
final class GatedPowerMonitor: PowerStateMonitor {
    struct Counts { var started = 0; var finished = 0; var holding = false; var state = PowerState() }
    let counts = Mutex(Counts())
    let gate = DispatchSemaphore(value: 0)

    /// The state and whether to hold are taken together when a read starts.
    func readPowerState() throws(PowerMonitorError) -> PowerState {
        let (hold, state) = counts.withLock { c in c.started += 1; return (c.holding, c.state) }
        if hold { _ = gate.wait(timeout: .now() + 60) }
        counts.withLock { $0.finished += 1 }
        return state
    }

    func set(_ state: PowerState) { counts.withLock { $0.state = state } }
    /// Reads from now on are held, and then return `state`.
    func hold(returning state: PowerState) { counts.withLock { $0.holding = true; $0.state = state } }
    func release() {
        counts.withLock { $0.holding = false }
        gate.signal()
    }
    var started: Int { counts.withLock { $0.started } }
    var finished: Int { counts.withLock { $0.finished } }
    /// A read has started and not returned.
    var inRead: Bool { counts.withLock { $0.started > $0.finished } }
}

/// Waits (real time, bounded) until `condition` holds; false if it never did.
func waitFor(_ seconds: Double = 30, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.001)
    }
    return condition()
}

@Suite("BackgroundPowerStateMonitor: power-state reads off the sensor's thread")
struct BackgroundPowerStateMonitorTests {
    static let saver = PowerState(powerSaver: true, reasons: ["platform_profile low-power"])

    @Test func theFirstReadWaitsForTheFirstState() throws {
        let inner = GatedPowerMonitor()
        inner.set(Self.saver)
        let monitor = BackgroundPowerStateMonitor(inner, pollInterval: 60)
        #expect(try monitor.readPowerState() == Self.saver)
        #expect(inner.started == 1)
        monitor.sessionEnded()
    }

    /// The wrapped monitor is stuck inside a read: every read of the wrapper still returns at once,
    /// with the latest state, and the state after the stuck read once it returns.
    @Test func aReadThatHangsDoesNotHoldTheCaller() throws {
        let inner = GatedPowerMonitor()
        let monitor = BackgroundPowerStateMonitor(inner, pollInterval: 0.04)
        #expect(try monitor.readPowerState() == PowerState())
        inner.hold(returning: Self.saver)
        #expect(waitFor { inner.inRead }, "the poller never read again")
        var answered = 0
        for _ in 0..<1000 where try monitor.readPowerState() == PowerState() { answered += 1 }
        // All of them while the read was still held (it waits for release() or 60 s).
        #expect(inner.inRead)
        #expect(answered == 1000)
        inner.release()
        #expect(waitFor { (try? monitor.readPowerState()) == Self.saver }, "the state after the held read never arrived")
        monitor.sessionEnded()
    }

    @Test func aFirstReadThatHangsIsAnErrorAfterTheTimeoutThenTheState() throws {
        let inner = GatedPowerMonitor()
        inner.hold(returning: Self.saver)
        let monitor = BackgroundPowerStateMonitor(inner, pollInterval: 0.04, firstReadTimeout: 0.2)
        #expect(throws: PowerMonitorError.self) { _ = try monitor.readPowerState() }
        #expect(inner.inRead, "the caller returned while the read went on")
        // Only the first caller waits: 100 more calls, which would take 20 s if each waited 0.2 s.
        let start = Date()
        for _ in 0..<100 { #expect(throws: PowerMonitorError.self) { _ = try monitor.readPowerState() } }
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(inner.inRead)
        inner.release()
        #expect(waitFor { (try? monitor.readPowerState()) == Self.saver })
        monitor.sessionEnded()
    }

    /// The poller thread ends with the session, and when nobody reads any more; a new session
    /// starts a new one and waits for a fresh state.
    @Test func thePollerEndsWithTheSessionAndWhenNotRead() throws {
        let inner = GatedPowerMonitor()
        let monitor = BackgroundPowerStateMonitor(inner, pollInterval: 0.02)
        monitor.prepare()
        #expect(waitFor { inner.finished >= 1 })
        monitor.sessionEnded()
        #expect(waitFor { monitor.pollerThreads == 0 }, "the poller did not end with the session")

        inner.set(Self.saver)
        #expect(try monitor.readPowerState() == Self.saver, "a new session reads afresh")
        // No read for three poll intervals (60 ms): the thread ends by itself.
        #expect(waitFor { monitor.pollerThreads == 0 }, "an unread poller did not end")
    }

    /// A session stopped while the wrapped monitor is stuck: its poller leaves once the read
    /// returns, and the result is not kept for the next session.
    @Test func aPollerStuckInAReadLeavesWhenItReturns() throws {
        let inner = GatedPowerMonitor()
        let monitor = BackgroundPowerStateMonitor(inner, pollInterval: 0.04)
        _ = try monitor.readPowerState()
        inner.hold(returning: Self.saver)
        #expect(waitFor { inner.inRead })
        monitor.sessionEnded()
        #expect(monitor.pollerThreads == 1, "still inside the read")
        inner.release()
        #expect(waitFor { monitor.pollerThreads == 0 })
    }

    /// The notifier reads the monitor on its reader thread: a monitor stuck inside a read must
    /// not stop the samples (at 833 Hz an LSM6DSO FIFO holds a quarter of a second).
    @Test func theNotifierKeepsReadingSamplesWhileTheMonitorHangs() async throws {
        let inner = GatedPowerMonitor()
        let log = SourceLog()
        let monitor = BackgroundPowerStateMonitor(inner, pollInterval: 0.05)
        let motion = MotionOrientation(source: { ProfileSource(.rest(), log: log) }, energy: EnergySettings(pollInterval: 0.05),
                                       monitor: monitor)
        inner.hold(returning: Self.saver)
        motion.start()
        #expect(await eventually { inner.inRead }, "the monitor was never read")
        let before = log.reads
        #expect(await eventually { log.reads > before + 20 }, "the reader stopped while the monitor hung")
        #expect(inner.inRead, "the samples came while the monitor's read was still held")
        inner.release()
        motion.stop()
        #expect(await eventually { monitor.pollerThreads == 0 }, "the poller outlived the session")
    }
}
