import Foundation
import Testing
@testable import PlumbCLI
import PlumbConfiguration
import PlumbDrivers
import PlumbHAL
import PlumbMQTT
import PlumbOrientation

/// The repository's boards/ folder.
private let boardsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("boards").path

/// `text` written to a fresh temporary file; returns its path.
private func temporaryFile(_ text: String) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-audit-\(UUID().uuidString).json").path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

private let getUsage = "Usage: plumb regs get [--bus <PATH>] [--address <ADDR>] [--part <NAME>] [--format <FORMAT>] [--simulate] [--chip <NAME>] <REG>\n  See 'plumb regs get --help' for more information.\n"
private let setUsage = "Usage: plumb regs set [--bus <PATH>] [--address <ADDR>] [--part <NAME>] [--format <FORMAT>] [--simulate] [--chip <NAME>] [--force] <REG> <VALUE> ...\n  See 'plumb regs set --help' for more information.\n"

@Suite struct RegsSetBeforeValueTests {
    /// A whole-value write read nothing before it and printed "? -> 0x08".
    @Test func aWholeValueWriteShowsTheValueItReplaces() {
        #expect(runPlumb(["regs", "set", "--simulate", "ACCEL_CONFIG", "0x08"])
                == (0, "ACCEL_CONFIG 0x1C: 0x00 -> 0x08\nACCEL_CONFIG 0x1C = 0x08  AFS_SEL=±4 g\n", ""))
        #expect(runPlumb(["regs", "set", "--simulate", "--chip", "mpu6050", "PWR_MGMT_1", "0x08", "--force"])
                == (0, "PWR_MGMT_1 0x6B: 0x40 -> 0x08\nPWR_MGMT_1 0x6B = 0x08  TEMP_DIS=1, CLKSEL=internal 8 MHz\n", ""))
        // An undescribed address is read as 'dump' reads it.
        #expect(runPlumb(["regs", "set", "--simulate", "0x01", "5", "--force"])
                == (0, "(unknown) 0x01: 0x00 -> 0x05\n(unknown) 0x01 = 0x05\n", ""))
    }

    /// A register whose read pops the FIFO is not read before a whole-value write: the line says why.
    @Test func aRegisterWithAReadSideEffectSaysWhyItWasNotRead() {
        let r = runPlumb(["regs", "set", "--simulate", "FIFO_R_W", "0x08"])
        #expect(r.status == 0)
        #expect(r.out.hasPrefix("FIFO_R_W 0x74: (not read: reading pops the FIFO) -> 0x08\n"))
    }
}

@Suite struct RegsNameSuggestionTests {
    @Test func aMisspeltNameGetsTheNearestName() {
        #expect(runPlumb(["regs", "get", "--simulate", "PWR_MGMT1"])
                == (64, "", "Error: 'PWR_MGMT1' is no register of the MPU-6050: give a datasheet name such as WHO_AM_I or an address such as 0x75. Did you mean 'PWR_MGMT_1'?\n" + getUsage))
        // Case and underscores do not count.
        #expect(runPlumb(["regs", "set", "--simulate", "accelconfig", "0x08"])
                == (64, "", "Error: 'accelconfig' is no register of the MPU-6050: give a datasheet name such as WHO_AM_I or an address such as 0x75. Did you mean 'ACCEL_CONFIG'?\n" + setUsage))
        let dso = runPlumb(["regs", "get", "--simulate", "--chip", "lsm6dso", "CTRL1XL"])
        #expect(dso.status == 64)
        #expect(dso.err.contains("'CTRL1XL' is no register of the LSM6DSO: give a datasheet name such as WHO_AM_I or an address such as 0x75. Did you mean 'CTRL1_XL'?\n"))
    }

    @Test func nothingNearAndNumbersGetNoSuggestion() {
        #expect(runPlumb(["regs", "get", "--simulate", "FOO"])
                == (64, "", "Error: 'FOO' is no register of the MPU-6050: give a datasheet name such as WHO_AM_I or an address such as 0x75.\n" + getUsage))
        #expect(runPlumb(["regs", "get", "--simulate", "0x100"])
                == (64, "", "Error: '0x100' is no register of the MPU-6050: give a datasheet name such as WHO_AM_I or an address such as 0x75.\n" + getUsage))
    }
}

