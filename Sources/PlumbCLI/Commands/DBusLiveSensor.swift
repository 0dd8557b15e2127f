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
    /// `plumb run`) and opens the IMU once to check it answers; returns the service's source: the
    /// notifier that opens it again on every claim. The notifier applies the calibration file and
    /// the mounting rotation, and uses the configured filter, rate and orientation settings as
    /// `plumb run` does (``notifier(_:normal:source:powerMonitor:)``), and the source reports only
    /// the configured interface orientations (``orientationSource(_:motion:)``).
    static func source(_ args: ParsedArguments, context: CommandContext) throws(CLIError) -> MotionOrientationSource {
        let path = args.string("config") ?? Configuration.defaultPath
        let catalog = try BoardSupport.catalog(args, context: context)
        let configuration: Configuration
        do throws(ConfigurationError) { configuration = try Configuration.load(path: path, knownBoards: catalog.ids) } catch {
            throw .failure(error.description, fix: "Run 'plumb config check \(path)'; 'plumb config example --keys' lists every key.")
        }
        let board = try BoardSupport.select(args, override: configuration.board, catalog: catalog, context: context)
        let setup = DaemonSetup(path: path, configuration: configuration, board: board)
        let factory = sessionFactory(context: context)
        let imuConfiguration = DaemonFactory.imuConfiguration(configuration)
        do {
            _ = try DaemonFactory.calibration(configuration)
            _ = try factory.makeSource(setup, imuConfiguration: imuConfiguration)
        } catch let error as CLIError {
            throw error
        } catch {
            throw .failure(String(describing: error), fix: nil)
        }

        // The configured rate and ranges in normal mode (the gyroscope on), the notifier's own
        // low-energy mode beside it, as plumb watch does on the live IMU.
        var configured = imuConfiguration
        configured.gyroscopeEnabled = true
        let normal = configured
        let source: MotionOrientation.SourceFactory = { () throws(MotionSourceError) -> any MotionSampleSource in
            // A factory per claim session: DaemonFactory holds non-Sendable parts (the kiosk runner).
            let factory = sessionFactory(context: context)
            do {
                let (source, _) = try factory.makeSource(setup, imuConfiguration: normal)
                return try LiveSensor.calibrated(source, configuration: configuration)
            } catch let error as CLIError {
                if case .failure(let message, let fix) = error { throw .other(message + (fix.map { " (\($0))" } ?? "")) }
                throw .other(String(describing: error))
            } catch {
                throw .other(String(describing: error))
            }
        }
        // Power saver, battery, heat and display blanking, as plumb run follows them: the sensor
        // pauses while the screen is off, even while a desktop holds its claim.
        let motion = notifier(configuration, normal: normal, source: source,
                              powerMonitor: SystemPowerStateMonitor.polled(pollInterval: EnergySettings.default.pollInterval))
        return orientationSource(configuration, motion: motion)
    }

    /// `motion` as the service's source, reporting only the interface orientations
    /// `orientation.interfaceOrientations` allows, as `plumb run`'s outputs take them.
    static func orientationSource(_ configuration: Configuration, motion: MotionOrientation) -> MotionOrientationSource {
        MotionOrientationSource(motion: motion, allowedInterfaces: DaemonFactory.allowedInterfaces(configuration.orientation))
    }

    /// The factory of one claim session's sensor. The stream's notices and warnings (gaps, an
    /// interrupt storm, a chip that lost its configuration, a bus too slow for the rate) go to
    /// standard error as "plumb dbus: …" as they happen, so the journal of plumb-sensor-proxy.service
    /// has them; without the sink nobody took them and they piled up for as long as a desktop held
    /// its claim.
    static func sessionFactory(context: CommandContext) -> DaemonFactory {
        var factory = DaemonFactory(source: .hardware, context: context, realClock: SystemClock())
        factory.eventSink = LiveSensor.printingSink(command: "dbus", context: context)
        return factory
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
}
