import Foundation
import PlumbConfiguration
import PlumbDisplay
import PlumbDrivers
import PlumbFusion
import PlumbHAL
import PlumbLinux
import PlumbOrientation
import PlumbSimulation

/// Builds the daemon's pipeline from a configuration: the sample source (hardware, simulator or
/// a recording), the orientation pipeline (filter, mounting, classifier) and the outputs.
struct DaemonFactory {
    enum SourceChoice: Sendable, Equatable {
        /// The IMU on the board's bus.
        case hardware
        /// The emulated IMU, paced to real time.
        case simulated
        /// A recorded CSV (BROAD format), played in real time.
        case replay(String)
    }

    var source: SourceChoice
    /// The motion the simulated IMU goes through (`--profile`).
    var profile: String = "tour"
    var context: CommandContext
    var realClock: any MonotonicClock
    /// The LED class directory.
    var ledDirectory = "/sys/class/leds"
    /// Where sysfs is mounted, for the I2C bus clock.
    var sysfsRoot = "/sys"
    /// Where the hardware source's events go as they happen (see ``StreamSampleSource/eventSink``);
    /// `nil` keeps them for the daemon's ``DaemonPipeline/step(timeoutNanoseconds:)``.
    var eventSink: (@Sendable (DaemonEvent) -> Void)?
    /// Performs kiosk rotations; `nil` runs the real commands (tests substitute a recorder).
    var rotationRunner: (any RotationActionRunner & Sendable)?
    /// Where the kiosk's tools run: on a thread of their own (`plumb run`: the loop never waits
    /// for one), or on the loop's (tests in virtual time, whose loop would run ahead of the
    /// thread: their timeline then comes out exactly). ``KioskWorker/Placement``.
    var kioskPlacement: KioskWorker.Placement = .ownThread
    /// Where `lowEnergy: auto` reads the power state (the running system's, on a poller thread).
    var powerMonitor: any PowerStateMonitor = SystemPowerStateMonitor.polled(pollInterval: Double(EnergyMode.defaultPollInterval) / 1e9)
    /// Whether a session whose chip does not answer at start (nothing acknowledges its address)
    /// starts anyway and waits for it (`plumb run --wait-for-sensor`, which plumb.service passes):
    /// ``SensorPipeline/waitsForSensor``.
    var waitsForSensor = false
    /// Opens the hardware source's I2C bus (`imu.bus`, else the board's) and gives the clock its
    /// samples are timed on; `nil` opens the kernel's /dev/i2c-N on the system clock. Tests give
    /// an emulated bus whose chip can be unplugged, on a virtual clock.
    var openBus: ((String) throws -> (bus: any I2CBus, clock: any MonotonicClock))?
    /// With ``openBus``: the file standing in for the bus's device node, whose byte at the chip's
    /// address is its claim (``I2CDeviceClaim``); `nil` takes no claim. (Without ``openBus`` the
    /// claim is on the node itself.)
    var claimNode: ((String) -> String)?
    /// Requests the hardware source's data-ready line for rising edges; `nil` requests it from
    /// the kernel through libgpiod (``GPIODInterruptLine``). Tests give a line that is busy
    /// first, as another plumb process's is for a moment after it let go of the chip's claim.
    var openLine: ((GPIOLineSelector) throws(GPIOError) -> any InterruptLine)?

    /// The orientation pipeline the configuration asks for: filter, classifier, mounting.
    static func orientationPipeline(_ c: Configuration) -> OrientationPipeline {
        let tunings = classifiers(c.orientation)
        return OrientationPipeline(fused: estimator(c.filter), classifier: tunings.normal, accelerometerOnlyClassifier: tunings.lowEnergy,
                                   mounting: mounting(c.mounting))
    }

    /// The interface orientations `orientation.interfaceOrientations` lets the outputs take.
    static func allowedInterfaces(_ o: OrientationSettings) -> Set<InterfaceOrientation> {
        Set(interfaceOrientations(o))
    }

    /// `orientation.interfaceOrientations` in the file's order (the first is the one shown before
    /// the notifier has settled on an allowed face when portrait is not allowed: ``initialInterface(_:)``).
    static func interfaceOrientations(_ o: OrientationSettings) -> [InterfaceOrientation] {
        o.interfaceOrientations.compactMap { InterfaceOrientation(rawValue: $0.rawValue) }
    }