@Suite struct MQTTCredentialsPlaceTests {
    /// `plumb watch` has no configuration file of its own: its credentials go in --mqtt-config FILE.
    @Test func watchSendsURLCredentialsToTheMQTTConfigFile() {
        let r = runPlumb(["watch", "--simulate", "--duration", "1", "--mqtt", "mqtt://user:pw@127.0.0.1"])
        #expect(r.status == 64)
        #expect(r.out == "")
        #expect(r.err.hasPrefix("Error: invalid MQTT broker URL: credentials in the URL are refused (they would show in ps, shell history and logs); "
                                + "give username and password in --mqtt-config FILE (keys username and password, as in outputs.mqtt).\nUsage: plumb watch "))
        #expect(!r.err.contains("pw"))
    }

    /// `plumb run` takes them from outputs.mqtt; a broker refusing them says so too.
    @Test func runSendsThemToOutputsMQTT() throws {
        var output = MQTTOutput()
        output.url = "mqtt://user:pw@broker.lan"
        #expect(throws: CLIError.failure("invalid MQTT broker URL: credentials in the URL are refused (they would show in ps, shell history and logs)",
                                         fix: "Take them out of the URL and give username and password in outputs.mqtt (keys username and password) in the configuration file (plumb.json).")) {
            try MQTTSupport.settings(output, url: nil, hostname: "pi", credentialsPlace: MQTTSupport.configurationCredentials)
        }
        output.url = "mqtt://broker.lan"
        #expect(try MQTTSupport.settings(output, url: nil, hostname: "pi", credentialsPlace: MQTTSupport.configurationCredentials).credentialsPlace
                == "outputs.mqtt (keys username and password) in the configuration file (plumb.json)")
        #expect(try MQTTSupport.settings(output, url: "mqtt://broker.lan", hostname: "pi",
                                         credentialsPlace: MQTTSupport.watchCredentials("/etc/plumb/mqtt.json")).credentialsPlace
                == "--mqtt-config /etc/plumb/mqtt.json (keys username and password, as in outputs.mqtt)")
    }
}

@Suite struct ConfigCheckInterruptChipTests {
    /// A chip given as "gpiochip0" is a device name, not a label.
    @Test(arguments: [("gpiochip0", "line 17 on gpiochip0"), ("/dev/gpiochip4", "line 17 on /dev/gpiochip4"),
                      ("0", "line 17 on chip 0"), ("pinctrl-rp1", "line 17 on label pinctrl-rp1")])
    func theChipIsShownAsGiven(_ chip: String, _ shown: String) throws {
        let path = try temporaryFile(#"{"imu": {"interrupt": {"chip": "\#(chip)", "line": 17}}}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = runPlumb(["config", "check", "--boards-dir", boardsDirectory, path])
        #expect(r.status == 0)
        #expect(r.err == "")
        #expect(r.out.contains("  imu: the board's bus at the board's address, part auto, 100 Hz, ±4 g, ±2000 °/s, \(shown)\n"))
    }
}

@Suite struct RateOutsideThePartsRangeTests {
    /// 1...3.8 Hz and 1001...1666 Hz pass the file format (1...1666 Hz, the LSM6DS family's top
    /// rate) but not an MPU-6050, whose FIFO runs at 3.9...1000 Hz: with the part known, config
    /// check says so, at imu.rate's line and column as every other error in the file (it named
    /// the file alone).
    @Test(arguments: [2.0, 1666])
    func checkRefusesItWhenThePartIsAnMPU(_ rate: Double) throws {
        let path = try temporaryFile(#"{"imu": {"part": "mpu6050", "rate": \#(rate)}}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(runPlumb(["config", "check", "--boards-dir", boardsDirectory, path])
                == (1, "", """
                    Error: \(path):1:37: imu.rate: output data rate \(rate) Hz: the MPU-6050 FIFO runs at 3.9...1000 Hz (imu.part "mpu6050")
                    Fix: Set imu.rate within the range named above.

                    """))
    }

    /// With "auto" (and an LSM6DS part) the file is as valid as before; an LSM6DS part takes its
    /// 1666 Hz (the file format stopped at 1000 Hz before).
    @Test(arguments: [#"{"imu": {"rate": 2}}"#, #"{"imu": {"part": "lsm6dso", "rate": 2}}"#, #"{"imu": {"part": "mpu6050", "rate": 3.9}}"#,
                      #"{"imu": {"part": "lsm6dso", "rate": 1666}}"#, #"{"imu": {"rate": 1666}}"#])
    func checkAcceptsItOtherwise(_ text: String) throws {
        let path = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = runPlumb(["config", "check", "--boards-dir", boardsDirectory, path])
        #expect(r.status == 0)
        #expect(r.out.hasPrefix("\(path): OK\n"))
    }

    /// `plumb run`'s start failure had no fix line.
    @Test func runsStartFailureNamesImuRate() throws {
        let board = BoardSelection(board: Board(id: "generic", name: "Generic", models: [], i2cBus: "/dev/i2c-1", interrupt: nil,
                                                display: nil, leds: [], imuAddress: I2CAddress(UInt8(0x68))), reason: .override)
        let setup = DaemonSetup(path: "/etc/plumb/plumb.json", configuration: try Configuration.decode(#"{"imu": {"rate": 2}}"#, file: "plumb.json"), board: board)
        let factory = DaemonFactory(source: .simulated, context: .capturing(), realClock: VirtualClock())
        #expect(throws: CLIError.failure("cannot start simulated MPU-6050 (tour): output data rate 2.0 Hz: the MPU-6050 FIFO runs at 3.9...1000 Hz",
                                         fix: "Set imu.rate in /etc/plumb/plumb.json within the chip's range named above (the FIFO watermark follows from the rate).")) {
            _ = try factory.build(setup)
        }
    }

    /// The live commands (watch, level, led, kiosk, dbus) said "Check it with 'plumb probe' and 'plumb read'".
    @Test func theLiveCommandsStartFailureNamesImuRate() throws {
        var configuration = Configuration()
        configuration.imu.rate = 2
        let e = try Emulated(profile: "rest", configuration: configuration)
        #expect(throws: CLIError.failure("the IMU at 0x68 on /dev/i2c-1: output data rate 2.0 Hz: the MPU-6050 FIFO runs at 3.9...1000 Hz",
                                         fix: "Set imu.rate in test.json within the chip's range named above (the FIFO watermark follows from the rate).")) {
            _ = try LiveSensor.session(e.found, source: e.source, outputs: [], powerMonitor: FixedPowerMonitor(PowerState()))
        }
    }

