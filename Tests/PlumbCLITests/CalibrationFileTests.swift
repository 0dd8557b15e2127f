import Foundation
import Testing
@testable import PlumbCLI
import PlumbConfiguration
import PlumbDrivers

/// How a calibration file is read (``Calibration/read(_:file:)``, through PlumbConfiguration's
/// ``CalibrationFile``): every refusal names the file, the line and column, and the key, in the
/// words plumb.json's errors use. Foundation's decoder said "not valid JSON" with no position,
/// passed its own wording through ("temperature: expected double", "Expected vector with exactly
/// 3 elements.") and reported a misspelt key as the right one missing.
@Suite struct CalibrationFileTests {
    /// The error `read` gives for `json`, or nil when it is accepted.
    static func message(_ json: String) -> String? {
        do { _ = try Calibration.read(Data(json.utf8), file: "c.json"); return nil } catch { return error.description }
    }

    /// A calibration as `plumb calibrate` writes it, with `replacing` swapped in for its text.
    static func file(replacing old: String = "", with new: String = "") -> String {
        let text = """
        {
          "accelerometerOffset" : [0.0023, 0.004, -0.0839],
          "accelerometerScale" : [1.0038, 1.0027, 1.002],
          "gyroscopeBias" : [-0.0008, -0.031, -0.0066],
          "mounting" : {"rows" : [[1, 0, 0], [0, 1, 0], [0, 0, 1]]},
          "part" : "mpu6050",
          "temperature" : 27.5
        }
        """
        return old.isEmpty ? text : text.replacingOccurrences(of: old, with: new)
    }

