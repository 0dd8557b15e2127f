import Foundation
import Testing
@testable import PlumbCLI
import PlumbHAL
import PlumbLinux

/// The mistakes a new user makes on the README's path, each answered with the file and the fix,
/// and nothing of theirs lost.
@Suite struct UserPathWalkTests {
    /// A scratch directory; removed when the test ends.
    final class Scratch {
        let directory: String
        init() throws {
            directory = NSTemporaryDirectory() + "plumb-walk-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        func file(_ name: String, _ text: String) -> String {
            let path = directory + "/" + name
            #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)), "could not write \(path)")
            return path
        }
        func contents(_ path: String) -> String? { FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } }
        deinit { try? FileManager.default.removeItem(atPath: directory) }
    }

    static let configuration = #"{ "imu": { "rate": 200 }, "outputs": { "kiosk": { "method": "wlr-randr" } } }"# + "\n"

    /// `plumb read --calibration plumb.json` answered "run 'plumb calibrate --output plumb.json'
    /// again", and calibrate wrote over the configuration.
    @Test func calibrateDoesNotReplaceAConfiguration() throws {
        let scratch = try Scratch()
        let path = scratch.file("plumb.json", Self.configuration)
        let r = runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", path])
        #expect(r.status == 1)
        #expect(r.err == "Error: \(path) exists and holds a configuration (plumb.json), not a calibration; saving the calibration would replace it.\n"
                + "Fix: Choose another path with --output (the calibration goes in its own file, which plumb.json's \"calibration\" names), or remove \(path) first if it may go.\n")
        #expect(scratch.contents(path) == Self.configuration)
        // A recording is kept too.
        let csv = scratch.file("imu.csv", "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n0,0,0,0,0,0,9.8\n")
        let c = runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", csv])
        #expect(c.status == 1)
        #expect(c.err.hasPrefix("Error: \(csv) exists and holds something other than a Plumb calibration; saving the calibration would replace it.\n"))
    }

    /// A symbolic link to the configuration (a dotfiles-managed /etc/plumb/plumb.json): the check
    /// looked at the link itself (FileManager's attributes are lstat's), not a regular file, so
    /// the configuration behind it was replaced. A link to an earlier calibration is still replaced.
    @Test func calibrateFollowsALinkToAConfiguration() throws {
        let scratch = try Scratch()
        let path = scratch.file("plumb.json", Self.configuration)
        let link = scratch.directory + "/link.json"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        let r = runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", link])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: \(link) exists and holds a configuration (plumb.json), not a calibration;"))
        #expect(scratch.contents(path) == Self.configuration)
        let calibration = scratch.directory + "/cal.json"
        #expect(runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", calibration]).status == 0)
        let calibrationLink = scratch.directory + "/cal-link.json"
        try FileManager.default.createSymbolicLink(atPath: calibrationLink, withDestinationPath: calibration)
        #expect(runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", calibrationLink]).status == 0)
    }

    /// An earlier calibration (calibrating again) and an empty file are replaced.
    @Test func calibrateReplacesAnEarlierCalibration() throws {
        let scratch = try Scratch()
        let path = scratch.directory + "/cal.json"
        #expect(runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", path]).status == 0)
        #expect(runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", path]).status == 0)
        // A damaged one, whose values read refuses, is what calibrating again is for.
        let damaged = scratch.file("damaged.json", #"{"gyroscopeBias": [99, 0, 0]}"#)
        #expect(runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", damaged]).status == 0)
        #expect(runPlumb(["read", "--simulate", "--count", "1", "--calibration", damaged]).status == 0)
        // One cut short, which plumb run's fix says to calibrate again into.
        let cut = scratch.file("cut.json", #"{"gyroscopeBias": [0.01, 0"#)
        #expect(runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", cut]).status == 0)
        let empty = scratch.file("empty.json", "")
        #expect(runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", empty]).status == 0)
    }

    /// The fixes of read --calibration never say to calibrate into a file that is there.
    @Test func readCalibrationFixesDoNotSendTheUserToOverwriteIt() throws {
        let scratch = try Scratch()
        let path = scratch.file("plumb.json", Self.configuration)
        var r = runPlumb(["read", "--simulate", "--count", "1", "--calibration", path])
        #expect(r.status == 1)
        #expect(r.err == "Error: \(path):1:1: is not a Plumb calibration: it holds none of gyroscopeBias, accelerometerOffset, accelerometerScale, mounting, part, temperature\n"
                + "Fix: Give --calibration the file 'plumb calibrate --output FILE' saved (plumb.json's \"calibration\" names it), or calibrate again into a new file.\n")
        r = runPlumb(["read", "--simulate", "--count", "1", "--calibration", scratch.directory])
        #expect(r.status == 1)
        #expect(r.err == "Error: cannot read the calibration file \(scratch.directory) (it is a directory, not a file)\n"
                + "Fix: Give --calibration the file 'plumb calibrate --output FILE' saved.\n")
        r = runPlumb(["read", "--simulate", "--count", "1", "--calibration", scratch.directory + "/cal.json"])
        #expect(r.status == 1)
        #expect(r.err == "Error: cannot read the calibration file \(scratch.directory)/cal.json (no such file)\n"
                + "Fix: Run 'plumb calibrate --output \(scratch.directory)/cal.json' first, or check the path.\n")
    }

    static let syntaxFix = "Fix: Correct the JSON there: keys and strings in double quotes, a comma between members and none after the last, no comments; 'plumb config example' prints a valid file.\n"

    /// A trailing comma, a comment or single quotes: the fix was the key reference, which says
    /// nothing about JSON's syntax.
    @Test(arguments: [
        ("{\n  \"imu\": { \"rate\": 100, }\n}\n", "2:25: syntax error: trailing comma before '}'"),
        ("{\n  // the IMU\n  \"imu\": {}\n}\n", "2:3: syntax error: expected a key in double quotes, found '/'"),
        ("{ 'imu': {} }", "1:3: syntax error: expected a key in double quotes, found '''"),
    ])
    func aSyntaxErrorsFixIsAboutJSON(text: String, error: String) throws {
        let scratch = try Scratch()
        let path = scratch.file("plumb.json", text)
        let check = runPlumb(["config", "check", path])
        #expect(check.status == 1)
        #expect(check.err == "Error: \(path):\(error)\n" + Self.syntaxFix)
        let watch = runPlumb(["watch", "--config", path])
        #expect(watch.status == 1)
        #expect(watch.err == "Error: \(path):\(error)\n" + Self.syntaxFix)
        let read = runPlumb(["read", "--config", path, "--count", "1"])
        #expect(read.err == "Error: \(path):\(error)\n" + Self.syntaxFix)
    }

    /// A bus named in the file (imu.bus) that cannot be opened was told to change --bus, which the
    /// user never gave: the fix names the file's key; a --bus given still gets the flag's fix.
    @Test func aBadBusFromTheFileNamesTheKeyNotTheFlag() throws {
        let scratch = try Scratch()
        let path = scratch.file("plumb.json", #"{ "imu": { "bus": "/dev/i2c-x" } }"# + "\n")
        let fromFile = "Fix: Set imu.bus in \(path) to a bus such as /dev/i2c-1: on a Raspberry Pi"
        for command in [["watch", "--config", path], ["read", "--config", path, "--count", "1"]] {
            let r = runPlumb(command)
            #expect(r.status == 1)
            #expect(r.err.hasPrefix("Error: there is no I2C bus /dev/i2c-x: an I2C bus is /dev/i2c-N"))
            #expect(r.err.contains(fromFile), "\(command[0]): \(r.err)")
            let flag = runPlumb(command + ["--bus", "/dev/i2c-y"])
            #expect(flag.err.contains("Fix: Give --bus a bus such as /dev/i2c-1 (or just 1): on a Raspberry Pi"), "\(command[0]): \(flag.err)")
        }
        let file = I2CHelp.BusSetting.configuration(path: "/etc/plumb/plumb.json")
        let missing = I2CError(errno: Errno.ENOENT, bus: "/dev/i2c-3", address: nil)
        #expect(I2CHelp.openFailure(missing, buses: ["/dev/i2c-1"], setting: file)
                == .failure("there is no I2C bus /dev/i2c-3; this machine has /dev/i2c-1",
                            fix: "Set imu.bus in /etc/plumb/plumb.json to one of those: on a Raspberry Pi the 40-pin header (pins 3 and 5) is /dev/i2c-1. 'plumb probe' shows what answers on each."))
        let notAnAdapter = I2CError(errno: ENOTTY, bus: "/dev/i2c-1", address: nil)
        guard case .failure(_, let fix)? = Optional(I2CHelp.openFailure(notAnAdapter, buses: [], setting: file)) else { Issue.record("not a failure"); return }
        #expect(fix?.hasPrefix("Set imu.bus in /etc/plumb/plumb.json to an I2C adapter's device, /dev/i2c-N (") == true)
    }

    /// A directory given as the file: the fix was the key reference too.
    @Test func aDirectoryGivenToConfigCheckGetsThePathFix() throws {
        let scratch = try Scratch()
        let r = runPlumb(["config", "check", scratch.directory])
        #expect(r.status == 1)
        #expect(r.err == "Error: \(scratch.directory): cannot read the file (it is a directory, not a file)\n"
                + "Fix: Check the path; 'plumb config example' prints a file to start from (scripts/install puts a minimal one at /etc/plumb/plumb.json).\n")
    }

    static let keysFix = "Fix: Run 'plumb config example --keys' for every key and its allowed values.\n"

    /// i2cdetect prints 68; in plumb.json that was taken as decimal, 0x44, and `config check`
    /// said OK while plumb run then found nothing there ('plumb read --address 68' warns).
    @Test(arguments: [
        (#""address": 68"#, "1:23: imu.address: 68 is decimal (0x44), where no IMU answers; i2cdetect shows addresses in hexadecimal: write \"0x68\""),
        (#""address": "69""#, "1:23: imu.address: \"69\" is decimal (0x45), where no IMU answers; i2cdetect shows addresses in hexadecimal: write \"0x69\""),
        (#""address": "6a""#, "1:23: imu.address: \"6a\" is not a 7-bit I2C address; write \"0x6a\" for hexadecimal"),
        (#""address": 68.0"#, "1:23: imu.address: 68.0 is decimal (0x44), where no IMU answers; i2cdetect shows addresses in hexadecimal: write \"0x68\""),
        // A sign or a newline that the parser drops was read as decimal too, with no word.
        (#""address": "+68""#, "1:23: imu.address: \"+68\" is decimal (0x44), where no IMU answers; i2cdetect shows addresses in hexadecimal: write \"0x68\""),
        (#""address": "68\n""#, "1:23: imu.address: \"68\\n\" is decimal (0x44), where no IMU answers; i2cdetect shows addresses in hexadecimal: write \"0x68\""),
        (#""address": " +69 ""#, "1:23: imu.address: \" +69 \" is decimal (0x45), where no IMU answers; i2cdetect shows addresses in hexadecimal: write \"0x69\""),
        (#""address": "+6a""#, "1:23: imu.address: \"+6a\" is not a 7-bit I2C address; write \"0x6a\" for hexadecimal"),
        (#""bus": 1"#, "1:19: imu.bus: 1 is not a device path; write \"/dev/i2c-1\""),
        (#""bus": 1.0"#, "1:19: imu.bus: 1.0 is not a device path; write \"/dev/i2c-1\""),
        (#""bus": "1""#, "1:19: imu.bus: \"1\" is not a device path; write \"/dev/i2c-1\""),
        (#""bus": "i2c-22""#, "1:19: imu.bus: \"i2c-22\" is not a device path; write \"/dev/i2c-22\""),
    ])
    func anAddressOrBusWrittenAsI2cdetectShowsItSaysWhatToWrite(member: String, error: String) throws {
        let scratch = try Scratch()
        let path = scratch.file("plumb.json", "{ \"imu\": { \(member) } }")
        let r = runPlumb(["config", "check", path])
        #expect(r.status == 1)
        #expect(r.err == "Error: \(path):\(error)\n" + Self.keysFix)
    }

    /// The written forms that mean what they say are kept.
    @Test(arguments: [#""address": "0x68""#, #""address": 104"#, #""address": "104""#, #""address": "0x6B""#, #""address": "0X68""#,
                      #""address": "68h""#, #""address": 105"#, #""address": "0x44""#, #""bus": "/dev/i2c-1""#])
    func addressesAndBusesMeaningWhatTheySayAreTaken(member: String) throws {
        let scratch = try Scratch()
        let path = scratch.file("plumb.json", "{ \"imu\": { \(member) } }")
        #expect(runPlumb(["config", "check", path]).status == 0)
    }

    /// plumb run without the file sent the user to 'plumb config check', which says only that the
    /// file is not there.
    @Test func runWithoutTheFileSaysWhereOneComesFrom() throws {
        let scratch = try Scratch()
        let r = runPlumb(["run", "--simulate", "--config", scratch.directory + "/plumb.json", "--log-format", "plain"])
        #expect(r.status == 1)
        #expect(r.err.contains("fix: Check the path; 'plumb config example' prints a file to start from (scripts/install puts a minimal one at /etc/plumb/plumb.json).\n"))
    }
}

/// `plumb config check` said OK for a file whose calibration or level image plumb run then could
/// not read ("cannot start"); it says so now, as a note (the file may be checked before calibrating).
@Suite struct ConfigCheckFileNoteTests {
    @Test func aMissingCalibrationOrLevelImageIsNoted() throws {
        let scratch = try UserPathWalkTests.Scratch()
        let calibration = scratch.directory + "/calibration.json"
        let image = scratch.directory + "/level.png"
        let path = scratch.file("plumb.json", #"{"calibration": "\#(calibration)", "outputs": {"level": {"image": "\#(image)"}}}"#)
        var r = runPlumb(["config", "check", path])
        #expect(r.status == 0)
        #expect(r.out.hasSuffix("""
              note: calibration: cannot read the calibration file \(calibration) (no such file), so plumb run will not start: Run 'plumb calibrate' and save its result there, or remove "calibration" from the configuration.
              note: outputs.level.image: \(image): cannot read the file: no such file, so plumb run will not start: point it at a PNG or JPEG file the plumb user can read.

            """))
        // A configuration named as the calibration is not one.
        let other = scratch.file("other.json", #"{"calibration": "\#(path)"}"#)
        r = runPlumb(["config", "check", other])
        #expect(r.status == 0)
        #expect(r.out.hasSuffix("  note: calibration: \(path):1:1: is not a Plumb calibration: it holds none of gyroscopeBias, accelerometerOffset, accelerometerScale, mounting, part, temperature, so plumb run will not start: "
                                + "Point \"calibration\" at the file 'plumb calibrate --output FILE' saved (calibrate again into it if it is damaged).\n"))
        // With both files there, nothing is noted.
        #expect(runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", calibration]).status == 0)
        #expect(runPlumb(["level", "--angle", "0", "--size", "8x8", "--png", image]).status == 0)
        r = runPlumb(["config", "check", path])
        #expect(r.status == 0)
        #expect(!r.out.contains("note:"))
    }
}

extension ConfigCheckFileNoteTests {
    /// A calibration the user running the check may not read (root's, mode 0600) was said to stop
    /// plumb run, which reads it as plumb.service's user, who may well read it.
    @Test(.enabled(if: getuid() != 0 || (FileManager.default.isExecutableFile(atPath: plumbBinary)
                                        && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")),
                   "as root, needs the plumb binary and setpriv to check as another user"))
    func aCalibrationThisUserCannotReadIsNotSaidToStopTheDaemon() throws {
        let scratch = try UserPathWalkTests.Scratch()
        #expect(chmod(scratch.directory, 0o755) == 0)
        let calibration = scratch.directory + "/calibration.json"
        #expect(runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", calibration]).status == 0)
        let path = scratch.file("plumb.json", #"{"calibration": "\#(calibration)"}"#)
        #expect(chmod(path, 0o644) == 0)
        let note = "  note: calibration: you cannot read \(calibration) (permission denied); plumb run reads it as plumb.service's user "
            + "(plumb, or the one its drop-in names), who needs to: check its owner and mode with 'ls -l \(calibration)'.\n"
        let out = try configCheckByAnotherUser(path, unreadable: calibration)
        #expect(out.hasSuffix(note), "\(out)")
        #expect(!out.contains("will not start"))
    }

    /// A level image the user running the check may not read had the same wording; it now says
    /// what the calibration's note says.
    @Test(.enabled(if: getuid() != 0 || (FileManager.default.isExecutableFile(atPath: plumbBinary)
                                        && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")),
                   "as root, needs the plumb binary and setpriv to check as another user"))
    func aLevelImageThisUserCannotReadIsNotSaidToStopTheDaemon() throws {
        let scratch = try UserPathWalkTests.Scratch()
        #expect(chmod(scratch.directory, 0o755) == 0)
        let image = scratch.directory + "/level.png"
        #expect(runPlumb(["level", "--angle", "0", "--size", "8x8", "--png", image]).status == 0)
        let path = scratch.file("plumb.json", #"{"outputs": {"level": {"image": "\#(image)"}}}"#)
        #expect(chmod(path, 0o644) == 0)
        let note = "  note: outputs.level.image: you cannot read \(image) (permission denied); plumb run reads it as plumb.service's user "
            + "(plumb, or the one its drop-in names), who needs to: check its owner and mode with 'ls -l \(image)'.\n"
        let out = try configCheckByAnotherUser(path, unreadable: image)
        #expect(out.hasSuffix(note), "\(out)")
        #expect(!out.contains("will not start"))
    }

    /// `plumb config check path`'s stdout (exit status 0 expected) with `unreadable` unreadable to
    /// the checking user: as root, root's 0600 file checked as nobody (uid 65534), since root reads
    /// any file; otherwise the file's mode is 0.
    private func configCheckByAnotherUser(_ path: String, unreadable: String) throws -> String {
        if getuid() == 0 {
            // root reads any file: check as nobody (uid 65534) what root's 0600 file looks like.
            #expect(chmod(unreadable, 0o600) == 0)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", plumbBinary, "config", "check", path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            return String(decoding: data, as: UTF8.self)
        } else {
            #expect(chmod(unreadable, 0) == 0)
            let r = runPlumb(["config", "check", path])
            #expect(r.status == 0)
            return r.out
        }
    }
}

/// Too many LEDs for the mode is a usage error, said before any LED is opened: a name the board
/// lacks hid it ("no LED ..."), and the user fixed that only to meet the count next.
@Suite struct LEDCountBeforeHardwareTests {
    @Test(arguments: [["--backend", "sysfs", "--leds", "ACT,PWR,A,B,C", "--sysfs-root", "/nonexistent/leds"],
                      ["--backend", "gpio", "--chip", "no-such-chip", "--lines", "5,6,13,19,26"]])
    func tooManyLEDsForTheArrowIsAUsageErrorFirst(backend: [String]) {
        let r = runPlumb(["led", "--mode", "arrow", "--angle", "10"] + backend)
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: --mode arrow drives 1 to 4 LEDs; 5 were given.\nUsage: plumb led "))
    }
}

/// `--output` that is not a regular file is written, never read to see what it holds: reading
/// /dev/stdout on a terminal would wait for the user's typing, and /dev/zero never ends.
@Suite struct CalibrateOutputDeviceTests {
    @Test func aDeviceIsNotReadBeforeItIsWritten() {
        #expect(throws: Never.self) { try Calibrate.checkReplaceable("/dev/zero") }
        #expect(throws: Never.self) { try Calibrate.checkReplaceable("/dev/null") }
        let r = runPlumb(["calibrate", "--simulate", "--gyro-only", "--output", "/dev/zero"])
        #expect(r.status == 0)
        #expect(r.out.hasSuffix("saved to /dev/zero\n"))
    }
}

/// A chip another plumb process holds (`I2CDeviceClaim`): the message names the chip, the fix
/// the services that may hold it.
@Suite struct ChipInUseMessageTests {
    @Test func theFixNamesTheServicesToStop() {
        let error = I2CHelp.inUse(I2CDeviceInUse(path: "/dev/i2c-1", address: I2CAddress(0x68)))
        #expect(error == .failure("the chip at 0x68 on /dev/i2c-1 is in use by another plumb process",
                                  fix: "One plumb drives one IMU: stop the other one first. 'pgrep -a plumb' lists the plumb processes; "
                                    + "'systemctl status plumb plumb-sensor-proxy' shows whether one is a service ('sudo systemctl stop plumb', or plumb-sensor-proxy)."))
    }
}
