import Testing
@testable import PlumbCLI

/// `plumb run --wait-for-sensor` beside --simulate or --replay: it waits for the board's IMU,
/// which they replace, and was ignored without a word; it is refused (exit 64) as the options
/// naming the IMU are beside them. (The configuration is missing: before, the run failed with
/// exit 1 reading it.)
@Suite struct RunWaitForSensorOptionTests {
    @Test(arguments: [(["--simulate"], "simulate"), (["--replay", "/nonexistent/motion.csv"], "replay")])
    func waitForSensorWithoutTheIMUIsAUsageError(options: [String], given: String) {
        let r = runPlumb(["run", "--config", "/nonexistent/plumb.json", "--log-format", "plain", "--wait-for-sensor"] + options)
        #expect(r.status == 64, "\(r.err)")
        #expect(r.err.hasPrefix("Error: '--wait-for-sensor' waits for the board's IMU; it cannot be combined with '--\(given)'.\nUsage: plumb run "), "\(r.err)")
    }
}
