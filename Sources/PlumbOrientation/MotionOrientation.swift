import Foundation
import PlumbDrivers
import PlumbHAL
import PlumbFusion
import Synchronization

/// Device and interface orientation for a Linux board, kept current from an IMU: the Linux
/// counterpart of the iOS library MotionOrientation.
///
/// ```swift
/// let motion = MotionOrientation.shared
/// motion.configure(source: { try makeMySource() })
/// motion.start()
/// for await change in motion.orientationChanges { ... }
/// ```
///
/// - ``start()`` is idempotent; ``stop()`` disables it until started again.
/// - The sensor runs only while ``start()`` is in effect or a subscriber to
///   ``orientationChanges`` exists, and (with ``EnergySettings/pausesWhileDisplayBlanked``)
///   stops while the display is blanked, the counterpart of an iOS app in the background.
/// - Every change posts ``MotionOrientationChangedNotification`` (and, when the interface
///   orientation changes, ``MotionOrientationInterfaceOrientationChangedNotification``) on
///   ``notificationQueue``, and yields to each ``orientationChanges`` stream.
/// - Gaps, recoveries and failures of the sensor reach ``sensorNotices`` and
///   ``MotionOrientationSensorNoticeNotification``; ``lastError`` holds the last failure.
/// - The low-energy mode (accelerometer only, lower rate, larger FIFO batches) is on while forced
///   (``setLowEnergyModeForcibly(_:)``) or, with ``automaticLowEnergyMode``, while the
///   ``PowerStateMonitor`` reports power-saver, low battery, heat or throttling.
///
/// One reader thread per instance reads the sensor, estimates gravity and classifies; every
/// public member is thread-safe.
public final class MotionOrientation: Sendable {
    /// Makes the sensor source on the reader thread each time the sensor starts.
    ///
    /// It may throw any error: a ``MotionSourceError`` is kept as it is, another becomes
    /// ``MotionSourceError/other(_:)`` with its description (in ``lastError`` and the failure's
    /// ``SensorNotice``), and the factory is tried again a second later.
    public typealias SourceFactory = @Sendable () throws -> any MotionSampleSource
    /// Makes the estimator used while the gyroscope runs.
    public typealias EstimatorFactory = @Sendable () -> any GravityEstimator

    /// The shared instance. It has no source until ``configure(source:)`` is called (the `plumb`
    /// tool configures it from `--simulate`, `--replay` or the board's IMU).
    public static let shared = MotionOrientation()

    /// The seed library's spelling of ``shared``.
    public static func sharedInstance() -> MotionOrientation { shared }

    struct State {
        var factory: SourceFactory?
        var sourceGeneration = 0
        /// Bumped by a new estimator, classifier or mounting: the reader rebuilds the pipeline on
        /// the same source.
        var pipelineGeneration = 0
        var estimator: EstimatorFactory = { FusionAlgorithm.default.makeGravityEstimator() }
        var classifier = OrientationClassifier.Settings.default
        var mounting = (SIMD3<Double>(1, 0, 0), SIMD3<Double>(0, 1, 0), SIMD3<Double>(0, 0, 1))
        var energy = EnergySettings.default
        var monitor: (any PowerStateMonitor)?
        var enabled = false
        var subscribers: [Int: AsyncStream<OrientationChange>.Continuation] = [:]
        var observers: [Int: (queue: DispatchQueue, handler: @Sendable (OrientationEvent) -> Void)] = [:]
        /// ``sensorNotices`` streams: they do not keep the sensor running.
        var noticeSubscribers: [Int: AsyncStream<SensorNotice>.Continuation] = [:]
        var nextSubscriber = 0
        var readerRunning = false
        var sensorRunning = false
        var device = DeviceOrientation.unknown
        var interface = InterfaceOrientation.portrait
        var gravity = SIMD3<Double>.zero
        /// When the sample behind ``gravity`` was taken (the source's clock); nil before the first.
        var gravitySampleNanoseconds: UInt64?
        var forcedLowEnergy = false
        var automaticLowEnergy = true
        var lowEnergyActive = false
        var power = PowerState()
        var lastError: String?
        /// The failure last said as a ``SensorNotice/Kind/failure``, until samples arrive again;
        /// kept here, not in the reader, so that a reader started after stop() still says
        /// ``SensorNotice/Kind/restored`` to the notice streams, which outlive it.
        var failing: String?
        var configuration: IMUConfiguration?
        var queue = DispatchQueue(label: "plumb.motion-orientation.notifications")
        /// The least wall time between a source's failure and the next try, in seconds (tests
        /// that retry in virtual time shorten it).
        var retryWallInterval = Reader.retryInterval

