import Foundation
import PlumbConfiguration
import PlumbDrivers
import PlumbHAL
import PlumbLinux
import PlumbOrientation

/// The board's IMU behind `plumb dbus` (no --simulate or --script): the configuration and board
/// `plumb run` uses, opened each time a desktop claims the accelerometer and closed when the last
/// claim goes, as iio-sensor-proxy polls its sensor only while claimed.
enum DBusLiveSensor {
    /// Loads the configuration and board now (a bad file fails at start, with the same messages as
    /// `plumb run`) and opens the IMU once to check it answers; returns the notifier that opens it
    /// again on every claim. The notifier applies the calibration file and the mounting rotation,
    /// and uses the configured filter, hysteresis and settle time.
    static func motion(_ args: ParsedArguments, context: CommandContext) throws(CLIError) -> MotionOrientation {
        let path = args.string("config") ?? Configuration.defaultPath
        let catalog = try BoardSupport.catalog(args, context: context)
        let configuration: Configuration
        do throws(ConfigurationError) { configuration = try Configuration.load(path: path, knownBoards: catalog.ids) } catch {
            throw .failure(error.description, fix: "Run 'plumb config check \(path)'; 'plumb config example --keys' lists every key.")
        }
        let board = try BoardSupport.select(args, override: configuration.board, catalog: catalog, context: context)
        let setup = DaemonSetup(path: path, configuration: configuration, board: board)
        let factory = DaemonFactory(source: .hardware, context: context, realClock: SystemClock())
        let imuConfiguration = DaemonFactory.imuConfiguration(configuration)
        do {
            _ = try factory.calibration(configuration)
            _ = try factory.makeSource(setup, imuConfiguration: imuConfiguration)
        } catch let error as CLIError {
            throw error
        } catch {
            throw .failure(String(describing: error), fix: nil)
        }

        var classifier = OrientationClassifier.Settings.default
        if let settle = configuration.orientation.settleTime { classifier.settleTime = settle }
        if let hysteresis = configuration.orientation.hysteresis { classifier.hysteresisDegrees = hysteresis }
        let m = configuration.mounting.matrix
        let mounting = (SIMD3(m[0][0], m[0][1], m[0][2]), SIMD3(m[1][0], m[1][1], m[1][2]), SIMD3(m[2][0], m[2][1], m[2][2]))
        let filter = configuration.filter
        return MotionOrientation(source: { () throws(MotionSourceError) -> any MotionSampleSource in
            do {
                let (source, _) = try factory.makeSource(setup, imuConfiguration: imuConfiguration)
                return CorrectedSampleSource(source, correct: try factory.calibration(configuration), mounting: mounting)
            } catch let error as CLIError {
                if case .failure(let message, let fix) = error { throw .other(message + (fix.map { " (\($0))" } ?? "")) }
                throw .other(String(describing: error))
            } catch {
                throw .other(String(describing: error))
            }
        }, estimator: { DaemonFactory.estimator(filter) }, classifier: classifier)
    }
}

/// A sample source with the calibration and the mounting rotation applied to every sample (as
/// `plumb run`'s pipeline applies them), so the notifier sees the device frame.
final class CorrectedSampleSource: MotionSampleSource {
    private let inner: any MotionSampleSource
    private let correct: ((inout IMUSample) -> Void)?
    /// Rows of the rotation from the sensor frame to the device frame.
    private let mounting: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)

    init(_ inner: any MotionSampleSource, correct: ((inout IMUSample) -> Void)?,
         mounting: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)) {
        self.inner = inner
        self.correct = correct
        self.mounting = mounting
    }

    var name: String { inner.name }
    var clock: any MonotonicClock { inner.clock }

    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
        try inner.start(configuration)
    }

    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        let before = samples.count
        let result = try inner.read(into: &samples, timeoutNanoseconds: timeoutNanoseconds)
        for i in before..<samples.count {
            correct?(&samples[i])
            samples[i].acceleration = rotate(samples[i].acceleration)
            samples[i].angularRate = rotate(samples[i].angularRate)
        }
        return result
    }

    func stop() throws(MotionSourceError) { try inner.stop() }

    private func rotate(_ v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((mounting.0 * v).sum(), (mounting.1 * v).sum(), (mounting.2 * v).sum())
    }
}
