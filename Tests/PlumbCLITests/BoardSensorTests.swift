import Foundation
import PlumbDrivers
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

    /// A program that runs the IMU itself (the README's attitude loop) reads a calibration file as
    /// plumb does, with the same checks; the reader was internal to the tool, so such a program
    /// could not use the file `plumb calibrate` wrote.
    @Test func aCalibrationFileReadsAsPlumbReadsIt() throws {
        let json = """
            {"gyroscopeBias": [0.01, -0.02, 0.03], "accelerometerOffset": [0, 0, 0.1], "accelerometerScale": [1, 1, 1],
             "mounting": {"rows": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, "part": "mpu6050"}
            """
        let calibration = try Calibration.read(Data(json.utf8), file: "cal.json")
        #expect(calibration.gyroscopeBias == SIMD3(0.01, -0.02, 0.03))
        #expect(calibration.part == "mpu6050")
        let sample = calibration.apply(IMUSample(timestampNanoseconds: 0, acceleration: SIMD3(0, 0, 9.9), angularRate: SIMD3(0.01, -0.02, 0.03)))
        #expect(sample.angularRate == .zero)
        do {
            _ = try Calibration.read(Data(#"{"gyroscopeBias": [1, 2]}"#.utf8), file: "bad.json")
            Issue.record("a bias of two numbers was taken")
        } catch {
            #expect(error.description.hasPrefix("bad.json:1:"), "\(error)")
        }
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
