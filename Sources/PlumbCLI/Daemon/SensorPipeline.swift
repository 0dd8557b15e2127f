import PlumbConfiguration
import PlumbDrivers
import PlumbHAL
import PlumbOrientation
import PlumbDBus

/// Something the daemon drives from the orientation: the level image, the kiosk rotation, LEDs.
protocol DaemonOutput: AnyObject {
    /// "level on /dev/fb0", "kiosk via wlr-randr on HDMI-A-1", "LEDs ACT".
    var name: String { get }
    /// The device orientation changed (after hysteresis and settle time).
    func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws
    /// Called after every batch of samples with the latest gravity (device frame, unit vector).
    func gravityUpdated(_ gravity: SIMD3<Double>) throws
    /// Puts the output back as it was before the daemon touched it (an output handed over by
    /// ``handOver(to:into:)`` is left as it is).
    func restore() throws
    /// A reload to `next` is coming: an output whose target `next` keeps puts what the next
    /// pipeline needs into `handover` and is then left as it is by ``restore()``. Default: nothing
    /// (the output is put back, and the next pipeline makes it afresh).
    func handOver(to next: DaemonSetup, into handover: DaemonHandover)
    /// The pipeline this output was made for could not be built, so it never ran: puts back what
    /// it took. Default: ``restore()``. An output that took what a reload handed over gives it back
    /// to the handover instead (``KioskHandover/giveBack()``), for the pipeline built next.
    func restoreUnused() throws
    /// What the output did worth logging since the last call.
    func takeEvents() -> [DaemonEvent]
    /// Whether the output needs the sensor now. Default true; the D-Bus output needs it only while
    /// a desktop holds a claim. The pipeline pauses the sensor while no output needs it.
    var needsSensor: Bool { get }
    /// Whether the chip answers: ``SensorPresence/absent(_:)`` when the source said it stopped
    /// answering inside its stream (``SensorNotice/Kind/lost``), ``SensorPresence/present`` with
    /// its first samples after. Default: nothing (the D-Bus output turns HasAccelerometer false
    /// and back, as `plumb dbus` does).
    func sensorPresenceChanged(_ presence: SensorPresence)
}

extension DaemonOutput {
    func gravityUpdated(_ gravity: SIMD3<Double>) throws {}
    func takeEvents() -> [DaemonEvent] { [] }
    var needsSensor: Bool { true }
    func handOver(to next: DaemonSetup, into handover: DaemonHandover) {}
    func restoreUnused() throws { try restore() }
    func sensorPresenceChanged(_ presence: SensorPresence) {}
}

extension DaemonEvent {
    /// The log line of an orientation change: "orientation faceUp (interface portrait)".
    static func orientationChanged(_ device: DeviceOrientation, interface: InterfaceOrientation) -> DaemonEvent {
        DaemonEvent(level: .notice, message: "orientation \(device.rawValue) (interface \(interface.rawValue))")
    }

    /// Whether this is such a line (the commands on the board's IMU show changes their own way).
    var isOrientationChange: Bool { level == .notice && message.hasPrefix("orientation ") }
}

/// The daemon's one sensor session: samples from a source, corrected, through the orientation
/// pipeline, to every output. Runs on the daemon's thread; allocates nothing per sample (the
/// sample buffer keeps its capacity).
///
/// The sensor runs while at least one output ``DaemonOutput/needsSensor`` (always, with no outputs:
/// orientation is then logged). When none does — only the D-Bus output is configured and no
/// desktop holds a claim — the sensor is stopped, each step just waits, and the next claim starts
/// it again with gravity estimated afresh (the accepted orientation is kept until the new samples
/// change it).
final class SensorPipeline: DaemonPipeline {
    let source: any MotionSampleSource
    let outputs: [any DaemonOutput]
    /// What runs where, with the rate the chip took (the rate asked for while it is awaited).
    private(set) var summary: String
    /// systemd's STATUS: the ``summary``, or while the chip is awaited or lost what the session
    /// waits for and the fix (``waitingStatus(_:)``).
    private(set) var status: String
    /// The interface orientations the outputs may take, in the configuration's order; others
    /// leave the interface as it is. The log line shows the interface through
    /// ``DaemonFactory/shownInterface(_:allowed:)`` (never one outside them), while the outputs
    /// get the session's own (portrait until an allowed face is seen, which they ignore when not allowed).
    let listedInterfaces: [InterfaceOrientation]
    /// Applied to each sample before fusion (calibration); `nil` for none.
    let correct: ((inout IMUSample) -> Void)?
    /// When the source runs in virtual time (the simulator), the real clock it is paced against.
    let pacing: (any MonotonicClock)?
    /// How long the source may deliver nothing before the session counts as failed, in nanoseconds.
    let stallLimit: UInt64
    /// When to run the sensor in its low-energy mode.
    let energy: EnergyMode
    /// Turns a failure of the source into the message (a live command's, naming the bus and
    /// address and the fix); `nil` names the source and the error.
    let explain: ((MotionSourceError) -> CLIError)?
    /// The configuration file the settings came from, for the fix of a start the chip refuses
    /// (``DaemonFactory/settingsFix(_:path:)``) when there is no ``explain``; `nil` for none.
    let configurationPath: String?
    /// Where the settings were written in that file, for the line and column of a setting the
    /// chip refuses (``DaemonFactory/locatingSettings(_:error:positions:)``); `nil` for none.
    let configurationPositions: ConfigurationPositions?

