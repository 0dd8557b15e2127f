import Foundation
import PlumbConfiguration
import PlumbDBus
import PlumbDrivers
import PlumbHAL
import PlumbLinux
import PlumbOrientation

/// The board's IMU behind `plumb dbus` (no --simulate or --script): the configuration and board
/// `plumb run` uses, opened each time a desktop claims the accelerometer and closed when the last
/// claim goes, as iio-sensor-proxy polls its sensor only while claimed.
enum DBusLiveSensor {
    /// Loads the configuration and board now (a bad file fails at start, with the same messages as
    /// `plumb run`) and starts the IMU once to check it answers (``check(_:normal:configurationPath:positions:)``);
    /// returns the service's source: the notifier that opens it again on every claim. The notifier
    /// applies the calibration file and the mounting rotation, and uses the configured filter,
    /// rate and orientation settings as `plumb run` does (``notifier(_:normal:source:powerMonitor:)``),
    /// and the source reports only the configured interface orientations (``orientationSource(_:motion:)``).
    ///
    /// With `waitsForSensor` (`--wait-for-sensor`) a chip where nothing answers at the address, or
    /// one another plumb process claims, does not fail the start: the source is then a ``DBusSensorWait`` awaiting it
    /// (``awaitingSource(_:path:positions:normal:open:context:powerMonitor:)``).
    static func source(_ args: ParsedArguments, context: CommandContext, waitsForSensor: Bool = false) throws(CLIError) -> any OrientationSource {
        let path = args.string("config") ?? Configuration.defaultPath
        let catalog = try BoardSupport.catalog(args, context: context)
        let configuration: Configuration, positions: ConfigurationPositions
        do throws(ConfigurationError) {
            (configuration, positions) = try Configuration.loadWithPositions(path: path, knownBoards: catalog.ids)
        } catch {
            throw .failure(error.description, fix: Config.loadFix(error, otherwise: "Run 'plumb config check \(path)'; 'plumb config example --keys' lists every key."))
        }
        let board = try BoardSupport.select(args, override: configuration.board, catalog: catalog, context: context)
        let setup = DaemonSetup(path: path, configuration: configuration, board: board, positions: positions)
        // The configured rate and ranges in normal mode (the gyroscope on), the notifier's own
        // low-energy mode beside it, as plumb watch does on the live IMU.
        var configured = DaemonFactory.imuConfiguration(configuration)
        configured.gyroscopeEnabled = true
        let normal = configured
        let open: Opener = { sink in
            // A factory per claim session: DaemonFactory holds non-Sendable parts (the kiosk runner).
            var factory = DaemonFactory(source: .hardware, context: context, realClock: SystemClock())
            factory.eventSink = sink
            // With --wait-for-sensor a chip another plumb process claims is awaited too: its
            // starts fail, without touching it, until that process lets go (ClaimAwaitingSource).
            let calibration = try DaemonFactory.loadCalibration(configuration)
            let (source, _) = try factory.makeSource(setup, imuConfiguration: normal, calibration: calibration, awaitsClaim: waitsForSensor)
            return LiveSensor.calibrated(source, calibration: calibration)
        }
        // Power saver, battery, heat and display blanking, as plumb run follows them: the sensor
        // pauses while the screen is off, even while a desktop holds its claim.
        let monitor = SystemPowerStateMonitor.polled(pollInterval: EnergySettings.default.pollInterval)
        if waitsForSensor {
            return try awaitingSource(configuration, path: path, positions: positions, normal: normal, open: open, context: context, powerMonitor: monitor)
        }
        return try source(configuration, path: path, positions: positions, normal: normal, open: open, context: context, powerMonitor: monitor)
    }

    /// ``source(_:path:positions:normal:open:context:powerMonitor:)`` for `--wait-for-sensor`: a chip where
    /// nothing acknowledges the address (``check(_:normal:configurationPath:positions:waitsForSensor:)``)
    /// does not fail the start; standard error says once what is awaited and the wiring fix
    /// ("plumb dbus: … does not answer (…); serving without it …"), and the returned source
    /// awaits it (``DBusSensorWait``). Any other failure at start is thrown as without the flag.
    static func awaitingSource(_ configuration: Configuration, path: String, positions: ConfigurationPositions? = nil, normal: IMUConfiguration,
                               open: @escaping Opener, context: CommandContext,
                               powerMonitor: (any PowerStateMonitor)?) throws(CLIError) -> DBusSensorWait {
        let checkOnce: @Sendable () throws(CLIError) -> (source: String, error: MotionSourceError)? = { () throws(CLIError) in
            try check({ try open { _ in } }, normal: normal, configurationPath: path, positions: positions, waitsForSensor: true)
        }
        let absent = try checkOnce()
        if let absent {
            for line in DBusSensorWait.waitLines(source: absent.source, error: absent.error) { context.err.line("plumb dbus: " + line) }
            context.err.flush()
        }
        let inner = notifierSource(configuration, path: path, normal: normal, open: open, context: context, powerMonitor: powerMonitor)
        let err = context.err
        return DBusSensorWait(inner: inner, name: absent?.source ?? "the IMU",
                              absentAtStart: absent.map { "\($0.source): \($0.error.description)" },
                              claimedAtStart: absent?.error.busError?.isClaimedByAnotherProcess == true,
                              log: { line in
                                  err.line("plumb dbus: " + line)
                                  err.flush()
                              },
                              check: { () throws(CLIError) -> MotionSourceError? in try checkOnce()?.error })
    }

