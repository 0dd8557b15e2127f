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
    /// The storm's window on the virtual clock, nanoseconds.
    var stormStart: UInt64 = 0, stormEnd: UInt64 = 0
    /// Timing error against the ramp (seconds): worst and RMS, during the storm and after it.
    var worstDuring = 0.0, rmsDuring = 0.0, worstAfter = 0.0, rmsAfter = 0.0

    /// Seconds from the storm's start to its first notice (nil: never found).
    var detect: Double? { stormNotices.first.map { Double($0 &- stormStart) / 1e9 } }
    /// "back" notices while the storm still went on.
    var falseBacks: Int { backNotices.filter { $0 > stormStart && $0 < stormEnd }.count }
    /// Seconds from the storm's end to the first "back" after it (nil: none).
    var returnTime: Double? { backNotices.first { $0 >= stormEnd }.map { Double($0 - stormEnd) / 1e9 } }

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
            let lsm = LSM6DS(bus: sensor.bus, address: sensor.model.address, clock: sensor.clock)
            lsm.fifoCompression = ProcessInfo.processInfo.environment["PLUMB_STORM_NO_COMPRESSION"] == nil
            imu = lsm
        }
        clock = sensor.clock; line = sensor.line
        let t0 = clock.nowNanoseconds
        let start = t0 + UInt64(window.lowerBound * 1e9), end = t0 + UInt64(window.upperBound * 1e9)
        if storm > 0 { line.storms = [.init(window: start...end, periodNanoseconds: UInt64((1e9 / storm).rounded()))] }
        let stream = IMUStream(imu: imu, line: line, clock: clock)
        try stream.start(config)
        var r = StormRun(stormStart: start, stormEnd: end)
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

/// The sweep behind the storm figures: every chip mode × rate × storm rate (storm from 2 s to
/// 22 s of a 45 s run), one line each: storm and false 'back' notices, seconds to detect and to
/// return, gaps, notices on a clean line, and on the MPU the timing error during and after (from
/// 5 s after) the storm. About a minute of a debug build, so it runs only when asked:
/// `PLUMB_STORM_SWEEP=1 swift test --filter StormSweep`; the table goes to stdout.
/// PLUMB_STORM_CHIP (a row name such as "MPU wm1 latched"), PLUMB_STORM_RATES and PLUMB_STORM_HZ
/// (comma-separated) narrow it; PLUMB_STORM_VERBOSE prints notices, gaps and sample errors;
/// PLUMB_STORM_NO_COMPRESSION turns the LSM6DSO's FIFO compression off.
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
            let cleanNotes = clean.stormNotices.count + clean.backNotices.count
            for storm in storms {
                let r = try StormRun.run(chip, rate: rate, storm: storm, window: window, seconds: seconds)
                func f(_ x: Double?) -> String { x.map { String(format: "%.2f", $0) } ?? "-" }
                var line = "\(chip.rawValue)\t\(rate)\t\(storm)\tstorms \(r.stormNotices.count)\tfalseBack \(r.falseBacks)"
                    + "\tdetect \(f(r.detect))\treturn \(f(r.returnTime))\tmode \(r.mode.rawValue)\tgaps \(r.gaps)\tclean \(cleanNotes)"
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
