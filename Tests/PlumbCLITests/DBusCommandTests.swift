import Foundation
import Testing
@testable import PlumbCLI
import PlumbDBus


/// The repository's boards/ folder.
private let boards = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../boards").standardized.path

@Suite struct DBusCommandTests {
    @Test func withoutASimulationItReadsTheConfiguration() {
        let result = runPlumb(["dbus", "--config", "/nonexistent/plumb.json", "--boards-dir", boards])
        #expect(result.status == 1)
        #expect(result.out == "")
        #expect(result.err == """
            Error: /nonexistent/plumb.json: cannot read the file (no such file)
            Fix: Check the path; 'plumb config example' prints a file to start from (scripts/install puts a minimal one at /etc/plumb/plumb.json).

            """)
    }

    @Test func theConfiguredIMUIsOpenedAtStart() throws {
        let path = NSTemporaryDirectory() + "plumb-dbus-\(UUID().uuidString).json"
        try #"{ "board": "generic", "imu": { "rate": 100, "bus": "/dev/i2c-77" }, "outputs": {} }"#
            .write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = runPlumb(["dbus", "--config", path, "--boards-dir", boards])
        #expect(result.status == 1)
        // The fix for a bus that is not there, naming imu.bus in the file (it was one generic
        // line for every errno, which sent a user in the wrong group to enable I2C).
        let buses = I2CHelp.existingBuses()
        let expected = buses.isEmpty
            ? "Error: there is no I2C bus /dev/i2c-77: I2C is not enabled\nFix: \(I2CHelp.enableFix)\n"
            : "Error: there is no I2C bus /dev/i2c-77; this machine has \(buses.joined(separator: ", "))\n"
                + "Fix: Set imu.bus in \(path) to one of those: on a Raspberry Pi the 40-pin header (pins 3 and 5) is /dev/i2c-1. 'plumb probe' shows what answers on each.\n"
        #expect(result.err == expected)
    }

    @Test func aBadScriptIsAUsageError() {
        let result = runPlumb(["dbus", "--script", "normal:1,upside:2"])
        #expect(result.status == 64)
        #expect(result.err.hasPrefix("Error: The value 'normal:1,upside:2' is invalid for '--script': bad script step 'upside:2': orientation must be one of undefined, normal, bottom-up, left-up, right-up.\n"))
    }

    @Test func scriptAndSimulateDoNotMix() {
        let result = runPlumb(["dbus", "--simulate", "--script", "normal:1"])
        #expect(result.status == 64)
        #expect(result.err.hasPrefix("Error: --script and --simulate cannot be combined.\n"))
    }

    /// --wait-for-sensor waits for the board's IMU, which --script and --simulate replace: it was
    /// ignored without a word; it is refused as the options naming the IMU are beside --simulate.
    /// (The bus address is one where nothing listens: before, the command went on to serve there
    /// and failed with exit 1.)
    @Test(arguments: [(["--script", "normal:1"], "script"), (["--simulate"], "simulate"), (["--simulate", "--script", "normal:1"], "script")])
    func waitForSensorWithoutTheIMUIsAUsageError(options: [String], given: String) {
        let result = runPlumb(["dbus", "--bus-address", "unix:path=/nonexistent/plumb.sock", "--wait-for-sensor"] + options)
        #expect(result.status == 64, "\(result.err)")
        #expect(result.err.hasPrefix("Error: '--wait-for-sensor' waits for the board's IMU; it cannot be combined with '--\(given)'.\nUsage: plumb dbus "), "\(result.err)")
        #expect(result.out == "")
    }

    @Test func anUnknownChipIsAUsageError() {
        let result = runPlumb(["dbus", "--simulate", "--chip", "bmi160"])
        #expect(result.status == 64)
        #expect(result.err.hasPrefix("Error: The value 'bmi160' is invalid for '--chip'"))
    }

    @Test func aBusThatIsNotThereIsAFailureWithAFix() {
        let result = runPlumb(["dbus", "--bus-address", "unix:path=/nonexistent/plumb.sock", "--script", "normal:1"])
        #expect(result.status == 1)
        #expect(result.err == """
            Error: cannot connect to unix:path=/nonexistent/plumb.sock: No such file or directory
            Fix: check the address (for example unix:path=/run/dbus/system_bus_socket) and that the bus is running

            """)
    }

    @Test func eventsAreJSONLinesWithAFixedKeyOrder() {
        let context = CommandContext.capturing()
        let counters = SensorCounters()
        counters.update { $0.starts = 2; $0.stops = 1; $0.samples = 300; $0.busTransactions = 75 }
        let printer = EventPrinter(format: "jsonl", bus: "the system bus", counters: counters, context: context)
        printer.print(.ready(uniqueName: ":1.4"))
        printer.print(.claimed(.accelerometer, client: ":1.7"))
        printer.print(.sensorStarted)
        printer.print(.orientationChanged(.leftUp))
        printer.print(.released(.accelerometer, client: ":1.7", clientLeft: true))
        printer.print(.sensorFailed("no \"IMU\""))
        printer.printExit()
        #expect(context.out.captured == """
            {"event": "ready", "bus": "the system bus", "name": ":1.4"}
            {"event": "claimed", "sensor": "accelerometer", "client": ":1.7"}
            {"event": "sensor", "state": "started", "sensorStarts": 2, "sensorStops": 1, "samples": 300, "busTransactions": 75}
            {"event": "orientation", "value": "left-up"}
            {"event": "released", "sensor": "accelerometer", "client": ":1.7", "reason": "client-left"}
            {"event": "sensor", "state": "failed", "message": "no \\"IMU\\""}
            {"event": "exit", "sensorStarts": 2, "sensorStops": 1, "samples": 300, "busTransactions": 75}

            """)
    }

    @Test func eventsAsTextForATerminal() {
        let context = CommandContext.capturing()
        let printer = EventPrinter(format: "text", bus: "unix:path=/tmp/bus", counters: nil, context: context)
        printer.print(.ready(uniqueName: ":1.0"))
        printer.print(.released(.light, client: ":1.2", clientLeft: false))
        printer.print(.orientationChanged(.bottomUp))
        printer.printExit()
        #expect(context.out.captured == """
            serving net.hadess.SensorProxy on unix:path=/tmp/bus as :1.0
            :1.2 released the light
            AccelerometerOrientation = bottom-up
            stopped

            """)
    }

    @Test func helpIsComplete() {
        let result = runPlumb(["dbus", "--help"])
        #expect(result.status == 0)
        #expect(result.err == "")
        #expect(result.out == """
            OVERVIEW: Serve iio-sensor-proxy's net.hadess.SensorProxy D-Bus interface (screen auto-rotation).

            Owns net.hadess.SensorProxy on the system bus (or the bus at --bus-address) and serves its
            accelerometer part, so GNOME, KDE and Phosh rotate the screen: HasAccelerometer,
            AccelerometerOrientation (normal, left-up, bottom-up, right-up, undefined) and
            Claim/ReleaseAccelerometer. The sensor runs only while a client holds a claim. Light and
            proximity are reported absent. Stop iio-sensor-proxy first: only one service can own the name.
            Without --simulate or --script it reads the board's IMU as 'plumb run' does (--config), opening
            it only while a client holds a claim; it fails at start if the IMU does not answer, unless
            --wait-for-sensor is given: it then serves with HasAccelerometer false, checks the IMU every
            second while no client holds a claim, and turns it true once the IMU answers. An IMU another plumb
            process drives is refused at start alike, or with --wait-for-sensor waited for until that process ends.
            Prints one line per event (JSON Lines, or text on a terminal). SIGINT, SIGTERM or SIGHUP stops it.

            USAGE: plumb dbus [--bus-address <ADDRESS>] [--config <FILE>] [--board <ID>] [--boards-dir <DIR>] [--simulate] [--profile <NAME>] [--chip <KEY>] [--script <STEPS>] [--repeat] [--speed <FACTOR>] [--filter <NAME>] [--format <FORMAT>] [--wait-for-sensor]

            OPTIONS:
              --bus-address <ADDRESS> A D-Bus address (unix:path=/run/x) instead of the system bus.
              --config <FILE>         The configuration: IMU, mounting, calibration, filter, orientation (default /etc/plumb/plumb.json).
              --board <ID>            Use this board's bus and pins instead of detecting them (see 'plumb boards').
              --boards-dir <DIR>      Read board files from DIR (default: $PLUMB_BOARDS_DIR, then the installed share/plumb/boards).
              --simulate              Read the simulated IMU (see --profile).
              --profile <NAME>        Simulated motion: rest, tour, rotation, shaking, tapping (default tour).
              --chip <KEY>            Simulated chip (default mpu6050; see plumb watch --help).
              --script <STEPS>        Play orientations instead of a sensor: normal:3,left-up:3,... (seconds each).
              --repeat                Start the --script over after its last step.
              --speed <FACTOR>        Play --simulate or --script this many times faster than real time (default 1).
              --filter <NAME>         Fusion filter for --simulate: plumb (default), madgwick, complementary (the live IMU uses the configuration's).
              --format <FORMAT>       jsonl or text (default: text on a terminal, jsonl otherwise).
              --wait-for-sensor       When the IMU does not answer at start, or another plumb drives it, serve anyway and take it once it answers (plumb-sensor-proxy.service does; not with --simulate or --script).
              -h, --help              Show help information.

            """)
    }
}
