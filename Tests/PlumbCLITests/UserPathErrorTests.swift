import Testing
import Foundation
@testable import PlumbCLI

/// Bad input met on the README's path (a range the chip does not have, a rate past its limits,
/// a configuration file not written yet): each is refused with a message naming the option or
/// file and a fix, and the help says what the command really does.
@Suite struct ReadRangeOptionTests {
    /// plumb.json refuses imu.accelerometerRange 3; the flag did not, and the driver rounded it
    /// up to ±4 g without a word.
    @Test func anAccelerometerRangeNoChipHasIsAUsageError() {
        let r = runPlumb(["read", "--simulate", "--count", "1", "--accel-range", "3"])
        #expect(r.status == 64)
        #expect(r.out == "")
        #expect(r.err.hasPrefix("Error: The value '3' is invalid for '--accel-range': expected one of 2, 4, 8, 16, 32 (g).\nUsage: plumb read "))
    }

    @Test func aGyroscopeRangeNoChipHasIsAUsageError() {
        let r = runPlumb(["read", "--simulate", "--count", "1", "--gyro-range", "300"])
        #expect(r.status == 64)
        #expect(r.out == "")
        #expect(r.err.hasPrefix("Error: The value '300' is invalid for '--gyro-range': expected one of 125, 250, 500, 1000, 2000, 4000 (°/s).\nUsage: plumb read "))
    }

    @Test(arguments: [["--accel-range", "8"], ["--gyro-range", "500"], ["--accel-range", "16.0"]])
    func aRangeTheTableNamesIsTaken(_ option: [String]) {
        let r = runPlumb(["read", "--simulate", "--count", "1"] + option)
        #expect(r.status == 0)
        #expect(r.err == "plumb read: MPU-6050 (WHO_AM_I 0x68) at 0x68 on simulated bus\n")
        #expect(r.out.hasPrefix("t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,temp_c\n"))
    }

    /// A rate the chip cannot run was one line with no fix.
    @Test func aRatePastTheChipsLimitsNamesTheOptionToChange() {
        let r = runPlumb(["read", "--simulate", "--count", "1", "--rate", "5000"])
        #expect(r.status == 1)
        #expect(r.out == "")
        #expect(r.err == """
            plumb read: MPU-6050 (WHO_AM_I 0x68) at 0x68 on simulated bus
            Error: output data rate 5000.0 Hz: the MPU-6050 FIFO runs at 3.9...1000 Hz
            Fix: Give --rate and --watermark within the chip's limits named above (with --config: imu.rate).

            """)
    }
}

@Suite struct CalibrateProfileHelpTests {
    /// The emulated chip tours its six faces by itself (a resting one never finishes), so the
    /// help must not call rest the default.
    @Test func helpNamesTheTourAsTheDefaultProfile() {
        let r = runPlumb(["calibrate", "--help"])
        #expect(r.status == 0)
        #expect(r.out.contains("  --profile <NAME>        The emulated motion: rest, tour, rotation, shaking, tapping. Default tour (rest with --gyro-only).\n"))
        #expect(!r.out.contains("Default rest."))
    }
}

@Suite struct ConfigFileMissingTests {
    /// A file not written yet has no key to look up: the fix says where a file comes from.
    @Test func checkOfAMissingFileSaysWhereOneComesFrom() {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-missing-\(UUID().uuidString).json").path
        let r = runPlumb(["config", "check", path])
        #expect(r.status == 1)
        #expect(r.out == "")
        #expect(r.err == """
            Error: \(path): cannot read the file (no such file)
            Fix: Check the path; 'plumb config example' prints a file to start from (scripts/install puts a minimal one at /etc/plumb/plumb.json).

            """)
    }

    /// `plumb config example` prints the common keys; `--keys` is the one that lists every key.
    @Test func exampleSaysWhereEveryKeyIs() {
        let r = runPlumb(["config", "--help"])
        #expect(r.status == 0)
        #expect(r.out.contains("  example                 Print an example configuration file (--keys: every key, its allowed values and default).\n"))
    }

    @Test func aMissingMQTTConfigurationPointsAtTheKeyReference() {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-missing-\(UUID().uuidString).json").path
        let r = runPlumb(["watch", "--simulate", "--duration", "1", "--mqtt", "mqtt://127.0.0.1", "--mqtt-config", path])
        #expect(r.status == 1)
        #expect(r.err == """
            Error: \(path): cannot read the file (no such file)
            Fix: Run 'plumb config example --keys' for the keys of outputs.mqtt and their allowed values.

            """)
    }
}

/// A file that is not a regular file (`/dev/null`, a pipe such as bash's `<(…)` or /dev/stdin)
/// is read as a stream. It was refused as "You don't have permission", even to root.
@Suite struct NonRegularInputFileTests {
    @Test func anEmptyDeviceIsAnEmptyFileNotAPermissionProblem() {
        let r = runPlumb(["config", "check", "/dev/null"])
        #expect(r.status == 1)
        #expect(r.err == """
            Error: /dev/null:1:1: syntax error: the file is empty; expected a JSON object
            Fix: Write the settings there: 'plumb config example' prints a file to start from.

            """)
    }

    @Test func aConfigurationIsReadFromAPipe() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("plumb.json").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // The writer opens its end once the reader opens the other (open(2) on a FIFO waits for both).
        let written = DispatchSemaphore(value: 0)
        let writer = Thread {
            if let handle = FileHandle(forWritingAtPath: fifo) {
                handle.write(Data(#"{"imu": {"rate": 50}}"#.utf8))
                try? handle.close()
            }
            written.signal()
        }
        writer.start()
        let r = runPlumb(["config", "check", fifo])
        // Had the command not opened the pipe, the writer would wait for a reader for ever.
        let release = open(fifo, O_RDONLY | O_NONBLOCK)
        written.wait()
        if release >= 0 { close(release) }
        #expect(r.status == 0)
        #expect(r.err == "")
        #expect(r.out.hasPrefix("\(fifo): OK\n  board: auto\n  imu: the board's bus at the board's address, part auto, 50 Hz,"))
    }
}
