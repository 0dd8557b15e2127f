import Foundation
import PlumbConfiguration
import Testing
@testable import PlumbCLI

/// `plumb read --config FILE` and `plumb calibrate --config FILE`: the IMU plumb.json describes,
/// each flag given overriding the file; without --config, nothing is read.
@Suite struct SensorConfigurationTests {
    static func file(_ json: String, _ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "plumb-sensor-config-\(getpid())-\(name).json"
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let json = """
    {
      "imu": {"bus": "/dev/i2c-3", "address": "0x69", "part": "lsm6dso", "rate": 208, "accelerometerRange": 8,
              "gyroscopeRange": 500, "interrupt": {"chip": "gpiochip0", "line": 17}, "fifoCompression": false},
      "mounting": {"x": "-y", "y": "+x", "z": "+z"}
    }
    """

    /// Each setting the file gives stands in for the flag left out; a flag given wins; `read`
    /// also takes the rate, ranges and mounting, `calibrate` (which measures the raw chip at ±2 g
    /// and ±250 °/s) only where the chip is.
    @Test func theFilesIMUStandsInForTheFlagsLeftOut() throws {
        let c = try Configuration.decode(Self.json, file: "plumb.json")
        let given = try parse(["--address", "0x6a", "--rate", "50"], spec: Read.spec)
        let read = SensorOptions.applying(c.imu, mounting: c.mounting, takes: [.rateAndRanges, .mounting], to: given)
        #expect(read.string("bus") == "/dev/i2c-3")
        #expect(read.string("address") == "0x6a")
        #expect(read.string("part") == "lsm6dso")
        #expect(read.string("interrupt") == "gpiochip0:17")
        #expect(read.has("no-fifo-compression"))
        #expect(read.string("rate") == "50")
        #expect(read.string("accel-range") == "8")
        #expect(read.string("gyro-range") == "500")
        #expect(read.string("mount") == "-y,+x,+z")

        let calibrate = SensorOptions.applying(c.imu, mounting: c.mounting, takes: [], to: try parse([], spec: Calibrate.spec))
        #expect(calibrate.string("bus") == "/dev/i2c-3" && calibrate.string("address") == "0x69" && calibrate.string("part") == "lsm6dso")
        #expect(calibrate.string("rate") == nil && calibrate.string("accel-range") == nil && calibrate.string("mount") == nil)

        // The defaults ({}): nothing stands in, the chip is probed as without --config.
        let empty = try Configuration.decode("{}", file: "plumb.json")
        let none = SensorOptions.applying(empty.imu, mounting: empty.mounting, takes: [], to: try parse([], spec: Calibrate.spec))
        #expect(none.values.isEmpty && none.flags.isEmpty)
    }

    /// The file's bus is the one opened (here one that does not exist, so the error names it),
    /// and `--bus` still overrides it.
    @Test(arguments: ["read", "calibrate"])
    func theFilesBusIsOpenedUnlessTold(command: String) throws {
        let path = try Self.file(#"{"imu": {"bus": "/dev/i2c-91", "address": "0x6a"}}"#, "bus-\(command)")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = NSTemporaryDirectory() + "plumb-sensor-config-\(getpid())-cal.json"
        let extra = command == "calibrate" ? ["--output", output] : ["--count", "1"]
        let fromFile = runPlumb([command, "--config", path] + extra)
        #expect(fromFile.status == 1)
        #expect(fromFile.err.hasPrefix("Error: there is no I2C bus /dev/i2c-91"), "\(fromFile.err)")
        let told = runPlumb([command, "--config", path, "--bus", "92"] + extra)
        #expect(told.status == 1)
        #expect(told.err.hasPrefix("Error: there is no I2C bus /dev/i2c-92"), "\(told.err)")
    }

    /// A bad file is told by the configuration loader (file, line, key) with the fix.
    @Test(arguments: ["read", "calibrate"])
    func aBadFileNamesTheFileLineAndKey(command: String) throws {
        let path = try Self.file("{\n  \"imu\": {\"bus\": \"/dev/i2c-1\",\n    \"adress\": \"0x69\"}\n}\n", "bad-\(command)")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = runPlumb([command, "--config", path])
        #expect(r.status == 1)
        #expect(r.out == "")
        #expect(r.err == """
            Error: \(path):3:5: imu.adress: unknown key; allowed keys: bus, address, part, rate, accelerometerRange, gyroscopeRange, interrupt, fifoCompression. Did you mean 'address'?
            Fix: Run 'plumb config check \(path)', or leave --config out: the chip is then found by probing.

            """)
        let missing = runPlumb([command, "--config", "/nonexistent/plumb.json"])
        #expect(missing.status == 1)
        #expect(missing.err == """
            Error: /nonexistent/plumb.json: cannot read the file (no such file)
            Fix: Check the path; 'plumb config example' prints a file to start from (scripts/install puts a minimal one at /etc/plumb/plumb.json); or leave --config out: the chip is then found by probing.

            """)
    }

    /// The file names hardware: with --simulate it is a usage error, as --bus is.
    @Test func theFileCannotGoWithTheSimulator() throws {
        let r = runPlumb(["read", "--simulate", "--config", "/etc/plumb/plumb.json"])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: '--config' names the board's IMU; it cannot be combined with '--simulate'.\nUsage: plumb read "))
    }
}
