import PlumbDrivers
import PlumbHAL
import PlumbLinux
import PlumbOrientation

/// A source that has things to log besides samples (gaps, identity, recovery notices).
protocol DaemonEventSource: AnyObject {
    func takeEvents() -> [DaemonEvent]
}

/// A driver behind the streaming engine as the daemon's sample source: the hardware IMU, or the
/// real driver against the emulated chip for `--simulate`.
final class StreamSampleSource: MotionSampleSource, DaemonEventSource {
    let name: String
    let imu: any IMU
    let stream: IMUStream
    var clock: any MonotonicClock { stream.clock }
    /// Events not yet taken (``takeEvents()``), at most ``maximumPendingEvents``: a program that
    /// reads samples only must not grow this for as long as the sensor runs.
    private var events: [DaemonEvent] = []
    /// Events dropped since the last ``takeEvents()`` because nobody took them.
    private var droppedEvents = 0
    /// The most events kept for ``takeEvents()`` (`plumb run` takes them after every read).
    static let maximumPendingEvents = 64
    /// Gap warnings, at most one summary a minute while they keep coming.
    private var gapLog = GapLog()
    /// Receives each event as it happens instead of ``takeEvents()`` (the commands that run the
    /// notifier, such as `plumb watch`, print them); set before ``start(_:)``.
    var eventSink: (@Sendable (DaemonEvent) -> Void)?
    /// The chip's claim (``I2CDeviceClaim``), held for as long as this source lives: another plumb
    /// process is refused the chip meanwhile. `nil` for the simulator, or a node that takes no lock.
    var claim: I2CDeviceClaim?
    /// The calibration the samples will be corrected with and its file, checked against the chip
    /// at every start (``Calibration/check(fits:file:)``): a calibration made on another part is
    /// refused before a sample is read, with the file, both parts and the fix
    /// (``DaemonFactory/settingsFix(_:path:)``). Checked again when the stream finds another chip
    /// at a re-initialisation (``Calibration/PartWatch``): that read throws the same error, with
    /// the samples read from the other chip dropped. Set before ``start(_:)``; `nil` for none.
    var calibration: (calibration: Calibration, file: String)? {
        didSet { calibrationWatch = calibration.map { Calibration.PartWatch($0.calibration, file: $0.file) } }
    }
    private var calibrationWatch: Calibration.PartWatch?
    /// The calibration refused the chip: the next start identifies it again (the stream keeps
    /// the identity it has), so the chip the calibration was made on, put back, is taken.
    private var identifyAtStart = false
    /// The wiring fix for a chip the stream cannot set up again was said (``emit(_:)``).
    private var wiringFixSaid = false
    /// A chip that stopped answering, told to the notifier (``takeNotices()``) once per loss: set
    /// by the stream's notice that it could not set the chip up again because nothing answers,
    /// cleared by the next samples.
    private var lost = false
    /// ``SensorNotice/Kind/lost`` notices not yet taken; the stream's other notices go to the
    /// events (``takeEvents()``, ``eventSink``), which `plumb run` and the live commands print.
    private var lostNotices: [SensorNotice] = []

    init(name: String, imu: any IMU, line: (any InterruptLine)?, clock: any MonotonicClock) {
        self.name = name
        self.imu = imu
        stream = IMUStream(imu: imu, line: line, clock: clock)
    }