    /// The interface orientation `plumb watch` prints before the notifier has settled on an
    /// upright face that `allowed` holds (lying flat since the start, or upright in a face not
    /// allowed): portrait, the notifier's own start, when allowed; else the first `allowed`
    /// lists. An app on iOS is likewise only ever told an orientation it supports, and is
    /// launched in the first its `UISupportedInterfaceOrientations` list names when the device's
    /// own is not among them. `allowed` empty (the configuration loader refuses that): portrait.
    ///
    /// `plumb run`'s session keeps portrait as its start for the outputs that act on it: its
    /// kiosk and D-Bus outputs treat an interface outside `orientation.interfaceOrientations` as
    /// "none yet" (the screen stays, the property stays `undefined`), which a default taken from
    /// the list would turn into a real turn. What it only reports (its log line, MQTT) goes
    /// through ``shownInterface(_:allowed:)``.
    static func initialInterface(_ allowed: [InterfaceOrientation]) -> InterfaceOrientation {
        allowed.contains(.portrait) ? .portrait : allowed.first ?? .portrait
    }

    /// The interface orientation to report for `interface` as a session holds it (the latest
    /// allowed one, or portrait before one was seen): itself when `allowed` holds it, else
    /// ``initialInterface(_:)``. Never one outside `allowed`.
    static func shownInterface(_ interface: InterfaceOrientation, allowed: [InterfaceOrientation]) -> InterfaceOrientation {
        allowed.contains(interface) ? interface : initialInterface(allowed)
    }

    /// The mounting as the pipeline and the notifier take it: three rows, device x, y, z in sensor axes.
    static func mounting(_ mounting: PlumbConfiguration.Mounting) -> (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
        let m = mounting.matrix
        return (SIMD3(m[0][0], m[0][1], m[0][2]), SIMD3(m[1][0], m[1][1], m[1][2]), SIMD3(m[2][0], m[2][1], m[2][2]))
    }

    /// The classifier tunings `orientation` asks for, in both energy modes: its preset's, then
    /// each value it sets, the time cap's included (in both). `plumb run` and every command on the
    /// board's IMU (`watch`, `dbus`, `level`, `led`, `kiosk`) take them from here.
    static func classifiers(_ o: OrientationSettings) -> ClassifierTunings {
        var tunings = ClassifierTunings(preset: o.preset)
        tunings.override(hysteresis: o.hysteresis, settleTime: o.settleTime,
                         maximumRotationRate: o.maxRotationRate.map { $0 == 0 ? .infinity : $0 }, rateTimeConstant: nil)
        if let wait = o.maxWait { tunings.overrideDwell(maximumWait: wait == 0 ? .some(nil) : .some(wait)) }
        tunings.overrideDwell(margin: o.dwellMargin, maximumRotationRate: o.dwellMaxRotationRate.map { $0 == 0 ? .infinity : $0 })
        return tunings
    }

    /// The pipeline for `setup`, taking what a reload hands over (`handover`: the kiosk's screen
    /// at its rotation, when `setup` turns the same one). Its chip is waited for when it does not
    /// answer with ``waitsForSensor``, and after a reload from a pipeline whose chip was not
    /// answering (``DaemonHandover/awaitsSensor``).
    func build(_ setup: DaemonSetup, handover: DaemonHandover? = nil) throws -> DaemonPipeline {
        let c = setup.configuration
        let imuConfiguration = Self.imuConfiguration(c)
        let awaits = waitsForSensor || handover?.awaitsSensor == true
        // The calibration before the chip: a bad file fails without touching it.
        let calibration = try Self.loadCalibration(c)
        let (sampleSource, pacing) = try makeSource(setup, imuConfiguration: imuConfiguration, calibration: calibration, awaitsClaim: awaits)
        let outputs = try makeOutputs(setup, handover: handover)
        var outputNames = outputs.isEmpty ? "no outputs (orientation is logged)" : outputs.map(\.name).joined(separator: ", ")
        if !outputs.isEmpty, outputs.allSatisfy({ $0 is DBusDaemonOutput }) { outputNames += " (the sensor runs only while a client holds a claim)" }
        do {
            return try Self.session(c, source: sampleSource, normal: imuConfiguration, outputs: outputs, correct: Self.correction(calibration),
                                    pacing: pacing, powerMonitor: powerMonitor, configurationPath: setup.path, configurationPositions: setup.positions,
                                    waitsForSensor: awaits, warnsOfSilenceAtShutdown: true,
                                    describe: { effective in
                "\(sampleSource.name) at \(Int(effective.outputDataRate.rounded())) Hz, \(c.filter.kind.rawValue) filter, \(outputNames)"
            })
        } catch {
            // The sensor did not start: give back what the outputs took (the bus name, the screen).
            throw Self.restoring(outputs, after: error)
        }
    }

