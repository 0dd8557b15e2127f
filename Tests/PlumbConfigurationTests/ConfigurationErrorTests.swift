import Foundation
import Testing
@testable import PlumbConfiguration

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path
let knownBoards = ["cm4", "cm5", "generic", "rpi3", "rpi4", "rpi400", "rpi5", "rpi500", "rpizero2w"]

/// Decodes a fixture and returns the error's one-line description (file name without directory).
func errorMessage(_ name: String) -> String? {
    do {
        let text = try String(contentsOfFile: fixtures + "/" + name, encoding: .utf8)
        _ = try Configuration.decode(text, file: name, knownBoards: knownBoards)
        return nil
    } catch let error as ConfigurationError {
        return error.description
    } catch {
        return "unexpected \(error)"
    }
}

/// One bad file per class of mistake, each with the exact message a user sees from `plumb config check`.
@Suite struct ConfigurationErrorTests {
    static let cases: [(String, String)] = [
        ("syntax-trailing-comma.json", "syntax-trailing-comma.json:3:25: syntax error: trailing comma before '}'"),
        ("hex-number.json", "hex-number.json:2:23: syntax error: numbers cannot have leading zeros or a 0x prefix; write hexadecimal values as strings (\"0x68\")"),
        ("not-an-object.json", "not-an-object.json:1:1: expected an object, found an array"),
        ("unknown-key.json", "unknown-key.json:3:5: imu.adress: unknown key; allowed keys: bus, address, part, rate, accelerometerRange, gyroscopeRange, interrupt, fifoCompression. Did you mean 'address'?"),
        ("duplicate-key.json", "duplicate-key.json:4:3: logLevel: duplicate key (first given at line 2)"),
        ("wrong-type.json", "wrong-type.json:3:13: imu.rate: expected a number (Hz), found a string"),
        ("out-of-range.json", "out-of-range.json:3:13: imu.rate: 5000 is out of range; allowed 1...1666 (Hz)"),
        ("value-not-allowed.json", "value-not-allowed.json:2:34: imu.accelerometerRange: 3 is not allowed; allowed values: 2, 4, 8, 16, 32 (g)"),
        ("unknown-choice.json", "unknown-choice.json:3:13: filter.kind: \"madgwik\" is not one of: plumb, madgwick, complementary. Did you mean 'madgwick'?"),
        ("parameter-for-another-filter.json", "parameter-for-another-filter.json:2:48: filter.beta: applies only to \"kind\": \"madgwick\"; the complementary filter takes timeConstant"),
        ("bad-address.json", "bad-address.json:2:23: imu.address: \"0x80\" is not a 7-bit I2C address; allowed 0x08...0x77, written as \"0x68\" or 104"),
        ("unknown-board.json", "unknown-board.json:2:12: board: \"rpi9\" is not a known board; allowed values: auto, cm4, cm5, generic, rpi3, rpi4, rpi400, rpi5, rpi500, rpizero2w. Did you mean 'rpi3'?"),
        ("not-an-i2c-bus.json", "not-an-i2c-bus.json:2:19: imu.bus: \"/dev/spidev0.0\" is not an I2C device; allowed: /dev/i2c-N (list them with i2cdetect -l)"),
        ("relative-path.json", "relative-path.json:2:18: calibration: \"calibration.json\" is not an absolute path; write it starting with /"),
        ("mounting-repeated-axis.json", "mounting-repeated-axis.json:2:33: mounting.y: \"-x\" uses the same sensor axis as mounting.x (\"+x\"); x, y and z must each name a different sensor axis"),
        ("mounting-mirror.json", "mounting-mirror.json:2:15: mounting: x +y, y +x, z +z is a mirror image, not a rotation; flip the sign of one axis (for example z -z)"),
        ("kiosk-command-missing.json", "kiosk-command-missing.json:2:25: outputs.kiosk.command: missing; required when outputs.kiosk.method is \"command\""),
        ("missing-required.json", "missing-required.json:3:14: outputs.level.image: missing; required when outputs.level is enabled (a PNG or JPEG file)"),
        ("empty-list.json", "empty-list.json:2:45: orientation.interfaceOrientations: must name at least one of: portrait, portraitUpsideDown, landscapeLeft, landscapeRight"),
        ("unknown-orientation.json", "unknown-orientation.json:2:52: outputs.leds.map.sideways: unknown key; allowed keys: unknown, portrait, portraitUpsideDown, landscapeLeft, landscapeRight, faceUp, faceDown"),
        ("dbus-bus-not-an-address.json", "dbus-bus-not-an-address.json:2:33: outputs.dbus.bus: \"/run/dbus/system_bus_socket\" is not a D-Bus address; write \"system\" or TRANSPORT:KEY=VALUE, e.g. \"unix:path=/run/plumb/bus\""),
        ("dbus-unknown-key.json", "dbus-unknown-key.json:2:43: outputs.dbus.adress: unknown key; allowed keys: enabled, bus"),
        ("unknown-preset.json", "unknown-preset.json:2:30: orientation.preset: \"stedy\" is not one of: responsive, steady. Did you mean 'steady'?"),
        ("dwell-without-time-cap.json", "dwell-without-time-cap.json:2:59: orientation.dwellMargin: acts only with a time cap, and the responsive preset has none; add \"maxWait\": SECONDS (or use \"preset\": \"steady\", whose low-energy mode waits at most 0.6 s)"),
        ("dbus-enabled-not-bool.json", "dbus-enabled-not-bool.json:2:37: outputs.dbus.enabled: expected true or false, found a string"),
    ]

