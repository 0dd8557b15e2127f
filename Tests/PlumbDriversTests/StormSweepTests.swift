import Foundation
import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// One run of a slow storm on the simulator, measured: when the storm was found, whether interrupts
/// were said to be back while it lasted, how long after its end they were back, and (MPU, noise-free
/// ramp) how far the sample times are from the chip's own sample instants.
struct StormRun {
    enum Chip: String, CaseIterable, Sendable {
        /// LSM6DSO woken per sample (watermark 1) or per watermark (16).
        case lsm6dso1 = "LSM6DSO wm1", lsm6dso16 = "LSM6DSO wm16"
        /// MPU-6050 per sample with a latched or pulsed pin, or by its timer (watermark 16, latched).
        case mpuLatched1 = "MPU wm1 latched", mpuPulsed1 = "MPU wm1 pulsed", mpuLatched16 = "MPU wm16 latched"
        var isMPU: Bool { self != .lsm6dso1 && self != .lsm6dso16 }
    }

    var stormNotices: [UInt64] = []
    var backNotices: [UInt64] = []
    var otherNotices: [String] = []
    var gaps = 0
    var samples = 0
    var wakeups = 0
    var mode = IMUStream.Mode.interrupts
    /// Timing error against the ramp (seconds): worst and RMS, during the storm and after it.
    var worstDuring = 0.0, rmsDuring = 0.0, worstAfter = 0.0, rmsAfter = 0.0

    /// Seconds from the storm's start to its first notice (nil: never found).
    func detect(start: UInt64) -> Double? { stormNotices.first.map { Double($0 &- start) / 1e9 } }
    /// "back" notices while the storm still went on.
    func falseBacks(start: UInt64, end: UInt64) -> Int { backNotices.filter { $0 > start && $0 < end }.count }
    /// Seconds from the storm's end to the first "back" after it (nil: none).
    func returnTime(end: UInt64) -> Double? { backNotices.first { $0 >= end }.map { Double($0 - end) / 1e9 } }

    /// Runs `chip` at `rate` Hz for `seconds`, with a storm of `storm` Hz (0: none) in `window` (seconds).
    static func run(_ chip: Chip, rate: Double, storm: Double, window: ClosedRange<Double>, seconds: Double) throws -> StormRun {
        let verbose = ProcessInfo.processInfo.environment["PLUMB_STORM_VERBOSE"] != nil
        let clock: VirtualClock, line: SimulatedInterruptLine, imu: any IMU
        var sensor: SimulatedSensor
        let watermark = chip == .lsm6dso16 || chip == .mpuLatched16 ? 16 : 1
        var config = IMUConfiguration(outputDataRate: rate, accelerometerRange: 2, gyroscopeRange: 500, fifoWatermark: watermark)
        if chip.isMPU {
            let rig = MPURig("mpu6050", profile: RampTiming.profile, configure: { $0.clockError = 0.008 })
            sensor = rig.sensor; imu = rig.driver
            config.interrupt = .init(mode: chip == .mpuPulsed1 ? .pulsed : .latched)
        } else {
            sensor = SimulatedSensor(model: SimulatedChips.model("lsm6dso")!, profile: RampTiming.profile, seed: 5)
            imu = LSM6DS(bus: sensor.bus, address: sensor.model.address, clock: sensor.clock)
        }
        clock = sensor.clock; line = sensor.line
        let t0 = clock.nowNanoseconds
        let start = t0 + UInt64(window.lowerBound * 1e9), end = t0 + UInt64(window.upperBound * 1e9)
        if storm > 0 { line.storms = [.init(window: start...end, periodNanoseconds: UInt64((1e9 / storm).rounded()))] }
        let stream = IMUStream(imu: imu, line: line, clock: clock)
        try stream.start(config)
        var r = StormRun()
        var samples: [IMUSample] = []
        var sumDuring = 0.0, nDuring = 0, sumAfter = 0.0, nAfter = 0
        let stop = t0 + UInt64(seconds * 1e9)
        while clock.nowNanoseconds < stop {
            let gaps = stream.step(into: &samples)
            r.gaps += gaps.count
            if verbose { for g in gaps { print(String(format: "  %.3f s: gap ", Double(g.detectedNanoseconds &- t0) / 1e9) + "\(g)") } }
            for n in stream.takeNotices() {
                if n.message.hasPrefix("interrupt storm") { r.stormNotices.append(n.timeNanoseconds) }
                else if n.message.hasSuffix("are back") { r.backNotices.append(n.timeNanoseconds) }
                else { r.otherNotices.append(n.message) }
                if verbose { print(String(format: "  %.3f s: ", Double(n.timeNanoseconds &- t0) / 1e9) + n.message) }
            }
            r.samples += samples.count
            if chip.isMPU {
                for s in samples where s.timestampNanoseconds > t0 + Nanoseconds.perSecond {
                    let phase = sensor.profileTime(s.timestampNanoseconds).truncatingRemainder(dividingBy: 2)
                    let value = (s.acceleration.x + 10) / 10
                    guard value > 0.01, value < 1.99, phase > 0.01, phase < 1.99 else { continue }
                    var d = (phase - value).truncatingRemainder(dividingBy: 2)
                    if d > 1 { d -= 2 } else if d < -1 { d += 2 }
                    if verbose { print(String(format: "SAMPLE %.4f err %.2f ms", Double(s.timestampNanoseconds) / 1e9, d * 1e3)) }
                    if s.timestampNanoseconds >= start, s.timestampNanoseconds <= end {
                        r.worstDuring = max(r.worstDuring, abs(d)); sumDuring += d * d; nDuring += 1
                    } else if s.timestampNanoseconds > end + 5 * Nanoseconds.perSecond {
                        r.worstAfter = max(r.worstAfter, abs(d)); sumAfter += d * d; nAfter += 1
                    }
                }
            }
            samples.removeAll(keepingCapacity: true)
        }
        r.rmsDuring = nDuring > 0 ? (sumDuring / Double(nDuring)).squareRoot() : 0
        r.rmsAfter = nAfter > 0 ? (sumAfter / Double(nAfter)).squareRoot() : 0
        r.wakeups = stream.statistics.wakeups
        r.mode = stream.mode
        return r
    }
}

