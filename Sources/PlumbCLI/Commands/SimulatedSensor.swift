import PlumbDrivers
import PlumbConfiguration
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

    /// A recording (the BROAD column format) as the emulated chip's motion.
    static func recordedProfile(_ path: String) throws(CLIError) -> MotionProfile {
        let text: String
        do {
            // Bytes that are not UTF-8 become U+FFFD, so the parser names their line.
            text = String(decoding: try InputFile.read(path), as: UTF8.self)
        } catch {
            throw .failure("\(path): cannot read the recording (\(error.reason)).",
                           fix: "Give the path of a CSV file with the columns \(MotionProfile.replayColumns.joined(separator: ", ")).")
        }
        do { return try MotionProfile.replay(csv: text, name: path) } catch {
            throw .failure(error.description + ".", fix: error.fix)
        }
    }

    /// The named built-in motion profile.
    static func profile(_ name: String) throws(CLIError) -> MotionProfile {
        guard let profile = MotionProfile.named(name) else {
            throw CLIError.usage("The value '\(name)' is invalid for '--profile': expected one of \(MotionProfile.builtInNames.joined(separator: ", ")).")
        }
        return profile
    }
}
