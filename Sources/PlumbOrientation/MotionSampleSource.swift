import PlumbDrivers
import PlumbHAL

/// Where ``MotionOrientation`` gets its samples: a live IMU, the simulator or a recording.
///
/// One reader thread uses a source at a time, from ``start(_:)`` to ``stop()``, so a source need
/// not be thread-safe. ``MotionOrientation`` makes it with a factory closure on that thread.
public protocol MotionSampleSource: AnyObject {
    /// A name for messages ("MPU-6050 at 0x68 on /dev/i2c-1", "simulated MPU-6050", "trial.csv").
    var name: String { get }
    /// The clock of the samples' timestamps, used for every wait and poll of the reader.
    var clock: any MonotonicClock { get }
    /// Starts the sensor with `configuration`, or changes it while running.
    ///
    /// - Returns: the configuration the sensor really runs (a chip picks its nearest rate).
    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration
    /// Waits up to `timeoutNanoseconds` for the sensor's next wakeup and appends its samples,
    /// oldest first.
    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead
    /// Stops the sensor (it may sleep); ``start(_:)`` may follow.
    func stop() throws(MotionSourceError)
    /// True once the source has no more data even without being read (a bounded simulation whose
    /// time ran out while the sensor was paused). Default false.
    var isExhausted: Bool { get }
    /// Asks the next ``read(into:timeoutNanoseconds:)`` to return once the sample taken at
    /// `sampleNanoseconds` is there, even when the source would batch more (the low-energy mode
    /// during a turn: ``OrientationPipeline/wakeHint``). One-shot. Default: ignored.
    func wake(bySampleAt sampleNanoseconds: UInt64)
    /// What the source noticed since the last call besides samples (gaps, recoveries), oldest
    /// first; ``MotionOrientation`` takes them after every read and publishes them
    /// (``MotionOrientation/sensorNotices``). Default: none.
    func takeNotices() -> [SensorNotice]
    /// Lets go, after the last ``stop()``, of what another source made next will ask for: the
    /// data-ready line, which the kernel grants to one request at a time, this process's own
    /// earlier one included. The source is not started again. Default: nothing to let go of.
    func close()
}

extension MotionSampleSource {
    public var isExhausted: Bool { false }
    public func wake(bySampleAt sampleNanoseconds: UInt64) {}
    public func takeNotices() -> [SensorNotice] { [] }
    public func close() {}
}

/// What one ``MotionSampleSource/read(into:timeoutNanoseconds:)`` did.
public enum MotionSourceRead: Sendable, Equatable {
    /// Samples were appended (possibly zero after a spurious wakeup).
    case samples
    /// Nothing came in time.
    case timedOut
    /// The source has no more data (a recording ended).
    case finished
}

/// A sensor source failed.
public enum MotionSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    case imu(IMUError)
    case gpio(GPIOError)
    case bus(I2CError)
    /// A recording could not be read: the file, line and reason.
    case recording(String)
    /// Anything else, with a message naming the device and the fix.
    case other(String)

    public var description: String {
        switch self {
        case .imu(let e): e.description
        case .gpio(let e): e.description
        case .bus(let e): e.description
        case .recording(let s): s
        case .other(let s): s
        }
    }

    /// The I2C failure behind this error, directly or through the driver; `nil` for any other.
    public var busError: I2CError? {
        switch self {
        case .bus(let e): e
        case .imu(.bus(let e)): e
        default: nil
        }
    }
}

/// A recording played back as a sensor source in virtual time, as fast as the reader takes it.
///
/// Each read delivers the next `configuration.fifoWatermark` samples (one FIFO batch) and moves
/// the virtual clock to the last one's timestamp, so the reader sees the wakeups the chip would
/// have made. A rate below the recording's keeps every k-th sample (k = recording rate / rate,
/// rounded); a configuration without the gyroscope delivers zero angular rate.
public final class RecordingSource: MotionSampleSource {
    public let name: String
    public let recording: IMURecording
    private let virtualClock: VirtualClock
    public var clock: any MonotonicClock { virtualClock }
    private var position = 0
    private var batch = 1
    private var stride = 1
    private var gyroscope = true
    private var earlyWake: UInt64?
    /// The number of reads that delivered samples: the wakeups the chip would have made.
    public private(set) var wakeups = 0

