import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// `IMUStream.wake(bySampleAt:)`: the low-energy mode asks for a sample or two before the FIFO
/// reaches its watermark while a turn is in progress. Both ways of waking are covered: the
/// LSM6DS waits on its watermark pin, the MPU sleeps and collects the per-sample edges.
@Suite struct EarlyWakeTests {
    static let lowEnergy = IMUConfiguration(outputDataRate: 12.5, fifoWatermark: 7, gyroscopeEnabled: false)
    static let period = 80_000_000.0

    enum Chip: String, CaseIterable, Sendable { case mpu6050, lsm6dso }

    /// A stream on the emulated chip in low-energy mode, with the motion `profile`.
    static func stream(_ chip: Chip, profile: MotionProfile = RampTiming.profile) throws -> (IMUStream, SimulatedSensor?) {
        switch chip {
        case .mpu6050:
            let rig = MPURig("mpu6050", profile: profile)
            let stream = IMUStream(imu: rig.driver, line: rig.line, clock: rig.clock)
            try stream.start(lowEnergy)
            return (stream, rig.sensor)
        case .lsm6dso:
            let rig = LSM6DSRig(.lsm6dso, profile: profile)
            let stream = IMUStream(imu: rig.imu, line: rig.line, clock: rig.clock)
            try stream.start(lowEnergy)
            return (stream, nil)
        }
    }

    /// Alternating early and ordinary wake-ups for 40 s: each early one returns within a few
    /// periods with the sample asked for, the ordinary ones still bring a watermark's worth, and
    /// none of it reads as a missing interrupt or a storm; the samples stay whole and in order,
    /// and on the MPU (timed by its edges) each is still timed to within a quarter period.
    @Test(arguments: Chip.allCases)
    func earlyWakeUpsReturnSoonWithoutLosingAnything(chip: Chip) throws {
        let (stream, sensor) = try Self.stream(chip)
        var samples: [IMUSample] = []
        var gaps: [StreamGap] = []
        for _ in 0..<3 { gaps += stream.step(into: &samples) }
        #expect(!samples.isEmpty, "\(chip)")
        var early = 0, ordinary = 0
        while stream.clock.nowNanoseconds < 40_000_000_000 {
            let last = samples.last!.timestampNanoseconds
            let before = (count: samples.count, time: stream.clock.nowNanoseconds)
            stream.wake(bySampleAt: last + UInt64(1.5 * Self.period))
            gaps += stream.step(into: &samples)
            let got = samples.count - before.count
            #expect((1...3).contains(got), "\(chip): an early wake-up brought \(got) samples")
            #expect(samples.last!.timestampNanoseconds >= last + UInt64(1.5 * Self.period), "\(chip): the sample asked for is missing")
            #expect(Double(stream.clock.nowNanoseconds - before.time) < 4 * Self.period, "\(chip): the early wake-up waited too long")
            early += 1
            let beforeOrdinary = samples.count
            gaps += stream.step(into: &samples)
            if samples.count - beforeOrdinary >= 6 { ordinary += 1 }
        }
        #expect(early > 50)
        #expect(ordinary == early, "\(chip): \(ordinary) of \(early) ordinary wake-ups brought a watermark")
        #expect(gaps.isEmpty, "\(chip): \(gaps)")
        #expect(stream.mode == .interrupts, "\(chip)")
        #expect(stream.takeNotices().isEmpty, "\(chip)")
        let spacing = zip(samples.dropFirst(), samples).map { Double($0.timestampNanoseconds - $1.timestampNanoseconds) }
        #expect(spacing.allSatisfy { abs($0 - Self.period) < 0.1 * Self.period }, "\(chip): \(spacing.filter { abs($0 - Self.period) >= 0.1 * Self.period })")
        if let sensor {
            let worst = RampTiming.worstError(samples.dropFirst(3), on: sensor)
            #expect(worst < Self.period / 4e9, "\(chip): worst timing error \(worst * 1e3) ms")
        }
    }

    /// A request for a sample already delivered brings the next one; one beyond the watermark
    /// changes nothing; and it is one-shot: the step after it waits for the watermark.
    @Test(arguments: Chip.allCases)
    func requestsOutsideTheBatchAndOneShot(chip: Chip) throws {
        let (stream, _) = try Self.stream(chip)
        var samples: [IMUSample] = []
        for _ in 0..<3 { _ = stream.step(into: &samples) }

        var count = samples.count
        stream.wake(bySampleAt: samples.last!.timestampNanoseconds - 1)
        _ = stream.step(into: &samples)
        #expect((1...2).contains(samples.count - count), "\(chip): \(samples.count - count) samples")

        count = samples.count
        stream.wake(bySampleAt: samples.last!.timestampNanoseconds + UInt64(20 * Self.period))
        _ = stream.step(into: &samples)
        #expect(samples.count - count >= 6, "\(chip): \(samples.count - count) samples")

        count = samples.count
        _ = stream.step(into: &samples)
        #expect(samples.count - count >= 6, "\(chip): \(samples.count - count) samples")
    }

    /// Before the first sample its time is unknown: the request is dropped, not guessed at (the
    /// first step is the same as without it).
    @Test(arguments: Chip.allCases)
    func noEarlyWakeBeforeTheFirstSample(chip: Chip) throws {
        let (asked, _) = try Self.stream(chip)
        let (plain, _) = try Self.stream(chip)
        asked.wake(bySampleAt: asked.clock.nowNanoseconds)
        var a: [IMUSample] = [], b: [IMUSample] = []
        _ = asked.step(into: &a)
        _ = plain.step(into: &b)
        #expect(a.count == b.count && a.count >= 4, "\(chip): \(a.count) and \(b.count) samples")
        #expect(asked.clock.nowNanoseconds == plain.clock.nowNanoseconds, "\(chip)")
        #expect(asked.takeNotices().isEmpty, "\(chip)")
    }
}

@Suite struct StreamNoticeBoundTests {
    /// A program that reads samples and never takes the stream's notices, on a chip that browns
    /// out every 2 s for 10 minutes: the notices kept stay bounded, and the next take says how
    /// many were dropped.
    @Test func noticesNobodyTakesStayBounded() throws {
        let rig = MPURig("mpu6050")
        let stream = IMUStream(imu: rig.driver, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: 100, fifoWatermark: 10))
        var samples: [IMUSample] = []
        var nextReset = rig.clock.nowNanoseconds + 2_000_000_000
        let end = rig.clock.nowNanoseconds + 600_000_000_000
        while rig.clock.nowNanoseconds < end {
            if rig.clock.nowNanoseconds >= nextReset {
                rig.chip.powerOnReset()
                nextReset += 2_000_000_000
            }
            samples.removeAll(keepingCapacity: true)
            _ = stream.step(into: &samples)
            #expect(stream.notices.count <= IMUStream.maximumPendingNotices)
            if stream.notices.count > IMUStream.maximumPendingNotices { break }
        }
        #expect(stream.statistics.reinitialisations > 200)
        let dropped = stream.droppedNotices
        #expect(dropped > 100)
        let taken = stream.takeNotices()
        #expect(taken.count == IMUStream.maximumPendingNotices + 1)
        #expect(taken.first?.message == "\(dropped) earlier notices were dropped (not taken in time)")
        #expect(taken.last?.message.contains("lost its configuration") == true)
        #expect(stream.takeNotices().isEmpty && stream.droppedNotices == 0)
    }
}
