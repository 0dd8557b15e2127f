import Foundation
import PlumbConfiguration
import PlumbDrivers
import PlumbHAL
import PlumbLinux
import PlumbOrientation
import Synchronization
import Testing
@testable import PlumbCLI

/// `plumb dbus` on the board's IMU (``DBusLiveSensor``) classifies as `plumb run` does: the
/// configured preset and single values in both energy modes, and `orientation.lowEnergy`.
@Suite struct DBusLiveSensorTests {
    static func notifier(_ json: String, source: @escaping MotionOrientation.SourceFactory = { () throws(MotionSourceError) -> any MotionSampleSource in throw .other("no sensor in this test") },
                         monitor: (any PowerStateMonitor)? = nil) throws -> MotionOrientation {
        let configuration = try Configuration.decode(json, file: "plumb.json")
        return DBusLiveSensor.notifier(configuration, normal: EnergySettings.defaultNormal, source: source, powerMonitor: monitor)
    }

    @Test func theSteadyPresetReachesBothEnergyModes() throws {
        let motion = try Self.notifier(#"{"orientation": {"preset": "steady"}}"#)
        #expect(motion.classifierSettings == .steady)
        #expect(motion.energySettings.lowEnergyClassifier == .steadyAccelerometerOnly)
        #expect(motion.energySettings.lowEnergyClassifier.maximumWait == 0.6)
    }

    /// The tunings are `plumb run`'s, single values included (0 turns the rate gate off).
    @Test(arguments: [
        #"{}"#,
        #"{"orientation": {"preset": "responsive", "hysteresis": 10, "maxRotationRate": 0}}"#,
        #"{"orientation": {"preset": "steady", "settleTime": 0.2, "maxRotationRate": 75}}"#,
        #"{"orientation": {"preset": "steady", "maxWait": 0.8, "dwellMargin": 10, "dwellMaxRotationRate": 0}}"#,
        #"{"orientation": {"preset": "steady", "maxWait": 0}}"#,
    ])
    func theTuningsArePlumbRuns(json: String) throws {
        let motion = try Self.notifier(json)
        let run = DaemonFactory.classifiers(try Configuration.decode(json, file: "plumb.json").orientation)
        #expect(motion.classifierSettings == run.normal)
        #expect(motion.energySettings.lowEnergyClassifier == run.lowEnergy)
        #expect(motion.energySettings.normal == EnergySettings.defaultNormal)
    }

    /// The service's source reports only the configured interface orientations (all four by default).
    @Test func theInterfaceOrientationsAreTheConfigurations() throws {
        let json = #"{"orientation": {"interfaceOrientations": ["landscapeLeft", "landscapeRight"]}}"#
        let source = DBusLiveSensor.orientationSource(try Configuration.decode(json, file: "plumb.json"), motion: try Self.notifier(json))
        #expect(source.allowedInterfaces == [.landscapeLeft, .landscapeRight])
        let all = DBusLiveSensor.orientationSource(Configuration(), motion: try Self.notifier("{}"))
        #expect(all.allowedInterfaces == Set(InterfaceOrientation.allCases))
    }

    @Test func theMountingIsTheConfigurations() throws {
        let motion = try Self.notifier(#"{"mounting": {"x": "-y", "y": "+x"}}"#)
        #expect(motion.mounting.0 == SIMD3(0, -1, 0) && motion.mounting.1 == SIMD3(1, 0, 0) && motion.mounting.2 == SIMD3(0, 0, 1))
    }

    /// `orientation.lowEnergy`: auto follows the power monitor, on is low energy whatever it says,
    /// off never is. The mode shows in the configuration the sensor is started with.
    @Test(arguments: [("auto", true, true), ("auto", false, false), ("on", false, true), ("off", true, false)])
    func theLowEnergySettingDecidesTheMode(setting: String, powerSaver: Bool, expectLow: Bool) throws {
        let source = IdleSource()
        let motion = try Self.notifier(#"{"orientation": {"lowEnergy": "\#(setting)"}}"#, source: { source },
                                       monitor: FixedPowerMonitor(PowerState(powerSaver: powerSaver)))
        motion.start()
        defer { motion.stop() }
        let started = try #require(source.firstStart())
        #expect(started.gyroscopeEnabled == !expectLow)
        #expect(started.outputDataRate == (expectLow ? EnergySettings.defaultLowEnergy : EnergySettings.defaultNormal).outputDataRate)
    }
}

/// A sensor that starts and then delivers nothing, recording the configurations it is started with.
final class IdleSource: MotionSampleSource, Sendable {
    private let starts = Mutex<[IMUConfiguration]>([])
    let clock: any MonotonicClock = SystemClock()
    var name: String { "idle sensor" }
    var started: [IMUConfiguration] { starts.withLock { $0 } }

    /// The configuration the reader first started it with, waiting up to `seconds` for that.
    func firstStart(within seconds: Double = 10) -> IMUConfiguration? {
        let deadline = Date().addingTimeInterval(seconds)
        while started.isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        return started.first
    }

    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
        starts.withLock { $0.append(configuration) }
        return configuration
    }

    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        clock.sleep(nanoseconds: min(timeoutNanoseconds, 10 * Nanoseconds.perMillisecond))
        return .timedOut
    }

    func stop() throws(MotionSourceError) {}
}

/// A power monitor that always reports the same state.
final class FixedPowerMonitor: PowerStateMonitor {
    let state: PowerState
    init(_ state: PowerState) { self.state = state }
    func readPowerState() throws(PowerMonitorError) -> PowerState { state }
}
