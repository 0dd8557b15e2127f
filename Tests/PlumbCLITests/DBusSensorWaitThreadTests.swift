import Dispatch
import Foundation
import PlumbDBus
import PlumbHAL
import PlumbLinux
import PlumbOrientation
import Synchronization
import Testing
@testable import PlumbCLI

/// `plumb dbus --wait-for-sensor`'s checking thread ends before the command does. It was a
/// detached thread that the command only flagged: the process then ended it wherever it was, in
/// a check between the chip's start and its stop too, which left the chip running with no one
/// to stop it, and a failure found after the flag was lost.
@Suite struct DBusSensorWaitThreadTests {
    /// A check that never finds the chip, holding each check until the test lets it go.
    final class HeldCheck: Sendable {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        /// Whether `stopAndJoin()` had returned when a check ended.
        let joinedWhenACheckEnded = Mutex<[Bool]>([])
        let joined = Atomic<Bool>(false)

        func check() -> MotionSourceError? {
            entered.signal()
            release.wait()
            joinedWhenACheckEnded.withLock { $0.append(joined.load(ordering: .sequentiallyConsistent)) }
            return .bus(I2CError(errno: Errno.ENXIO, bus: "/dev/i2c-1", address: I2CAddress(0x68)))
        }
    }

    static func awaited(_ held: HeldCheck) -> DBusSensorWait {
        DBusSensorWait(inner: ScriptedOrientationSource(steps: [.init(.normal, for: 1)], clock: SystemClock()),
                       name: "IMU at 0x68 on /dev/i2c-1, polling", absentAtStart: "test",
                       check: { () throws(CLIError) -> MotionSourceError? in held.check() })
    }

    @Test func stopAndJoinWaitsForACheckUnderWay() throws {
        let held = HeldCheck()
        let service = SensorProxyService(source: nil)
        let thread = DBusSensorWaitThread(awaited: Self.awaited(held), service: service, interval: 1_000_000, said: { _ in })
        held.entered.wait()  // A check is under way (the chip started, not yet stopped).
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<CLIError?>(nil)
        Thread.detachNewThread {
            let result = thread.stopAndJoin()
            held.joined.store(true, ordering: .sequentiallyConsistent)
            failure.withLock { $0 = result }
            done.signal()
        }
        // Give a stopAndJoin that does not wait the time to return; one that waits is still waiting.
        let returnedEarly = done.wait(timeout: .now() + 0.2) == .success
        held.release.signal()
        if !returnedEarly { done.wait() }
        #expect(held.joinedWhenACheckEnded.withLock { $0 } == [false], "stopAndJoin returned while the check still ran")
        #expect(failure.withLock { $0 } == nil)
        #expect(thread.isStopped)
    }

    /// The wait between checks is cut short: stopAndJoin does not wait out the interval.
    @Test func stopAndJoinEndsTheWaitBetweenChecks() throws {
        let held = HeldCheck()
        let service = SensorProxyService(source: nil)
        // An hour between checks: only the stop ends the first wait.
        let thread = DBusSensorWaitThread(awaited: Self.awaited(held), service: service,
                                          interval: 3600 * Nanoseconds.perSecond, said: { _ in })
        #expect(thread.stopAndJoin() == nil)
        #expect(held.joinedWhenACheckEnded.withLock { $0 }.isEmpty, "no check ran")
    }

    /// A clock that says each time it is read (the thread reads it for its start, then twice on
    /// entering its first wait).
    final class ReadClock: MonotonicClock, @unchecked Sendable {
        let read = DispatchSemaphore(value: 0)
        var nowNanoseconds: UInt64 { read.signal(); return SystemClock().nowNanoseconds }
        func sleep(nanoseconds: UInt64) { SystemClock().sleep(nanoseconds: nanoseconds) }
    }

    /// A stop while the thread waits between checks ends the wait and runs no check after it.
    /// The thread checked once more after the stop ended its wait: a check that blocks (the chip's
    /// start) kept the stop waiting (the ThreadSanitizer run, slower, hung here for an hour).
    @Test func aStopDuringTheWaitRunsNoCheckAfterIt() throws {
        let held = HeldCheck()
        let service = SensorProxyService(source: nil)
        let clock = ReadClock()
        let thread = DBusSensorWaitThread(awaited: Self.awaited(held), service: service, clock: clock,
                                          interval: 3600 * Nanoseconds.perSecond, said: { _ in })
        // The start's read, the wait's end, the wait's first look: the thread is in its wait.
        for _ in 0..<3 { clock.read.wait() }
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = thread.stopAndJoin()
            done.signal()
        }
        let returned = done.wait(timeout: .now() + 30) == .success
        #expect(returned, "stopAndJoin did not return: a check ran after the stop")
        if !returned {
            held.release.signal()
            done.wait()
        }
        #expect(held.joinedWhenACheckEnded.withLock { $0 }.isEmpty, "a check ran after the stop")
    }

    /// The service is told "present" under the lock a claim's start takes: a claim starting as
    /// the chip answers, whose notifier finds the chip gone again, says "absent" after the check's
    /// "present", so HasAccelerometer does not end true with the chip away.
    @Test func aClaimStartingAsTheChipAnswersIsToldAfterTheCheck() throws {
        let claimWaiting = DispatchSemaphore(value: 0)
        let told = Mutex<[String]>([])
        let wait = DBusSensorWait(inner: ScriptedOrientationSource(steps: [.init(.normal, for: 1)], clock: SystemClock()),
                                  name: "IMU at 0x68 on /dev/i2c-1, polling", absentAtStart: "test",
                                  check: { () throws(CLIError) -> MotionSourceError? in nil })
        let claimDone = DispatchSemaphore(value: 0)
        let result = try wait.attempt(answered: {
            Thread.detachNewThread {
                claimWaiting.signal()
                do { try wait.start(report: { _ in }, presence: { _ in }) } catch { Issue.record("claim failed: \(error)") }
                told.withLock { $0.append("claim started") }
                claimDone.signal()
            }
            claimWaiting.wait()
            // A claim that could start now would have done so in this time.
            if claimDone.wait(timeout: .now() + 0.2) == .success { claimDone.signal() }
            told.withLock { $0.append("present") }
        })
        guard claimDone.wait(timeout: .now() + 60) == .success else {
            Issue.record("the claim's start did not return within 60 s")
            return
        }
        wait.stop()
        #expect(result == .answered)
        #expect(told.withLock { $0 } == ["present", "claim started"])
    }
}
