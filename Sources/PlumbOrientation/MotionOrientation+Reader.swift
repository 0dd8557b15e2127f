import Foundation
import PlumbDrivers
import PlumbHAL

extension MotionOrientation {
    /// What the reader needs from the shared state, copied once per wakeup.
    struct Control {
        var factory: SourceFactory
        var generation: Int
        var pipelineGeneration: Int
        var estimator: EstimatorFactory
        var classifier: OrientationClassifier.Settings
        var mounting: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)
        var energy: EnergySettings
        var monitor: (any PowerStateMonitor)?
        var lowEnergy: Bool
        var paused: Bool
    }

    /// The control for the next wakeup, or `nil` when the sensor should not run.
    func control() -> Control? {
        state.withLock { s in
            guard s.shouldRun, let factory = s.factory else { return nil }
            return Control(factory: factory, generation: s.sourceGeneration, pipelineGeneration: s.pipelineGeneration,
                           estimator: s.estimator,
                           classifier: s.classifier, mounting: s.mounting, energy: s.energy, monitor: s.monitor,
                           lowEnergy: s.wantsLowEnergy, paused: s.paused)
        }
    }

    /// Records a change and hands it to the notification queue and every subscriber.
    func publish(_ device: DeviceOrientation, gravity: SIMD3<Double>, sampleNanoseconds: UInt64, nowNanoseconds: UInt64) {
        let (change, queue, subscribers) = state.withLock { s in
            let previous = s.device
            var interfaceChanged = false
            if let i = device.interfaceOrientation, i != s.interface {
                s.interface = i
                interfaceChanged = true
            }
            s.device = device
            s.gravity = gravity
            s.gravitySampleNanoseconds = sampleNanoseconds
            let change = OrientationChange(deviceOrientation: device, previousDeviceOrientation: previous,
                                           interfaceOrientation: s.interface, interfaceOrientationChanged: interfaceChanged,
                                           gravity: gravity, sampleNanoseconds: sampleNanoseconds, publishedNanoseconds: nowNanoseconds)
            return (change, s.queue, (Array(s.subscribers.values), Array(s.observers.values)))
        }
        for continuation in subscribers.0 { continuation.yield(change) }
        for observer in subscribers.1 {
            let handler = observer.handler
            observer.queue.async { handler(.changed(change)) }
        }
        postNotifications(for: change, on: queue)
    }

    /// The source ended: behave as if stopped, and end every subscriber's stream.
    func finishSession() {
        let (subscribers, observers, noticeSubscribers) = state.withLock { s in
            s.enabled = false
            defer { s.subscribers.removeAll(); s.observers.removeAll(); s.noticeSubscribers.removeAll() }
            return (Array(s.subscribers.values), Array(s.observers.values), Array(s.noticeSubscribers.values))
        }
        for continuation in subscribers { continuation.finish() }
        for continuation in noticeSubscribers { continuation.finish() }
        for observer in observers {
            let handler = observer.handler
            observer.queue.async { handler(.finished) }
        }
    }

    func record(error message: String) {
        state.withLock { $0.lastError = message }
    }

    /// The reader thread's loop: one per instance at a time, owning the source and the pipeline.
    struct Reader {
        let owner: MotionOrientation
        var source: (any MotionSampleSource)?
        var generation = -1
        var pipeline: OrientationPipeline?
        /// The ``MotionOrientation/State/pipelineGeneration`` the pipeline was built for.
        var pipelineGeneration = -1
        /// The energy settings the pipeline was built and the sensor started with.
        var energy: EnergySettings?
        var streaming = false
        var appliedLowEnergy: Bool?
        var nextPoll: UInt64 = 0
        var samples: [IMUSample] = []
        /// The failure last said as a ``SensorNotice``, until samples arrive again: a source
        /// retried every second says each distinct failure once. A copy of the shared state's,
        /// so that the check after every read takes no lock.
        var failing: String? {
            didSet { owner.state.withLock { [failing] in $0.failing = failing } }
        }

        /// How long one read may block, so that stop() and mode changes are seen quickly (ns).
        static let readTimeout: UInt64 = 100 * Nanoseconds.perMillisecond
        /// The pause before a failed source is tried again, in seconds: on the source's clock,
        /// and at least as long in wall time (``State/retryWallInterval``), so that a source on a
        /// virtual clock, whose sleep takes no time, is not retried in a tight loop.
        static let retryInterval = 1.0
        /// How often the pause in wall time looks for stop() or a new source, in seconds.
        static let retryCheckInterval = 0.05

        /// Now in wall time (CLOCK_MONOTONIC), in nanoseconds.
        static func wallNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

        init(owner: MotionOrientation) {
            self.owner = owner
            samples.reserveCapacity(4096)
            failing = owner.state.withLock { $0.failing }
        }

        mutating func run() {
            while true {
                while let control = owner.control() {
                    do throws(MotionSourceError) {
                        try step(control)
                    } catch {
                        let name = source?.name ?? "sensor source"
                        owner.record(error: "\(name): \(error)")
                        if let source { owner.publish(notices: source.takeNotices()) }
                        let message = "\(error)"
                        if failing != message {
                            failing = message
                            owner.publish(notices: [SensorNotice(kind: .failure, source: name, message: message,
                                                                 timeNanoseconds: source?.clock.nowNanoseconds ?? 0, error: error)])
                        }
                        let clock = source?.clock
                        let failed = Self.wallNanoseconds()
                        shutDownSource()
                        if case .recording = error {
                            endSession()
                        } else {
                            // The pause on the source's clock (none when the factory itself
                            // failed: there is no sensor clock yet), so that virtual time moves
                            // on by it too; and in wall time, which a virtual clock's sleep
                            // does not take.
                            clock?.sleep(nanoseconds: Nanoseconds.seconds(Self.retryInterval))
                            pauseBeforeRetry(since: failed, generation: control.generation)
                        }
                    }
                }
                shutDownSource()
                // Leave only if nobody asked to run again while the source was stopping, so two
                // readers never hold the sensor at once.
                // The session ends: a monitor's poller thread ends with it (before the reader
                // leaves, so a session started meanwhile keeps its own).
                let ending = owner.state.withLock { s in s.shouldRun ? nil : s.monitor }
                ending?.sessionEnded()
                let leave = owner.state.withLock { s -> Bool in
                    if s.shouldRun { return false }
                    s.readerRunning = false
                    s.sensorRunning = false
                    return true
                }
                if leave { return }
            }
        }

        /// Waits until ``State/retryWallInterval`` of wall time has passed since `failed`
        /// (``wallNanoseconds()``), or less when the notifier is stopped or given another source
        /// (`generation` changed) meanwhile.
        func pauseBeforeRetry(since failed: UInt64, generation: Int) {
            let interval = owner.state.withLock { $0.retryWallInterval }
            let end = OrientationClassifier.adding(OrientationClassifier.nanoseconds(max(interval, 0)), to: failed)
            while true {
                let now = Self.wallNanoseconds()
                guard now < end, let control = owner.control(), control.generation == generation else { return }
                Thread.sleep(forTimeInterval: min(Double(end - now) / 1e9, Self.retryCheckInterval))
            }
        }

        /// The source ended: it is shut down, the owner's streams finish, and the next session
        /// starts afresh, from a source the factory makes anew (a recording plays again from its
        /// start) and with no "reading again after" a failure its streams never heard of.
        ///
        /// The source goes first: a subscriber or ``MotionOrientation/start()`` that comes once
        /// the streams have finished, before this loop has left, is a new session, and must not
        /// read the ended source again (it said `.finished` and ended the new session at once).
        mutating func endSession() {
            shutDownSource()
            owner.finishSession()
            failing = nil
        }

        mutating func shutDownSource() {
            guard let current = source else { return }
            if streaming {
                do throws(MotionSourceError) {
                    try current.stop()
                } catch {
                    owner.record(error: "\(current.name): stopping: \(error)")
                }
            }
            streaming = false
            // Never started again: the next session's factory makes a source of its own, which
            // asks for the same data-ready line (granted to one request at a time).
            current.close()
            source = nil
            owner.state.withLock { $0.sensorRunning = false; $0.configuration = nil; $0.lowEnergyActive = false }
        }

        /// A source from `factory`, its error as a ``MotionSourceError`` (another error becomes
        /// ``MotionSourceError/other(_:)`` with its description).
        static func make(_ factory: SourceFactory) throws(MotionSourceError) -> any MotionSampleSource {
            do { return try factory() } catch let error as MotionSourceError { throw error } catch {
                throw .other(String(describing: error))
            }
        }

        /// A new pipeline for `control`'s settings, keeping the accepted orientation and the
        /// estimator in use (the one for the mode the sensor runs).
        mutating func rebuildPipeline(_ control: Control) {
            let orientation = pipeline?.orientation ?? owner.deviceOrientation
            var next = OrientationPipeline(fused: control.estimator(), classifier: control.classifier,
                                           accelerometerOnlyClassifier: control.energy.lowEnergyClassifier,
                                           usesGyroscope: pipeline?.usesGyroscope ?? true, mounting: control.mounting,
                                           turnWakeInterval: control.energy.turnWakeInterval)
            next.resume(from: orientation)
            pipeline = next
            pipelineGeneration = control.pipelineGeneration
        }

        mutating func step(_ control: Control) throws(MotionSourceError) {
            if source == nil || generation != control.generation {
                shutDownSource()
                source = try Self.make(control.factory)
                generation = control.generation
                rebuildPipeline(control)
                appliedLowEnergy = nil
                nextPoll = 0
            } else if pipelineGeneration != control.pipelineGeneration
                        || energy?.lowEnergyClassifier != control.energy.lowEnergyClassifier
                        || energy?.turnWakeInterval != control.energy.turnWakeInterval {
                // Another estimator, classifier, mounting or low-energy tuning: the same source
                // reads on (a recording is not played again from its start, a chip not started
                // again), into a new pipeline.
                rebuildPipeline(control)
            }
            if let energy, energy != control.energy {
                // The chip restarts streaming with its mode's new configuration, as it does when
                // the mode changes.
                if energy.normal != control.energy.normal || energy.lowEnergy != control.energy.lowEnergy { appliedLowEnergy = nil }
                if energy.pollInterval != control.energy.pollInterval { nextPoll = 0 }
            }
            energy = control.energy
            // Take the pipeline out while it works, so its boxed estimator is uniquely referenced
            // and mutating it never copies (no allocation per wakeup).
            guard let source, var pipeline = self.pipeline else { return }
            self.pipeline = nil
            defer { self.pipeline = pipeline }
            let clock = source.clock

            if let monitor = control.monitor, clock.nowNanoseconds >= nextPoll {
                do throws(PowerMonitorError) {
                    let power = try monitor.readPowerState()
                    owner.state.withLock { $0.power = power }
                    if let problem = power.problems.first { owner.record(error: "power monitor: \(problem)") }
                } catch {
                    owner.record(error: "power monitor: \(error)")
                }
                nextPoll = OrientationClassifier.adding(OrientationClassifier.nanoseconds(control.energy.pollInterval), to: clock.nowNanoseconds)
                return
            }

            if control.paused {
                if streaming {
                    try source.stop()
                    streaming = false
                    pipeline.restartEstimation()
                    owner.state.withLock { $0.sensorRunning = false; $0.configuration = nil }
                }
                if source.isExhausted {
                    endSession()
                    return
                }
                let now = clock.nowNanoseconds
                clock.sleep(nanoseconds: min(Self.readTimeout, nextPoll > now ? nextPoll - now : 0))
                return
            }

            if !streaming || appliedLowEnergy != control.lowEnergy {
                let configuration = control.lowEnergy ? control.energy.lowEnergy : control.energy.normal
                let effective = try source.start(configuration)
                streaming = true
                appliedLowEnergy = control.lowEnergy
                pipeline.useGyroscope(effective.gyroscopeEnabled)
                owner.state.withLock { s in
                    s.sensorRunning = true
                    s.configuration = effective
                    s.lowEnergyActive = control.lowEnergy
                }
            }

            samples.removeAll(keepingCapacity: true)
            if let hint = pipeline.wakeHint { source.wake(bySampleAt: hint) }
            let read = try source.read(into: &samples, timeoutNanoseconds: Self.readTimeout)
            let notices = source.takeNotices()
            owner.publish(notices: notices)
            // A chip lost inside a running stream is said by its source; its samples after it are
            // "reading again after", as after a failure (also in a later session: `failing` stays).
            if let lost = notices.last(where: { $0.kind == .lost }) {
                failing = lost.message
            } else if let failed = failing, !samples.isEmpty {
                failing = nil
                owner.publish(notices: [SensorNotice(kind: .restored, source: source.name, message: "reading again after: \(failed)",
                                                     timeNanoseconds: clock.nowNanoseconds)])
            }
            switch read {
            case .finished:
                endSession()
                return
            case .timedOut:
                return
            case .samples:
                guard !samples.isEmpty else { return }
                for sample in samples {
                    if let device = pipeline.process(sample) {
                        owner.publish(device, gravity: pipeline.gravity, sampleNanoseconds: sample.timestampNanoseconds,
                                      nowNanoseconds: clock.nowNanoseconds)
                    }
                }
                let gravity = pipeline.gravity
                let time = samples[samples.count - 1].timestampNanoseconds
                owner.state.withLock { $0.gravity = gravity; $0.gravitySampleNanoseconds = time }
            }
        }
    }
}