    /// Tells the stream the clock of its bus, read from the device tree, so that it can say when
    /// its rate needs more of the bus than is safe; logs the clock (and why it is unknown).
    func useBusClock(_ reading: BusClockSupport.Reading, maximumReadLength: Int?, rateSetting: String, model: String?) {
        stream.busClock = BusClockSupport.streamClock(reading, maximumReadLength: maximumReadLength, rateSetting: rateSetting, model: model)
        if let error = reading.error {
            emit(DaemonEvent(level: .warning, message: "the clock of \(reading.busPath) is unknown, its load not checked: cannot read \(error.path): \(error.message)"))
        } else {
            emit(DaemonEvent(level: .info, message: "I2C bus \(reading.busPath): \(reading.text)"))
        }
    }

    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
        let effective: IMUConfiguration
        do {
            if identifyAtStart { _ = try imu.identify() }
            identifyAtStart = false
            effective = try stream.start(configuration)
        } catch { throw .imu(error) }
        // The chip took the start: a loss told before is over, and the next is told (it was
        // cleared only by samples, so a chip lost again before its first sample went untold).
        lost = false
        if let identity = imu.identity {
            emit(DaemonEvent(level: .info, message: "found \(identity.part) (WHO_AM_I 0x\(hex(identity.whoAmI))) at \(identity.address) on \(identity.bus)", followsPresence: true))
            for warning in identity.warnings { emit(DaemonEvent(level: .warning, message: warning)) }
        }
        // Notices from the start (the bus budget) now, after the chip's identity.
        for notice in stream.takeNotices() { emit(notice) }
        try checkCalibration()
        return effective
    }

    /// Refuses a chip the calibration was not made on (``calibration``), at the start and when a
    /// re-initialisation found another chip: the stream is stopped again before one sample is
    /// corrected with another chip's calibration.
    private func checkCalibration() throws(MotionSourceError) {
        guard calibrationWatch != nil, let identity = imu.identity else { return }
        do { try calibrationWatch?.check(identity) } catch {
            identifyAtStart = true
            do { try stream.stop() } catch let stopError {
                emit(DaemonEvent(level: .warning, message: "\(name): stopping it after refusing its calibration failed: \(stopError)"))
            }
            throw .imu(error)
        }
    }

    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        let before = samples.count
        let gaps = stream.step(into: &samples)
        if !gaps.isEmpty || !gapLog.isIdle {
            let now = stream.clock.nowNanoseconds
            for gap in gaps {
                if let line = gapLog.record(gap, source: name, now: now) { emit(DaemonEvent(level: .warning, message: line)) }
            }
            if let summary = gapLog.flush(source: name, now: now) { emit(DaemonEvent(level: .warning, message: summary)) }
        }
        for notice in stream.takeNotices() { emit(notice) }
        do { try checkCalibration() } catch {
            samples.removeSubrange(before...)
            throw error
        }
        if samples.count > before { lost = false }
        return samples.count > before ? .samples : .timedOut
    }

    /// The chip lost since the last call (``SensorNotice/Kind/lost``, at most one per loss), so
    /// that the notifier says "reading again after" once samples come back and `plumb dbus`
    /// turns HasAccelerometer false meanwhile. The notice's text was already an event.
    func takeNotices() -> [SensorNotice] {
        defer { lostNotices.removeAll() }
        return lostNotices
    }

    func wake(bySampleAt sampleNanoseconds: UInt64) { stream.wake(bySampleAt: sampleNanoseconds) }

    /// Lets go of the data-ready line; the chip's claim stays with the source (``claim``), held
    /// across a reload until the next pipeline's source shares it.
    func close() { stream.releaseLine() }

    func stop() throws(MotionSourceError) {
        if let summary = gapLog.flush(source: name, now: stream.clock.nowNanoseconds, force: true) {
            emit(DaemonEvent(level: .warning, message: summary))
        }
        do { try stream.stop() } catch { throw .imu(error) }
    }

    /// How the fix for a chip the stream cannot set up again ends: the stream keeps trying.
    static let setUpAgain = "the chip is set up again once it answers."

    /// A notice of the stream's, and for a chip it cannot set up again because nothing answers
    /// at the address (unplugged while the sensor ran) `plumb run`'s wiring fix as its own line
    /// "fix: …" (``SensorPipeline/failureFix(_:then:)``); the stream retries, so the session goes on.
    /// The fix is said once per session: a flaky bus (EREMOTEIO on a Raspberry Pi is also a
    /// transfer cut short) fails a re-initialisation again and again, and its notices say so.
    private func emit(_ notice: IMUStream.Notice) {
        let said = SensorNotice(stream: notice, source: name)
        emit(DaemonEvent(level: .notice, message: notice.message, followsPresence: said.kind == .lost || notice.nothingAnswers))
        if said.kind == .lost, !lost {
            lost = true
            lostNotices = [said] // the latest only: `plumb run` reads events, not notices
        }
        if !wiringFixSaid, let error = notice.error, let fix = SensorPipeline.failureFix(.imu(error), then: Self.setUpAgain) {
            wiringFixSaid = true
            emit(DaemonEvent(level: .notice, message: "fix: \(fix)"))
        }
    }

    private func emit(_ event: DaemonEvent) {
        if let eventSink { eventSink(event); return }
        if events.count >= Self.maximumPendingEvents {
            events.removeFirst()
            droppedEvents += 1
        }
        events.append(event)
    }

    func takeEvents() -> [DaemonEvent] {
        defer { events.removeAll(keepingCapacity: true); droppedEvents = 0 }
        guard droppedEvents > 0 else { return events }
        return [DaemonEvent(level: .warning, message: "\(name): \(droppedEvents) earlier events were dropped (not taken in time)")] + events
    }
}