    /// Opens the board's IMU (not started), its stream's events going to the sink given.
    typealias Opener = @Sendable (_ eventSink: @escaping @Sendable (DaemonEvent) -> Void) throws -> any MotionSampleSource

    /// The service's source on the IMU `open` opens: checked now (``check(_:normal:configurationPath:positions:)``),
    /// then opened afresh on every claim, `normal` as the normal mode's settings. The stream's
    /// notices and warnings (gaps, an interrupt storm, a chip that lost its configuration, a bus
    /// too slow for the rate) go to standard error as "plumb dbus: …" as they happen, so the
    /// journal of plumb-sensor-proxy.service has them; without the sink nobody took them and
    /// they piled up for as long as a desktop held its claim.
    static func source(_ configuration: Configuration, path: String, positions: ConfigurationPositions? = nil, normal: IMUConfiguration,
                       open: @escaping Opener, context: CommandContext,
                       powerMonitor: (any PowerStateMonitor)?) throws(CLIError) -> MotionOrientationSource {
        try check({ try open { _ in } }, normal: normal, configurationPath: path, positions: positions)
        return notifierSource(configuration, path: path, normal: normal, open: open, context: context, powerMonitor: powerMonitor)
    }

    /// The service's source on the IMU `open` opens, not checked: opened afresh on every claim.
    private static func notifierSource(_ configuration: Configuration, path: String, normal: IMUConfiguration, open: @escaping Opener,
                                       context: CommandContext, powerMonitor: (any PowerStateMonitor)?) -> MotionOrientationSource {
        let sink = LiveSensor.printingSink(command: "dbus", context: context)
        let source: MotionOrientation.SourceFactory = { () throws(MotionSourceError) -> any MotionSampleSource in
            do {
                return try open(sink)
            } catch let error as CLIError {
                if case .failure(let message, let fix) = error { throw .other(message + (fix.map { " (\($0))" } ?? "")) }
                throw .other(String(describing: error))
            } catch {
                throw .other(String(describing: error))
            }
        }
        let motion = notifier(configuration, normal: normal, source: source, powerMonitor: powerMonitor)
        return orientationSource(configuration, motion: motion, notices: noticePrinter(context: context))
    }

    /// How the fix for a sensor that fails at start ends: `plumb dbus` exits, and
    /// plumb-sensor-proxy.service is restarted once the chip is fixed.
    static let restartService = "then restart plumb-sensor-proxy (systemctl restart plumb-sensor-proxy)."

    /// How the fix for a sensor that fails after a claim ends: the service keeps running, and the
    /// notifier opens the sensor again every second while a client holds its claim
    /// (``noticeLines(_:)``).
    static let readAgain = "plumb dbus reads it again once it answers."

    /// Opens the IMU, starts it with `normal` and stops it again, so that a board where nothing
    /// answers at the address fails at start, as `plumb run` does, rather than when a desktop
    /// first claims the accelerometer: "cannot start IMU at 0x68 on /dev/i2c-1, polling: nothing
    /// answers at 0x68 on /dev/i2c-1" (or the remote I/O error a Raspberry Pi gives) and `plumb
    /// run`'s wiring fix (``SensorPipeline/startFailure(_:source:configurationPath:positions:then:)``); a rate
    /// the chip refuses is told at imu.rate's line and column (`positions`) and gets the fix
    /// naming imu.rate in `configurationPath`. Opening it only built the driver, which touches
    /// no register.
    static func check(_ open: () throws -> any MotionSampleSource, normal: IMUConfiguration,
                      configurationPath: String, positions: ConfigurationPositions? = nil) throws(CLIError) {
        _ = try check(open, normal: normal, configurationPath: configurationPath, positions: positions, waitsForSensor: false)
    }

