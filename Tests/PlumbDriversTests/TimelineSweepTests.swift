import Foundation
import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// One MPU run on the ramp profile with the chip's oscillator `clockError` off and, optionally, a
/// storm of stray edges at start-up: the worst and RMS sample-time error (seconds) from `from`
/// seconds on.
struct TimelineRun {
    var worst = 0.0, rms = 0.0, count = 0

    static func run(chip: String, latched: Bool, rate: Double, watermark: Int, clockError: Double,
                    storm: Double, stormSeconds: Double, seconds: Double, from: Double) throws -> TimelineRun {
        let rig = MPURig(chip, profile: RampTiming.profile, configure: { $0.clockError = clockError })
        let clock = rig.clock, t0 = clock.nowNanoseconds
        if storm > 0 {
            rig.line.storms = [.init(window: t0...(t0 + UInt64(stormSeconds * 1e9)),
                                     periodNanoseconds: UInt64((1e9 / storm).rounded()))]
        }
        let stream = IMUStream(imu: rig.driver, line: rig.line, clock: clock)
        try stream.start(IMUConfiguration(outputDataRate: rate, accelerometerRange: 2, gyroscopeRange: 500, fifoWatermark: watermark,
                                          interrupt: .init(mode: latched ? .latched : .pulsed)))
        var samples: [IMUSample] = []
        var r = TimelineRun(), sum = 0.0
        let stop = t0 + UInt64(seconds * 1e9), measured = t0 + UInt64(from * 1e9)
        while clock.nowNanoseconds < stop {
            _ = stream.step(into: &samples)
            _ = stream.takeNotices()
            for s in samples where s.timestampNanoseconds >= measured {
                let phase = rig.sensor.profileTime(s.timestampNanoseconds).truncatingRemainder(dividingBy: 2)
                let value = (s.acceleration.x + 10) / 10
                guard value > 0.01, value < 1.99, phase > 0.01, phase < 1.99 else { continue }
                var d = (phase - value).truncatingRemainder(dividingBy: 2)
                if d > 1 { d -= 2 } else if d < -1 { d += 2 }
                r.worst = max(r.worst, abs(d)); sum += d * d; r.count += 1
            }
            samples.removeAll(keepingCapacity: true)
        }
        r.rms = r.count > 0 ? (sum / Double(r.count)).squareRoot() : 0
        return r
    }
}

/// The sweep behind the latched/pulsed timeline figures: MPU-6050/6500/9150 × latched/pulsed ×
/// 12.5/50/200/1000 Hz × watermark 1/7/16 × the chip's oscillator 0/±3/±5/±8 % off, each clean
/// (error from 2 s on) and with a storm of stray edges in the first 4 s (error from 4 s on).
/// Minutes of a debug build, so it runs only when asked:
/// `PLUMB_TIMELINE_SWEEP=1 swift test --filter TimelineSweep`; one tab-separated line per run to
/// stdout. PLUMB_TIMELINE_RATES, PLUMB_TIMELINE_WM, PLUMB_TIMELINE_ERR (percent),
/// PLUMB_TIMELINE_STORM (Hz, 0 = clean) and PLUMB_TIMELINE_SECONDS (default 12),
/// PLUMB_TIMELINE_CHIP (mpu6050, mpu6500, mpu9150) and PLUMB_TIMELINE_PIN (latched, pulsed) narrow it.
@Suite struct TimelineSweep {
    static let enabled = ProcessInfo.processInfo.environment["PLUMB_TIMELINE_SWEEP"] != nil

    @Test(.enabled(if: enabled), arguments: ["mpu6050", "mpu6500", "mpu9150"], [true, false])
    func sweep(chip: String, latched: Bool) throws {
        let env = ProcessInfo.processInfo.environment
        if let only = env["PLUMB_TIMELINE_CHIP"], only != chip { return }
        if let only = env["PLUMB_TIMELINE_PIN"], only != (latched ? "latched" : "pulsed") { return }
        func list(_ key: String, _ fallback: [Double]) -> [Double] {
            env[key].map { $0.split(separator: ",").compactMap { Double($0) } } ?? fallback
        }
        let rates = list("PLUMB_TIMELINE_RATES", [12.5, 50, 200, 1000])
        let marks = list("PLUMB_TIMELINE_WM", [1, 7, 16]).map { Int($0) }
        let errors = list("PLUMB_TIMELINE_ERR", [0, -3, 3, -5, 5, -8, 8])
        let storms = list("PLUMB_TIMELINE_STORM", [0, 40])
        let seconds = Double(env["PLUMB_TIMELINE_SECONDS"] ?? "") ?? 12
        var lines: [String] = []
        for rate in rates {
            for wm in marks {
                for e in errors {
                    for storm in storms {
                        let r = try TimelineRun.run(chip: chip, latched: latched, rate: rate, watermark: wm, clockError: e / 100,
                                                    storm: storm, stormSeconds: 4, seconds: seconds, from: storm > 0 ? 4 : 2)
                        lines.append("TL\t\(chip)\t\(latched ? "latched" : "pulsed")\t\(rate)\twm\(wm)\t\(e)%\tstorm \(storm)"
                            + String(format: "\tworst %.3f\trms %.3f ms\tn %d", r.worst * 1e3, r.rms * 1e3, r.count))
                    }
                }
            }
        }
        print(lines.joined(separator: "\n"))
    }
}
