import Foundation
import PlumbDrivers
import PlumbHAL
import PlumbSimulation
import Synchronization
@testable import PlumbOrientation

/// What a test source saw, shared with the test.
final class SourceLog: Sendable {
    struct Entries { var made = 0; var starts: [IMUConfiguration] = []; var stops = 0; var reads = 0; var closes = 0 }
    let entries = Mutex(Entries())
    var made: Int { entries.withLock { $0.made } }
    var starts: [IMUConfiguration] { entries.withLock { $0.starts } }
    var stops: Int { entries.withLock { $0.stops } }
    var reads: Int { entries.withLock { $0.reads } }
    var closes: Int { entries.withLock { $0.closes } }
}

/// A source that samples a motion profile in virtual time at the configured rate and batch size,
/// at most `speedup` times faster than real time (it used to pause 0.2 ms a batch and no more,
/// which kept a core busy for as long as its test waited: see `VirtualTimePacer`).
final class ProfileSource: MotionSampleSource {
    let name = "profile source"
    let virtualClock = VirtualClock()
    var clock: any MonotonicClock { virtualClock }
    let profile: MotionProfile
    let log: SourceLog
    let end: Double?
    let speedup: Double
    private var pacer: VirtualTimePacer
    var period: UInt64 = 10_000_000
    var batch = 5
    var next: UInt64 = 0
    var gyroscope = true

    /// When set, the first start waits until the test signals it (after every subscriber it
    /// means to make exists: the reader starts with the first one and could publish a change
    /// before the second subscribes).
    let startGate: DispatchSemaphore?

    init(_ profile: MotionProfile, log: SourceLog, end: Double? = nil, speedup: Double = 20, startGate: DispatchSemaphore? = nil) {
        self.profile = profile; self.log = log; self.end = end; self.speedup = speedup; self.startGate = startGate
        pacer = VirtualTimePacer(speedup: speedup, wall: WallClock(), minimumPauseNanoseconds: 200 * Nanoseconds.perMicrosecond)
        log.entries.withLock { $0.made += 1 }
    }

    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
        if let startGate { startGate.wait(); startGate.signal() }
        log.entries.withLock { $0.starts.append(configuration) }
        period = UInt64((1e9 / configuration.outputDataRate).rounded())
        batch = max(1, configuration.fifoWatermark)
        gyroscope = configuration.gyroscopeEnabled
        next = max(next, virtualClock.nowNanoseconds)
        pacer.reset()
        return configuration
    }

    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        log.entries.withLock { $0.reads += 1 }
        if let end, Double(next) / 1e9 > end { return .finished }
        for _ in 0..<batch {
            let state = profile.state(at: Double(next) / 1e9)
            samples.append(IMUSample(timestampNanoseconds: next, acceleration: state.specificForce,
                                     angularRate: gyroscope ? state.angularRate : .zero))
            next += period
        }
        virtualClock.advance(to: next - period)
        pacer.pace(virtualNanoseconds: next)
        return .samples
    }

    func stop() throws(MotionSourceError) {
        log.entries.withLock { $0.stops += 1 }
    }

    /// Past `end` on the virtual clock (the reader moves it while the sensor is paused).
    var isExhausted: Bool { end.map { virtualClock.nowSeconds > $0 } ?? false }

    func close() {
        log.entries.withLock { $0.closes += 1 }
    }
}

/// Up along `up` (device frame), still.
func still(up: SIMD3<Double>) -> MotionState {
    MotionState(angularRate: .zero, specificForce: up / length(up) * 9.80665, attitude: nil)
}

func length(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }

/// Portrait until `turnAt`, then a 1-second quarter turn about the screen normal to
/// landscapeLeft (up +x), held.
func portraitThenLandscapeLeft(turnAt: Double = 2) -> MotionProfile {
    MotionProfile(name: "portrait-then-landscape") { t in
        let s = min(max((t - turnAt) / 1, 0), 1)
        let theta = (.pi / 2) * (1 - cos(.pi * s)) / 2
        let rate = (t > turnAt && t < turnAt + 1) ? (.pi / 2) * .pi / 2 * sin(.pi * s) : 0
        return MotionState(angularRate: SIMD3(0, 0, rate), specificForce: SIMD3(sin(theta), cos(theta), 0) * 9.80665, attitude: nil)
    }
}

/// A power monitor the test sets.
final class TestPowerMonitor: PowerStateMonitor {
    let current = Mutex(PowerState())
    let reads = Mutex(0)
    func readPowerState() throws(PowerMonitorError) -> PowerState {
        reads.withLock { $0 += 1 }
        return current.withLock { $0 }
    }
    func set(_ state: PowerState) { current.withLock { $0 = state } }
}

/// Polls `condition` every 2 ms for up to `seconds` of real time, and at least `minimumChecks`
/// times.
///
/// The limit is generous on purpose: it costs nothing when the condition comes true, and Swift
/// Testing runs CPU-bound suites (the day-long soaks) on the same two-thread cooperative pool, which
/// can keep this test's tasks waiting for tens of seconds on a loaded two-core machine. Under
/// ThreadSanitizer the pool stayed busy for the whole 300 s once: this wait resumed only after its
/// deadline, ahead of the task it was waiting for, and gave up. The count of checks makes a pool
/// that runs nothing else of this test's no reason to give up.
func eventually(_ seconds: Double = 300, minimumChecks: Int = 1_000, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    var checks = 0
    while Date() < deadline || checks < minimumChecks {
        if condition() { return true }
        checks += 1
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

/// Wraps a source and fails one read after `failAfter` reads (a live chip that stopped answering).
final class FlakySource: MotionSampleSource {
    let inner: ProfileSource
    var remaining: Int
    var name: String { "flaky " + inner.name }
    var clock: any MonotonicClock { inner.clock }

    init(_ inner: ProfileSource, failAfter: Int) { self.inner = inner; self.remaining = failAfter }

    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration { try inner.start(configuration) }

    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        remaining -= 1
        if remaining == 0 { throw .imu(.timeout(waitingFor: "FIFO data")) }
        return try inner.read(into: &samples, timeoutNanoseconds: timeoutNanoseconds)
    }

    func stop() throws(MotionSourceError) { try inner.stop() }
}