    /// One sensor session as `plumb run` runs it, and `plumb level`, `led` and `kiosk` on the
    /// board's IMU: `source` (started now with `normal`, or the low-energy settings) through the
    /// configuration's orientation pipeline (``orientationPipeline(_:)``), its
    /// `orientation.interfaceOrientations` (``allowedInterfaces(_:)``) and its
    /// `orientation.lowEnergy` (``energyMode(_:normal:monitor:)``), to `outputs`.
    ///
    /// - Parameters:
    ///   - correct: the calibration (``calibration(_:)``), unless `source` applies it already.
    ///   - explain: turns a failure of the source into the command's message (``LiveSensor/failure(_:found:probe:)``);
    ///     `nil` names the source and the error.
    ///   - configurationPath: the file the settings came from, for the fix of a setting the chip
    ///     refuses (``settingsFix(_:path:)``), and `configurationPositions` where in it they were
    ///     written, for the message's line and column (``locatingSettings(_:error:positions:)``).
    ///   - warnsOfSilenceAtShutdown: `plumb run`'s: a chip not answering at the stop is a warning,
    ///     not a failure (``SensorPipeline/warnsOfSilenceAtShutdown``).
    static func session(_ c: Configuration, source: any MotionSampleSource, normal: IMUConfiguration,
                        outputs: [any DaemonOutput], correct: ((inout IMUSample) -> Void)?, pacing: (any MonotonicClock)?,
                        powerMonitor: any PowerStateMonitor, explain: ((MotionSourceError) -> CLIError)? = nil,
                        configurationPath: String? = nil, configurationPositions: ConfigurationPositions? = nil,
                        waitsForSensor: Bool = false, warnsOfSilenceAtShutdown: Bool = false,
                        describe: @escaping (IMUConfiguration) -> String) throws -> SensorPipeline {
        try SensorPipeline(
            source: source, configuration: normal, orientation: orientationPipeline(c), outputs: outputs,
            allowedInterfaces: allowedInterfaces(c.orientation), listedInterfaces: interfaceOrientations(c.orientation),
            correct: correct, pacing: pacing,
            energy: energyMode(c, normal: normal, monitor: powerMonitor), explain: explain,
            configurationPath: configurationPath, configurationPositions: configurationPositions, waitsForSensor: waitsForSensor,
            warnsOfSilenceAtShutdown: warnsOfSilenceAtShutdown, describe: describe)
    }

    /// The fix for a sensor start the driver refused as a setting it cannot run
    /// (``IMUError/invalidConfiguration(_:)``: a rate outside the chip's range, such as the
    /// MPU-6050 FIFO's 3.9...1000 Hz, or a FIFO watermark past its depth, which `imu.rate` sets
    /// through ``imuConfiguration(_:)``), or `imu.part` naming a part of another family than the
    /// chip that answers (``IMUError/partMismatch(given:register:read:found:)``), or a calibration
    /// made on another part than the chip found (``IMUError/calibrationForAnotherPart(file:madeOn:found:)``);
    /// `nil` for any other failure.
    static func settingsFix(_ error: MotionSourceError, path: String) -> String? {
        switch error {
        case .imu(.invalidConfiguration):
            return "Set imu.rate in \(path) within the chip's range named above (the FIFO watermark follows from the rate)."
        case .imu(.partMismatch(_, _, _, let found)):
            return "Set imu.part in \(path) to \"auto\": the part is then found by its WHO_AM_I. Or set it to \"\(found.partKey)\"."
        case .imu(.calibrationForAnotherPart(_, _, let found)):
            return Calibrate.anotherPartFix(found.part, setting: "point \"calibration\" in \(path) at the file made on it")
        default:
            return nil
        }
    }

    /// `message`, about a start the driver refused as a setting `imu.rate` sets (the first case of
    /// ``settingsFix(_:path:)``), at imu.rate's line and column in the file, as `plumb config
    /// check` gives it: `/etc/plumb/plumb.json:3:22: imu.rate: the IMU at 0x68 on /dev/i2c-1:
    /// output data rate 1500.0 Hz: the MPU-6050 FIFO runs at 3.9...1000 Hz` (a file that leaves
    /// imu.rate out: where its `imu` object, or the document, starts). `message` itself for any
    /// other failure, or without `positions` (no file was read).
    static func locatingSettings(_ message: String, error: MotionSourceError, positions: ConfigurationPositions?) -> String {
        guard case .imu(.invalidConfiguration) = error, let positions else { return message }
        return positions.error("imu.rate", message).description
    }

