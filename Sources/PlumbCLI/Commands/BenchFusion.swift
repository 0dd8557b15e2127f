import CFusionReference
import Foundation
import PlumbFusion

/// `plumb bench fusion`: nanoseconds per sample of each fusion filter on one recorded trial,
/// beside a C implementation of the same Madgwick equations (CFusionReference, -O2) and, for
/// context, VQF's C++ `updateBatch` (PyPI `vqf`, timed by the Python in .venv/).
///
/// Every estimator runs over the whole trial; rounds alternate between them and the best round of
/// each counts, timed in thread CPU time (CLOCK_THREAD_CPUTIME_ID; Python's `time.thread_time`),
/// which is the figure least disturbed by other work on the machine. Each Swift sample is a
/// full `update` (input checks, filter, state with gravity) plus storing gravity to an array, as
/// the C loop stores its gravity.
enum BenchFusion {
    static let spec = CommandSpec(
        name: "fusion",
        abstract: "Nanoseconds per sample of each fusion filter beside a C Madgwick and VQF's C++.",
        discussion: "Use a release build: swift build -c release && .build/release/plumb bench fusion --input FILE.",
        options: [
            .option("input", short: "i", value: "FILE", help: "An IMU CSV file (plumb fuse's input format; default: the BROAD excerpt in Tests/PlumbFusionTests/Fixtures)."),
            .option("rounds", value: "N", help: "Rounds per estimator, alternating (default 15)."),
            .option("python", value: "PATH", help: "Python with the vqf package, for the VQF row (default .venv/bin/python)."),
        ])

    static let command = Command(spec) { args, context in
        let path = args.string("input") ?? "Tests/PlumbFusionTests/Fixtures/broad-08-first-60s.csv"
        let rounds = try args.int("rounds", in: 1...1000) ?? 15
        let python = args.string("python") ?? ".venv/bin/python"
        let trial = try Trial(path: path)
        #if DEBUG
        context.err.line("Warning: this is a debug build; measure with `swift build -c release`.")
        #endif
        let n = trial.t.count
        let duration = (trial.t.last ?? 0) - (trial.t.first ?? 0)
        context.out.line("plumb bench fusion: \(n) samples from \(path) (\(fixed(duration, 1)) s at \(fixed(Double(n - 1) / max(duration, 1e-9), 1)) Hz), one thread, best of \(rounds) alternating rounds, thread CPU time")

        var best = [Double](repeating: .infinity, count: 4)
        var gravity = [Double](repeating: 0, count: 3 * n)
        var sink = 0.0
        for _ in 0..<rounds {
            best[0] = min(best[0], time { trial.runC(beta: MadgwickFilter.Settings.default.beta, into: &gravity) })
            sink += gravity[3 * n - 1]
            var madgwick = MadgwickFilter()
            best[1] = min(best[1], time { trial.run(&madgwick, into: &gravity) })
            sink += gravity[3 * n - 1]
            var complementary = ComplementaryFilter()
            best[2] = min(best[2], time { trial.run(&complementary, into: &gravity) })
            sink += gravity[3 * n - 1]
            var plumb = PlumbFilter()
            best[3] = min(best[3], time { trial.run(&plumb, into: &gravity) })
            sink += gravity[3 * n - 1]
        }
        let perSample = best.map { $0 * 1e9 / Double(n) }
        let reference = perSample[0]
        var rows: [(String, Double?, String)] = [
            ("C Madgwick, same equations (CFusionReference, -O2)", perSample[0], ""),
            ("MadgwickFilter (Swift)", perSample[1], ""),
            ("ComplementaryFilter (Swift)", perSample[2], ""),
            ("PlumbFilter (Swift, default)", perSample[3], ""),
        ]
        for (name, value, note) in vqf(python: python, path: path, rounds: rounds) { rows.append((name, value, note)) }
        let width = rows.map(\.0.count).max() ?? 0
        context.out.line(pad("estimator", width) + padLeft("ns/sample", 11) + padLeft("× C Madgwick", 14))
        for (name, value, note) in rows {
            if let value {
                context.out.line(pad(name, width) + padLeft(fixed(value, 1), 11) + padLeft(fixed(value / reference, 2), 14))
            } else {
                context.out.line(pad(name, width) + "  " + note)
            }
        }
        if !sink.isFinite { context.err.line("Warning: a filter produced a non-finite gravity.") }
    }

    /// One trial in memory.
    struct Trial {
        var t: [Double] = []
        var gyroscope: [Vector3] = []
        var accelerometer: [Vector3] = []
        var flatGyroscope: [Double] = []
        var flatAccelerometer: [Double] = []

