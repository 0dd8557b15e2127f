import Foundation
import PlumbConfiguration
import PlumbDrivers
import PlumbFusion
import PlumbHAL
import PlumbLinux
import PlumbOrientation

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
    var context: CommandContext
    var realClock: any MonotonicClock

    func build(_ setup: DaemonSetup) throws -> DaemonPipeline {
        let c = setup.configuration
        let imuConfiguration = Self.imuConfiguration(c)
        let (sampleSource, pacing) = try makeSource(setup, imuConfiguration: imuConfiguration)
        let outputs = try makeOutputs(setup)
        var classifier = OrientationClassifier.Settings.default
        if let settle = c.orientation.settleTime { classifier.settleTime = settle }
        if let hysteresis = c.orientation.hysteresis { classifier.hysteresisDegrees = hysteresis }
        let m = c.mounting.matrix
        let pipeline = OrientationPipeline(fused: Self.estimator(c.filter), classifier: classifier,
                                           usesGyroscope: imuConfiguration.gyroscopeEnabled,
                                           mounting: (SIMD3(m[0][0], m[0][1], m[0][2]), SIMD3(m[1][0], m[1][1], m[1][2]),
                                                      SIMD3(m[2][0], m[2][1], m[2][2])))
        let allowed = Set(c.orientation.interfaceOrientations.compactMap { InterfaceOrientation(rawValue: $0.rawValue) })
        let outputNames = outputs.isEmpty ? "no outputs (orientation is logged)" : outputs.map(\.name).joined(separator: ", ")
        return try SensorPipeline(
            source: sampleSource, configuration: imuConfiguration, orientation: pipeline, outputs: outputs,
            allowedInterfaces: allowed, correct: try calibration(c), pacing: pacing,
            describe: { effective in
                "\(sampleSource.name) at \(Int(effective.outputDataRate.rounded())) Hz, \(c.filter.kind.rawValue) filter, \(outputNames)"
            })
    }

    /// The driver settings a configuration asks for.
    static func imuConfiguration(_ c: Configuration) -> IMUConfiguration {
        var imu = IMUConfiguration()
        imu.outputDataRate = c.imu.rate
        imu.accelerometerRange = c.imu.accelerometerRange
        imu.gyroscopeRange = c.imu.gyroscopeRange
        imu.gyroscopeEnabled = c.orientation.lowEnergy != .on
        // About 10 wakeups a second at any rate, at most the FIFO's comfortable depth.
        imu.fifoWatermark = max(1, min(64, Int((c.imu.rate / 10).rounded())))
        return imu
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

    func makeSource(_ setup: DaemonSetup, imuConfiguration: IMUConfiguration) throws -> (any MotionSampleSource, (any MonotonicClock)?) {
        switch source {
        case .replay(let path):
            let bytes: [UInt8]
            do { bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) } catch {
                throw CLIError.failure("cannot read the recording \(path): \(error.localizedDescription)", fix: nil)
            }
            let recording: IMURecording
            do { recording = try IMURecording.parseCSV(bytes, name: path) } catch {
                throw CLIError.failure(error.description, fix: nil)
            }
            return (RecordingSource(recording: recording, name: "recording \(path)"), realClock)
        case .simulated:
            throw CLIError.failure("the simulated IMU is not available in this build",
                                   fix: "Run on the hardware, or replay a recording with --replay FILE.")
        case .hardware:
            throw CLIError.failure("the IMU drivers are not available in this build",
                                   fix: "Run with --replay FILE to drive the outputs from a recording.")
        }
    }

    /// The calibration correction, or `nil` without a calibration file.
    func calibration(_ c: Configuration) throws -> ((inout IMUSample) -> Void)? {
        guard let path = c.calibrationFile else { return nil }
        throw CLIError.failure("calibration files are not supported by this build (calibration: \(path))",
                               fix: "Remove \"calibration\" from the configuration.")
    }

    func makeOutputs(_ setup: DaemonSetup) throws -> [any DaemonOutput] {
        let names = setup.configuration.outputs.enabledNames
        guard names.isEmpty else {
            throw CLIError.failure("the outputs \(names.joined(separator: ", ")) are not available in this build",
                                   fix: "Disable them in \(setup.path) (\"enabled\": false) to run with orientation logging only.")
        }
        return []
    }
}
