import Foundation
import Testing
@testable import PlumbCLI
import PlumbDrivers
import PlumbHAL
import Synchronization

/// `plumb calibrate --gyro-only -o EXISTING` wrote zeros and ones over the six-face accelerometer
/// calibration there without a word; recalibrating the gyroscope (its bias drifts with
/// temperature) is what --gyro-only is for. An earlier calibration of the same part keeps its
/// accelerometer part now (``Calibrate/earlierAccelerometer(_:chip:)``), one of another part does
/// not, and standard error says which in one line.
@Suite struct GyroOnlyKeepsAccelerometerTests {
    static let offset = SIMD3(0.0023, 0.004, -0.0839)
    static let scale = SIMD3(1.0038, 1.0027, 1.002)

    /// A six-face calibration made on `part`, saved in a scratch file; its path.
    static func earlier(part: String) throws -> String {
        let path = NSTemporaryDirectory() + "plumb-gyro-only-\(UUID().uuidString).json"
        let c = Calibration(gyroscopeBias: SIMD3(0.5, 0.5, 0.5), accelerometerOffset: offset, accelerometerScale: scale,
                            mounting: try PlumbDrivers.Mounting(alignment: "-y,x,z"), part: part, temperature: 27.5)
        try c.jsonData().write(to: URL(fileURLWithPath: path))
        return path
    }

    static func saved(_ path: String) throws -> Calibration {
        try Calibration.read(try Data(contentsOf: URL(fileURLWithPath: path)), file: path)
    }

    @Test func anEarlierCalibrationOfThePartKeepsItsAccelerometerPart() throws {
        let path = try Self.earlier(part: "mpu6050")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", path])
        #expect(r.status == 0)
        #expect(r.err.contains("plumb calibrate: keeping the accelerometer offset, scale and mounting of \(path); only the gyroscope bias is measured\n"))
        let c = try Self.saved(path)
        #expect(c.accelerometerOffset == Self.offset)
        #expect(c.accelerometerScale == Self.scale)
        #expect(c.mounting == (try PlumbDrivers.Mounting(alignment: "-y,x,z")))
        #expect(c.gyroscopeBias != SIMD3(0.5, 0.5, 0.5), "the gyroscope bias is measured again")
        #expect(c.part == "mpu6050")
    }

    @Test func anotherPartsCalibrationIsNotKept() throws {
        let path = try Self.earlier(part: "lsm6dso")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", path])
        #expect(r.status == 0)
        #expect(r.err.contains("plumb calibrate: the accelerometer calibration in \(path) is not kept: it was made on an LSM6DSO (lsm6dso), "
                               + "not this MPU-6050; calibrate all six faces (without --gyro-only) for this chip's\n"))
        let c = try Self.saved(path)
        #expect(c.accelerometerOffset == .zero)
        #expect(c.accelerometerScale == SIMD3(1, 1, 1))
        #expect(c.mounting == .identity)
        #expect(c.part == "mpu6050")
    }

    /// Without an earlier file nothing is said of one.
    @Test func aNewFileSaysNothingOfKeeping() throws {
        let path = NSTemporaryDirectory() + "plumb-gyro-only-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", path])
        #expect(r.status == 0)
        #expect(!r.err.contains("accelerometer"))
    }

    /// A FIFO (or a terminal, a pipe: `--output /dev/stdout`) is written, never read for an earlier
    /// calibration: opening a FIFO to read it waited for a writer for ever.
    @Test func aFIFOIsNotReadForAnEarlierCalibration() throws {
        let path = NSTemporaryDirectory() + "plumb-gyro-only-\(UUID().uuidString).fifo"
        try #require(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let chip = IMUIdentity(part: "MPU-6050", partKey: "mpu6050", whoAmI: 0x68, address: I2CAddress(0x68), bus: "simulated bus")
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<(Calibration?, String?)?>(nil)
        Thread.detachNewThread {
            let kept = Calibrate.earlierAccelerometer(path, chip: chip)
            result.withLock { $0 = kept }
            done.signal()
        }
        if done.wait(timeout: .now() + 10) == .timedOut {
            Issue.record("earlierAccelerometer blocked on the FIFO")
            // A writer ends the blocked open, so the thread does not outlive the test.
            let writer = open(path, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            done.wait()
        }
        let kept = result.withLock { $0 }
        #expect(kept?.0 == nil && kept?.1 == nil, "\(String(describing: kept))")
    }

    @Test func theHelpSaysWhatIsKept() {
        let r = runPlumb(["calibrate", "--help"])
        #expect(r.out.contains("the accelerometer part of an earlier calibration of this part at --output is kept."))
    }
}
