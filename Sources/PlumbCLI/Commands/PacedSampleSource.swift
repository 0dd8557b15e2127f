import PlumbDrivers
import PlumbHAL
import PlumbOrientation
import Synchronization

/// What a simulated sensor did, shared with the command that reports it: how often it was started
/// and stopped, how many samples it delivered and how many transactions crossed its emulated bus.
final class SensorCounters: Sendable {
    struct Values: Sendable, Equatable {
        var starts = 0
        var stops = 0
        var samples = 0
        /// I2C transactions on the emulated bus (EmulatedI2CBus.Counters.transactions), summed
        /// over every simulated sensor the factory made.
        var busTransactions = 0
    }
    private let values = Mutex(Values())

    var snapshot: Values { values.withLock { $0 } }
    func update(_ body: (inout Values) -> Void) { values.withLock { body(&$0) } }
}

/// A virtual-time sample source played at `speed` × real time, for a consumer that must see the
/// motion as it happens (a desktop watching D-Bus) rather than as fast as it can be computed.
///
/// Each read is passed on to `inner`; then the wall clock is made to catch up with the samples'
/// timestamps (``VirtualTimePacer``): the first read fixes the origin, and a read whose newest sample lies t seconds
/// after it returns no earlier than t / speed seconds after the first. The reader still sees the
/// inner source's time, so the notifier's settle times and hysteresis run on sample time; its
/// sleeps on that clock take wall time too (``PacedClock``).
final class PacedSampleSource: MotionSampleSource {
    private let inner: any MotionSampleSource
    private let pacedClock: PacedClock
    private let counters: SensorCounters
    private let busTransactions: (() -> Int)?
    private var countedTransactions = 0
    private var pacer: VirtualTimePacer

    /// - Parameters:
    ///   - speed: sample seconds per wall-clock second (1: real time).
    ///   - wall: the clock to pace against (SystemClock outside tests).
    ///   - busTransactions: reads the emulated bus's transaction counter (on the reader thread,
    ///     the only one that touches the bus).
    init(_ inner: any MotionSampleSource, speed: Double, wall: any MonotonicClock, counters: SensorCounters,
         busTransactions: (() -> Int)? = nil) {
        precondition(speed > 0, "speed must be positive")
        self.inner = inner
        pacedClock = PacedClock(inner.clock, wall: wall, speed: speed)
        pacer = VirtualTimePacer(speedup: speed, wall: wall)
        self.counters = counters
        self.busTransactions = busTransactions
    }

    /// Adds the bus transactions since the last look to the shared counters.
    private func countTransactions() {
        guard let busTransactions else { return }
        let now = busTransactions()
        let delta = now - countedTransactions
        countedTransactions = now
        counters.update { $0.busTransactions += delta }
    }

    var name: String { inner.name }
    func wake(bySampleAt sampleNanoseconds: UInt64) { inner.wake(bySampleAt: sampleNanoseconds) }
    func takeNotices() -> [SensorNotice] { inner.takeNotices() }
    func close() { inner.close() }
    var clock: any MonotonicClock { pacedClock }

    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
        defer { countTransactions() }
        let applied = try inner.start(configuration)
        counters.update { $0.starts += 1 }
        return applied
    }

    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        let before = samples.count
        let result = try inner.read(into: &samples, timeoutNanoseconds: timeoutNanoseconds)
        countTransactions()
        let delivered = samples.count - before
        guard delivered > 0, let newest = samples.last?.timestampNanoseconds else { return result }
        counters.update { $0.samples += delivered }
        pacer.pace(virtualNanoseconds: newest)
        return result
    }

    func stop() throws(MotionSourceError) {
        defer { countTransactions() }
        counters.update { $0.stops += 1 }
        pacer.reset()
        try inner.stop()
    }
}

/// A virtual clock whose sleeps also take wall time, at `speed` virtual seconds per wall second.
///
/// The notifier's reader sleeps on its source's clock while the sensor is paused (a blanked
/// display) and between retries of a failed source; on the simulator's virtual clock alone those
/// sleeps passed at once, so `plumb watch --simulate --speed 1 --power-root DIR` with the display
/// blanked read DIR 25 000 times a second at 95 % of a core and used up `--duration` before the
/// display came back.
final class PacedClock: MonotonicClock {
    private let inner: any MonotonicClock
    private let wall: any MonotonicClock
    private let speed: Double

    init(_ inner: any MonotonicClock, wall: any MonotonicClock, speed: Double) {
        self.inner = inner
        self.wall = wall
        self.speed = speed
    }

    var nowNanoseconds: UInt64 { inner.nowNanoseconds }

    func sleep(nanoseconds: UInt64) {
        inner.sleep(nanoseconds: nanoseconds)
        wall.sleep(nanoseconds: UInt64(Double(nanoseconds) / speed))
    }
}