    public init(recording: IMURecording, name: String) {
        self.recording = recording
        self.name = name
        self.virtualClock = VirtualClock(startNanoseconds: recording.samples.first?.timestampNanoseconds ?? 0)
    }

    public func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
        batch = max(1, configuration.fifoWatermark)
        gyroscope = configuration.gyroscopeEnabled
        let rate = recording.sampleRate
        stride = rate > 0 && configuration.outputDataRate > 0 ? max(1, Int((rate / configuration.outputDataRate).rounded())) : 1
        var effective = configuration
        effective.outputDataRate = rate / Double(stride)
        return effective
    }

    public func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        let all = recording.samples
        guard position < all.count else { return .finished }
        var last = position
        let wanted = earlyWake ?? .max
        earlyWake = nil
        for _ in 0..<batch where position < all.count {
            var sample = all[position]
            if !gyroscope { sample.angularRate = .zero }
            samples.append(sample)
            last = position
            position += stride
            if sample.timestampNanoseconds >= wanted { break }
        }
        wakeups += 1
        virtualClock.advance(to: all[last].timestampNanoseconds)
        return .samples
    }

    public func wake(bySampleAt sampleNanoseconds: UInt64) {
        earlyWake = min(earlyWake ?? .max, sampleNanoseconds)
    }

    public func stop() throws(MotionSourceError) {}
}

/// A live or simulated IMU read through the drivers' streaming engine (``IMUStream``): the
/// source for real hardware and for `plumb … --simulate`.
public final class IMUStreamSource: MotionSampleSource {
    public let name: String
    public let stream: IMUStream
    public var clock: any MonotonicClock { stream.clock }
    /// Gaps the stream reported (FIFO overflow, bus errors, chip resets) since the start.
    public private(set) var gapCount = 0
    private let end: UInt64?
    /// Gaps and the stream's notices not yet taken (``takeNotices()``), at most
    /// ``maximumPendingNotices``: a reader that never takes them must not grow this for months.
    private var pending: [SensorNotice] = []
    /// Notices dropped since the last ``takeNotices()`` because nobody took them.
    private var dropped = 0
    /// The most notices kept for ``takeNotices()``.
    public static let maximumPendingNotices = 64

    /// - Parameters:
    ///   - stream: the engine around the driver and its data-ready line.
    ///   - name: for messages ("MPU-6050 at 0x68 on /dev/i2c-1").
    ///   - endNanoseconds: report the end of data once the stream's clock passes this (bounded
    ///     simulations); `nil` to run until stopped.
    public init(stream: IMUStream, name: String, endNanoseconds: UInt64? = nil) {
        self.stream = stream
        self.name = name
        self.end = endNanoseconds
    }

    public func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
        do {
            return try stream.start(configuration)
        } catch {
            throw .imu(error)
        }
    }

    public var isExhausted: Bool { end.map { stream.clock.nowNanoseconds >= $0 } ?? false }

    public func wake(bySampleAt sampleNanoseconds: UInt64) { stream.wake(bySampleAt: sampleNanoseconds) }

    public func close() { stream.releaseLine() }

    public func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        if isExhausted { return .finished }
        let found = stream.step(into: &samples)
        gapCount += found.count
        for gap in found { keep(SensorNotice(gap: gap, source: name)) }
        for notice in stream.takeNotices() { keep(SensorNotice(stream: notice, source: name)) }
        return .samples
    }

    /// The gaps the stream reported and its notices (a chip re-initialised, polling through an
    /// interrupt storm, the bus's load), oldest first; a leading notice counts any dropped.
    public func takeNotices() -> [SensorNotice] {
        // Notices from the start (the bus budget) come before the first read.
        for notice in stream.takeNotices() { keep(SensorNotice(stream: notice, source: name)) }
        defer { pending.removeAll(); dropped = 0 }
        guard dropped > 0, let first = pending.first else { return pending }
        return [SensorNotice(kind: .recovery, source: name, message: "\(dropped) earlier notices were dropped (not taken in time)",
                             timeNanoseconds: first.timeNanoseconds)] + pending
    }

    private func keep(_ notice: SensorNotice) {
        if pending.count >= Self.maximumPendingNotices {
            pending.removeFirst()
            dropped += 1
        }
        pending.append(notice)
    }

    public func stop() throws(MotionSourceError) {
        do {
            try stream.stop()
        } catch {
            throw .imu(error)
        }
    }
}