    private var orientation: OrientationPipeline
    private var samples: [IMUSample] = []
    private var interface: InterfaceOrientation = .portrait
    private var lastData: UInt64
    private var stallReported = false
    private var pacingStart: (real: UInt64, virtual: UInt64)?
    private var running = true
    /// False while the sensor is paused because no output needs it.
    private(set) var sensorActive = true
    /// The configuration the sensor runs (normal or low-energy), to restart it after a pause.
    private var activeConfiguration: IMUConfiguration
    private var lowEnergy: Bool
    private var lastPowerPoll: UInt64?
    private var powerErrorReported = false
    /// What the source reported while starting (the part found), logged with the first step.
    private var startEvents: [DaemonEvent] = []
    /// The source's notice that its chip stopped answering, until samples come again
    /// (``followPresence(samplesArrived:)``).
    private var lost: SensorNotice?
    /// Step time to wait before the next start of a lost chip that did not take the last one
    /// (``followDemand(timeoutNanoseconds:)``), nanoseconds; counted in step timeouts, so that
    /// it runs on the same time as the steps, real or simulated.
    private var lostStartWait: UInt64 = 0
    /// How often a lost chip is started again while an output needs it.
    static let lostStartInterval = Nanoseconds.perSecond
    /// The first start that a lost chip did not take was logged (once until one succeeds).
    private var lostStartReported = false
    /// Whether a chip that does not answer when the session starts is waited for
    /// (`plumb run --wait-for-sensor`, or a reload from a session whose chip was not answering:
    /// ``DaemonHandover/awaitsSensor``) instead of failing the start.
    let waitsForSensor: Bool
    /// Whether a stop at ``shutdown()`` that finds nothing answering is a warning (`plumb run`,
    /// whose stop must end cleanly for systemd) rather than a failure (the commands on the
    /// board's IMU, `plumb level`, `led` and `kiosk`, whose user is told the sensor went, with
    /// the wiring fix, as their start and reads tell it).
    let warnsOfSilenceAtShutdown: Bool
    /// While a chip that did not answer at the session's start (``waitsForSensor``), or a lost one
    /// paused without its stop, is awaited: since when, on the source's clock, in nanoseconds;
    /// `nil` once it answered (or never awaited).
    private(set) var awaitedSince: UInt64?
    /// While the chip is awaited (``awaitedSince``) because another plumb process claims it
    /// (``ClaimAwaitingSource``), rather than because it does not answer.
    private(set) var awaitsClaim = false
    /// The chip's losses and returns: the first of each logged in full, the rest of a chip that
    /// keeps coming and going held and summed up once a minute (``step(timeoutNanoseconds:)``).
    private var flapLog = PresenceFlapLog()
    /// Why the chip was last lost, for the fix of the flap summary.
    private var lastLoss: MotionSourceError?
    /// The sensor runs because ``awaitChip(_:)`` started it to learn that the chip answers, not
    /// because an output needs it: its pause is part of the chip's coming and going.
    private var startedByAwait = false

    init(source: any MotionSampleSource, configuration: IMUConfiguration, orientation: OrientationPipeline,
         outputs: [any DaemonOutput], allowedInterfaces: Set<InterfaceOrientation>, listedInterfaces: [InterfaceOrientation]? = nil,
         correct: ((inout IMUSample) -> Void)? = nil,
         pacing: (any MonotonicClock)? = nil, stallLimit: UInt64 = 10 * Nanoseconds.perSecond, energy: EnergyMode? = nil,
         explain: ((MotionSourceError) -> CLIError)? = nil, configurationPath: String? = nil,
         configurationPositions: ConfigurationPositions? = nil, waitsForSensor: Bool = false, warnsOfSilenceAtShutdown: Bool = false,
         describe: @escaping (IMUConfiguration) -> String) throws {
        let energy = energy ?? EnergyMode(policy: .never, normal: configuration)
        self.energy = energy
        lowEnergy = energy.startsLow
        self.source = source
        self.outputs = outputs
        self.listedInterfaces = listedInterfaces ?? InterfaceOrientation.allCases.filter(allowedInterfaces.contains)
        self.correct = correct
        self.pacing = pacing
        self.stallLimit = stallLimit
        self.explain = explain
        self.configurationPath = configurationPath
        self.configurationPositions = configurationPositions
        self.waitsForSensor = waitsForSensor
        self.warnsOfSilenceAtShutdown = warnsOfSilenceAtShutdown
        describeSettings = describe
        samples.reserveCapacity(1024)
        let effective: IMUConfiguration
        var orientation = orientation
        orientation.useGyroscope(!lowEnergy)
        self.orientation = orientation
        activeConfiguration = lowEnergy ? energy.lowEnergy : energy.normal
        // A monitor with a poller thread starts reading now, before the sensor runs.
        if case .auto(let monitor) = energy.policy { monitor.prepare() }
        do { effective = try source.start(activeConfiguration) } catch {
            // Nothing acknowledges the address (a loose cable, a HAT powered up late): with
            // --wait-for-sensor the session starts without it and sets it up once it answers
            // (``awaitChip(_:)``). Any other failure (another chip's WHO_AM_I, a setting the chip
            // refuses) fails the start as before: waiting would not mend it.
            // Another plumb process claims the chip (a plumb calibrate typed as the service
            // started): awaited alike, until that process lets go (``ClaimAwaitingSource``).
            guard waitsForSensor, Self.isAwaitable(error) else {
                throw explain?(error) ?? Self.startFailure(error, source: source.name, configurationPath: configurationPath, positions: configurationPositions)
            }
            let now = source.clock.nowNanoseconds
            summary = describe(activeConfiguration)
            lastData = now
            sensorActive = false
            awaitedSince = now
            let claimed = error.busError?.isClaimedByAnotherProcess == true
            awaitsClaim = claimed
            lost = SensorNotice(kind: .lost, source: source.name, message: claimed ? "is claimed at start: \(error.description)" : "does not answer at start: \(error.description)",
                                timeNanoseconds: now, error: error)
            lostStartReported = true
            lostStartWait = Self.lostStartInterval
            status = claimed ? Self.claimedStatus(source.name) : Self.waitingStatus(source.name)
            startEvents = ((source as? DaemonEventSource)?.takeEvents() ?? []) + Self.awaitLines(error, source: source.name)
            if !claimed { recordPresence(.lost, error: error) }
            for output in outputs {
                output.sensorPresenceChanged(.absent(claimed ? "\(source.name): \(error.description)" : "\(source.name) does not answer: \(error.description)"))
            }
            return
        }
        summary = describe(effective)
        status = summary
        lastData = source.clock.nowNanoseconds
        startEvents = (source as? DaemonEventSource)?.takeEvents() ?? []
    }

