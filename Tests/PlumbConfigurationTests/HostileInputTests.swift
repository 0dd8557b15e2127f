import Foundation
import Testing
import PlumbHAL
@testable import PlumbConfiguration

/// Files that are wrong in ways a fixture list does not show: numbers past `Int`, directories
/// where files belong. Each gets a `ConfigurationError` naming the place, never a trap.
@Suite struct HostileInputTests {
    @Test func anAddressPastIntIsAnError() {
        // Int(1e300) traps; the address is refused like 0x80.
        #expect(throws: ConfigurationError(file: "p.json", position: JSONPosition(line: 1, column: 21), keyPath: "imu.address",
                                           message: "1e300 is not a 7-bit I2C address; allowed 0x08...0x77, written as \"0x68\" or 104")) {
            try Configuration.decode(#"{"imu": {"address": 1e300}}"#, file: "p.json")
        }
        #expect(throws: ConfigurationError.self) {
            try Board.decode(#"{"id": "x", "name": "X", "i2c": {"bus": "/dev/i2c-1"}, "imu": {"address": -1e300}}"#, file: "b.json")
        }
        #expect((try? Configuration.decode(#"{"imu": {"address": 104}}"#, file: "p.json"))?.imu.address == I2CAddress(0x68))
    }

    @Test func aFractionalKeepAliveIsRefused() {
        #expect(throws: ConfigurationError(file: "m.json", position: JSONPosition(line: 1, column: 15), keyPath: "keepAlive",
                                           message: "must be a whole number of seconds")) {
            try MQTTOutput.decode(#"{"keepAlive": 5.5}"#, file: "m.json")
        }
    }

    @Test func aDirectoryIsNamedAsOne() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-hostile-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: directory + "/sub.json", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: ConfigurationError(file: directory, position: nil, keyPath: "", message: "cannot read the file (it is a directory, not a file)")) {
            try Configuration.load(path: directory)
        }
        #expect(throws: ConfigurationError(file: directory + "/sub.json", position: nil, keyPath: "",
                                           message: "cannot read the file (it is a directory, not a file)")) {
            try BoardCatalog.load(directory: directory)
        }
        #expect(FileManager.default.createFile(atPath: directory + "/file", contents: Data()))
        #expect(throws: ConfigurationError(file: directory + "/file", position: nil, keyPath: "", message: "is a file, not a boards directory")) {
            try BoardCatalog.load(directory: directory + "/file")
        }
    }

    @Test func bytesThatAreNotUTF8AreFoundByLineAndColumn() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-latin1-\(UInt32.random(in: 0...UInt32.max)).json").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(Array("{\n  \"board\": \"caf".utf8) + [0xE9] + Array("\"\n}\n".utf8))))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ConfigurationError(file: path, position: JSONPosition(line: 2, column: 16), keyPath: "",
                                           message: "is not UTF-8 text (byte 0xE9 here); save the file as UTF-8")) {
            try Configuration.load(path: path)
        }
    }
}
