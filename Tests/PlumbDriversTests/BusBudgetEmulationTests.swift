import Foundation
import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// One stream on an emulated chip whose bus runs at a given clock (``EmulatedI2CBus`` charges
/// each transfer's bit times to the virtual clock), measured against the budget.
struct BusRun {
    var budget: BusBudget
    /// Bit times a second the bus really carried in steady state (after the first half second).
    var measuredBitsPerSecond: Double
    var overflowGaps: Int
    var lostSamples: Int
    var samples: Int

    /// Runs `chip` ("mpu6050", "lsm6dso", "lsm6ds3") at `rate` Hz with `watermark` on a bus of
    /// `busHertz` for `seconds` of virtual time, the reader woken by the data-ready line.
    static func run(_ chip: String, rate: Double, watermark: Int, busHertz: Double, seconds: Double = 3,
                    gyroscope: Bool = true, compression: Bool = false) throws -> BusRun {
        let sensor = SimulatedSensor(model: SimulatedChips.model(chip)!, profile: .rest(), seed: 3)
        sensor.bus.bitsPerSecond = busHertz
        let imu: any IMU
        if chip.hasPrefix("mpu") {
            imu = try MPU6050(bus: sensor.bus, address: sensor.model.address, clock: sensor.clock)
        } else {
            let lsm = LSM6DS(bus: sensor.bus, address: sensor.model.address, clock: sensor.clock)
            lsm.fifoCompression = compression
            imu = lsm
        }
        let config = IMUConfiguration(outputDataRate: rate, fifoWatermark: watermark, gyroscopeEnabled: gyroscope)
        let stream = IMUStream(imu: imu, line: sensor.line, clock: sensor.clock)
        try stream.start(config)
        let traffic = try #require(imu.streamTraffic(for: config))
        var run = BusRun(budget: BusBudget(traffic: traffic, busHertz: busHertz), measuredBitsPerSecond: 0,
                         overflowGaps: 0, lostSamples: 0, samples: 0)
        var samples: [IMUSample] = []
        samples.reserveCapacity(8192)
        let t0 = sensor.clock.nowNanoseconds
        let settle = t0 + Nanoseconds.perSecond / 2, end = t0 + UInt64(seconds * 1e9)
        var measureStart: UInt64?
        while sensor.clock.nowNanoseconds < end {
            if measureStart == nil, sensor.clock.nowNanoseconds >= settle {
                measureStart = sensor.clock.nowNanoseconds
                sensor.bus.resetCounters()
            }
            samples.removeAll(keepingCapacity: true)
            for gap in stream.step(into: &samples) where gap.reason == .fifoOverflow {
                run.overflowGaps += 1
                run.lostSamples += gap.lostSamples ?? 0
            }
            run.samples += samples.count
        }
        let c = sensor.bus.counters
        // What the emulator charged: START and STOP, 9 + 1 per message, 9 per data byte.
        let bits = Double(2 * c.transactions + 10 * c.addressBytes + 9 * c.bytes)
        run.measuredBitsPerSecond = bits / (Double(sensor.clock.nowNanoseconds - (measureStart ?? t0)) / 1e9)
        return run
    }
}

@Suite("BusBudget against the emulated bus")
struct BusBudgetEmulationTests {
    /// The budget's bit times a second match what the emulated bus carried, within 3 %, on a bus
    /// fast enough for the stream (so the reader keeps its schedule).
    @Test(arguments: [("mpu6050", 1000.0, 16), ("mpu6050", 200.0, 1), ("mpu6500", 500.0, 50),
                      ("lsm6dso", 833.0, 16), ("lsm6dso", 104.0, 4), ("lsm6ds3", 833.0, 32), ("lsm6dsl", 416.0, 8)])
    func theBudgetMatchesTheEmulatedBus(chip: String, rate: Double, watermark: Int) throws {
        let run = try BusRun.run(chip, rate: rate, watermark: watermark, busHertz: 1_000_000)
        #expect(run.overflowGaps == 0)
        let ratio = run.budget.bitsPerSecond / run.measuredBitsPerSecond
        #expect(abs(ratio - 1) < 0.03, "\(chip) \(rate) Hz wm \(watermark): budget \(run.budget.bitsPerSecond) bit/s, emulator \(run.measuredBitsPerSecond)")
    }