    /// Makes ``summary`` from the settings the chip took.
    private let describeSettings: (IMUConfiguration) -> String

    /// How the fix for a chip awaited since the start ends: the session sets it up on its own.
    static let setUpOnceItAnswers = "plumb sets it up within a second once it answers."

    /// Whether a failed start is awaited with ``waitsForSensor`` rather than ending the session:
    /// nothing acknowledges the address (``I2CError/mayMeanNothingAnswers``), or another plumb
    /// process claims the chip (``I2CError/isClaimedByAnotherProcess``).
    static func isAwaitable(_ error: MotionSourceError) -> Bool {
        guard let bus = error.busError else { return false }
        return bus.mayMeanNothingAnswers || bus.isClaimedByAnotherProcess
    }

    /// The lines logged once when the session starts waiting for the chip named `source`, which
    /// failed its start with `error` (``isAwaitable(_:)``): what it waits for, and the fix.
    static func awaitLines(_ error: MotionSourceError, source: String) -> [DaemonEvent] {
        if error.busError?.isClaimedByAnotherProcess == true {
            return [DaemonEvent(level: .warning, message: "\(source): \(error.description); waiting for that process to let go, trying to claim the chip every second"),
                    DaemonEvent(level: .warning, message: "fix: " + claimedFix)]
        }
        return [DaemonEvent(level: .warning, message: "\(source) does not answer (\(error.description)); waiting for it, trying to start it every second"),
                DaemonEvent(level: .warning, message: "fix: " + stopFix(error, then: setUpOnceItAnswers))]
    }

    /// The fix while another plumb process claims the chip: which process, and that nothing more
    /// is needed once it ends.
    static let claimedFix = "Another plumb (a 'plumb calibrate' or 'plumb read' typed meanwhile; 'pgrep -a plumb' lists the plumb processes) drives the chip: "
        + "once it ends, plumb takes the chip within a second. Stop it to hand the chip over sooner."

    /// systemd's STATUS while the session waits for another plumb process to let go of the chip
    /// named `source` (``ClaimAwaitingSource``).
    static func claimedStatus(_ source: String) -> String {
        "waiting for the \(source): the chip is in use by another plumb process, taken once it lets go ('pgrep -a plumb' lists them)"
    }

    /// systemd's STATUS while the session waits for the chip named `source` (at start with
    /// --wait-for-sensor, or lost while it ran): what it waits for and the fix, short enough for
    /// `systemctl status`.
    static func waitingStatus(_ source: String) -> String {
        "waiting for the \(source): it does not answer; check its wiring and power ('plumb probe' lists what answers)"
    }

    /// One step (``stepEvents(timeoutNanoseconds:)``); while the chip keeps coming and going, the
    /// lines that only follow it (``DaemonEvent/followsPresence``, below warning) are held, and a
    /// summary with the fix comes once a minute instead (``PresenceFlapLog``).
    func step(timeoutNanoseconds: UInt64) throws -> [DaemonEvent] {
        var events = try stepEvents(timeoutNanoseconds: timeoutNanoseconds)
        if flapLog.isHolding {
            events.removeAll { $0.followsPresence && $0.level < .warning }
            events += flapSummary(force: false)
        }
        return events
    }

    /// Records that the chip was lost (`error`: why) or is back; returns whether the lines of the
    /// change are logged in full.
    @discardableResult
    private func recordPresence(_ change: PresenceFlapLog.Change, error: MotionSourceError? = nil) -> Bool {
        if let error { lastLoss = error }
        return flapLog.record(change, now: source.clock.nowNanoseconds)
    }