    /// The notifier reading `source` as `plumb run` reads the sensor, for `plumb watch` and `plumb
    /// dbus` on the board's IMU: the configuration's classifier tunings in both energy modes
    /// (``classifiers(_:)``: the preset, then each single value and the time cap; `tunings`
    /// replaces them when a command's flags changed them), its `orientation.lowEnergy` (auto
    /// follows `powerMonitor`, on forces the low-energy mode, off never takes it), filter
    /// (``estimator(_:)``) and mounting (``mounting(_:)``), and `normal` as the normal mode's
    /// sensor settings. `powerMonitor` also reports display blanking, which pauses the sensor
    /// unless ``EnergySettings/pausesWhileDisplayBlanked`` is turned off.
    static func notifier(_ c: Configuration, tunings: ClassifierTunings? = nil, normal: IMUConfiguration,
                         source: @escaping MotionOrientation.SourceFactory, powerMonitor: (any PowerStateMonitor)?) -> MotionOrientation {
        let tunings = tunings ?? classifiers(c.orientation)
        var energy = EnergySettings(lowEnergyClassifier: tunings.lowEnergy)
        energy.normal = normal
        let filter = c.filter
        let motion = MotionOrientation(source: source, estimator: { estimator(filter) }, classifier: tunings.normal,
                                       energy: energy, monitor: powerMonitor)
        switch c.orientation.lowEnergy {
        case .auto: motion.automaticLowEnergyMode = true
        case .on: motion.setLowEnergyModeForcibly(true)
        case .off: motion.automaticLowEnergyMode = false
        }
        motion.mounting = mounting(c.mounting)
        return motion
    }

    /// Restores outputs already made when building fails later (``DaemonOutput/restoreUnused()``:
    /// a kiosk that took a reload's screen gives it back for the pipeline built next, rather than
    /// turning it upright); a restore failure is added to `error`'s message rather than hiding it.
    static func restoring(_ outputs: [any DaemonOutput], after error: any Error) -> any Error {
        var failures: [String] = []
        for output in outputs {
            do { try output.restoreUnused() } catch { failures.append("\(output.name): \(describe(error))") }
        }
        guard !failures.isEmpty else { return error }
        let fix: String? = if case CLIError.failure(_, let fix) = error { fix } else { nil }
        return CLIError.failure(describe(error) + " (and restoring failed: " + failures.joined(separator: "; ") + ")", fix: fix)
    }

    /// The driver settings a configuration asks for.
    static func imuConfiguration(_ c: Configuration) -> IMUConfiguration {
        var imu = IMUConfiguration()
        imu.outputDataRate = c.imu.rate
        imu.accelerometerRange = c.imu.accelerometerRange
        imu.gyroscopeRange = c.imu.gyroscopeRange
        // About 10 wakeups a second at any rate, at most the FIFO's comfortable depth.
        imu.fifoWatermark = max(1, min(64, Int((c.imu.rate / 10).rounded())))
        return imu
    }

    /// The energy policy: `auto` reads the board's power and thermal state from sysfs.
    func energyMode(_ c: Configuration, normal: IMUConfiguration) -> EnergyMode {
        Self.energyMode(c, normal: normal, monitor: powerMonitor)
    }

    /// The energy policy `orientation.lowEnergy` asks for: `auto` follows `monitor`, `on` is
    /// always low energy, `off` never.
    static func energyMode(_ c: Configuration, normal: IMUConfiguration, monitor: any PowerStateMonitor) -> EnergyMode {
        switch c.orientation.lowEnergy {
        case .auto: EnergyMode(policy: .auto(monitor), normal: normal)
        case .on: EnergyMode(policy: .always, normal: normal)
        case .off: EnergyMode(policy: .never, normal: normal)
        }
    }

    /// The gravity estimator for the configured filter and parameters.
    static func estimator(_ f: FilterSettings) -> any GravityEstimator {
        switch f.kind {
        case .plumb:
            var settings = PlumbFilter.Settings()
            if let tau = f.timeConstant { settings.accelerometerTimeConstant = tau }
            return FusedGravity(PlumbFilter(settings: settings))
        case .madgwick:
            var settings = MadgwickFilter.Settings()
            if let beta = f.beta { settings.beta = beta }
            return FusedGravity(MadgwickFilter(settings: settings))
        case .complementary:
            var settings = ComplementaryFilter.Settings()
            if let tau = f.timeConstant { settings.timeConstant = tau }
            return FusedGravity(ComplementaryFilter(settings: settings))
        }
    }

