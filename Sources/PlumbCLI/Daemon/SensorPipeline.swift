import PlumbConfiguration
import PlumbDrivers
import PlumbHAL
import PlumbOrientation

/// Something the daemon drives from the orientation: the level image, the kiosk rotation, LEDs.
protocol DaemonOutput: AnyObject {
    /// "level on /dev/fb0", "kiosk via wlr-randr on HDMI-A-1", "LEDs ACT".
    var name: String { get }
    /// The device orientation changed (after hysteresis and settle time).
    func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws
    /// Called after every batch of samples with the latest gravity (device frame, unit vector).
    func gravityUpdated(_ gravity: SIMD3<Double>) throws
    /// Puts the output back as it was before the daemon touched it.
    func restore() throws
}

extension DaemonOutput {
    func gravityUpdated(_ gravity: SIMD3<Double>) throws {}
}

/// The daemon's one sensor session: samples from a source, corrected, through the orientation
/// pipeline, to every output. Runs on the daemon's thread; allocates nothing per sample (the
/// sample buffer keeps its capacity).
final class SensorPipeline: DaemonPipeline {
    let source: any MotionSampleSource
    let outputs: [any DaemonOutput]
    let summary: String
    /// The interface orientations the outputs may take; others leave the interface as it is.
    let allowedInterfaces: Set<InterfaceOrientation>
    /// Applied to each sample before fusion (calibration); `nil` for none.
    let correct: ((inout IMUSample) -> Void)?
    /// When the source runs in virtual time (the simulator), the real clock it is paced against.
    let pacing: (any MonotonicClock)?
    /// How long the source may deliver nothing before the session counts as failed, in nanoseconds.
    let stallLimit: UInt64

    private var orientation: OrientationPipeline
    private var samples: [IMUSample] = []
    private var interface: InterfaceOrientation = .portrait
    private var lastData: UInt64
    private var stallReported = false
    private var pacingStart: (real: UInt64, virtual: UInt64)?
    private var running = true
    /// What the source reported while starting (the part found), logged with the first step.
    private var startEvents: [DaemonEvent] = []

    init(source: any MotionSampleSource, configuration: IMUConfiguration, orientation: OrientationPipeline,
         outputs: [any DaemonOutput], allowedInterfaces: Set<InterfaceOrientation>, correct: ((inout IMUSample) -> Void)? = nil,
         pacing: (any MonotonicClock)? = nil, stallLimit: UInt64 = 10 * Nanoseconds.perSecond, describe: (IMUConfiguration) -> String) throws {
        self.source = source
        self.outputs = outputs
        self.orientation = orientation
        self.allowedInterfaces = allowedInterfaces
        self.correct = correct
        self.pacing = pacing
        self.stallLimit = stallLimit
        samples.reserveCapacity(1024)
        let effective: IMUConfiguration
        do { effective = try source.start(configuration) } catch {
            throw CLIError.failure("cannot start \(source.name): \(error.description)", fix: nil)
        }
        summary = describe(effective)
        lastData = source.clock.nowNanoseconds
        startEvents = (source as? DaemonEventSource)?.takeEvents() ?? []
    }

    func step(timeoutNanoseconds: UInt64) throws -> [DaemonEvent] {
        samples.removeAll(keepingCapacity: true)
        let result: MotionSourceRead
        do { result = try source.read(into: &samples, timeoutNanoseconds: timeoutNanoseconds) } catch {
            throw CLIError.failure("\(source.name): \(error.description)", fix: nil)
        }
        var events = startEvents + ((source as? DaemonEventSource)?.takeEvents() ?? [])
        startEvents.removeAll()
        let now = source.clock.nowNanoseconds
        switch result {
        case .finished:
            throw CLIError.failure("\(source.name) has no more data", fix: nil)
        case .timedOut where samples.isEmpty:
            if now &- lastData >= stallLimit {
                throw CLIError.failure("no samples from \(source.name) for \(stallLimit / Nanoseconds.perSecond) s",
                                       fix: "Check the wiring and the interrupt line, or set \"interrupt\": \"poll\".")
            }
            if !stallReported, now &- lastData >= stallLimit / 4 {
                stallReported = true
                events.append(DaemonEvent(level: .warning, message: "no samples from \(source.name) for \(Double(now &- lastData) / 1e9) s"))
            }
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
            if let next = device.interfaceOrientation, allowedInterfaces.contains(next) { interface = next }
            events.append(DaemonEvent(level: .notice, message: "orientation \(device.rawValue) (interface \(interface.rawValue))"))
            for output in outputs { try output.orientationChanged(device, interface: interface) }
        }
        if !samples.isEmpty {
            for output in outputs { try output.gravityUpdated(orientation.gravity) }
        }
        pace()
        return events
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

    func shutdown() throws {
        guard running else { return }
        running = false
        var failures: [String] = []
        do { try source.stop() } catch { failures.append("\(source.name): \(error.description)") }
        for output in outputs {
            do { try output.restore() } catch { failures.append("\(output.name): \(describe(error))") }
        }
        if !failures.isEmpty { throw CLIError.failure(failures.joined(separator: "; "), fix: nil) }
    }
}