    /// The summary of the losses and returns held, with the fix, once their minute has passed
    /// (at once when `force`: the session stops).
    private func flapSummary(force: Bool) -> [DaemonEvent] {
        guard let held = flapLog.flush(now: source.clock.nowNanoseconds, force: force) else { return [] }
        let now = held.last == .back ? "it answers now" : "it does not answer now, and is tried every second"
        let fix = lastLoss.map { Self.stopFix($0, then: Self.flapFix) } ?? Self.flapFix
        return [DaemonEvent(level: .warning, message: "\(source.name) was lost and back \(max(held.losses, held.returns)) more times in the last \(held.seconds) s "
                                + "(\(held.losses) losses, \(held.returns) returns, not logged one by one); \(now)"),
                DaemonEvent(level: .warning, message: "fix: " + fix)]
    }

    /// How the fix for a chip that comes and goes ends.
    static let flapFix = "a chip that comes and goes has a loose contact: reseat its connector and check its solder joints, or shorten its cable."

    private func stepEvents(timeoutNanoseconds: UInt64) throws -> [DaemonEvent] {
        if let paused = try followDemand(timeoutNanoseconds: timeoutNanoseconds) { return paused }
        samples.removeAll(keepingCapacity: true)
        if let hint = orientation.wakeHint { source.wake(bySampleAt: hint) }
        let result: MotionSourceRead
        do { result = try source.read(into: &samples, timeoutNanoseconds: timeoutNanoseconds) } catch {
            throw explain?(error) ?? settingsFailure("\(source.name): \(error.description)", error)
        }
        var events = startEvents + ((source as? DaemonEventSource)?.takeEvents() ?? [])
        startEvents.removeAll()
        followPresence(samplesArrived: !samples.isEmpty)
        let now = source.clock.nowNanoseconds
        switch result {
        case .finished:
            throw DaemonSourceFinished(name: source.name)
        case .timedOut where samples.isEmpty:
            // A chip the stream lost (``followPresence(samplesArrived:)``) is being set up again by
            // the stream on its own schedule: ending the session would only hand that to systemd,
            // whose restarts (`Restart=on-failure`, 2 s apart) fail while nothing answers, each
            // restoring the outputs and dropping the D-Bus name, where staying keeps the last
            // rotation and tells desktops HasAccelerometer false. The stall limit is for a stream
            // that stops delivering without a reason the session knows.
            if now &- lastData >= stallLimit, lost == nil {
                throw CLIError.failure("no samples from \(source.name) for \(stallLimit / Nanoseconds.perSecond) s",
                                       fix: "Check the wiring and the interrupt line, or poll instead: \"imu\": {\"interrupt\": \"poll\"} in plumb.json (\(Configuration.defaultPath) unless --config names another).")
            }
            if !stallReported, now &- lastData >= stallLimit / 4 {
                stallReported = true
                events.append(DaemonEvent(level: .warning, message: "no samples from \(source.name) for \(Double(now &- lastData) / 1e9) s"))
            }
            // The outputs' events too: while no samples come (a chip lost), the D-Bus output says
            // HasAccelerometer turned false, and a claim or release is logged when it happens.
            for output in outputs { events += output.takeEvents() }
            return events
        case .samples, .timedOut:
            break
        }
        if !samples.isEmpty {
            lastData = now
            if stallReported {
                stallReported = false
                events.append(DaemonEvent(level: .notice, message: "samples from \(source.name) again"))
            }
        }
        for index in samples.indices {
            if let correct { correct(&samples[index]) }
            guard let device = orientation.process(samples[index]) else { continue }
            if let next = device.interfaceOrientation, listedInterfaces.contains(next) { interface = next }
            events.append(.orientationChanged(device, interface: DaemonFactory.shownInterface(interface, allowed: listedInterfaces)))
            for output in outputs { try output.orientationChanged(device, interface: interface) }
        }
        if !samples.isEmpty {
            for output in outputs { try output.gravityUpdated(orientation.gravity) }
        }
        for output in outputs { events += output.takeEvents() }
        try followPowerState(now: now, events: &events)
        pace()
        return events
    }

    /// Tells the outputs when the chip stops answering and when it answers again, as the notifier
    /// does for `plumb dbus` (``MotionOrientation``'s reader: a ``SensorNotice/Kind/lost`` notice,
    /// then "reading again after" with the next samples). A repeat of the loss is the same loss.
    /// The notice's text is already in the source's events, so nothing more is logged here.
    private func followPresence(samplesArrived: Bool) {
        if let notice = source.takeNotices().last(where: { $0.kind == .lost }) {
            let first = lost == nil
            lost = notice
            if first {
                recordPresence(.lost, error: notice.error)
                status = Self.waitingStatus(source.name)
                for output in outputs { output.sensorPresenceChanged(.absent(notice.description)) }
            }
        } else if lost != nil, samplesArrived {
            lost = nil
            recordPresence(.back)
            status = summary
            for output in outputs { output.sensorPresenceChanged(.present) }
        }
    }