    /// ``check(_:normal:configurationPath:positions:)``, which with `waitsForSensor` (`--wait-for-sensor`)
    /// returns, rather than throws, a failure that says nothing acknowledges the address
    /// (ENXIO, or EREMOTEIO as a Raspberry Pi reports it: ``I2CError/mayMeanNothingAnswers``) or
    /// that another plumb process claims the chip (``ClaimAwaitingSource``), with the source's
    /// name; nil when the chip answered. Any other failure is thrown.
    static func check(_ open: () throws -> any MotionSampleSource, normal: IMUConfiguration,
                      configurationPath: String, positions: ConfigurationPositions? = nil,
                      waitsForSensor: Bool) throws(CLIError) -> (source: String, error: MotionSourceError)? {
        let source: any MotionSampleSource
        do { source = try open() } catch let error as CLIError {
            throw error
        } catch {
            throw .failure(String(describing: error), fix: nil)
        }
        do { _ = try source.start(normal) } catch {
            if waitsForSensor, SensorPipeline.isAwaitable(error) { return (source.name, error) }
            throw SensorPipeline.startFailure(error, source: source.name, configurationPath: configurationPath, positions: positions,
                                              then: restartService)
        }
        do { try source.stop() } catch {
            // Gone between its start and its stop: as absent as one that never answered.
            if waitsForSensor, error.busError?.mayMeanNothingAnswers == true { return (source.name, error) }
            throw SensorPipeline.stopFailure(error, source: source.name, purpose: "after checking it at start", then: restartService)
        }
        return nil
    }

    /// `motion` as the service's source, reporting only the interface orientations
    /// `orientation.interfaceOrientations` allows, as `plumb run`'s outputs take them; its sensor
    /// notices go to `notices` while a client holds a claim.
    static func orientationSource(_ configuration: Configuration, motion: MotionOrientation,
                                  notices: (@Sendable (SensorNotice) -> Void)? = nil) -> MotionOrientationSource {
        MotionOrientationSource(motion: motion, allowedInterfaces: DaemonFactory.allowedInterfaces(configuration.orientation),
                                notices: notices)
    }

    /// Prints the notifier's sensor notices to standard error as "plumb dbus: …" (``noticeLines(_:)``),
    /// for the journal of plumb-sensor-proxy.service.
    static func noticePrinter(context: CommandContext) -> @Sendable (SensorNotice) -> Void {
        let err = context.err
        return { notice in
            for line in noticeLines(notice) { err.line("plumb dbus: " + line) }
            err.flush()
        }
    }

    /// The log lines of a sensor notice, without the "plumb dbus: " prefix. A failure after a
    /// claim (the chip unplugged since the start, a bus that went away), which the notifier
    /// retries every second while the claim lasts, is "sensor failed (…): " and the notice, and
    /// when nothing answers at the address (ENXIO, or EREMOTEIO from a Raspberry Pi's adapter)
    /// `plumb run`'s wiring fix follows on a line of its own (``SensorPipeline/failureFix(_:then:)``),
    /// as the daemon's journal has it; the first samples after it are "… reading again after: …".
    /// Without them such a failure was said nowhere: the desktop's screen just stopped turning.
    /// A chip lost while a claim runs it (``SensorNotice/Kind/lost``) has no line of its own: the
    /// stream's event already said it, with the fix ("re-initialising failed: …", "fix: …").
    static func noticeLines(_ notice: SensorNotice) -> [String] {
        if notice.kind == .lost { return [] }
        guard notice.kind == .failure else { return [notice.description] }
        let fix = notice.error.flatMap { error in
            error.busError?.isClaimedByAnotherProcess == true ? SensorPipeline.claimedFix : SensorPipeline.failureFix(error, then: readAgain)
        }
        return ["sensor failed (tried again every second while a client holds its claim): \(notice)"] + (fix.map { ["fix: \($0)"] } ?? [])
    }

    /// The notifier reading `source` as `plumb run` reads the sensor
    /// (``DaemonFactory/notifier(_:tunings:normal:source:powerMonitor:)``: the configuration's
    /// classifier tunings, `orientation.lowEnergy`, filter and mounting), `normal` as the normal
    /// mode's sensor settings. `powerMonitor` also reports display blanking, which pauses the
    /// sensor in every case.
    static func notifier(_ configuration: Configuration, normal: IMUConfiguration, source: @escaping MotionOrientation.SourceFactory,
                         powerMonitor: (any PowerStateMonitor)?) -> MotionOrientation {
        DaemonFactory.notifier(configuration, normal: normal, source: source, powerMonitor: powerMonitor)
    }
}

/// A sample source with the calibration file applied to every sample (biases, scales), as
/// `plumb run`'s pipeline applies it.
final class CalibratedSampleSource: MotionSampleSource {
    private let inner: any MotionSampleSource
    private let correct: (inout IMUSample) -> Void

    init(_ inner: any MotionSampleSource, correct: @escaping (inout IMUSample) -> Void) {
        self.inner = inner
        self.correct = correct
    }

    var name: String { inner.name }
    func wake(bySampleAt sampleNanoseconds: UInt64) { inner.wake(bySampleAt: sampleNanoseconds) }
    func takeNotices() -> [SensorNotice] { inner.takeNotices() }
    var clock: any MonotonicClock { inner.clock }

    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
        try inner.start(configuration)
    }

    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        let before = samples.count
        let result = try inner.read(into: &samples, timeoutNanoseconds: timeoutNanoseconds)
        for i in before..<samples.count { correct(&samples[i]) }
        return result
    }

    func stop() throws(MotionSourceError) { try inner.stop() }
    func close() { inner.close() }
}
