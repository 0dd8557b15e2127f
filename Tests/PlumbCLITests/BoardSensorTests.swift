import Foundation
import PlumbOrientation
import Testing
import PlumbCLI

/// ``BoardSensor``: what a program of its own needs to run the notifier as `plumb watch` does
/// (the audit found the board's IMU, the power monitor and the paced simulator internal to the
/// tool, so the README's automatic low-energy mode and display pause never happened for a library
/// user). Imported without @testable: this is the public surface.
@Suite struct BoardSensorTests {
    /// The simulated tour, as fast as the reader takes it: the tour's changes, then the end.
    @Test func theSimulatedSourceRunsTheTour() async throws {
        let motion = MotionOrientation()
        motion.configure(source: try BoardSensor.simulatedSource(profile: "tour", speed: nil, duration: 12))
        var faces: [DeviceOrientation] = []
        for await change in motion.orientationChanges { faces.append(change.deviceOrientation) }
        #expect(faces.prefix(2) == [.faceUp, .portrait], "\(faces)")
    }

    @Test func anUnknownProfileOrChipIsNamed() {
        #expect(throws: BoardSensor.Failure.self) { _ = try BoardSensor.simulatedSource(profile: "twirl") }
        do {
            _ = try BoardSensor.simulatedSource(chip: "mpu6051")
            Issue.record("an unknown chip was taken")
        } catch {
            #expect(error.description.contains("mpu6051"), "\(error)")
        }
        #expect(throws: BoardSensor.Failure.self) { _ = try BoardSensor.simulatedSource(speed: 0) }
    }

    /// A configuration file that is not there fails at once, naming it, as `plumb watch --config` does.
    @Test func aMissingConfigurationIsNamed() {
        let path = NSTemporaryDirectory() + "plumb-board-sensor-\(UUID().uuidString).json"
        do {
            _ = try BoardSensor.notifier(configurationPath: path)
            Issue.record("a missing file was taken")
        } catch {
            #expect(error.message.contains(path), "\(error)")
            #expect(error.fix != nil)
        }
    }

    /// The system's monitor reads this machine's state on a thread of its own; it is a
    /// ``PowerStateMonitor`` the notifier takes.
    @Test func theSystemPowerMonitorIsTheNotifiers() {
        let motion = MotionOrientation()
        motion.powerMonitor = BoardSensor.systemPowerMonitor(pollInterval: 5)
        #expect(motion.powerMonitor != nil)
    }
}
