import Testing
@testable import PlumbConfiguration

/// `orientation.maxWait`, `orientation.dwellMargin` and `orientation.dwellMaxRotationRate`: the
/// classifier's time cap in plumb.json, with `plumb watch --max-wait`'s ranges and its rule that a
/// margin or gate without a cap is an error, not ignored.
@Suite struct TimeCapConfigurationTests {
    static func decode(_ orientation: String) throws(ConfigurationError) -> OrientationSettings {
        try Configuration.decode(#"{"orientation": {\#(orientation)}}"#, file: "plumb.json").orientation
    }

    static func message(_ orientation: String) -> String? {
        do throws(ConfigurationError) { _ = try decode(orientation); return nil } catch { return error.description }
    }

    @Test func absentKeysLeaveThePresets() throws {
        let o = try Self.decode(#""preset": "steady""#)
        #expect(o.maxWait == nil && o.dwellMargin == nil && o.dwellMaxRotationRate == nil)
    }

    @Test func theKeysAreRead() throws {
        let o = try Self.decode(#""maxWait": 0.8, "dwellMargin": 10, "dwellMaxRotationRate": 70"#)
        #expect(o.maxWait == 0.8 && o.dwellMargin == 10 && o.dwellMaxRotationRate == 70)
        // The range ends, and 0 for "off" and "no gate".
        let ends = try Self.decode(#""maxWait": 60, "dwellMargin": 44, "dwellMaxRotationRate": 0"#)
        #expect(ends.maxWait == 60 && ends.dwellMargin == 44 && ends.dwellMaxRotationRate == 0)
        #expect(try Self.decode(#""maxWait": 0"#).maxWait == 0)
    }

    /// The steady preset has a cap (its low-energy mode's), so a margin or gate alone tunes it.
    @Test func theSteadyPresetsCapTakesAMarginAndAGate() throws {
        let o = try Self.decode(#""preset": "steady", "dwellMargin": 8, "dwellMaxRotationRate": 100"#)
        #expect(o.dwellMargin == 8 && o.dwellMaxRotationRate == 100)
        #expect(OrientationSettings.Preset.steady.hasTimeCap)
        #expect(!OrientationSettings.Preset.responsive.hasTimeCap)
    }

    @Test(arguments: [
        (#""maxWait": 61"#, "plumb.json:1:29: orientation.maxWait: 61 is out of range; allowed 0...60 (s)"),
        (#""maxWait": -0.5"#, "plumb.json:1:29: orientation.maxWait: -0.5 is out of range; allowed 0...60 (s)"),
        (#""maxWait": 1e400"#, "plumb.json:1:34: syntax error: the number 1e400 is out of range"),
        (#""maxWait": "0.6""#, "plumb.json:1:29: orientation.maxWait: expected a number (s), found a string"),
        (#""maxWait": 1, "dwellMargin": 45"#, "plumb.json:1:47: orientation.dwellMargin: 45 is out of range; allowed 0...44 (degrees)"),
        (#""maxWait": 1, "dwellMaxRotationRate": 20000"#,
         "plumb.json:1:56: orientation.dwellMaxRotationRate: 20000 is out of range; allowed 0...10000 (degrees per second)"),
    ])
    func outOfRangeValuesNameTheFileKeyAndRange(orientation: String, expected: String) {
        #expect(Self.message(orientation) == expected)
    }

    /// A margin or gate with no cap in either energy mode would do nothing: the error names the
    /// key and the fix.
    @Test(arguments: [
        (#""dwellMargin": 12"#,
         "plumb.json:1:33: orientation.dwellMargin: acts only with a time cap, and the responsive preset has none; add \"maxWait\": SECONDS (or use \"preset\": \"steady\", whose low-energy mode waits at most 0.6 s)"),
        (#""dwellMaxRotationRate": 80"#,
         "plumb.json:1:42: orientation.dwellMaxRotationRate: acts only with a time cap, and the responsive preset has none; add \"maxWait\": SECONDS (or use \"preset\": \"steady\", whose low-energy mode waits at most 0.6 s)"),
        (#""preset": "steady", "maxWait": 0, "dwellMargin": 12"#,
         "plumb.json:1:67: orientation.dwellMargin: acts only with a time cap, and \"maxWait\": 0 turns it off; set maxWait to the seconds to wait, or remove dwellMargin"),
    ])
    func aMarginOrGateWithoutACapIsAnError(orientation: String, expected: String) {
        #expect(Self.message(orientation) == expected)
    }

    @Test func theKeysAreListedForAMisspeltOne() {
        #expect(Self.message(#""maxWiat": 1"#) == "plumb.json:1:18: orientation.maxWiat: unknown key; allowed keys: preset, settleTime, hysteresis, maxRotationRate, maxWait, dwellMargin, dwellMaxRotationRate, lowEnergy, interfaceOrientations. Did you mean 'maxWait'?")
    }

    /// The key reference names each key, and the example leaves them out (they would override the
    /// preset in both modes).
    @Test func theKeyReferenceNamesThem() throws {
        for key in ["orientation.maxWait", "orientation.dwellMargin", "orientation.dwellMaxRotationRate"] {
            #expect(Configuration.keyReference.contains("\n" + key + " "), "\(key)")
        }
        let example = try Configuration.decode(Configuration.exampleText, file: "example")
        #expect(example.orientation.maxWait == nil)
        // Every key an orientation object may hold is in the reference.
        for key in OrientationSettings.keys {
            #expect(Configuration.keyReference.contains("orientation." + key), "\(key)")
        }
    }
}
