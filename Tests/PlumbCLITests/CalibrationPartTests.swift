import Foundation
import Testing
@testable import PlumbCLI
import PlumbDrivers
import PlumbHAL

/// A calibration is applied only to the part it was made on, or one that answers as it
/// (``Calibration/fits(_:)``): an MPU-6050's calibration was applied to an LSM6DSO without a word
/// (its y rate at rest went from -0.0012 to +0.0298 rad/s), and `"part": "bogus"` was accepted.
@Suite struct CalibrationPartTests {
    /// A scratch file; removed when the value goes.
    final class Scratch {
        let directory = NSTemporaryDirectory() + "plumb-calibration-part-\(UUID().uuidString)"
        init() throws { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        func file(_ name: String, _ text: String) throws -> String {
            let path = directory + "/" + name
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// A calibration file made on `part`, as plumb calibrate writes it.
    static func calibration(part: String) -> String {
        #"{"accelerometerOffset": [0.002, 0.004, -0.084], "accelerometerScale": [1.004, 1.003, 1.002], "gyroscopeBias": [-0.0008, -0.031, -0.0066], "#
            + #""mounting": {"rows": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}, "part": "\#(part)", "temperature": 27.5}"#
    }

    static func chip(_ key: String, whoAmI: UInt8) -> IMUIdentity {
        IMUIdentity(part: IMUFamilies.row(forPart: key)?.part ?? key, partKey: key, whoAmI: whoAmI, address: I2CAddress(0x68), bus: "/dev/i2c-1")
    }

    /// Same part, and parts detection cannot tell apart (the same WHO_AM_I in the same family),
    /// fit; another part, or the same WHO_AM_I value in another family, does not.
    @Test(arguments: [
        ("mpu6050", "mpu6050", UInt8(0x68), true),
        ("mpu6050", "mpu6000", 0x68, true), ("mpu6050", "mpu9150", 0x68, true), ("mpu9150", "mpu6050", 0x68, true),
        ("lsm6dso", "lsm6dsox", 0x6C, true), ("lsm6dsox", "lsm6dso32", 0x6C, true),
        ("lsm6ds3trc", "lsm6dsl", 0x6A, true), ("ism330dlc", "lsm6dsm", 0x6A, true),
        ("lsm6dsr", "ism330dhcx", 0x6B, true),
        // A clone answering 0x98 driven as an MPU-6050 is the ICM-20689 its calibration was made on.
        ("icm20689", "mpu6050", 0x98, true),
        ("mpu6050", "lsm6dso", 0x6C, false), ("mpu6050", "mpu6500", 0x70, false), ("mpu6050", "icm20689", 0x98, false),
        ("lsm6dso", "lsm6dsl", 0x6A, false), ("lsm6dsl", "lsm6ds3", 0x69, false),
    ])
    func aCalibrationFitsItsPartAndThoseAnsweringAsIt(made: String, driven: String, whoAmI: UInt8, fits: Bool) {
        #expect(Calibration(part: made).fits(Self.chip(driven, whoAmI: whoAmI)) == fits)
        #expect(Calibration(part: nil).fits(Self.chip(driven, whoAmI: whoAmI)), "a calibration naming no part fits any chip")
    }

    /// `plumb read --calibration` refuses another part's calibration once the chip is found,
    /// naming the file, both parts and the fix.
    @Test func readRefusesACalibrationMadeOnAnotherPart() throws {
        let scratch = try Scratch()
        let path = try scratch.file("cal.json", Self.calibration(part: "mpu6050"))
        let r = runPlumb(["read", "--simulate", "--chip", "lsm6dso", "--count", "1", "--calibration", path])
        #expect(r.status == 1)
        #expect(r.out == "")
        #expect(r.err == "Error: the calibration \(path) was made on an MPU-6050 (mpu6050), but the chip at 0x6a on simulated bus is an "
                + "LSM6DSO/LSM6DSOX/LSM6DSO32 (lsm6dso, WHO_AM_I 0x6c): its biases and scales are another chip's\n"
                + "Fix: Calibrate this LSM6DSO/LSM6DSOX/LSM6DSO32 ('plumb calibrate --output FILE' with it connected), or give --calibration the file made on it.\n")
        // One made on a part answering the same WHO_AM_I is applied, without a word.
        let sibling = try scratch.file("ox.json", Self.calibration(part: "lsm6dsox"))
        let ok = runPlumb(["read", "--simulate", "--chip", "lsm6dso", "--count", "1", "--calibration", sibling])
        #expect(ok.status == 0)
        #expect(!ok.err.contains("calibration"))
    }

    /// An unknown part is refused when the file is read, with the known keys and the nearest one.
    @Test func anUnknownPartIsRefusedAtLoad() throws {
        let scratch = try Scratch()
        let path = try scratch.file("cal.json", Self.calibration(part: "mpu6059"))
        let r = runPlumb(["read", "--simulate", "--count", "1", "--calibration", path])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: \(path):1:204: part: \"mpu6059\" is not one of: mpu6050, mpu6000, "))
        #expect(r.err.contains(". Did you mean 'mpu6050'?\n"))
    }