    /// True when `error` (a start or stop of the source) says nothing answers and the stream had
    /// already lost the chip (``followPresence(samplesArrived:)``): the chip is still away, which
    /// the session waits out instead of ending.
    private func isAwayStill(_ error: MotionSourceError) -> Bool {
        lost != nil && error.busError?.mayMeanNothingAnswers == true
    }

    /// Waits one step's timeout while the sensor is paused, on the real clock when the source runs
    /// in virtual time.
    private func idle(_ timeoutNanoseconds: UInt64) {
        (pacing ?? source.clock).sleep(nanoseconds: timeoutNanoseconds)
    }

    /// Pauses the sensor when no output needs it and resumes it when one does. Returns the step's
    /// events while paused (after waiting `timeoutNanoseconds` on the real clock), nil to read.
    private func followDemand(timeoutNanoseconds: UInt64) throws -> [DaemonEvent]? {
        if awaitedSince != nil { return try awaitChip(timeoutNanoseconds) }
        let wanted = outputs.isEmpty || outputs.contains { $0.needsSensor }
        guard wanted != sensorActive else {
            // Running because an output needs it (a claim came before the pause that would have
            // followed an await): its stop later is an ordinary one, not part of a coming and going.
            if wanted { startedByAwait = false }
            guard !wanted else { return nil }
            idle(timeoutNanoseconds)
            return outputs.flatMap { $0.takeEvents() }
        }
        // What led here (the source's start-up lines, a claim or release) comes before its effect.
        var events = startEvents + ((source as? DaemonEventSource)?.takeEvents() ?? [])
        startEvents.removeAll()
        for output in outputs { events += output.takeEvents() }
        if wanted {
            if lostStartWait > 0 {
                lostStartWait -= min(lostStartWait, timeoutNanoseconds)
                idle(timeoutNanoseconds)
                return events
            }
            do { _ = try source.start(activeConfiguration) } catch {
                // A chip the stream lost, paused while away (a desktop released its claim), and
                // still away at the next claim: the session waits for it as the stream would
                // have, trying again every second, instead of ending `plumb run`.
                if isAwayStill(error) {
                    if !lostStartReported {
                        lostStartReported = true
                        events.append(DaemonEvent(level: .notice, message: "\(source.name) still does not answer (\(error.description)); trying to start it again every second"))
                    }
                    lostStartWait = Self.lostStartInterval
                    idle(timeoutNanoseconds)
                    return events
                }
                // A chip that went while the sensor was paused (unplugged with the display
                // blanked): nothing had read it, so nothing knew. That ended `plumb run`
                // ("cannot restart …"); it is lost as one the stream loses while it runs: the
                // outputs told absent, the chip tried every second and set up once it answers.
                if error.busError?.mayMeanNothingAnswers == true {
                    let now = source.clock.nowNanoseconds
                    lost = SensorNotice(kind: .lost, source: source.name, message: "does not answer: \(error.description)", timeNanoseconds: now, error: error)
                    status = Self.waitingStatus(source.name)
                    for output in outputs { output.sensorPresenceChanged(.absent("\(source.name) does not answer: \(error.description)")) }
                    if recordPresence(.lost, error: error) {
                        events.append(DaemonEvent(level: .warning, message: "\(source.name) went while the sensor was paused: it does not answer its restart (\(error.description)); waiting for it, trying to start it every second",
                                                  followsPresence: true))
                        events.append(DaemonEvent(level: .warning, message: "fix: " + Self.stopFix(error, then: Self.setUpOnceItAnswers), followsPresence: true))
                    }
                    lostStartReported = true
                    awaitedSince = now
                    lostStartWait = Self.lostStartInterval
                    idle(timeoutNanoseconds)
                    return events
                }
                throw explain?(error) ?? settingsFailure("cannot restart \(source.name): \(error.description)", error)
            }
            startedByAwait = false
            markStarted(at: source.clock.nowNanoseconds)
            events.append(DaemonEvent(level: .info, message: "sensor started: an output needs it"))
            // Logged with this step's samples (the source's start-up lines follow them).
            startEvents = events
            return nil
        }
        do {
            try source.stop()
            if let lost {
                // The stream took the chip as lost and no sample came since, yet it took the
                // stop: it answers again (back just before the claim was released). Paused as it
                // is, the outputs would keep it absent, and nothing would start it again without
                // a claim, which a desktop makes only while HasAccelerometer is true: it is set
                // up at the next step (``awaitChip``), told present, and paused again.
                awaitedSince = lost.timeNanoseconds
                lostStartWait = 0
            }
        } catch {
            // A chip the stream lost (``followPresence(samplesArrived:)``), or one that went just
            // now, before the stream noticed, cannot take the stop: nothing answers. It is paused
            // all the same (the stream and driver mark themselves stopped first, and the next
            // start sets the chip up from its reset), so that a desktop releasing its claim while
            // the chip is away does not end `plumb run`.
            guard error.busError?.mayMeanNothingAnswers == true else {
                let failure = stopFailure(error, for: "to pause it: no output needs it")
                throw CLIError.failure(failure.message, fix: failure.fix)
            }
            let known = lost != nil
            if !known {
                lost = SensorNotice(kind: .lost, source: source.name, message: "does not answer: \(error.description)",
                                    timeNanoseconds: source.clock.nowNanoseconds, error: error)
                status = Self.waitingStatus(source.name)
                for output in outputs { output.sensorPresenceChanged(.absent("\(source.name) does not answer: \(error.description)")) }
                recordPresence(.lost, error: error)
            }
            events.append(DaemonEvent(level: .notice, message: "\(source.name) \(known ? "still does" : "does") not answer, so it is paused without its stop (\(error.description)); it is tried every second and set up again once it answers",
                                      followsPresence: true))
            // Nothing would start it again without a claim, and a desktop claims only while
            // HasAccelerometer is true: the chip is awaited as one absent at start (``awaitChip``),
            // tried every second whether or not an output needs it, so the outputs learn it is back.
            awaitedSince = source.clock.nowNanoseconds
            lostStartWait = Self.lostStartInterval
        }
        sensorActive = false
        // A pause after a start only to learn that the chip answers, or of a chip found away,
        // is part of its coming and going.
        events.append(DaemonEvent(level: .info, message: "sensor stopped: no output needs it (no D-Bus claim)", followsPresence: startedByAwait || lost != nil))
        startedByAwait = false
        return events
    }

