import Foundation
import PlumbConfiguration
import PlumbOrientation
import Testing
@testable import PlumbCLI

private let boards = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../boards").standardized.path

/// plumb.json's time cap (`orientation.maxWait`, `dwellMargin`, `dwellMaxRotationRate`) reaches
/// both energy modes' tunings as `plumb watch --max-wait` does, and `plumb config check` shows it.
@Suite struct TimeCapConfigurationCommandTests {
    static func check(_ json: String) throws -> (status: Int32, out: String, err: String) {
        let path = NSTemporaryDirectory() + "plumb-time-cap-\(UUID().uuidString).json"
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = runPlumb(["config", "check", "--boards-dir", boards, path])
        return (r.status, r.out.replacingOccurrences(of: path, with: "plumb.json"), r.err.replacingOccurrences(of: path, with: "plumb.json"))
    }

    /// The configuration's rule for a margin without a cap rests on which presets have one.
    @Test(arguments: OrientationSettings.Preset.allCases)
    func aPresetHasATimeCapExactlyWhenItsTuningsDo(preset: OrientationSettings.Preset) {
        let tunings = ClassifierTunings(preset: preset)
        #expect(preset.hasTimeCap == (tunings.normal.maximumWait != nil || tunings.lowEnergy.maximumWait != nil))
    }

    @Test func theKeysApplyInBothEnergyModes() {
        var o = OrientationSettings()
        o.maxWait = 0.8
        o.dwellMargin = 10
        o.dwellMaxRotationRate = 70
        let t = DaemonFactory.classifiers(o)
        for c in [t.normal, t.lowEnergy] {
            #expect(c.maximumWait == 0.8 && c.dwellMarginDegrees == 10 && c.dwellMaximumRotationRate == 70)
        }
        // The rest stays the preset's.
        #expect(t.normal.hysteresisDegrees == 4 && t.lowEnergy.hysteresisDegrees == 8)
        // 0 turns the dwell's gate off.
        o.dwellMaxRotationRate = 0
        #expect(DaemonFactory.classifiers(o).lowEnergy.dwellMaximumRotationRate == .infinity)
    }

    @Test func zeroTurnsTheSteadyPresetsCapOff() {
        var o = OrientationSettings()
        o.preset = .steady
        o.maxWait = 0
        let t = DaemonFactory.classifiers(o)
        #expect(t.normal.maximumWait == nil && t.lowEnergy.maximumWait == nil)
        #expect(t.lowEnergy.hysteresisDegrees == OrientationClassifier.Settings.steadyAccelerometerOnly.hysteresisDegrees)
    }

    /// With the steady preset a margin alone tunes its low-energy cap, and the normal mode (no cap)
    /// shows none.
    @Test func configCheckShowsTheCapInEachMode() throws {
        let r = try Self.check(#"{"orientation": {"preset": "steady", "dwellMargin": 8}}"#)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("\n  orientation: steady: hysteresis 18°, settle 0.03 s, rate gate 50 °/s over 0.15 s; in low-energy mode hysteresis 15°, settle 0.1 s, rate gate 60 °/s over 0.1 s, maximum wait 0.6 s (8° inside the boundary, 80 °/s); low energy auto, interface portrait, portraitUpsideDown, landscapeLeft, landscapeRight\n"), "\(r.out)")
        let both = try Self.check(#"{"orientation": {"maxWait": 0.75, "dwellMaxRotationRate": 0}}"#)
        #expect(both.status == 0, "\(both.err)")
        #expect(both.out.contains("\n  orientation: responsive: hysteresis 4°, settle 0.05 s, rate gate 60 °/s over 0.25 s, maximum wait 0.75 s (0° inside the boundary, no rate gate); in low-energy mode hysteresis 8°, settle 0.1 s, rate gate 90 °/s over 0.05 s, maximum wait 0.75 s (0° inside the boundary, no rate gate); low energy auto, interface portrait, portraitUpsideDown, landscapeLeft, landscapeRight\n"), "\(both.out)")
    }

    @Test func configCheckRefusesAMarginWithoutACap() throws {
        let r = try Self.check(#"{"orientation": {"dwellMargin": 12}}"#)
        #expect(r.status == 1)
        #expect(r.out == "")
        #expect(r.err == """
            Error: plumb.json:1:33: orientation.dwellMargin: acts only with a time cap, and the responsive preset has none; add "maxWait": SECONDS (or use "preset": "steady", whose low-energy mode waits at most 0.6 s)
            Fix: Run 'plumb config example --keys' for every key and its allowed values.

            """)
    }
}
