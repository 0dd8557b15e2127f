import Testing
import PlumbHAL
import PlumbDrivers
import PlumbSimulation

/// The tagged FIFO's watermark read: steady-state drains burst-read the threshold's words without
/// a FIFO_STATUS read; anything unusual falls back to the status read. These run the FIFO
/// uncompressed (the byte counts are exact there); `LSM6DSCompressionTests` covers compression.
@Suite struct LSM6DSWatermarkReadTests {
    struct Rig {
        let sensor: SimulatedSensor
        let imu: LSM6DS
        let stream: IMUStream
        init(watermark: Int, compression: Bool = false, profile: MotionProfile = .slowRotation()) throws {
            let model = SimulatedChips.model("lsm6dso")!
            sensor = SimulatedSensor(model: model, profile: profile, seed: 3)
            // The chip samples on between the bytes of a burst, as the part does.
            sensor.bus.timesEachByte = true
            imu = LSM6DS(bus: sensor.bus, address: model.address, clock: sensor.clock)
            imu.fifoCompression = compression
            stream = IMUStream(imu: imu, line: sensor.line, clock: sensor.clock)
            _ = try stream.start(IMUConfiguration(outputDataRate: 833, fifoWatermark: watermark))
        }

        /// Steps for `seconds` of virtual time; returns the samples and gaps.
        func run(seconds: Double) -> (samples: [IMUSample], gaps: [StreamGap]) {
            var all: [IMUSample] = [], gaps: [StreamGap] = []
            let end = sensor.clock.nowNanoseconds + UInt64(seconds * 1e9)
            while sensor.clock.nowNanoseconds < end { gaps += stream.step(into: &all) }
            return (all, gaps)
        }
    }

    /// Wire bytes (address bytes included) per sample over 10 s at 833 Hz.
    func bytesPerSample(watermark: Int, compression: Bool = false,
                        profile: MotionProfile = .slowRotation()) throws -> (bytes: Double, rig: Rig, samples: [IMUSample]) {
        let rig = try Rig(watermark: watermark, compression: compression, profile: profile)
        _ = rig.run(seconds: 1)
        rig.sensor.bus.resetCounters()
        let (samples, gaps) = rig.run(seconds: 10)
        #expect(gaps.isEmpty)
        let c = rig.sensor.bus.counters
        return (Double(c.bytes + c.addressBytes) / Double(samples.count), rig, samples)
    }

    @Test func byteAccountingAtWatermark32() throws {
        let (bytes, rig, samples) = try bytesPerSample(watermark: 32)
        // 65 words per drain: 14 bytes a sample + a 7-byte timestamp per 32 + 3 bytes a transfer,
        // one 5-byte status read per 64 drains, a temperature word at 1.6 Hz.
        #expect(bytes <= 1.2 * 12)
        #expect(bytes > 14.219)
        #expect(rig.imu.watermarkDrains > 30 * rig.imu.statusDrains)
        #expect(samples.count > 8200 && samples.count < 8400)
    }

    @Test func byteAccountingAtWatermark16() throws {
        let (bytes, rig, _) = try bytesPerSample(watermark: 16)
        // 33 words (16.25 samples) per drain: 14.219 + 3 / 16.25 = 14.40 is the floor with a
        // timestamp per 32 samples; with the periodic status read and temperature, about 14.43.
        // The status read on every drain cost 14.72.
        #expect(bytes < 14.45)
        #expect(bytes > 14.40)
        #expect(rig.imu.watermarkDrains > 30 * rig.imu.statusDrains)
    }

    @Test func samplesStayTimedAndContinuous() throws {
        let (_, _, samples) = try bytesPerSample(watermark: 16)
        let period = 1e9 / 833 / (1 + 3 * 0.0015) // the emulated part runs 0.45 % fast
        for (a, b) in zip(samples, samples.dropFirst()) {
            let dt = Double(b.timestampNanoseconds) - Double(a.timestampNanoseconds)
            #expect(abs(dt - period) < 0.02 * period)
        }
    }

    @Test func stalledReaderStillReportsTheOverflow() throws {
        let rig = try Rig(watermark: 16)
        _ = rig.run(seconds: 1)
        // Stall for a second: 512 words fill in about 0.3 s.
        rig.sensor.clock.sleep(nanoseconds: 1_000_000_000)
        let statusBefore = rig.imu.statusDrains
        let (samples, gaps) = rig.run(seconds: 0.5)
        #expect(gaps.contains { $0.reason == .fifoOverflow })
        #expect(rig.imu.statusDrains > statusBefore)
        #expect(!samples.isEmpty)
    }

    @Test func aStrayEdgeJustAfterADrainReadsTheStatus() throws {
        let rig = try Rig(watermark: 16)
        var samples: [IMUSample] = []
        _ = rig.run(seconds: 1)
        // A bogus watermark edge just after a drain: the FIFO holds less than the threshold, and
        // cannot have filled since the last read, so the drain reads the status rather than burst
        // past the end of the FIFO (StrayEdgeTests).
        let drainsBefore = rig.imu.watermarkDrains, statusBefore = rig.imu.statusDrains
        let now = rig.sensor.clock.nowNanoseconds
        let r = try rig.imu.drain(into: &samples, edges: [EdgeEvent(timestampNanoseconds: now, kind: .rising)])
        #expect(rig.imu.watermarkDrains == drainsBefore)
        #expect(rig.imu.statusDrains == statusBefore + 1)
        #expect(r.sampleCount < 16)
        // A second one 5 ms on: a status read again, and the stream carries on without corrupt samples.
        rig.sensor.clock.sleep(nanoseconds: 5_000_000)
        _ = try rig.imu.drain(into: &samples, edges: [EdgeEvent(timestampNanoseconds: rig.sensor.clock.nowNanoseconds, kind: .rising)])
        #expect(rig.imu.watermarkDrains == drainsBefore)
        #expect(rig.imu.statusDrains == statusBefore + 2)
        let (more, gaps) = rig.run(seconds: 1)
        #expect(gaps.isEmpty)
        let all = samples + more
        for (a, b) in zip(all, all.dropFirst()) {
            #expect(b.timestampNanoseconds > a.timestampNanoseconds)
            #expect(Double(b.timestampNanoseconds - a.timestampNanoseconds) < 1.5e9 / 833)
        }
    }
}