        var shouldRun: Bool { factory != nil && (enabled || !subscribers.isEmpty || !observers.isEmpty) }
        var wantsLowEnergy: Bool { forcedLowEnergy || (automaticLowEnergy && power.wantsLowEnergy) }
        var paused: Bool { energy.pausesWhileDisplayBlanked && power.displayBlanked }
    }

    let state = Mutex(State())

    /// A notifier with no source yet.
    public init() {}

    /// The notifier is gone (no reader runs, it holds the notifier): the streams that outlive it
    /// end and observers are told ``OrientationEvent/finished``, as when the source ends. ``sensorNotices`` streams hold it only weakly, and so does an
    /// ``orientationChanges`` stream while no source is configured; without this their consumers
    /// would wait for ever.
    deinit {
        finishSession()
    }

    /// A notifier reading `source`.
    public convenience init(source: @escaping SourceFactory, estimator: EstimatorFactory? = nil,
                            classifier: OrientationClassifier.Settings = .default, energy: EnergySettings = .default,
                            monitor: (any PowerStateMonitor)? = nil) {
        self.init()
        state.withLock { s in
            s.factory = source
            if let estimator { s.estimator = estimator }
            s.classifier = classifier
            s.energy = energy
            s.monitor = monitor
        }
    }

    // MARK: Configuration

    /// Sets the sensor source; a running sensor switches to it at the reader's next wakeup.
    public func configure(source: @escaping SourceFactory) {
        state.withLock { s in
            s.factory = source
            s.sourceGeneration += 1
            if s.lastError == Self.noSource { s.lastError = nil }
        }
        reconcile()
    }

    /// Sets the estimator used while the gyroscope runs (PlumbFusion's filters). A running
    /// sensor takes it at the reader's next wakeup: the same source, with gravity estimation
    /// started afresh and the current orientation kept.
    public func configure(estimator: @escaping EstimatorFactory) {
        state.withLock { s in s.estimator = estimator; s.pipelineGeneration += 1 }
        reconcile()
    }

    /// The classifier's tuning (hysteresis, settle time, rate gate) while the gyroscope runs;
    /// low-energy mode uses ``EnergySettings/lowEnergyClassifier``. A running sensor takes it at
    /// the reader's next wakeup: the same source (a recording plays on, a chip is not started
    /// again), with gravity estimation started afresh and the current orientation kept.
    public var classifierSettings: OrientationClassifier.Settings {
        get { state.withLock { $0.classifier } }
        set { state.withLock { $0.classifier = newValue; $0.pipelineGeneration += 1 }; reconcile() }
    }

