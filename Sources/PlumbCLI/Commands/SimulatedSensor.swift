import PlumbDrivers
import PlumbHAL
import PlumbOrientation
import PlumbSimulation

/// The simulated sensor behind `plumb watch --simulate` and `plumb bench energy`: the real
/// driver (MPU-6050 or LSM6DS family) and streaming engine against the register-level emulator,
/// in virtual time.
enum SimulatedIMU {
    /// The chips `--chip` accepts.
    static var chipKeys: [String] { SimulatedChips.all.map(\.key) }

    /// A source reading `profile` through the emulated `chip` until `duration` seconds of profile
    /// time have passed; also returns the parts for counting (bus bytes, wakeups).
    static func source(chip key: String, profile: MotionProfile, duration: Double?, seed: UInt64 = 1)
        throws(CLIError) -> (source: IMUStreamSource, sensor: SimulatedSensor) {
        guard let model = SimulatedChips.model(key) else {
            throw CLIError.usage("The value '\(key)' is invalid for '--chip': expected one of \(chipKeys.joined(separator: ", ")).")
        }
        let sensor = SimulatedSensor(model: model, profile: profile, seed: seed)
        let imu: any IMU
        do {
            imu = try DaemonFactory.makeIMU(bus: sensor.bus, address: model.address, clock: sensor.clock, part: model.key)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.failure("simulated \(model.part): \(error)", fix: nil)
        }
        let stream = IMUStream(imu: imu, line: sensor.line, clock: sensor.clock)
        let end = duration.map { sensor.chip.profileStart + Nanoseconds.seconds($0) }
        return (IMUStreamSource(stream: stream, name: "simulated \(model.part) (\(profile.name))", endNanoseconds: end), sensor)
    }

    /// The named built-in motion profile.
    static func profile(_ name: String) throws(CLIError) -> MotionProfile {
        guard let profile = MotionProfile.named(name) else {
            throw CLIError.usage("The value '\(name)' is invalid for '--profile': expected one of \(MotionProfile.builtInNames.joined(separator: ", ")).")
        }
        return profile
    }
}

/// Samples a motion profile directly at the configured rate and FIFO batch in virtual time, with
/// the MPU-6050's datasheet noise, until `end` seconds: the simulator without the chip
/// emulation, for sources that pace it in real time (`plumb dbus --simulate`).
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