    @Test(arguments: cases)
    func badFileGivesItsMessage(_ file: String, _ expected: String) {
        #expect(errorMessage(file) == expected)
    }

    @Test func everyFixtureIsCovered() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: fixtures).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files == Self.cases.map(\.0).sorted())
    }

    @Test func missingFileNamesIt() {
        #expect(throws: ConfigurationError(file: "/nonexistent/plumb.json", position: nil, keyPath: "",
                                           message: "cannot read the file (no such file)")) {
            try Configuration.load(path: "/nonexistent/plumb.json")
        }
    }

    @Test func emptyFileIsASyntaxError() {
        #expect(throws: ConfigurationError(file: "e.json", position: JSONPosition(line: 1, column: 1), keyPath: "",
                                           message: "syntax error: the file is empty; expected a JSON object")) {
            try Configuration.decode("", file: "e.json")
        }
    }
}

@Suite struct ConfigurationDecodingTests {
    @Test func emptyObjectGivesTheDefaults() throws {
        let c = try Configuration.decode("{}", file: "x")
        #expect(c == Configuration())
        #expect(c.board == "auto")
        #expect(c.imu.rate == 100)
        #expect(c.imu.interrupt == .board)
        #expect(c.outputs.enabledNames == [])
        #expect(c.mounting.matrix == [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    }

    /// The file scripts/install puts at /etc/plumb/plumb.json picks the most accurate real-time
    /// filter, the default (it named Madgwick's, 1.446° on BROAD against PlumbFilter's 0.582°).
    @Test func theInstalledFileUsesTheDefaultFilter() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../packaging/plumb.json").standardized.path
        let c = try Configuration.load(path: path, knownBoards: knownBoards)
        #expect(c.filter.kind == Configuration().filter.kind)
        #expect(c.filter.kind == .plumb)
    }

