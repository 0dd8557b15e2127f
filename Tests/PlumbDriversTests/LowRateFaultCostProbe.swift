import Foundation
import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// The measurements behind ``LowRateFaultCostTests`` and the low-rate floor of
/// ``MotionFaultDifferentialTests`` (skipped unless asked for).
///
/// - `PLUMB_FAULT_COST=all` (or a setup's text, "lsm6dso 12.5"): one fault kind at a time on the
///   low-energy configuration and, for comparison, the LSM6DS3's pattern FIFO at 12.5 Hz and
///   100 Hz, seeds 1–3; prints per run the longest
///   stretch of instants without a sample, the slots missing between emitted samples, the samples
///   emitted against a run without the fault, and the gaps. `PLUMB_FAULT_TRACE=KIND,SEED,FROM,TO`
///   traces that one run between the virtual times FROM and TO (ns), as ``MotionFaultDebug`` does.
/// - `PLUMB_FAULT_SHARE=N`: the low-energy setups of the differential test under seeds 1…N with
///   and without the extra faults; prints the share of samples kept (minimum, 5th percentile,
///   median, maximum).
///
/// Both record every integrity failure of the differential check as an issue.
@Suite struct LowRateFaultCostProbe {
    typealias Differential = MotionFaultDifferentialTests

    static let lowEnergy: [Differential.Setup] = [
        .init(chip: "mpu6050", rate: 12.5, watermark: 7, gyroscope: false, earlyWakes: true),
        .init(chip: "lsm6dso", rate: 12.5, watermark: 7, gyroscope: false, earlyWakes: true),
    ]

    @Test(.enabled(if: ProcessInfo.processInfo.environment["PLUMB_FAULT_COST"] != nil))
    func costPerFault() throws {
        let setups = Self.lowEnergy + [.init(chip: "lsm6ds3", rate: 12.5, watermark: 7, gyroscope: false, earlyWakes: true), .init(chip: "mpu6050", rate: 100, watermark: 8), .init(chip: "lsm6dso", rate: 104, watermark: 8)]
        let kinds: [(name: String, plan: String, zeroed: [(seconds: Double, reads: Int)])] = [
            ("none", "", []), ("reset", "reset@5.03s", []), ("low10ms", "low@5.03s+10ms", []), ("high10ms", "high@5.03s+10ms", []),
            ("zero1", "", [(5.03, 1)]), ("zero3", "", [(5.03, 3)]), ("stormfast", "storm@5.03s+100ms", []),
            ("stormslow", "storm@5.03s+1s/100Hz", []), ("silent", "silent@5.03s+300ms", []), ("lost3%", "lost=0.03", []),
            ("errors", "errors=0.003", []), ("stuck", "stuck@5.03s+100ms", []), ("nack", "nack@5.03s+50ms", []),
        ]
        let filter = ProcessInfo.processInfo.environment["PLUMB_FAULT_COST"] ?? "all"
        for setup in setups where filter == "all" || setup.testDescription.contains(filter) {
            for seed: UInt64 in 1...3 {
                var clean = 0
                for kind in kinds {
                    var faults = Differential.Faults(plan: kind.plan)
                    faults.zeroed = kind.zeroed
                    // PLUMB_FAULT_TRACE=KIND,SEED,FROM,TO (ns): that run only, traced as MotionFaultDebug traces.
                    let trace = ProcessInfo.processInfo.environment["PLUMB_FAULT_TRACE"]?.split(separator: ",").map(String.init)
                    var window: ClosedRange<UInt64>?
                    if let t = trace, t.count == 4 {
                        guard t[0] == kind.name, UInt64(t[1]) == seed, let from = UInt64(t[2]), let to = UInt64(t[3]), from <= to else { continue }
                        window = from...to
                    }
                    let r = try Differential.run(setup, seed: seed, faults: faults, traceWindow: window)
                    if window != nil { for run in r.check.runs { print("RUN missing \(run.missing) reported \(run.reported): \(run.gaps)") } }
                    for f in r.check.failures { Issue.record("\(r.label): \(f)") }
                    if kind.name == "none" { clean = r.check.emitted }
                    let stretch = LowRateFaultCostTests.longestStretch(r.samples, period: 1e9 / setup.rate * 0.99)
                    let gaps = r.gaps.map { "\($0.reason):\($0.lostSamples ?? -1)" }.joined(separator: " ")
                    print("COST \(setup.testDescription) seed \(seed) \(kind.name): stretch \(stretch) missing \(r.check.missing) emitted \(r.check.emitted) (\(clean - r.check.emitted) fewer) gaps [\(gaps)]")
                }
            }
        }
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["PLUMB_FAULT_SHARE"] != nil))
    func shareKept() throws {
        let n = UInt64(ProcessInfo.processInfo.environment["PLUMB_FAULT_SHARE"] ?? "") ?? 25
        for setup in Self.lowEnergy {
            var shares: [Double] = []
            var lowest = (share: 2.0, label: "")
            for seed in 1...max(1, n) {
                for extra in [false, true] {
                    let r = try Differential.run(setup, seed: seed, extra: extra)
                    for f in r.check.failures { Issue.record("\(r.label): \(f)") }
                    shares.append(Double(r.check.emitted) / (setup.rate * Differential.seconds))
                    if shares[shares.count - 1] < lowest.share { lowest = (shares[shares.count - 1], r.label) }
                }
            }
            shares.sort()
            func f(_ x: Double) -> String { String(format: "%.3f", x) }
            print("SHARE \(setup.testDescription): min \(f(shares[0])) p5 \(f(shares[shares.count / 20])) median \(f(shares[shares.count / 2])) max \(f(shares[shares.count - 1])); the lowest: \(lowest.label)")
        }
    }
}