    /// With FIFO compression the budget counts uncompressed words: an upper bound on what the
    /// emulated LSM6DSO carries (at rest it packs up to three samples a word).
    @Test func aCompressingFIFONeedsAtMostTheBudget() throws {
        let run = try BusRun.run("lsm6dso", rate: 833, watermark: 16, busHertz: 1_000_000, compression: true)
        #expect(run.overflowGaps == 0)
        #expect(run.measuredBitsPerSecond < run.budget.bitsPerSecond)
        #expect(run.measuredBitsPerSecond > run.budget.bitsPerSecond / 4)
    }

    /// A bus the budget calls too slow (the stream needs more than all of it) overflows the FIFO;
    /// one it calls safe (at most half) never does.
    @Test(arguments: [("mpu6050", 1000.0, 16), ("lsm6dso", 833.0, 16), ("lsm6ds3", 833.0, 32)])
    func tooSlowOverflowsAndSafeDoesNot(chip: String, rate: Double, watermark: Int) throws {
        let need = try BusRun.run(chip, rate: rate, watermark: watermark, busHertz: 1_000_000, seconds: 1).budget.bitsPerSecond
        // Long enough for the deficit to fill the largest FIFO (the LSM6DS3's 8 KB).
        let slow = try BusRun.run(chip, rate: rate, watermark: watermark, busHertz: need / 1.15, seconds: 12)
        #expect(slow.budget.share > 1.1)
        #expect(slow.overflowGaps > 0, "\(chip) at \(slow.budget.busHertz) Hz: share \(slow.budget.share), no overflow")
        let safe = try BusRun.run(chip, rate: rate, watermark: watermark, busHertz: need / BusBudget.safeShare)
        #expect(safe.budget.fits)
        #expect(safe.overflowGaps == 0)
    }

    /// The case the README warns of: 1 kHz six-axis on a 100 kHz bus overflows, and at 400 kHz
    /// it does not; the budget says the same.
    @Test func oneKilohertzOnAHundredKilohertzBus() throws {
        let slow = try BusRun.run("mpu6050", rate: 1000, watermark: 100, busHertz: 100_000)
        #expect(!slow.budget.fits)
        #expect(slow.overflowGaps > 0)
        let fast = try BusRun.run("mpu6050", rate: 1000, watermark: 100, busHertz: 400_000)
        #expect(fast.budget.fits)
        #expect(fast.overflowGaps == 0)
    }

    /// Measures where overflow starts, as a share of the bus by the budget, for the safe share's
    /// choice (``BusBudget/safeShare``). Run with PLUMB_BUS_SWEEP=1; prints a table.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["PLUMB_BUS_SWEEP"] != nil))
    func sweep() throws {
        let cases: [(String, Double, Int)] = [("mpu6050", 1000, 16), ("mpu6050", 1000, 100), ("mpu6050", 500, 1), ("mpu6500", 1000, 50),
                                              ("lsm6dso", 833, 16), ("lsm6dso", 1666, 64), ("lsm6ds3", 833, 32), ("lsm6ds3", 1666, 8)]
        for (chip, rate, watermark) in cases {
            let need = try BusRun.run(chip, rate: rate, watermark: watermark, busHertz: 1_000_000, seconds: 1).budget.bitsPerSecond
            var line = "\(chip) \(rate) Hz wm \(watermark) (\(Int(need)) bit/s):"
            for share in [0.5, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0, 1.05, 1.1, 1.2] {
                let run = try BusRun.run(chip, rate: rate, watermark: watermark, busHertz: need / share, seconds: 12)
                line += " \(share):\(run.overflowGaps)"
            }
            print(line)
        }
    }
}
