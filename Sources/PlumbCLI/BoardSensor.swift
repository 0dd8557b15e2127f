import Foundation
import PlumbHAL
import PlumbLinux
import PlumbOrientation
import PlumbSimulation

/// What a Swift program of its own needs to run ``MotionOrientation`` as `plumb watch` runs it:
/// the board's IMU, the system's power state, and the simulated IMU in real time.
///
/// PlumbOrientation is the notifier alone; finding the IMU (plumb.json, the detected board,
/// `/dev/i2c-N`, the data-ready line through libgpiod, the calibration) and reading the power
/// state (sysfs and power-profiles-daemon over D-Bus) are the tool's, and are here for programs
/// that depend on the `PlumbCLI` product:
///
/// ```swift
/// import PlumbCLI
/// import PlumbOrientation
/// let motion = try BoardSensor.notifier()      // /etc/plumb/plumb.json, as `plumb watch` reads it
/// motion.start()
/// for await change in motion.orientationChanges { print(change.deviceOrientation) }
/// ```
public enum BoardSensor {
    /// Why the board's IMU could not be set up: the message names the file, bus or address, and
    /// the fix says what to do, as `plumb watch` prints them.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var fix: String?
        public var description: String { message + (fix.map { " Fix: \($0)" } ?? "") }

        init(_ error: CLIError) {
            switch error {
            case .failure(let message, let fix): self.message = message; self.fix = fix
            case .usage(let message): self.message = message; self.fix = nil
            }
        }
    }

    /// A notifier on the board's IMU, found and run as `plumb watch` runs it without flags: the
    /// configuration file (`configurationPath`, by default /etc/plumb/plumb.json, and the
    /// detected board's defaults when there is none), its calibration, mounting, filter,
    /// `orientation` tunings and `orientation.lowEnergy`; the system's power state
    /// (``systemPowerMonitor(pollInterval:)``), so the low-energy mode turns on by itself and
    /// the sensor pauses while the display is blanked. The sensor is started and stopped once
    /// here, so a missing or silent chip fails now with the fix rather than in the reader's
    /// retries. The stream's notices and warnings (gaps, an interrupt storm, a chip reset) go to
    /// standard error as "plumb watch: …"; a lost chip and its return reach
    /// ``MotionOrientation/sensorNotices`` too.
    ///
    /// - Throws: ``Failure``: the file, bus or address and the fix.
    public static func notifier(configurationPath: String? = nil) throws(Failure) -> MotionOrientation {
        var args = ParsedArguments()
        if let configurationPath { args.values["config"] = [configurationPath] }
        let context = CommandContext(out: .standardError(), err: .standardError(),
                                     environment: ProcessInfo.processInfo.environment, outputIsTerminal: false)
        do throws(CLIError) {
            let (motion, _) = try Watch.liveMotion(args, context: context)
            motion.powerMonitor = systemPowerMonitor(pollInterval: motion.energySettings.pollInterval)
            return motion
        } catch {
            throw Failure(error)
        }
    }

    /// The running system's power state, as `plumb run` and `plumb watch` read it: ACPI
    /// `platform_profile`, power-profiles-daemon's `ActiveProfile` over the system bus, the
    /// battery, the thermal zones, the Raspberry Pi's throttling and the display's blanking, read
    /// on a poller thread of its own every `pollInterval` seconds (so a daemon that hangs never
    /// holds up the sensor). Set it as ``MotionOrientation/powerMonitor``.
    public static func systemPowerMonitor(pollInterval: Double = EnergySettings.default.pollInterval) -> any PowerStateMonitor {
        SystemPowerStateMonitor.polled(root: "/", pollInterval: pollInterval)
    }

    /// The simulated IMU as `plumb watch --simulate` runs it: the real driver against the emulated
    /// `chip` ("mpu6050", or another of `plumb read --simulate --chip`'s), moved by `profile`
    /// ("tour", "rest", "shaking" and the others `plumb watch --help` names), paced to `speed`
    /// times real time (1: as a chip would deliver; `nil`: as fast as the reader takes it, in
    /// virtual time). The profile ends after `duration` seconds (default: its own length, 60 s for
    /// an endless one), and the notifier's streams end with it.
    ///
    /// - Throws: ``Failure`` for an unknown chip or profile, naming the known ones.
    public static func simulatedSource(chip: String = "mpu6050", profile name: String = "tour", speed: Double? = 1,
                                       duration: Double? = nil) throws(Failure) -> MotionOrientation.SourceFactory {
        let profile: MotionProfile
        do throws(CLIError) {
            profile = try SimulatedIMU.profile(name)
            _ = try SimulatedIMU.source(chip: chip, profile: profile, duration: nil)
        } catch {
            throw Failure(error)
        }
        if let speed, !(speed > 0 && speed.isFinite) {
            throw Failure(.failure("the speed \(speed) is not a positive number", fix: "Give 1 for real time, or nil for as fast as the reader takes it."))
        }
        let end = duration ?? profile.duration ?? 60
        return {
            let source: IMUStreamSource
            do throws(CLIError) { source = try SimulatedIMU.source(chip: chip, profile: profile, duration: end).source } catch {
                throw MotionSourceError.other("simulated IMU: \(error)")
            }
            guard let speed else { return source }
            return PacedSampleSource(source, speed: speed, wall: SystemClock(), counters: SensorCounters())
        }
    }
}