    /// The sample source `setup` asks for, and the real clock that paces it when it runs in virtual
    /// time. The hardware IMU's chip is claimed (``I2CDeviceClaim``) before anything is sent to it:
    /// when another plumb process holds it, the start is refused (``I2CHelp/inUse(_:)``), or with
    /// `awaitsClaim` (`--wait-for-sensor`) the source is a ``ClaimAwaitingSource``, whose starts
    /// fail with ``I2CError/Kind/claimedByAnotherProcess`` until that process lets go.
    /// `calibration` (the configuration's, ``loadCalibration(_:)``) is checked against the chip
    /// at each start of a chip's source (``StreamSampleSource/calibration``); a recording has no
    /// chip to check it against.
    func makeSource(_ setup: DaemonSetup, imuConfiguration: IMUConfiguration, calibration: Calibration?,
                    awaitsClaim: Bool = false) throws -> (any MotionSampleSource, (any MonotonicClock)?) {
        switch source {
        case .replay(let path):
            // Read and told as `plumb watch --replay` and `plumb kiosk --replay` read and tell it:
            // the daemon's own copy said "cannot read the recording PATH (…)" and left the final
            // "." off both its messages.
            let recording = try Watch.loadRecording(path)
            return (RecordingSource(recording: recording, name: "recording \(path)"), realClock)
        case .simulated:
            let c = setup.configuration
            let key = c.imu.part == "auto" ? "mpu6050" : c.imu.part
            guard let model = SimulatedChips.model(key) else {
                throw CLIError.failure("the simulator has no \(key) chip",
                                       fix: "Set imu.part to one of \(SimulatedChips.all.map(\.key).joined(separator: ", ")), or \"auto\".")
            }
            guard let motion = MotionProfile.named(profile) else {
                throw CLIError.usage("The value '\(profile)' is invalid for '--profile': expected one of \(MotionProfile.builtInNames.joined(separator: ", ")).")
            }
            let sensor = PlumbSimulation.SimulatedSensor(model: model, profile: motion, seed: 1)
            let imu = try Self.makeIMU(bus: sensor.bus, address: model.address, clock: sensor.clock,
                                       part: c.imu.part == "auto" ? nil : key, fifoCompression: c.imu.fifoCompression)
            let source = StreamSampleSource(name: "simulated \(model.part) (\(profile))", imu: imu, line: sensor.line, clock: sensor.clock)
            // With imu.part "auto" the emulated chip is an MPU-6050 whatever the board has, so a
            // calibration made on the board's LSM6DSO would refuse `plumb run --simulate` with the
            // board's own plumb.json: checked only against a part the file names.
            if c.imu.part != "auto" { source.calibration = calibration.map { ($0, c.calibrationFile ?? "") } }
            return (source, realClock)
        case .hardware:
            let c = setup.configuration
            let board = setup.board.board
            let busPath = c.imu.bus ?? board.i2cBus
            let address = c.imu.address ?? board.imuAddress
            let bus: any I2CBus
            let clock: any MonotonicClock
            let claimNode: String?
            if let openBus {
                (bus, clock) = try openBus(busPath)
                claimNode = self.claimNode?(busPath)
            } else {
                let system = SystemClock()
                do { bus = try LinuxI2CBus(path: busPath, clock: system) } catch {
                    // The fix for this errno (a typo, I2C off, permission, not an adapter), naming
                    // imu.bus in the file, as plumb read's names --bus.
                    throw I2CHelp.openFailure(error, setting: .configuration(path: setup.path))
                }
                clock = system
                claimNode = busPath
            }
            var location: InterruptLocation?
            switch c.imu.interrupt {
            case .board: location = board.interrupt
            case .line(let l): location = l
            case .poll: location = nil
            }
            let name = "IMU at \(address) on \(busPath)" + (location.map { ", data-ready \($0)" } ?? ", polling")
            let sink = eventSink
            let sysfsRoot = sysfsRoot
            let lineOpener = openLine
            // The chip's stream, made once its claim is held: the data-ready line, then the
            // driver (which sends nothing to the chip until it starts). The line first, so that a
            // line another plumb process still holds (``DataReadyLineHeld``) leaves the chip untouched.
            let stream = { (claim: I2CDeviceClaim?) throws -> StreamSampleSource in
                var line: (any InterruptLine)?
                if let location {
                    let selector: GPIOLineSelector
                    switch location.line {
                    case .name(let name): selector = GPIOLineSelector(chip: location.chip.text, line: .name(name))
                    case .offset(let offset): selector = GPIOLineSelector(chip: location.chip.text, line: .offset(UInt32(offset)))
                    }
                    do throws(GPIOError) {
                        if let lineOpener { line = try lineOpener(selector) } else { line = try GPIODInterruptLine(selector, edges: .rising) }
                    } catch {
                        if error.isHeldByAnotherPlumbProcess { throw DataReadyLineHeld(line: location.description, error: error) }
                        throw Self.lineFailure(error)
                    }
                }
                let imu = try Self.makeIMU(bus: bus, address: address, clock: clock, part: c.imu.part == "auto" ? nil : c.imu.part,
                                           fifoCompression: c.imu.fifoCompression)
                let source = StreamSampleSource(name: name, imu: imu, line: line, clock: clock)
                source.calibration = calibration.map { ($0, c.calibrationFile ?? "") }
                source.claim = claim
                source.eventSink = sink
                source.useBusClock(BusClockSupport.read(busPath: busPath, sysfsRoot: sysfsRoot), maximumReadLength: bus.maximumReadLength,
                                   rateSetting: "imu.rate", model: BusClockSupport.model())
                return source
            }
            // Before the chip is touched: a chip another plumb drives (a polled one has no GPIO
            // line to guard it) is refused, not reset under it; or, with awaitsClaim, awaited.
            guard let claimNode else { return (try Self.failingOnHeldLine { try stream(I2CDeviceClaim?.none) }, nil) }
            let take = { () throws(I2CDeviceInUse) -> I2CDeviceClaim? in
                let claim = try I2CDeviceClaim.acquire(path: claimNode, address: address)
                return claim.isHeld ? claim : nil
            }
            let awaiting = { ClaimAwaitingSource(name: name, clock: clock, bus: busPath, address: address, claim: take, build: stream) }
            let claim: I2CDeviceClaim?
            do throws(I2CDeviceInUse) { claim = try take() } catch {
                guard awaitsClaim else { throw I2CHelp.inUse(error) }
                return (awaiting(), nil)
            }
            guard awaitsClaim else { return (try Self.failingOnHeldLine { try stream(claim) }, nil) }
            do { return (try stream(claim), nil) } catch is DataReadyLineHeld {
                // The other plumb process let go of the chip's claim a moment before its
                // data-ready line: awaited as while it held the claim, which is dropped here
                // (nothing was sent to the chip) and taken again by the waiting source's starts.
                return (awaiting(), nil)
            }
        }
    }

