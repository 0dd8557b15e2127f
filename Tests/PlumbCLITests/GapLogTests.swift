import Foundation
import PlumbDrivers
import PlumbHAL
import PlumbSimulation
import Testing
@testable import PlumbCLI

@Suite("Gap warnings: the first at once, then one summary a minute")
struct GapLogTests {
    static let second: UInt64 = 1_000_000_000

    func gap(_ reason: StreamGap.Reason, lost: Int? = nil, at t: UInt64) -> StreamGap {
        StreamGap(reason: reason, afterNanoseconds: nil, detectedNanoseconds: t, lostSamples: lost)
    }

    @Test func aSteadyRainOfGapsGivesOneLineAMinute() {
        var log = GapLog()
        var lines: [(UInt64, String)] = []
        // A FIFO overflow on every drain, 20 a second, for 150 s; a bus error every 10 s.
        for tick in 0..<(150 * 20) {
            let now = UInt64(tick) * Self.second / 20
            var gaps = [gap(.fifoOverflow, lost: 3, at: now)]
            if tick % 200 == 100 { gaps.append(gap(.busError, at: now)) }
            for g in gaps { if let line = log.record(g, source: "MPU-6050", now: now) { lines.append((now, line)) } }
            if let s = log.flush(source: "MPU-6050", now: now) { lines.append((now, s)) }
        }
        if let s = log.flush(source: "MPU-6050", now: 150 * Self.second, force: true) { lines.append((150 * Self.second, s)) }
        #expect(lines.map(\.1) == [
            "gap in the stream from MPU-6050: fifoOverflow, 3 samples lost",
            "gap in the stream from MPU-6050: 1206 more in the last 60 s (fifoOverflow 1200×, 3600 samples lost; busError 6×)",
            "gap in the stream from MPU-6050: 1206 more in the last 60 s (fifoOverflow 1200×, 3600 samples lost; busError 6×)",
            "gap in the stream from MPU-6050: 602 more in the last 30 s (fifoOverflow 599×, 1797 samples lost; busError 3×)",
        ])
        #expect(lines.map(\.0) == [0, 60 * Self.second, 120 * Self.second, 150 * Self.second])
    }

    @Test func aLoneGapIsLoggedAtOnceAndSoIsTheNextAfterAQuietMinute() {
        var log = GapLog()
        #expect(log.record(gap(.chipReset, at: 5 * Self.second), source: "LSM6DSO", now: 5 * Self.second)
            == "gap in the stream from LSM6DSO: chipReset")
        // Nothing held: the window's end passes without a line, and the next gap is logged at once.
        #expect(log.flush(source: "LSM6DSO", now: 70 * Self.second) == nil)
        #expect(log.record(gap(.stall, at: 80 * Self.second), source: "LSM6DSO", now: 80 * Self.second)
            == "gap in the stream from LSM6DSO: stall")
        // Gaps within the minute are held; the first after it brings their summary, itself included.
        #expect(log.record(gap(.busError, lost: 16, at: 90 * Self.second), source: "LSM6DSO", now: 90 * Self.second) == nil)
        #expect(log.record(gap(.busError, at: 95 * Self.second), source: "LSM6DSO", now: 95 * Self.second) == nil)
        #expect(log.record(gap(.stall, at: 200 * Self.second), source: "LSM6DSO", now: 200 * Self.second)
            == "gap in the stream from LSM6DSO: 3 more in the last 120 s (busError 2×, at least 16 samples lost; stall 1×)")
        // Stopping says what is still held, and nothing when nothing is; after it, a gap is logged at once.
        #expect(log.record(gap(.busError, at: 202 * Self.second), source: "LSM6DSO", now: 202 * Self.second) == nil)
        #expect(log.flush(source: "LSM6DSO", now: 203 * Self.second, force: true)
            == "gap in the stream from LSM6DSO: 1 more in the last 3 s (busError 1×)")
        #expect(log.flush(source: "LSM6DSO", now: 204 * Self.second, force: true) == nil)
        #expect(log.record(gap(.busError, at: 205 * Self.second), source: "LSM6DSO", now: 205 * Self.second)
            == "gap in the stream from LSM6DSO: busError")
    }

    @Test func aFlakyBusThroughTheRealDriverLogsAFewLinesNotOnePerGap() throws {
        // The emulated MPU-6050 behind the daemon's source, about every third transfer failing once it runs, for
        // three minutes of virtual time.
        let sensor = SimulatedSensor(model: try #require(SimulatedChips.model("mpu6050")), seed: 3)
        let imu = try DaemonFactory.makeIMU(bus: sensor.bus, address: I2CAddress(0x68), clock: sensor.clock, part: nil)
        let source = StreamSampleSource(name: "emulated MPU-6050", imu: imu, line: sensor.line, clock: sensor.clock)
        _ = try source.start(IMUConfiguration(outputDataRate: 100, fifoWatermark: 5))
        try FaultPlan(parsing: "errors=0.3").install(on: sensor)
        var samples: [IMUSample] = []
        let end = sensor.clock.nowNanoseconds + 180 * Self.second
        while sensor.clock.nowNanoseconds < end {
            samples.removeAll(keepingCapacity: true)
            _ = try source.read(into: &samples, timeoutNanoseconds: Self.second / 10)
        }
        // The stop's register writes would meet the same 30 % (each write fails after its retries
        // about once in 40, so whether the stop succeeded depended on the draw): the bus heals first.
        sensor.bus.faults.removeAll()
        try source.stop()
        let gapLines = source.takeEvents().filter { $0.message.hasPrefix("gap in the stream") }
        let summaries = gapLines.filter { $0.message.contains(" more in the last ") }
        // The first gap, then a summary for each minute and the rest at the stop: 4 or 5 lines
        // where there were hundreds of gaps.
        #expect((3...5).contains(gapLines.count), "\(gapLines.map(\.message))")
        let held = summaries.compactMap { Int($0.message.split(separator: ":").last!.split(separator: " ").first!) }.reduce(0, +)
        #expect(held > 100, "\(summaries.map(\.message))")
    }
}