    /// The rotation from the sensor frame into the device frame, as three rows (device x, y, z in
    /// sensor axes); identity by default. A running sensor takes it at the reader's next wakeup,
    /// as it does ``classifierSettings``.
    public var mounting: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
        get { state.withLock { $0.mounting } }
        set { state.withLock { $0.mounting = newValue; $0.pipelineGeneration += 1 }; reconcile() }
    }

    /// Sensor settings of the two modes, the poll interval and the display switch. A running
    /// sensor takes a change at the reader's next wakeup, on the same source: a new
    /// configuration of the mode it runs restarts streaming with it (as a switch to or from the
    /// low-energy mode does), a new low-energy classifier or turn wake interval rebuilds the
    /// pipeline as ``classifierSettings`` does, and a new poll interval reads the power monitor
    /// at once and then at the new interval.
    public var energySettings: EnergySettings {
        get { state.withLock { $0.energy } }
        set { state.withLock { $0.energy = newValue }; reconcile() }
    }

    /// What reports power-saver, battery, heat and the display; `nil` for none.
    public var powerMonitor: (any PowerStateMonitor)? {
        get { state.withLock { $0.monitor } }
        set { state.withLock { $0.monitor = newValue } }
    }

    /// The queue notifications are posted on. Default: a private serial queue.
    ///
    /// On Linux, `.main` here together with an observer on `OperationQueue.main` hangs:
    /// swift-corelibs-foundation's post from the main queue to a main-queue observer waits on
    /// itself. Use one of them, not both.
    public var notificationQueue: DispatchQueue {
        get { state.withLock { $0.queue } }
        set { state.withLock { $0.queue = newValue } }
    }

    // MARK: Start and stop

    /// Starts reading the sensor; calling it again while started does nothing. Without a source
    /// it says so in ``lastError`` and reads nothing until ``configure(source:)`` gives it one.
    /// After the source ended (a recording played to its end), it starts a new session with a
    /// source the factory makes anew.
    public func start() {
        state.withLock { s in
            s.enabled = true
            if s.factory == nil { s.lastError = Self.noSource }
        }
        reconcile()
    }

    /// ``lastError`` after ``start()`` without a source.
    static let noSource = "start(): no sensor source to read; call configure(source:) with one (the sensor starts then)"

    /// Stops reading the sensor until ``start()`` is called again (unless a subscriber to
    /// ``orientationChanges`` still listens). The orientation keeps its last value.
    public func stop() {
        state.withLock { $0.enabled = false }
        reconcile()
    }

    /// True between ``start()`` and ``stop()``.
    public var isEnabled: Bool { state.withLock { $0.enabled } }

    /// True while the sensor is streaming (false while stopped, paused by a blanked display, or
    /// before the reader has started it).
    public var isSensorRunning: Bool { state.withLock { $0.sensorRunning } }

    // MARK: State

    /// The current device orientation; ``DeviceOrientation/unknown`` until the first face settles.
    public var deviceOrientation: DeviceOrientation { state.withLock { $0.device } }

    /// The current interface orientation; portrait until an upright face settles.
    public var interfaceOrientation: InterfaceOrientation { state.withLock { $0.interface } }

    /// The latest gravity estimate in the device frame (unit vector towards the earth); zero
    /// before the first sample.
    public var gravity: SIMD3<Double> { state.withLock { $0.gravity } }

    /// The latest gravity estimate with the time of the sample it came from, on the sensor
    /// source's monotonic clock in nanoseconds (virtual time for the simulator or a recording,
    /// as ``OrientationChange/sampleNanoseconds``); `nil` before the first sample.
    public var latestGravity: (gravity: SIMD3<Double>, sampleNanoseconds: UInt64)? {
        state.withLock { s in s.gravitySampleNanoseconds.map { (s.gravity, $0) } }
    }

    /// The seed's level angle for the latest gravity (``Level/angle(gravity:)``).
    public var levelAngle: Double { Level.angle(gravity: gravity) }

    /// The seed's `affineTransform`: the rotation for the current interface orientation.
    public var affineTransform: AffineTransform2D { interfaceOrientation.affineTransform }

    /// The last error from the source or the power monitor, if any.
    public var lastError: String? { state.withLock { $0.lastError } }

    /// The configuration the sensor runs, while it runs.
    public var sensorConfiguration: IMUConfiguration? { state.withLock { $0.configuration } }

    /// The last state read from the power monitor.
    public var powerState: PowerState { state.withLock { $0.power } }

    // MARK: Energy

    /// Forces the low-energy mode on (`true`) or returns it to automatic (`false`).
    public func setLowEnergyModeForcibly(_ on: Bool) {
        state.withLock { $0.forcedLowEnergy = on }
    }

    /// The seed library's spelling of ``setLowEnergyModeForcibly(_:)``.
    public func setLowEnergeModeForcely(_ on: Bool) { setLowEnergyModeForcibly(on) }

    /// Follow the power monitor (default true); when false only forcing turns low energy on.
    public var automaticLowEnergyMode: Bool {
        get { state.withLock { $0.automaticLowEnergy } }
        set { state.withLock { $0.automaticLowEnergy = newValue } }
    }

    /// True while the sensor runs in low-energy mode.
    public var isLowEnergyModeActive: Bool { state.withLock { $0.lowEnergyActive } }

    // MARK: Subscribers

    /// A new stream of orientation changes for one subscriber; the sensor runs while any such
    /// stream is alive. Each access makes a new stream (an `AsyncStream` has one consumer). It
    /// keeps the newest 64 changes a slow consumer has not taken, and finishes when the source
    /// ends (a recording played to its end).
    public var orientationChanges: AsyncStream<OrientationChange> {
        orientationChanges(bufferingPolicy: .bufferingNewest(64))
    }

    /// A new stream of orientation changes for one subscriber, keeping what the consumer has not
    /// taken yet as `bufferingPolicy` says (`.unbounded` for a recording that must not lose any).
    public func orientationChanges(bufferingPolicy: AsyncStream<OrientationChange>.Continuation.BufferingPolicy) -> AsyncStream<OrientationChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: OrientationChange.self, bufferingPolicy: bufferingPolicy)
        let id = state.withLock { s in
            s.nextSubscriber += 1
            s.subscribers[s.nextSubscriber] = continuation
            return s.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
            self.reconcile()
        }
        reconcile()
        return stream
    }

    /// The number of live ``orientationChanges`` streams and observers.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count + $0.observers.count } }

    /// Calls `handler` on `queue` for every change, and with ``OrientationEvent/finished`` when
    /// the source ends; the sensor runs while any observer exists. For code without an async
    /// context (a command-line loop); async code uses ``orientationChanges``.
    ///
    /// - Returns: a token for ``removeObserver(_:)``.
    public func addObserver(queue: DispatchQueue, _ handler: @escaping @Sendable (OrientationEvent) -> Void) -> ObserverToken {
        let id = state.withLock { s in
            s.nextSubscriber += 1
            s.observers[s.nextSubscriber] = (queue, handler)
            return s.nextSubscriber
        }
        reconcile()
        return ObserverToken(id: id)
    }

    /// Stops calling an observer's handler.
    public func removeObserver(_ token: ObserverToken) {
        state.withLock { _ = $0.observers.removeValue(forKey: token.id) }
        reconcile()
    }

    // MARK: The reader

    /// Starts the reader thread when the sensor should run and none is running. The reader
    /// itself stops when it finds the sensor should not run.
    func reconcile() {
        let spawn = state.withLock { s -> Bool in
            guard s.shouldRun, !s.readerRunning else { return false }
            s.readerRunning = true
            return true
        }
        guard spawn else { return }
        let thread = Thread { [self] in
            var reader = Reader(owner: self)
            reader.run()
        }
        thread.name = "plumb.motion-orientation.reader"
        thread.start()
    }
}

/// What an observer added with ``MotionOrientation/addObserver(queue:_:)`` is told.
public enum OrientationEvent: Sendable, Equatable {
    /// The orientation changed.
    case changed(OrientationChange)
    /// The source ended (a recording played to its end); no more events follow.
    case finished
}

/// Identifies an observer for ``MotionOrientation/removeObserver(_:)``.
public struct ObserverToken: Sendable, Hashable {
    let id: Int
}