    /// The failure of a data-ready line that cannot be requested (``GPIOError``: busy, missing,
    /// refused), with the fix.
    static func lineFailure(_ error: GPIOError) -> CLIError {
        .failure(String(describing: error),
                 fix: "Free the line (gpioinfo names its user), choose another with imu.interrupt, or poll instead: \"imu\": {\"interrupt\": \"poll\"} in plumb.json.")
    }

    /// `make`'s source, where a data-ready line another plumb process holds (``DataReadyLineHeld``)
    /// fails as any busy line does (``lineFailure(_:)``): without --wait-for-sensor nothing awaits it.
    static func failingOnHeldLine(_ make: () throws -> StreamSampleSource) throws -> StreamSampleSource {
        do { return try make() } catch let held as DataReadyLineHeld { throw lineFailure(held.error) }
    }

    /// The driver for a part key, or by address when the part is "auto": the LSM6DS family
    /// answers at 0x6A/0x6B, the MPU-6050 family at 0x68/0x69. WHO_AM_I then names the row.
    static func makeIMU(bus: any I2CBus, address: I2CAddress, clock: any MonotonicClock, part: String?,
                        fifoCompression: Bool = true) throws -> any IMU {
        let imu = try makeDriver(bus: bus, address: address, clock: clock, part: part)
        if let lsm = imu as? LSM6DS { lsm.fifoCompression = fifoCompression }
        return imu
    }