    @Test func theExampleDecodesToWhatItSays() throws {
        let c = try Configuration.decode(Configuration.exampleText, file: "example", knownBoards: knownBoards)
        #expect(c.imu.bus == "/dev/i2c-1")
        #expect(c.imu.address?.rawValue == 0x68)
        #expect(c.imu.rate == 200)
        #expect(c.imu.accelerometerRange == 4)
        #expect(c.imu.gyroscopeRange == 2000)
        #expect(c.calibrationFile == "/var/lib/plumb/calibration.json")
        #expect(c.filter.kind == .plumb)
        #expect(c.filter.beta == nil)
        #expect(c.filter.timeConstant == 3)
        #expect(c.orientation.preset == .steady)
        #expect(c.orientation.settleTime == nil)
        #expect(c.orientation.hysteresis == nil)
        #expect(c.orientation.maxRotationRate == nil)
        #expect(c.orientation.interfaceOrientations.count == 4)
        #expect(c.outputs.level == nil)
        #expect(c.outputs.kiosk == KioskOutput(method: .wlrRandr, output: "HDMI-A-1", command: nil, holdOff: 1))
        #expect(c.outputs.leds == LEDOutput(map: [.faceUp: "ACT"]))
        #expect(c.outputs.enabledNames == ["kiosk", "leds"])
        #expect(c.logLevel == .info)
    }

    @Test func explicitInterruptAndPolling() throws {
        let a = try Configuration.decode(#"{"imu": {"interrupt": {"chip": "/dev/gpiochip2", "line": 5}}}"#, file: "x")
        #expect(a.imu.interrupt == .line(InterruptLocation(chip: .path("/dev/gpiochip2"), line: .offset(5))))
        let b = try Configuration.decode(#"{"imu": {"interrupt": "poll", "address": 105}}"#, file: "x")
        #expect(b.imu.interrupt == .poll)
        #expect(b.imu.address?.rawValue == 0x69)
    }

    @Test func aRotatedMountingIsAccepted() throws {
        let c = try Configuration.decode(#"{"mounting": {"x": "-y", "y": "+x"}}"#, file: "x")
        #expect(c.mounting.matrix == [[0, -1, 0], [1, 0, 0], [0, 0, 1]])
        #expect(c.mounting.determinant == 1)
    }

    @Test func disabledOutputsNeedNoFields() throws {
        let c = try Configuration.decode(#"{"outputs": {"level": {"enabled": false}, "leds": {"enabled": false}}}"#, file: "x")
        #expect(c.outputs.enabledNames == [])
    }

    @Test func dbusOutputDefaultsToTheSystemBus() throws {
        let a = try Configuration.decode(#"{"outputs": {"dbus": {}}}"#, file: "x")
        #expect(a.outputs.dbus == DBusOutput(bus: nil))
        #expect(a.outputs.enabledNames == ["dbus"])
        let b = try Configuration.decode(#"{"outputs": {"dbus": {"bus": "system"}}}"#, file: "x")
        #expect(b.outputs.dbus == DBusOutput(bus: nil))
        let c = try Configuration.decode(#"{"outputs": {"dbus": {"bus": "unix:path=/tmp/plumb bus,guid=0a"}}}"#, file: "x")
        #expect(c.outputs.dbus == DBusOutput(bus: "unix:path=/tmp/plumb bus,guid=0a"))
        let d = try Configuration.decode(#"{"outputs": {"dbus": {"enabled": false, "bus": "unix:path=/x"}}}"#, file: "x")
        #expect(d.outputs.dbus == nil)
    }

    @Test func parserHandlesEscapesAndUnicode() throws {
        let node = try JSONParser.parse(#"{"a": "\u00e9\ud83d\ude00\n", "b": [1.5e2, -0, true, null]}"#)
        guard case .object(let members) = node.value else { Issue.record("not an object"); return }
        #expect(members[0].value.value == .string("é😀\n"))
        #expect(members[1].value.value == .array([
            JSONNode(value: .number(150, text: "1.5e2"), position: JSONPosition(line: 1, column: 37)),
            JSONNode(value: .number(0, text: "-0"), position: JSONPosition(line: 1, column: 44)),
            JSONNode(value: .bool(true), position: JSONPosition(line: 1, column: 48)),
            JSONNode(value: .null, position: JSONPosition(line: 1, column: 54)),
        ]))
    }
}