    /// A plumb.json whose imu.rate (line 3, column 19) the chip refuses, and that line and column
    /// as `plumb config check` gives it for the same file with the part named (here the part is
    /// "auto", found at start).
    static func rateFile() throws -> (path: String, location: String) {
        let text = "{\n  \"board\": \"rpi4\",\n  \"imu\": {\"rate\": 2, \"part\": \"auto\"}\n}\n"
        let checked = try temporaryFile(text.replacingOccurrences(of: "\"auto\"", with: "\"mpu6050\""))
        defer { try? FileManager.default.removeItem(atPath: checked) }
        let check = runPlumb(["config", "check", "--boards-dir", boardsDirectory, checked])
        #expect(check.err.hasPrefix("Error: \(checked):3:19: imu.rate: output data rate 2.0 Hz"), "\(check.err)")
        return (try temporaryFile(text), "3:19")
    }

    /// The live commands (watch, level, led, kiosk, through LiveSensor) named the file in the fix
    /// but not where in it imu.rate is, which `plumb config check` gives: the message is at its
    /// line and column now, and still names the IMU, its address and bus.
    @Test func theLiveCommandsStartFailureIsAtImuRatesLineAndColumn() throws {
        let (path, location) = try Self.rateFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let args = try parse(["--config", path, "--boards-dir", boardsDirectory], spec: LED.spec)
        let found = try LiveSensor.find(args, context: .capturing())
        let e = try Emulated(profile: "rest")
        #expect(throws: CLIError.failure("\(path):\(location): imu.rate: the IMU at 0x68 on /dev/i2c-1: output data rate 2.0 Hz: the MPU-6050 FIFO runs at 3.9...1000 Hz",
                                         fix: "Set imu.rate in \(path) within the chip's range named above (the FIFO watermark follows from the rate).")) {
            _ = try LiveSensor.session(found, source: e.source, outputs: [], powerMonitor: FixedPowerMonitor(PowerState()))
        }
    }

    /// `plumb run`'s start failure, from the file it read: at imu.rate's line and column too.
    @Test func runsStartFailureIsAtImuRatesLineAndColumn() throws {
        let (path, location) = try Self.rateFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = runPlumb(["run", "--simulate", "--config", path, "--boards-dir", boardsDirectory, "--duration", "1", "--log-format", "plain"])
        #expect(r.status == 1)
        // Said once: "cannot start: " before it said it twice.
        #expect(r.err.contains("plumb: error: \(path):\(location): imu.rate: cannot start simulated MPU-6050 (tour): output data rate 2.0 Hz: the MPU-6050 FIFO runs at 3.9...1000 Hz\n"), "\(r.err)")
        #expect(r.err.contains("Set imu.rate in \(path) within the chip's range named above"), "\(r.err)")
    }

    /// `plumb read --config FILE` (on the board's IMU, so only its message here): a rate the file
    /// gave is at imu.rate's line and column, with the key in the fix; a rate given as --rate, or
    /// with --watermark beside it, is the command line's, as before.
    @Test func readsStartFailureIsAtImuRatesLineAndColumn() throws {
        let (path, location) = try Self.rateFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let refused = IMUError.invalidConfiguration("output data rate 2.0 Hz: the MPU-6050 FIFO runs at 3.9...1000 Hz")
        let fromFile = try SensorOptions.applyingConfiguration(try parse(["--config", path], spec: Read.spec), takes: [.rateAndRanges, .mounting])
        #expect(Read.startFailure(refused, args: fromFile)
                == .failure("\(path):\(location): imu.rate: output data rate 2.0 Hz: the MPU-6050 FIFO runs at 3.9...1000 Hz",
                            fix: "Set imu.rate in \(path) within the chip's limits named above, or give --rate HZ over it."))
        for given in [["--rate", "2"], ["--watermark", "4"]] {
            let fromFlags = try SensorOptions.applyingConfiguration(try parse(["--config", path] + given, spec: Read.spec), takes: [.rateAndRanges, .mounting])
            #expect(Read.startFailure(refused, args: fromFlags)
                    == .failure("output data rate 2.0 Hz: the MPU-6050 FIFO runs at 3.9...1000 Hz",
                                fix: "Give --rate and --watermark within the chip's limits named above (with --config: imu.rate)."))
        }
    }
}