    private static func makeDriver(bus: any I2CBus, address: I2CAddress, clock: any MonotonicClock, part: String?) throws -> any IMU {
        if let part {
            if MPU6050.variant(named: part) != nil {
                do { return try MPU6050(bus: bus, address: address, clock: clock, part: part) } catch {
                    throw CLIError.failure(error.description, fix: nil)
                }
            }
            guard let variant = LSM6DS.Variant.all.first(where: { $0.key == part }) else {
                throw CLIError.failure("no driver for the part \(part)", fix: "Set imu.part to \"auto\" or one of \(IMUSettings.parts.joined(separator: ", ")).")
            }
            return LSM6DS(bus: bus, address: address, clock: clock, part: variant)
        }
        if address.rawValue == 0x6A || address.rawValue == 0x6B { return LSM6DS(bus: bus, address: address, clock: clock) }
        do { return try MPU6050(bus: bus, address: address, clock: clock) } catch {
            throw CLIError.failure(error.description, fix: nil)
        }
    }

    /// The backend `outputs.kiosk` names: its method, its output (else the board's display
    /// connector) and command. `plumb run` and `plumb kiosk` on the board's IMU take it from here.
    static func kioskBackend(_ kiosk: KioskOutput, board: Board) -> KioskBackend {
        KioskBackend(kind: kioskKind(kiosk.method), output: kiosk.output ?? board.display?.connector, command: kiosk.command)
    }

    /// `outputs.kiosk.method` as the display module's backend kind.
    static func kioskKind(_ method: KioskOutput.Method) -> KioskBackend.Kind {
        switch method {
        case .wlrRandr: .wlrRandr
        case .xrandr: .xrandr
        case .fbcon: .fbcon
        case .command: .command
        }
    }

    /// The configuration's calibration correction (``loadCalibration(_:)``, then ``correction(_:)``),
    /// or `nil` without a calibration file.
    static func calibration(_ c: Configuration) throws -> ((inout IMUSample) -> Void)? {
        correction(try loadCalibration(c))
    }

    /// The correction `calibration` makes to each sample (biases, scales, the calibration's own
    /// mounting), or `nil` without one.
    static func correction(_ calibration: Calibration?) -> ((inout IMUSample) -> Void)? {
        calibration.map { calibration in { sample in sample = calibration.apply(sample) } }
    }

    /// The calibration file the configuration names, read and checked as ``calibration(_:)``
    /// applies it, or `nil` without one. Whether it suits the chip is checked when the sensor
    /// starts (``makeSource(_:imuConfiguration:calibration:awaitsClaim:)`` hands it to the
    /// source: ``StreamSampleSource/calibration``).
    static func loadCalibration(_ c: Configuration) throws -> Calibration? {
        guard let path = c.calibrationFile else { return nil }
        let data: Data
        do { data = try InputFile.read(path) } catch {
            throw CLIError.failure("cannot read the calibration file \(path) (\(error.reason))",
                                   fix: "Run 'plumb calibrate' and save its result there, or remove \"calibration\" from the configuration.")
        }
        let calibration: Calibration
        do { calibration = try Calibration.read(data, file: path) } catch {
            throw CLIError.failure(error.description, fix: "Point \"calibration\" at the file 'plumb calibrate --output FILE' saved (calibrate again into it if it is damaged).")
        }
        if calibration.mounting != PlumbDrivers.Mounting.identity, c.mounting != PlumbConfiguration.Mounting.identity {
            throw CLIError.failure("both \(path) and the configuration's \"mounting\" rotate the axes",
                                   fix: "Keep one: remove \"mounting\" from the configuration, or recalibrate with the identity mounting.")
        }
        return calibration
    }

    /// The outputs `setup` names; the kiosk takes the screen `handover` holds when it turns the
    /// same one. When one cannot be made, those made before it are put back (a kiosk that took
    /// the handed-over screen gives it back to `handover`, as it is) and the error is thrown.
    func makeOutputs(_ setup: DaemonSetup, handover: DaemonHandover? = nil) throws -> [any DaemonOutput] {
        var made: [any DaemonOutput] = []
        do { try makeOutputs(setup, handover: handover, into: &made) } catch {
            throw Self.restoring(made, after: error)
        }
        return made
    }