/// The sweep behind the storm figures in the report: every chip mode × rate × storm rate. Slow
/// (minutes of a debug build), so it runs only when asked: `PLUMB_STORM_SWEEP=1 swift test
/// --filter StormSweep`; the table goes to stdout.
@Suite struct StormSweep {
    static let enabled = ProcessInfo.processInfo.environment["PLUMB_STORM_SWEEP"] != nil

    @Test(.enabled(if: enabled), arguments: StormRun.Chip.allCases)
    func sweep(chip: StormRun.Chip) throws {
        let env = ProcessInfo.processInfo.environment
        if let only = env["PLUMB_STORM_CHIP"], chip.rawValue != only { return }
        let rates = env["PLUMB_STORM_RATES"].map { $0.split(separator: ",").compactMap { Double($0) } }
            ?? (chip.isMPU ? [12.5, 26, 52, 100, 200, 500, 1000] : [12.5, 26, 52, 104, 208, 416, 833])
        let storms = env["PLUMB_STORM_HZ"].map { $0.split(separator: ",").compactMap { Double($0) } }
            ?? [10, 20, 30, 37, 40, 50, 60, 80, 100, 150, 200]
        let window = 2.0...22.0, seconds = 45.0
        var lines: [String] = []
        for rate in rates {
            let clean = try StormRun.run(chip, rate: rate, storm: 0, window: window, seconds: 20)
            let cleanNotes = clean.stormNotices.count + clean.backNotices.count + clean.otherNotices.count
            for storm in storms {
                let r = try StormRun.run(chip, rate: rate, storm: storm, window: window, seconds: seconds)
                let s = UInt64(window.lowerBound * 1e9) + Nanoseconds.perSecond, e = UInt64(window.upperBound * 1e9) + Nanoseconds.perSecond
                func f(_ x: Double?) -> String { x.map { String(format: "%.2f", $0) } ?? "-" }
                var line = "\(chip.rawValue)\t\(rate)\t\(storm)\tstorms \(r.stormNotices.count)\tfalseBack \(r.falseBacks(start: s, end: e))"
                    + "\tdetect \(f(r.detect(start: s)))\treturn \(f(r.returnTime(end: e)))\tmode \(r.mode.rawValue)\tgaps \(r.gaps)\tclean \(cleanNotes)"
                if chip.isMPU {
                    line += String(format: "\terr during max %.2f rms %.2f ms\tafter max %.3f rms %.3f ms", r.worstDuring * 1e3, r.rmsDuring * 1e3,
                                   r.worstAfter * 1e3, r.rmsAfter * 1e3)
                    line += String(format: "\tclean max %.3f", clean.worstDuring * 1e3)
                }
                if !r.otherNotices.isEmpty { line += "\tother \(r.otherNotices.count)" }
                lines.append(line)
            }
        }
        print(lines.joined(separator: "\n"))
    }
}
