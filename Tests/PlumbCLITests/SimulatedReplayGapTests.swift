import Foundation
import Testing
@testable import PlumbCLI

/// `--simulate --replay FILE` with a gap over a minute between rows: refused at once with the
/// file, line, gap and fix, by each command that plays a recording through the emulated chip
/// (they share ``SimulatedIMU/recordedProfile(_:)``). The old code played the gap sample by
/// sample (the audit's 10⁴ s gap: 20 s of CPU, nothing printed) and exited 0.
@Suite struct SimulatedReplayGapTests {
    @Test(arguments: [["watch", "--simulate"], ["read", "--simulate", "--count", "1"]])
    func aRecordingWithAGapOverAMinuteIsRefusedAtLoad(command: [String]) throws {
        // 100 Hz face up for 1 s, then rows again 100 s later.
        var csv = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        for k in 0...100 { csv += "\(Double(k) / 100),0,0,0,0,0,9.80665\n" }
        csv += "101,0,0,0,0,0,9.80665\n102,0,0,0,0,0,9.80665\n"
        let path = NSTemporaryDirectory() + "plumb-gap-\(UUID().uuidString).csv"
        try csv.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }

        let r = runPlumb(command + ["--replay", path])
        #expect(r.status == 1)
        #expect(r.out == "")
        #expect(r.err == """
            Error: \(path):103: t_s jumps by 100.0 s, from 1.0 on line 102 to 101.0; the emulated chip would sample every second of the gap (a replay through it takes gaps of up to 60 s).
            Fix: Split the recording at line 103 and play each part, or play it as recorded, gap and all, with 'plumb watch --replay FILE' (no --simulate), which passes over the gap at once.

            """)
        // Without --simulate the recording plays as recorded, gap and all.
        if command[0] == "watch" { #expect(runPlumb(["watch", "--replay", path]).status == 0) }
    }
}