    private func makeOutputs(_ setup: DaemonSetup, handover: DaemonHandover?, into made: inout [any DaemonOutput]) throws {
        let outputs = setup.configuration.outputs
        if let level = outputs.level {
            let device = level.framebuffer ?? setup.board.board.display?.framebuffer ?? "/dev/fb0"
            let image: RGBAImage
            do { image = try ImageFile.load(level.image) } catch {
                throw CLIError.failure(error.description, fix: "Point outputs.level.image at a PNG or JPEG file the plumb user can read.")
            }
            let framebuffer: Framebuffer
            do { framebuffer = try Framebuffer(device: device) } catch {
                throw CLIError.failure(error.message, fix: error.fix ?? "Check outputs.level.framebuffer (ls /dev/fb*) and that plumb is in the video group.")
            }
            made.append(try LevelDaemonOutput(framebuffer: framebuffer, image: image, imagePath: level.image, clock: realClock))
        }
        if let leds = outputs.leds {
            var map: [DeviceOrientation: String] = [:]
            for (orientation, led) in leds.map {
                guard let device = DeviceOrientation(rawValue: orientation.rawValue) else { continue }
                map[device] = led
            }
            made.append(try LEDDaemonOutput(map: map, root: ledDirectory))
        }
        if let kiosk = outputs.kiosk {
            let backend = Self.kioskBackend(kiosk, board: setup.board.board)
            let allowed = Self.allowedInterfaces(setup.configuration.orientation)
            // plumb kiosk's runner: programs on PATH, sysfs writes.
            let runner: any RotationActionRunner & Sendable = rotationRunner ?? SystemActionRunner(environment: context.environment)
            made.append(KioskDaemonOutput(backend: backend, settings: KioskController.Settings(holdOff: Nanoseconds.seconds(kiosk.holdOff), allowed: allowed),
                                          runner: runner, clock: realClock, kept: handover?.kiosk?.take(for: backend), placement: kioskPlacement))
        }
        if let dbus = outputs.dbus {
            // Made late: it owns the bus name, so an earlier output's failure leaves the bus alone.
            made.append(try DBusDaemonOutput(settings: dbus, allowedInterfaces: Self.allowedInterfaces(setup.configuration.orientation)))
        }
        if let mqtt = outputs.mqtt {
            made.append(try MQTTDaemonOutput(mqtt, clock: realClock, allowedInterfaces: Self.interfaceOrientations(setup.configuration.orientation)))
        }
    }
}

/// The classifier's tuning with the gyroscope (normal mode) and with the accelerometer alone
/// (low-energy mode).
struct ClassifierTunings: Equatable {
    var normal: OrientationClassifier.Settings
    var lowEnergy: OrientationClassifier.Settings

    /// A preset's pair: responsive is ``OrientationClassifier/Settings/default`` and
    /// ``OrientationClassifier/Settings/accelerometerOnly``; steady is
    /// ``OrientationClassifier/Settings/steady`` and ``OrientationClassifier/Settings/steadyAccelerometerOnly``.
    init(preset: OrientationSettings.Preset) {
        switch preset {
        case .responsive: self.init(normal: .default, lowEnergy: .accelerometerOnly)
        case .steady: self.init(normal: .steady, lowEnergy: .steadyAccelerometerOnly)
        }
    }

    init(normal: OrientationClassifier.Settings, lowEnergy: OrientationClassifier.Settings) {
        self.normal = normal
        self.lowEnergy = lowEnergy
    }

    /// Sets each given value in both tunings.
    mutating func override(hysteresis: Double?, settleTime: Double?, maximumRotationRate: Double?, rateTimeConstant: Double?) {
        for keyPath in [\ClassifierTunings.normal, \ClassifierTunings.lowEnergy] {
            if let hysteresis { self[keyPath: keyPath].hysteresisDegrees = hysteresis }
            if let settleTime { self[keyPath: keyPath].settleTime = settleTime }
            if let maximumRotationRate { self[keyPath: keyPath].maximumRotationRate = maximumRotationRate }
            if let rateTimeConstant { self[keyPath: keyPath].rateTimeConstant = rateTimeConstant }
        }
    }

    /// Sets each given value of the dwell path (the time cap) in both tunings; `maximumWait`
    /// `.some(nil)` turns it off.
    mutating func overrideDwell(maximumWait: Double?? = nil, margin: Double? = nil, maximumRotationRate: Double? = nil) {
        for keyPath in [\ClassifierTunings.normal, \ClassifierTunings.lowEnergy] {
            if let maximumWait { self[keyPath: keyPath].maximumWait = maximumWait }
            if let margin { self[keyPath: keyPath].dwellMarginDegrees = margin }
            if let maximumRotationRate { self[keyPath: keyPath].dwellMaximumRotationRate = maximumRotationRate }
        }
    }
}