        init(path: String) throws(CLIError) {
            var reader = try IMUCSVReader(path: path)
            while let sample = try reader.next() {
                guard sample.gyroscope.isFinite, sample.accelerometer.isFinite, sample.timestamp.isFinite else { continue }
                t.append(sample.timestamp)
                gyroscope.append(sample.gyroscope)
                accelerometer.append(sample.accelerometer)
                flatGyroscope += [sample.gyroscope.x, sample.gyroscope.y, sample.gyroscope.z]
                flatAccelerometer += [sample.accelerometer.x, sample.accelerometer.y, sample.accelerometer.z]
            }
            guard t.count >= 2 else {
                throw .failure("\(path): fewer than 2 usable samples.", fix: "Give a recording with at least a few seconds of data.")
            }
        }

        func run<F: AttitudeFilter>(_ filter: inout F, into gravity: inout [Double]) {
            gravity.withUnsafeMutableBufferPointer { out in
                for i in t.indices {
                    let g = filter.update(gyroscope: gyroscope[i], accelerometer: accelerometer[i], timestamp: t[i]).gravity
                    out[3 * i] = g.x; out[3 * i + 1] = g.y; out[3 * i + 2] = g.z
                }
            }
        }

        func runC(beta: Double, into gravity: inout [Double]) {
            var q = (0.0, 0.0, 0.0, 0.0)
            withUnsafeMutablePointer(to: &q) { qp in
                qp.withMemoryRebound(to: Double.self, capacity: 4) { quaternion in
                    cfr_madgwick_run(t, flatGyroscope, flatAccelerometer, t.count, beta, &gravity, quaternion)
                }
            }
        }
    }

    /// The thread CPU time `body` takes, s: unlike wall time, it does not count the time the
    /// thread waits while other processes run (the build machine is shared).
    static func time(_ body: () -> Void) -> Double {
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        body()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) * 1e-9
    }

    /// VQF's C++ batch, timed inside Python (the loop runs in C++, so Python adds one call per
    /// round, not per sample).
    static func vqf(python: String, path: String, rounds: Int) -> [(String, Double?, String)] {
        let names = ["VQF 6D, C++ updateBatch (PyPI vqf)", "BasicVQF 6D, C++ updateBatch (PyPI vqf)"]
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return names.map { ($0, nil, "not measured: no \(python) (scripts/eval-fusion creates .venv with vqf)") }
        }
        let script = """
        import sys, time, numpy as np
        from vqf import VQF, BasicVQF
        path, rounds = sys.argv[1], int(sys.argv[2])
        header = open(path).readline().strip().split(",")
        d = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
        col = lambda n: d[:, header.index(n)]
        t = col("t_s")
        gyr = np.ascontiguousarray(np.stack([col("gyr_x"), col("gyr_y"), col("gyr_z")], 1))
        acc = np.ascontiguousarray(np.stack([col("acc_x"), col("acc_y"), col("acc_z")], 1))
        ok = np.all(np.isfinite(gyr), 1) & np.all(np.isfinite(acc), 1) & np.isfinite(t)
        gyr, acc, t = gyr[ok], acc[ok], t[ok]
        ts = float(np.median(np.diff(t)))
        for cls in (VQF, BasicVQF):
            best = float("inf")
            for _ in range(rounds):
                estimator = cls(ts)
                start = time.thread_time()
                estimator.updateBatch(gyr, acc)
                best = min(best, time.thread_time() - start)
            print(best * 1e9 / len(t))
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, path, String(rounds)]
        var environment = ProcessInfo.processInfo.environment
        environment["OMP_NUM_THREADS"] = "1"
        environment["OPENBLAS_NUM_THREADS"] = "1"
        process.environment = environment
        let pipe = Pipe(), errors = Pipe()
        process.standardOutput = pipe
        process.standardError = errors
        do { try process.run() } catch {
            return names.map { ($0, nil, "not measured: \(python) did not start (\(error))") }
        }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let values = String(decoding: output, as: UTF8.self).split(separator: "\n").compactMap { Double($0) }
        guard process.terminationStatus == 0, values.count == 2 else {
            let reason = errorText.split(separator: "\n").last.map(String.init) ?? "exit \(process.terminationStatus)"
            return names.map { ($0, nil, "not measured: \(reason)") }
        }
        return zip(names, values).map { ($0, $1, "") }
    }


    static func pad(_ s: String, _ width: Int) -> String { s + String(repeating: " ", count: max(0, width - s.count)) }
    static func padLeft(_ s: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - s.count)) + s }
}