    /// A chip that did not answer when the session started (``waitsForSensor``), or a lost chip
    /// paused while away (``followDemand(timeoutNanoseconds:)``): tries to start it
    /// every second (``lostStartInterval``, counted in step timeouts as for a lost chip), whether
    /// or not an output needs it, so that the outputs learn it is there (a desktop claims the
    /// accelerometer only while HasAccelerometer is true); waits one step otherwise. A start that
    /// fails for another reason than silence at the address (another chip answers there) ends
    /// the session as it would have at start. Once it starts, the outputs are told it is
    /// present, and returns nil so that the step reads it (a pause follows at the next step when
    /// no output needs it, as after a normal start).
    private func awaitChip(_ timeoutNanoseconds: UInt64) throws -> [DaemonEvent]? {
        var events = startEvents + ((source as? DaemonEventSource)?.takeEvents() ?? [])
        startEvents.removeAll()
        for output in outputs { events += output.takeEvents() }
        if lostStartWait > 0 {
            lostStartWait -= min(lostStartWait, timeoutNanoseconds)
            idle(timeoutNanoseconds)
            return events
        }
        let effective: IMUConfiguration
        do { effective = try source.start(activeConfiguration) } catch {
            guard Self.isAwaitable(error) else {
                throw explain?(error) ?? Self.startFailure(error, source: source.name, configurationPath: configurationPath, positions: configurationPositions)
            }
            if awaitsClaim, error.busError?.isClaimedByAnotherProcess != true {
                // The other process let go, and the chip it left does not answer: awaited as such.
                awaitsClaim = false
                status = Self.waitingStatus(source.name)
                events.append(DaemonEvent(level: .notice, message: "the other plumb process let go of \(source.name)"))
                events += Self.awaitLines(error, source: source.name)
                // Its return is recorded (``recordPresence(_:error:)``): so is this loss.
                recordPresence(.lost, error: error)
            }
            lostStartWait = Self.lostStartInterval
            idle(timeoutNanoseconds)
            return events
        }
        let now = source.clock.nowNanoseconds
        let waited = (now &- (awaitedSince ?? now)) / Nanoseconds.perSecond
        awaitedSince = nil
        lost = nil
        if !awaitsClaim { recordPresence(.back) }
        startedByAwait = !(outputs.isEmpty || outputs.contains { $0.needsSensor })
        markStarted(at: now)
        summary = describeSettings(effective)
        status = summary
        events.append(awaitsClaim
            ? DaemonEvent(level: .notice, message: "the other plumb process let go of \(source.name) after \(waited) s of waiting; sensor started: \(summary)")
            : DaemonEvent(level: .notice, message: "\(source.name) answers after \(waited) s of waiting; sensor started: \(summary)", followsPresence: true))
        awaitsClaim = false
        for output in outputs { output.sensorPresenceChanged(.present) }
        // Logged with this step's samples (the source's start-up lines follow them).
        startEvents = events
        return nil
    }

    /// A start the chip took after a pause or a wait: the sensor runs, the estimate starts afresh
    /// (the device may have turned meanwhile), and the stall clock and pacing restart at `now`.
    private func markStarted(at now: UInt64) {
        lostStartReported = false
        sensorActive = true
        orientation.restartEstimation()
        lastData = now
        stallReported = false
        pacingStart = nil
    }

    /// `lowEnergy: auto`: reads the power monitor every poll interval and switches modes.
    private func followPowerState(now: UInt64, events: inout [DaemonEvent]) throws {
        guard case .auto(let monitor) = energy.policy else { return }
        if let last = lastPowerPoll, now &- last < energy.pollInterval { return }
        lastPowerPoll = now
        let state: PowerState
        do { state = try monitor.readPowerState() } catch {
            if !powerErrorReported {
                powerErrorReported = true
                events.append(DaemonEvent(level: .warning, message: "cannot read the power state, staying in \(lowEnergy ? "low-energy" : "normal") mode: \(error.description)"))
            }
            return
        }
        if let problem = state.problems.first, !powerErrorReported {
            powerErrorReported = true
            events.append(DaemonEvent(level: .warning, message: "part of the power state is unknown (\(problem)); following the rest"))
        }
        guard state.wantsLowEnergy != lowEnergy else { return }
        lowEnergy = state.wantsLowEnergy
        let next = lowEnergy ? energy.lowEnergy : energy.normal
        activeConfiguration = next
        let effective: IMUConfiguration
        do { effective = try source.start(next) } catch {
            throw explain?(error) ?? settingsFailure("cannot switch \(source.name) to \(lowEnergy ? "low-energy" : "normal") mode: \(error.description)", error)
        }
        orientation.useGyroscope(effective.gyroscopeEnabled)
        let rate = Config.format(effective.outputDataRate)
        events.append(DaemonEvent(level: .notice, message: lowEnergy
            ? "low-energy mode (\(state.reasons.joined(separator: ", "))): accelerometer only at \(rate) Hz"
            : "normal mode again: \(rate) Hz with the gyroscope"))
    }