    /// `plumb run` refuses it when the sensor starts, naming the configuration in the fix; `plumb
    /// config check` notes it when imu.part names the part.
    @Test func runAndConfigCheckRefuseACalibrationMadeOnAnotherPart() throws {
        let scratch = try Scratch()
        let calibration = try scratch.file("cal.json", Self.calibration(part: "mpu6050"))
        let path = try scratch.file("plumb.json", #"{"imu": {"part": "lsm6dso"}, "calibration": "\#(calibration)"}"#)
        let r = runPlumb(["run", "--simulate", "--config", path, "--duration", "1", "--log-format", "plain"])
        #expect(r.status == 1)
        #expect(r.err.contains("plumb: error: cannot start simulated LSM6DSO (tour): the calibration \(calibration) was made on an MPU-6050 (mpu6050), "
                               + "but the chip at 0x6a on simulated bus is an LSM6DSO (lsm6dso, WHO_AM_I 0x6c): its biases and scales are another chip's\n"))
        #expect(r.err.contains("plumb: error: fix: Calibrate this LSM6DSO ('plumb calibrate --output FILE' with it connected), or point \"calibration\" in \(path) at the file made on it.\n"))
        let check = runPlumb(["config", "check", path])
        #expect(check.status == 0)
        // At "calibration"'s line and column in plumb.json, as the file's errors are.
        let column = #"{"imu": {"part": "lsm6dso"}, "calibration": "#.count + 1
        #expect(check.out.contains("  note: \(path):1:\(column): calibration: \(calibration) was made on an MPU-6050 (mpu6050), but imu.part is an LSM6DSO (lsm6dso), so plumb run will not start: "))
        // An MPU-6000 answers as the MPU-6050 it was made on: it runs.
        let same = try scratch.file("same.json", #"{"imu": {"part": "mpu6000"}, "calibration": "\#(calibration)"}"#)
        #expect(runPlumb(["run", "--simulate", "--config", same, "--duration", "0.5", "--log-format", "plain"]).status == 0)
        #expect(!runPlumb(["config", "check", same]).out.contains("note:"))
        // With imu.part "auto" the emulated chip is an MPU-6050 whatever the board has: a board's
        // plumb.json with its LSM6DSO's calibration still runs under --simulate.
        let lsm = try scratch.file("lsm.json", Self.calibration(part: "lsm6dso"))
        let auto = try scratch.file("auto.json", #"{"calibration": "\#(lsm)"}"#)
        let simulated = runPlumb(["run", "--simulate", "--config", auto, "--duration", "0.5", "--log-format", "plain"])
        #expect(simulated.status == 0, "\(simulated.err)")
    }
}
