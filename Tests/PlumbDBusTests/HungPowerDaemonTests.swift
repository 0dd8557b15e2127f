import Dispatch
import Foundation
import PlumbDrivers
import PlumbHAL
import PlumbOrientation
import PlumbSimulation
import Synchronization
import Testing
@testable import PlumbDBus

/// power-profiles-daemon's ActiveProfile as a ``PowerStateMonitor``, asked as the CLI's
/// SystemPowerStateMonitor asks it (that module is not visible here). After each answer (or
/// non-answer) the read is held at a gate while `holding`, so the test can see what the sensor
/// loop does while a read is in progress for as long as it needs, without timing anything.
final class DaemonPowerMonitor: PowerStateMonitor {
    struct Counts { var started = 0; var finished = 0; var holding = true }
    let reader: PowerProfilesReader
    let counts = Mutex(Counts())
    let gate = DispatchSemaphore(value: 0)

    init(reader: PowerProfilesReader) { self.reader = reader }

    func readPowerState() throws(PowerMonitorError) -> PowerState {
        counts.withLock { $0.started += 1 }
        defer { counts.withLock { $0.finished += 1 } }
        var state = PowerState()
        do throws(PowerProfilesError) {
            if try reader.activeProfile() == .profile("power-saver") {
                state.powerSaver = true
                state.reasons = ["power-profiles-daemon ActiveProfile power-saver"]
            }
        } catch {
            state.problems = ["\(error.bus) \(error.service.name): \(error.description)"]
        }
        if counts.withLock({ $0.holding }) { _ = gate.wait(timeout: .now() + 60) }
        return state
    }

    var inRead: Bool { counts.withLock { $0.started > $0.finished } }
    func release() {
        counts.withLock { $0.holding = false }
        gate.signal()
    }
}

/// The reads a ``CountingSource`` served, shared with the test.
final class ReadCount: Sendable {
    let value = Mutex(0)
    var reads: Int { value.withLock { $0 } }
}

/// Samples at rest in virtual time, one per read, counting the reads.
final class CountingSource: MotionSampleSource {
    let name = "counting source"
    private let virtualClock = VirtualClock()
    var clock: any MonotonicClock { virtualClock }
    let count: ReadCount
    init(count: ReadCount) { self.count = count }
    private var next: UInt64 = 0
    private var period: UInt64 = 10_000_000

    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
        period = UInt64((1e9 / configuration.outputDataRate).rounded())
        return configuration
    }

    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        count.value.withLock { $0 += 1 }
        samples.append(IMUSample(timestampNanoseconds: next, acceleration: SIMD3(0, 9.80665, 0), angularRate: .zero))
        virtualClock.advance(to: next)
        next += period
        Thread.sleep(forTimeInterval: 0.0002)
        return .samples
    }

    func stop() throws(MotionSourceError) {}
}

@Suite("a hung power-profiles-daemon and the sensor loop", .enabled(if: FakePowerProfiles.available,
       "needs dbus-daemon, /usr/bin/python3 with python3-dbus and python3-gi (scripts/setup installs them)"))
struct HungPowerDaemonTests {
    /// The daemon does not answer (the fake's hang mode): the notifier's reader goes on reading
    /// samples while the power read is in progress, and the daemon's silence reaches the log.
    @Test func theSensorLoopGoesOnWhileTheDaemonHangs() throws {
        let bus = try PrivateBus(policy: false, extraPolicy: PowerProfilesReaderTests.daemonPolicy)
        let daemon = try FakePowerProfiles(address: bus.address, names: "hadess", profile: "power-saver")
        try daemon.send("hang")
        let daemonMonitor = DaemonPowerMonitor(reader: PowerProfilesReader(address: bus.address, services: [.hadess]))
        let monitor = BackgroundPowerStateMonitor(daemonMonitor, pollInterval: 0.05)
        let count = ReadCount()
        let motion = MotionOrientation(source: { CountingSource(count: count) }, energy: EnergySettings(pollInterval: 0.05), monitor: monitor)
        motion.start()
        defer { daemonMonitor.release(); motion.stop() }
        try waitUntil(seconds: 30, "a power read") { daemonMonitor.inRead }
        let before = count.reads
        try waitUntil(seconds: 30, "samples while the power read is in progress") { count.reads > before + 20 }
        #expect(daemonMonitor.inRead, "the samples came while the read was still in progress")
        daemonMonitor.release()
        try waitUntil(seconds: 30, "the daemon's silence in the log (last: \(motion.lastError ?? "none"))") {
            motion.lastError?.contains("net.hadess.PowerProfiles ActiveProfile on \(bus.address) did not answer") == true
        }
        motion.stop()
        try waitUntil(seconds: 30, "the poller's end") { monitor.pollerThreads == 0 }
        _ = daemon
    }
}