    /// Keeps a virtual-time source (the simulator) from running ahead of real time.
    private func pace() {
        guard let real = pacing else { return }
        let start = pacingStart ?? (real.nowNanoseconds, source.clock.nowNanoseconds)
        pacingStart = start
        let virtualElapsed = source.clock.nowNanoseconds &- start.virtual
        let realElapsed = real.nowNanoseconds &- start.real
        if virtualElapsed > realElapsed { real.sleep(nanoseconds: min(virtualElapsed - realElapsed, Nanoseconds.perSecond)) }
    }

    /// How the journal's fix for a sensor failure ends in `plumb run`: the daemon exits, so it
    /// is restarted once the chip is fixed.
    static let restartPlumb = "then restart plumb (systemctl restart plumb)."

    /// A sensor that did not start, told without a command's explanation (`plumb run`, and
    /// `plumb dbus`'s check at start): "cannot start" and the source's name, which names the bus
    /// and address ("IMU at 0x68 on /dev/i2c-1, polling"), the error, and ``startFix(_:configurationPath:then:)``;
    /// a setting the chip refuses at imu.rate's line and column in the file, with `positions`
    /// (``DaemonFactory/locatingSettings(_:error:positions:)``), as `plumb config check` gives it.
    static func startFailure(_ error: MotionSourceError, source name: String, configurationPath: String?,
                             positions: ConfigurationPositions? = nil, then: String = restartPlumb) -> CLIError {
        .failure(DaemonFactory.locatingSettings("cannot start \(name): \(error.description)", error: error, positions: positions),
                 fix: startFix(error, configurationPath: configurationPath, then: then))
    }

    /// `message` about a failure of the running sensor (a read, a restart, a mode switch) with
    /// ``startFix(_:configurationPath:then:)``, at imu.rate's line and column for a setting the
    /// chip refuses (``DaemonFactory/locatingSettings(_:error:positions:)``).
    private func settingsFailure(_ message: String, _ error: MotionSourceError) -> CLIError {
        .failure(DaemonFactory.locatingSettings(message, error: error, positions: configurationPositions),
                 fix: Self.startFix(error, configurationPath: configurationPath))
    }

    /// The fix for a failed start, restart or mode switch: the configuration's rate for a setting
    /// the chip refuses (``DaemonFactory/settingsFix(_:path:)``), else the wiring when nothing
    /// acknowledged the address (``failureFix(_:then:)``), else none.
    static func startFix(_ error: MotionSourceError, configurationPath: String?, then: String = restartPlumb) -> String? {
        configurationPath.flatMap { DaemonFactory.settingsFix(error, path: $0) } ?? failureFix(error, then: then)
    }

    /// A failed stop of the sensor, told as a failure to start or read is: the command's
    /// explanation (a live command's: the address, the bus, the fix), else the source's name,
    /// what the stop was for, and ``stopFix(_:then:)``.
    private func stopFailure(_ error: MotionSourceError, for purpose: String) -> (message: String, fix: String?) {
        let failure = explain?(error) ?? Self.stopFailure(error, source: source.name, purpose: purpose)
        if case .failure(let message, let fix) = failure { return (message, fix) }
        return (describe(failure), nil)
    }

    /// A failed stop without a command's explanation: "cannot stop", the source's name, what the
    /// stop was for ("at shutdown"), the error, and ``stopFix(_:then:)``.
    static func stopFailure(_ error: MotionSourceError, source name: String, purpose: String, then: String = restartPlumb) -> CLIError {
        .failure("cannot stop \(name) (\(purpose)): \(error.description)", fix: stopFix(error, then: then))
    }

    /// The fix for a sensor that did not start or read (`plumb run`, whose session has no
    /// command's explanation): the wiring when nothing acknowledged its address (ENXIO, or
    /// EREMOTEIO as a Raspberry Pi reports it), as ``stopFix(_:then:)`` gives it; `nil` for another
    /// failure, whose message says what it is. Without it, a miswired board's journal said
    /// "cannot start IMU at 0x68 on /dev/i2c-1: remote I/O error … (errno 121)" and no fix.
    /// `then` ends the fix: how the program gets its sensor back (``restartPlumb``).
    static func failureFix(_ error: MotionSourceError, then: String = restartPlumb) -> String? {
        error.busError?.mayMeanNothingAnswers == true ? stopFix(error, then: then) : nil
    }

