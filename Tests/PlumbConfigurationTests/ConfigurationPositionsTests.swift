import Foundation
import Testing
@testable import PlumbConfiguration

/// ``ConfigurationPositions``: where each value of a file was written, for the checks made after
/// it is decoded; and the board catalog's check across files, which named the file alone.
@Suite struct ConfigurationPositionsTests {
    static let text = """
        {
          "imu": {"part": "mpu6050",
                  "rate": 1500},
          "orientation": {"interfaceOrientations": ["portrait", "landscapeLeft"]}
        }
        """

    @Test func aValueKeyAndElementArePlacedWhereWritten() throws {
        let (c, positions) = try Configuration.decodeWithPositions(Self.text, file: "p.json")
        #expect(c == (try Configuration.decode(Self.text, file: "p.json")))
        #expect(positions.position(of: "imu.rate") == JSONPosition(line: 3, column: 19))
        #expect(positions.position(of: "imu.part") == JSONPosition(line: 2, column: 19))
        #expect(positions.position(of: "orientation.interfaceOrientations[1]") == JSONPosition(line: 4, column: 57))
        // A key left out: the object around it that the file writes; the document itself for a section left out.
        #expect(positions.position(of: "imu.gyroscopeRange") == JSONPosition(line: 2, column: 10))
        #expect(positions.position(of: "outputs.mqtt.url") == JSONPosition(line: 1, column: 1))
        #expect(positions.error("imu.rate", "too fast").description == "p.json:3:19: imu.rate: too fast")
    }

    /// Two board files with one id: at the second file's id, as its other errors are.
    @Test func aBoardIdUsedTwiceIsRefusedAtTheId() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-boards-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try #"{"id": "pi", "name": "A", "i2c": {"bus": "/dev/i2c-1"}}"#.write(toFile: directory + "/a.json", atomically: true, encoding: .utf8)
        try "{\n  \"name\": \"B\",\n  \"id\": \"pi\",\n  \"i2c\": {\"bus\": \"/dev/i2c-1\"}\n}".write(toFile: directory + "/b.json", atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError(file: directory + "/b.json", position: JSONPosition(line: 3, column: 9), keyPath: "id",
                                           message: "\"pi\" is already used by \(directory)/a.json")) {
            try BoardCatalog.load(directory: directory)
        }
    }
}
