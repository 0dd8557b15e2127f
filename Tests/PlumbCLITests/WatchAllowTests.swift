import Foundation
import Testing
@testable import PlumbCLI

/// `plumb watch --allow LIST`: `orientation.interfaceOrientations` on the command line, parsed,
/// checked and told as `plumb kiosk --allow` is.
@Suite struct WatchAllowTests {
    /// The interface orientations printed, one per JSON line.
    func interfaces(_ out: String) throws -> [String] {
        try out.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try #require(object["interfaceOrientation"] as? String)
        }
    }

    /// The simulated tour turns the board through every face; only the landscape interfaces are
    /// printed, from the first line (flat: the first the list names) on, never portrait.
    @Test func aLandscapeOnlyListNeverPrintsPortrait() throws {
        let all = runPlumb(["watch", "--simulate", "--profile", "tour", "--format", "jsonl"])
        #expect(all.status == 0 && all.err == "", "\(all.err)")
        #expect(try interfaces(all.out).contains("portrait"))

        let landscape = runPlumb(["watch", "--simulate", "--profile", "tour", "--format", "jsonl", "--allow", "landscapeLeft,landscapeRight"])
        #expect(landscape.status == 0 && landscape.err == "", "\(landscape.err)")
        let shown = try interfaces(landscape.out)
        #expect(!shown.contains("portrait"), "\(shown)")
        #expect(shown.first == "landscapeLeft", "\(shown)")
        #expect(Set(shown) == ["landscapeLeft", "landscapeRight"], "\(shown)")
        // Every device change is still printed: only the interface keeps to the list.
        #expect(shown.count == (try interfaces(all.out)).count)

        // Before an allowed face, the first the list names.
        let reversed = runPlumb(["watch", "--simulate", "--profile", "tour", "--format", "jsonl", "--allow", " landscapeRight , landscapeLeft"])
        #expect(reversed.status == 0, "\(reversed.err)")
        #expect(try interfaces(reversed.out).first == "landscapeRight")
    }

    /// A recording, with the notifier and with the seed's rule: the same list applies.
    @Test func aRecordingKeepsToTheListWithEitherRule() throws {
        // Portrait for 15 s, on its long edge (+x up: landscapeLeft, interface landscapeRight) for
        // 15 s, portrait again for 15 s; 100 Hz, no rotation measured, so the filter takes a few
        // seconds to follow each jump.
        var text = "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        for k in 0..<4500 {
            let up = (1500..<3000).contains(k) ? "9.80665,0" : "0,9.80665"
            text += String(format: "%.2f,0,0,0,%@,0\n", Double(k) / 100, up)
        }
        let path = NSTemporaryDirectory() + "plumb-watch-allow-\(UUID().uuidString).csv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        // The notifier tells the first face (portrait: the first listed until an allowed one),
        // the seed's rule only changes from its portrait start; back in portrait, both keep the
        // latest allowed interface.
        for (rule, expected) in [("plumb", ["landscapeLeft", "landscapeRight", "landscapeRight"]), ("seed", ["landscapeRight", "landscapeRight"])] {
            let r = runPlumb(["watch", "--replay", path, "--rule", rule, "--format", "jsonl", "--allow", "landscapeLeft,landscapeRight"])
            #expect(r.status == 0, "\(rule): \(r.err)")
            #expect(try interfaces(r.out) == expected, "\(rule): \(r.out)")
        }
    }

    /// A bad list is a usage error (exit 64) with kiosk's words, before anything runs.
    @Test(arguments: [("sideways", "The value 'sideways' is invalid for '--allow': expected portrait, portraitUpsideDown, landscapeLeft or landscapeRight."),
                      ("portrait,Landscape", "The value 'Landscape' is invalid for '--allow': expected portrait, portraitUpsideDown, landscapeLeft or landscapeRight."),
                      (",", "The value ',' is invalid for '--allow': name at least one of portrait, portraitUpsideDown, landscapeLeft, landscapeRight.")])
    func aBadListIsTheSameUsageErrorAsKiosks(list: String, message: String) {
        let watch = runPlumb(["watch", "--simulate", "--allow", list])
        let kiosk = runPlumb(["kiosk", "--simulate", "--allow", list])
        #expect(watch.status == 64 && kiosk.status == 64)
        #expect(watch.out == "")
        #expect(watch.err.hasPrefix("Error: \(message)\nUsage: plumb watch "), "\(watch.err)")
        #expect(kiosk.err.hasPrefix("Error: \(message)\nUsage: plumb kiosk "), "\(kiosk.err)")
        // On the board's IMU too: refused before the configuration or the sensor is looked for.
        let live = runPlumb(["watch", "--config", "/nonexistent/plumb.json", "--allow", list])
        #expect(live.status == 64)
        #expect(live.err.hasPrefix("Error: \(message)\n"), "\(live.err)")
    }

    @Test func helpNamesTheOption() {
        let help = runPlumb(["watch", "--help"])
        #expect(help.status == 0)
        #expect(help.out.contains("  --allow <LIST>          Interface orientations to print, comma-separated (default: orientation.interfaceOrientations on the board's IMU, else all four).\n"),
                "\(help.out)")
        #expect(help.out.contains("--allow LIST prints only these interface orientations"))
    }
}
