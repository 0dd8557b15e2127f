import Foundation
import Testing
@testable import PlumbCLI

/// Bad files given to the commands that read recordings: each is one error line naming the
/// file (and line), then the fix; never a trap.
@Suite("hostile input")
struct HostileInputTests {
    /// A scratch directory; removed when the test ends.
    final class Scratch {
        let directory: String
        init() throws {
            directory = NSTemporaryDirectory() + "plumb-hostile-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        func file(_ name: String, _ bytes: [UInt8]) -> String {
            let path = directory + "/" + name
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)), "could not write \(path)")
            return path
        }
        func file(_ name: String, _ text: String) -> String { file(name, Array(text.utf8)) }
        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    static let header = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z"
    static let columnsFix = "Fix: Give the path of a CSV file with the columns t_s, gyr_x, gyr_y, gyr_z, acc_x, acc_y, acc_z.\n"

    @Test("a directory given as the recording is named as one")
    func directory() throws {
        let scratch = try Scratch()
        var r = runPlumb(["watch", "--replay", scratch.directory])
        #expect(r.status == 1)
        #expect(r.err == "Error: \(scratch.directory): cannot read the recording (it is a directory, not a file).\n" + Self.columnsFix)
        r = runPlumb(["read", "--simulate", "--replay", scratch.directory, "--count", "1"])
        #expect(r.status == 1)
        #expect(r.err == "Error: \(scratch.directory): cannot read the recording (it is a directory, not a file).\n" + Self.columnsFix)
        r = runPlumb(["fuse", "--input", scratch.directory])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: \(scratch.directory) is a directory, not a file.\nFix: "))
        r = runPlumb(["read", "--simulate", "--count", "1", "--calibration", scratch.directory])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: cannot read the calibration file \(scratch.directory) (it is a directory, not a file)\n"))
    }

    @Test("a t_s past the nanosecond clock is an error naming the line, not a trap")
    func hugeTime() throws {
        let scratch = try Scratch()
        let path = scratch.file("huge.csv", "\(Self.header)\n0,0,0,0,0,0,9.8\n1e20,0,0,0,0,0,9.8\n")
        let r = runPlumb(["watch", "--replay", path])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: \(path):3:1: t_s 1e+20 is past the latest time a recording can hold"))
    }

    @Test("bytes that are not UTF-8 are reported at their line by read --replay")
    func notUTF8() throws {
        let scratch = try Scratch()
        let path = scratch.file("latin1.csv", Array("\(Self.header)\n0,0,0,0,0,0,9.8\n0.01,".utf8) + [0xFF, 0xFE] + Array(",0,0,0,0,9.8\n".utf8))
        let r = runPlumb(["read", "--simulate", "--replay", path, "--count", "1"])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: \(path):3:6: gyr_x: '\u{FFFD}\u{FFFD}' is not a decimal number.\n"))
    }

    @Test("fuse reads a UTF-8 byte order mark and classic Mac line ends, as the other readers do")
    func fuseHeaders() throws {
        let scratch = try Scratch()
        let bom = scratch.file("bom.csv", [0xEF, 0xBB, 0xBF] + Array("\(Self.header)\n0,0,0,0,0,0,9.8\n".utf8))
        var r = runPlumb(["fuse", "--input", bom])
        #expect(r.status == 0)
        #expect(r.out.hasPrefix("t_s,qw,qx,qy,qz,gravity_x,gravity_y,gravity_z\n0,"))
        // Classic Mac OS line ends (CR alone) are read, as watch --replay and --replay read them.
        let mac = scratch.file("mac.csv", "\(Self.header)\r0,0,0,0,0,0,9.8\r0.01,0,0,0,0,0,9.8")
        r = runPlumb(["fuse", "--input", mac])
        #expect(r.status == 0 && r.err == "")
        #expect(r.out.split(separator: "\n").count == 3)
        #expect(runPlumb(["watch", "--replay", mac]).status == 0)
    }

    @Test("calibrate refuses an --output it cannot write before the sensor is turned, not after")
    func calibrateOutput() throws {
        let scratch = try Scratch()
        var r = runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", scratch.directory])
        #expect(r.status == 1)
        #expect(r.err == "Error: \(scratch.directory) is a directory, not a file to save the calibration in.\nFix: Give --output a file name, such as \(scratch.directory)/plumb-calibration.json.\n")
        r = runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", scratch.directory + "/missing/cal.json"])
        #expect(r.status == 1)
        #expect(r.err == "Error: \(scratch.directory)/missing/cal.json cannot be created: there is no directory \(scratch.directory)/missing.\nFix: Create the directory first, or choose another path with --output.\n")
    }

    @Test("kiosk --allow with no orientation is a usage error, not a screen that never turns")
    func kioskAllowNothing() throws {
        let scratch = try Scratch()
        let path = scratch.file("r.csv", "\(Self.header)\n0,0,0,0,0,-9.8,0\n0.01,0,0,0,0,-9.8,0\n")
        for list in ["", ","] {
            let r = runPlumb(["kiosk", "--replay", path, "--dry-run", "--allow", list])
            #expect(r.status == 64)
            #expect(r.err.hasPrefix("Error: The value '\(list)' is invalid for '--allow': name at least one of portrait, portraitUpsideDown, landscapeLeft, landscapeRight.\n"))
        }
    }

    @Test("led --fb takes a framebuffer name as level --fb does, not /dev/fb<name>")
    func ledFramebufferName() {
        let r = runPlumb(["led", "--angle", "10", "--backend", "sensehat", "--fb", "No Such FB"])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: no framebuffer named \"No Such FB\""))
    }

    @Test("level --png naming a directory says so")
    func levelPNGDirectory() throws {
        let scratch = try Scratch()
        let r = runPlumb(["level", "--angle", "10", "--size", "8x8", "--png", scratch.directory])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: \(scratch.directory): cannot write the image: it is a directory; give a file name such as \(scratch.directory)/level.png\n"))
    }

    /// Foundation's words were shown: "The file doesn't exist" for a missing directory,
    /// "NSCocoaErrorDomain error 512" for an empty path.
    @Test("level --png in a missing directory names the directory; an empty --png is a usage error")
    func levelPNGMissingDirectory() throws {
        let scratch = try Scratch()
        let path = scratch.directory + "/none/level.png"
        let r = runPlumb(["level", "--angle", "10", "--size", "8x8", "--png", path])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: \(path): cannot write the image: the directory \(scratch.directory)/none does not exist\n"), "\(r.err)")
        let empty = runPlumb(["level", "--angle", "10", "--size", "8x8", "--png", ""])
        #expect(empty.status == 64)
        #expect(empty.err.hasPrefix("Error: '--png' needs a file name, such as --png level.png.\n"), "\(empty.err)")
    }

    @Test("an empty --bus is a usage error, not 'no : enable I2C'")
    func emptyBus() {
        for command in [["read", "--count", "1"], ["regs", "dump"], ["probe"]] {
            let r = runPlumb(command + ["--bus", ""])
            #expect(r.status == 64)
            #expect(r.err.hasPrefix("Error: The value '' is invalid for '--bus': expected a device such as /dev/i2c-1 (or just 1).\n"))
        }
    }

    @Test("every reader of recordings refuses the same values with the same message at the same line and column", arguments: [
        ("hex.csv", "0.01,0x10,0,0,0,0,9.8", ":3:6: gyr_x: '0x10' is hexadecimal, not a decimal number."),
        ("inf.csv", "0.01,0,0,0,0,0,inf", ":3:16: acc_z: 'inf' is infinite; no sensor reads that."),
        ("empty.csv", "0.01,0,0,,0,0,9.8", ":3:10: gyr_z: the field is empty."),
        ("comma.csv", "0.01,0,0,0,0,0,9,8", ":3: 8 fields, but the header has 7."),
        ("nantime.csv", "nan,0,0,0,0,0,9.8", ":3:1: t_s: nan is not a time."),
    ])
    func readersAgree(name: String, line: String, message: String) throws {
        let scratch = try Scratch()
        let path = scratch.file(name, "\(Self.header)\n0, 0 ,0,0,0,0, 9.8e0 \n\(line)\n0.02,0,0,0,0,0,9.8\n")
        for arguments in [["fuse", "--input", path], ["watch", "--replay", path], ["read", "--simulate", "--replay", path, "--count", "1"]] {
            let r = runPlumb(arguments)
            #expect(r.status == 1, "\(arguments[0])")
            #expect(r.err.split(separator: "\n").first.map(String.init) == "Error: \(path)\(message)", "\(arguments[0])")
        }
    }

    @Test("a missing reading (nan) is accepted by every reader of recordings")
    func readersAcceptNaN() throws {
        let scratch = try Scratch()
        let path = scratch.file("nan.csv", "\(Self.header)\n0,0,0,0,0,0,9.8\n0.01,NaN,0,0,0,0,9.8\n0.02, 0 ,0,0,0,0,9.8\n")
        for arguments in [["fuse", "--input", path], ["watch", "--replay", path], ["read", "--simulate", "--replay", path, "--count", "1"]] {
            #expect(runPlumb(arguments).status == 0, "\(arguments[0])")
        }
    }

    @Test("a file separated by semicolons or tabs is named as such by every reader")
    func separators() throws {
        let scratch = try Scratch()
        let semicolons = scratch.file("semi.csv", "t_s;gyr_x;gyr_y;gyr_z;acc_x;acc_y;acc_z\n0;0;0;0;0;0;9.8\n")
        let tabs = scratch.file("tabs.csv", "t_s\tgyr_x\tgyr_y\tgyr_z\tacc_x\tacc_y\tacc_z\n0\t0\t0\t0\t0\t0\t9.8\n")
        var r = runPlumb(["fuse", "--input", semicolons])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: \(semicolons):1: the columns are separated by semicolons, not commas.\nFix: "))
        r = runPlumb(["watch", "--replay", tabs])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: \(tabs):1: the columns are separated by tabs, not commas.\nFix: "))
        r = runPlumb(["read", "--simulate", "--replay", semicolons, "--count", "1"])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: \(semicolons):1: the columns are separated by semicolons, not commas.\nFix: "))
    }

    @Test("--address names the 7-bit range, and warns when a decimal reads like the IMU's hex address")
    func address() {
        var r = runPlumb(["read", "--simulate", "--address", "0x7f", "--count", "1"])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: The value '0x7f' is invalid for '--address': expected a 7-bit address 0x08...0x77, such as 0x68.\n"))
        r = runPlumb(["regs", "dump", "--simulate", "--address", "68"])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("warning: --address 68 is decimal (0x44); the IMUs answer at 0x68, 0x69, 0x6A or 0x6B: write 0x68 for hexadecimal\nError: no IMU answers at 0x44"))
        // A sign the parser drops was decimal with no word.
        r = runPlumb(["regs", "dump", "--simulate", "--address", "+68"])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("warning: --address +68 is decimal (0x44); the IMUs answer at 0x68, 0x69, 0x6A or 0x6B: write 0x68 for hexadecimal\nError: no IMU answers at 0x44"))
        r = runPlumb(["read", "--simulate", "--address", "104", "--count", "1"])
        #expect(r.status == 0)
        #expect(r.err == "plumb read: MPU-6050 (WHO_AM_I 0x68) at 0x68 on simulated bus\n")
    }

    @Test("fuse keeps every row of a file whose t_s goes backwards and says where")
    func fuseBackwards() throws {
        let scratch = try Scratch()
        let path = scratch.file("back.csv", "\(Self.header)\n0,0,0,0,0,0,9.8\n0.02,0,0,0,0,0,9.8\n0.01,0,0,0,0,0,9.8\n0.03,0,0,0,0,0,9.8\n0.02,0,0,0,0,0,9.8\n")
        for filter in ["plumb", "plumb-offline"] {
            let r = runPlumb(["fuse", "--input", path, "--filter", filter])
            #expect(r.status == 0)
            #expect(r.out.split(separator: "\n").count == 6)
            #expect(r.err == "warning: \(path) line 4: t_s goes backwards (2 times in all); the gyroscope is not integrated across such a step.\n")
        }
    }
}
