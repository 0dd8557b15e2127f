import Foundation
import Testing
@testable import PlumbCLI

/// `plumb watch`'s options of the classifier's time cap (`--max-wait`, `--dwell-margin`,
/// `--dwell-max-rate`): ranges, 0 meaning off, and no option that silently does nothing.
@Suite struct WatchDwellOptionsTests {
    static let simulate = ["watch", "--simulate", "--profile", "rest", "--duration", "1", "--format", "jsonl"]

    /// The margin and the dwell's gate act only with a time cap: without one (the responsive
    /// preset has none; `--max-wait 0` turns the steady one off) they are an error naming the
    /// option and the fix, not ignored.
    @Test(arguments: [["--dwell-margin", "12"], ["--dwell-max-rate", "80"], ["--max-wait", "0", "--steady", "--dwell-margin", "12"]])
    func withoutATimeCapTheDwellOptionsAreAnError(options: [String]) {
        let r = runPlumb(Self.simulate + options)
        #expect(r.status == 64, "\(r.out)\(r.err)")
        let first = r.err.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.contains("'--\(options.contains("--dwell-margin") ? "dwell-margin" : "dwell-max-rate")'"), "\(r.err)")
        #expect(first.contains("--max-wait"), "\(r.err)")
        #expect(r.out.isEmpty)
    }

    /// With a cap, given or the steady preset's low-energy one, they are taken.
    @Test(arguments: [["--max-wait", "0.6", "--dwell-margin", "12", "--dwell-max-rate", "80"], ["--steady", "--dwell-margin", "10"],
                      ["--max-wait", "0.6"], ["--max-wait", "0"], ["--steady", "--max-wait", "0"], ["--max-wait", "60", "--dwell-max-rate", "0"]])
    func withATimeCapTheyAreTaken(options: [String]) {
        let r = runPlumb(Self.simulate + options)
        #expect(r.status == 0, "\(r.err)")
    }

    @Test(arguments: [("--max-wait", "61", "0.0...60.0"), ("--dwell-margin", "45", "0.0...44.0"), ("--dwell-max-rate", "2e6", "0.0...1000000.0"),
                      ("--max-wait", "nan", "expected a number")])
    func outOfRangeValuesNameTheOptionAndTheRange(option: String, value: String, expected: String) {
        let r = runPlumb(Self.simulate + (option == "--max-wait" ? [] : ["--max-wait", "0.6"]) + [option, value])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: The value '\(value)' is invalid for '\(option)': "), "\(r.err)")
        #expect(r.err.contains(expected), "\(r.err)")
    }
}
