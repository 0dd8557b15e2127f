import PlumbDrivers
import PlumbHAL
import PlumbOrientation
import PlumbSimulation

/// The simulated sensor behind `plumb watch --simulate`.
enum SimulatedSensor {
    /// A notifier reading the named motion profile in virtual time, ending after `duration`
    /// seconds (or the profile's own length, or 60 s).
    static func motionOrientation(profile name: String, estimator: @escaping MotionOrientation.EstimatorFactory,
                                  classifier: OrientationClassifier.Settings, duration: Double?) throws(CLIError) -> MotionOrientation {
        guard let profile = MotionProfile.named(name) else {
            throw .usage("The value '\(name)' is invalid for '--profile': expected one of \(MotionProfile.builtInNames.joined(separator: ", ")).")
        }
        let end = duration ?? profile.duration ?? 60
        return MotionOrientation(source: { ProfileSampleSource(profile: profile, end: end) },
                                 estimator: estimator, classifier: classifier)
    }
}

/// Samples a motion profile at the configured rate and FIFO batch in virtual time, with the
/// MPU-6050's datasheet noise, until `end` seconds.
final class ProfileSampleSource: MotionSampleSource {
    let name: String
    private let virtualClock = VirtualClock()
    var clock: any MonotonicClock { virtualClock }
    private let profile: MotionProfile
    private let end: Double
    private let errors = SensorErrorModel.part(.mpu6050)
    private var random = SeededRandom(seed: 11)
    private var period: UInt64 = 10_000_000
    private var batch = 1
    private var gyroscope = true
    private var next: UInt64 = 0

    init(profile: MotionProfile, end: Double) {
        self.profile = profile
        self.end = end
        self.name = "simulated IMU (\(profile.name))"
    }

    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
        period = UInt64((1e9 / configuration.outputDataRate).rounded())
        batch = max(1, configuration.fifoWatermark)
        gyroscope = configuration.gyroscopeEnabled
        return configuration
    }

    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        guard Double(next) / 1e9 <= end else { return .finished }
        for _ in 0..<batch {
            let state = profile.state(at: Double(next) / 1e9)
            // The chip's low-pass runs at about half the output rate.
            let (rate, force) = errors.measure(state, bandwidth: 5e8 / Double(period), random: &random)
            samples.append(IMUSample(timestampNanoseconds: next, acceleration: force, angularRate: gyroscope ? rate : .zero))
            next += period
        }
        virtualClock.advance(to: next - period)
        return .samples
    }

    func stop() throws(MotionSourceError) {}
}