    @Test func aGoodFileIsRead() throws {
        let c = try Calibration.read(Data(Self.file().utf8), file: "c.json")
        #expect(c == Calibration(gyroscopeBias: SIMD3(-0.0008, -0.031, -0.0066), accelerometerOffset: SIMD3(0.0023, 0.004, -0.0839),
                                 accelerometerScale: SIMD3(1.0038, 1.0027, 1.002), part: "mpu6050", temperature: 27.5))
        // What plumb calibrate writes reads back as it was.
        let written = Calibration(gyroscopeBias: SIMD3(0.01, -0.02, 0.03), mounting: try PlumbDrivers.Mounting(alignment: "y,-x,z"), part: "lsm6dso")
        #expect(try Calibration.read(try written.jsonData(), file: "w.json") == written)
    }

    /// A syntax error has its line and column, as `plumb config check` gives them.
    @Test func syntaxErrorsHaveTheirPosition() {
        #expect(Self.message(Self.file(replacing: "1.002],", with: "1.002]"))
                == "c.json:4:3: syntax error: expected ',' or '}' after the value of \"accelerometerScale\", found '\"'")
        #expect(Self.message(#"{"accelerometerScale": [1.0038"#) == "c.json:1:31: syntax error: expected ',' or ']', found end of file")
        #expect(Self.message("") == "c.json:1:1: syntax error: the file is empty; expected a JSON object")
        #expect(Self.message(Self.file(replacing: "-0.0008", with: "NaN")) == "c.json:4:22: syntax error: expected a value, found 'N'")
        #expect(Self.message("[1, 2, 3]") == "c.json:1:1: expected an object, found an array")
        #expect(Self.message(#"{"imu": {"rate": 100}}"#)
                == "c.json:1:1: is not a Plumb calibration: it holds none of \(CalibrationFile.keys.joined(separator: ", "))")
    }

    /// A wrong type says what was expected in plain words, at the value.
    @Test func typeErrorsSayWhatWasExpected() {
        #expect(Self.message(Self.file(replacing: "27.5", with: "\"warm\"")) == "c.json:7:19: temperature: expected a number (°C), found a string")
        #expect(Self.message(Self.file(replacing: "[-0.0008, -0.031, -0.0066]", with: "[0, 0]"))
                == "c.json:4:21: gyroscopeBias: expected 3 numbers (rad/s), found 2")
        #expect(Self.message(Self.file(replacing: "[-0.0008, -0.031, -0.0066]", with: "\"zero\""))
                == "c.json:4:21: gyroscopeBias: expected 3 numbers (rad/s), found a string")
        #expect(Self.message(Self.file(replacing: "[1.0038, 1.0027, 1.002]", with: "[1, \"1\", 1]"))
                == "c.json:3:30: accelerometerScale[1]: expected a number, found a string")
        #expect(Self.message(Self.file(replacing: "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]", with: "[[1, 0], [0, 1]]"))
                == "c.json:5:26: mounting.rows: expected 3 rows of 3 numbers, found 2 rows")
    }

    /// A misspelt key is named with the nearest known one, not reported as the right key missing.
    @Test func aMisspeltKeyGetsDidYouMean() {
        #expect(Self.message(Self.file(replacing: "\"gyroscopeBias\"", with: "\"gyroscopBias\""))
                == "c.json:4:3: gyroscopBias: unknown key; allowed keys: \(CalibrationFile.keys.joined(separator: ", ")). Did you mean 'gyroscopeBias'?")
        // Too far from any key for an edit-distance hint, but the one key missing.
        #expect(Self.message(Self.file(replacing: "\"gyroscopeBias\"", with: "\"gyroBias\""))
                == "c.json:4:3: gyroBias: unknown key; allowed keys: \(CalibrationFile.keys.joined(separator: ", ")). Did you mean 'gyroscopeBias', which is missing?")
        // A misspelt optional key is refused too: "prat" would have skipped the part check.
        #expect(Self.message(Self.file(replacing: "\"part\"", with: "\"prat\""))
                == "c.json:6:3: prat: unknown key; allowed keys: \(CalibrationFile.keys.joined(separator: ", ")). Did you mean 'part'?")
        #expect(Self.message(Self.file(replacing: "  \"gyroscopeBias\" : [-0.0008, -0.031, -0.0066],\n", with: ""))
                == "c.json:1:1: gyroscopeBias: missing; a calibration holds gyroscopeBias, accelerometerOffset, accelerometerScale and mounting, as 'plumb calibrate' writes them")
    }

    /// Values no sensor needs and a mounting that is no rotation are refused at their key's value.
    @Test func implausibleValuesAreRefusedAtTheirPosition() {
        #expect(Self.message(Self.file(replacing: "[1.0038, 1.0027, 1.002]", with: "[0, 1, 1]"))
                == "c.json:3:26: accelerometerScale: [0.0, 1.0, 1.0] is out of range; allowed 0.5...2.0")
        #expect(Self.message(Self.file(replacing: "[0, 0, 1]]", with: "[0, 1, 0]]"))?
                    .hasPrefix("c.json:5:26: mounting.rows: the mounting matrix [[1,0,0],[0,1,0],[0,1,0]] is not a rotation: rows 2 and 3 point along the same axis") == true)
    }

    /// `plumb read --calibration` says where in the file the mistake is (it said "not valid JSON"
    /// for a missing comma, and "gyroscopeBias is missing" for a misspelt key).
    @Test func readNamesTheLineAndTheNearestKey() throws {
        let path = NSTemporaryDirectory() + "plumb-calibration-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(Self.file(replacing: "1.002],", with: "1.002]").utf8).write(to: URL(fileURLWithPath: path))
        var r = runPlumb(["read", "--simulate", "--count", "1", "--calibration", path])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: \(path):4:3: syntax error: expected ',' or '}' after the value of \"accelerometerScale\", found '\"'\n"))
        try Data(Self.file(replacing: "\"gyroscopeBias\"", with: "\"gyroscopBias\"").utf8).write(to: URL(fileURLWithPath: path))
        r = runPlumb(["read", "--simulate", "--count", "1", "--calibration", path])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: \(path):4:3: gyroscopBias: unknown key; allowed keys: "))
        #expect(r.err.contains("Did you mean 'gyroscopeBias'?\n"))
    }
}