    /// The fix for a sensor that did not stop (`plumb run`, whose session has no command's
    /// explanation): the wiring when nothing acknowledged its address (ENXIO, or EREMOTEIO as a
    /// Raspberry Pi reports it: ``I2CError/mayMeanNothingAnswers``), else a check with the sensor
    /// tools; `then` ends it (``restartPlumb``).
    static func stopFix(_ error: MotionSourceError, then: String = restartPlumb) -> String {
        if error.busError?.mayMeanNothingAnswers == true {
            return I2CHelp.wiringFix(bus: error.busError?.bus, address: error.busError?.address) + " 'plumb probe' lists what answers; " + then
        }
        return "Check the IMU with 'plumb probe' and 'plumb read'; " + then
    }

    /// Hands the outputs' targets over (``DaemonOutput/handOver(to:into:)``), and says whether
    /// the chip was not answering (lost by the stream, or awaited: ``DaemonHandover/awaitsSensor``),
    /// so that the pipeline built next waits for its chip instead of failing its start.
    func handOver(to next: DaemonSetup) -> DaemonHandover {
        let handover = DaemonHandover()
        handover.awaitsSensor = lost != nil
        for output in outputs { output.handOver(to: next, into: handover) }
        handedOver = handover
        return handover
    }

    /// The handover of a reload under way (``handOver(to:)``): a chip the stream had not yet
    /// noticed gone, which the shutdown's stop finds silent, is awaited by the next pipeline too.
    private var handedOver: DaemonHandover?

    /// Stops the sensor and puts every output back, whether or not the stop succeeded.
    ///
    /// With ``warnsOfSilenceAtShutdown`` (`plumb run`), a chip that does not take the stop because
    /// nothing answers at its address (lost by the stream, or gone just now:
    /// ``I2CError/mayMeanNothingAnswers``) is no failure: the returned warning says it could not
    /// be put to sleep, and nothing else is needed. It has no power or
    /// no connection, and it comes up asleep from its power-on reset (the MPU-6050 family with
    /// PWR_MGMT_1's SLEEP bit set, reset value 0x40; the LSM6DS family in power-down, CTRL1_XL and
    /// CTRL2_G 0x00). That ended `plumb run` with exit 1 ("could not restore the outputs: cannot
    /// stop …"), leaving the unit failed after a `systemctl stop`. A stop the chip refuses
    /// otherwise (it answers, so it may go on running) and an output not put back are thrown,
    /// after the other outputs were put back. The events the outputs have left (the kiosk's last
    /// report) come with the returned ones.
    @discardableResult
    func shutdown() throws -> [DaemonEvent] {
        guard running else { return [] }
        running = false
        if case .auto(let monitor) = energy.policy { monitor.sessionEnded() }
        var events: [DaemonEvent] = []
        var failures: [String] = []
        var fix: String?
        if sensorActive {
            do { try source.stop() } catch {
                if warnsOfSilenceAtShutdown, error.busError?.mayMeanNothingAnswers == true {
                    events.append(DaemonEvent(level: .warning, message: "\(source.name) was not answering, so it could not be put to sleep (\(error.description))"))
                    handedOver?.awaitsSensor = true
                } else {
                    let failure = stopFailure(error, for: "at shutdown")
                    failures.append(failure.message)
                    fix = failure.fix
                }
            }
        } else if let handedOver, awaitedSince == nil, lost == nil {
            // A reload while the sensor is paused (the display blanked, no D-Bus claim): nothing
            // has read the chip since, so nothing knows whether it is still there. Unplugged
            // meanwhile, the pipeline built next failed its start, the previous one built again
            // failed alike, and the daemon ended ("cannot restart the previous configuration"),
            // where a chip lost while the sensor ran is awaited across the reload. The stop
            // again (the chip sleeps already: it only writes its sleep settings once more) says
            // whether it answers; a chip that does not is awaited by the next pipeline too.
            do { try source.stop() } catch {
                if error.busError?.mayMeanNothingAnswers == true {
                    handedOver.awaitsSensor = true
                    events.append(DaemonEvent(level: .warning, message: "\(source.name) went while the sensor was paused: it does not answer (\(error.description)); the reloaded configuration waits for it"))
                } else {
                    // It took its stop at the pause; the next start says what is wrong.
                    events.append(DaemonEvent(level: .warning, message: "\(source.name), paused, refused its stop again for the reload: \(error.description)"))
                    events.append(DaemonEvent(level: .warning, message: "fix: " + Self.stopFix(error)))
                }
            }
        }
        // The data-ready line goes now, not when the pipeline is freed: a reload builds the next
        // pipeline while this one is still referred to, and its request for the same line was
        // refused ("this plumb process already waits on it"), which ended the daemon.
        source.close()
        events += flapSummary(force: true)
        for output in outputs {
            do { try output.restore() } catch { failures.append("\(output.name): \(describe(error))") }
        }
        // What the outputs had to say until they were put back: the kiosk's last turn, which
        // its thread finished while the stop (or the reload's handover) waited for it.
        for output in outputs { events += output.takeEvents() }
        // A failure thrown carries the warning too, which would otherwise go unsaid.
        if !failures.isEmpty { throw CLIError.failure((failures + events.map(\.message)).joined(separator: "; "), fix: fix) }
        return events
    }
}
