import PlumbHAL
import PlumbDrivers
import PlumbSimulation

/// One fuzz run of a driver as the daemon runs it: an emulated chip behind a ``GarbledBus`` and a
/// ``GarbledLine``, the real driver, and ``IMUStream`` stepping it (drains, verification,
/// re-initialisation after a chip reset), in virtual time; the samples go on through fusion and
/// the orientation classifier (``PipelineHarness``), as in the daemon.
///
/// The input: a header (which part, which configuration, which motion, the bus's read limit, FIFO
/// compression), then the control bytes the bus and the line take as the stream runs. The run
/// ends when the input is used up (plus a few clean steps, so a garbled state must recover) or
/// after ``maximumSteps``.
///
/// Beyond "no trap", each run checks what the daemon relies on: every sample's values finite and
/// its time no later than the driver's own plausibility window allows (hours ahead would freeze the
/// orientation's settle timers), and the stream's buffers bounded.
public enum StreamHarness {
    public enum Family { case mpu6050, lsm6ds }

    public static let maximumSteps = 400
    static let rates: [Double] = [12.5, 26, 52, 104, 208, 416, 833, 1000, 1666]
    static let accelerometerRanges: [Double] = [2, 4, 8, 16]
    static let gyroscopeRanges: [Double] = [250, 500, 1000, 2000]
    static let watermarks = [1, 2, 4, 8, 16, 32, 64]
    static let profiles: [MotionProfile] = [.rest(), .slowRotation(), .shaking(amplitude: 40, frequency: 20), .tapping()]

    public static func run(_ family: Family, _ input: FuzzInput) {
        let models = family == .mpu6050 ? SimulatedChips.mpu : SimulatedChips.lsm6ds
        let model = input.pick(models)
        let c = input.byte(), d = input.byte()
        let config = IMUConfiguration(
            outputDataRate: rates[Int(c & 0x0F) % rates.count],
            accelerometerRange: accelerometerRanges[Int(c >> 4) & 3],
            gyroscopeRange: gyroscopeRanges[Int(c >> 6) & 3],
            fifoWatermark: watermarks[Int(d & 0x07) % watermarks.count],
            gyroscopeEnabled: d & 0x08 == 0,
            interrupt: InterruptPinConfiguration(pin: family == .lsm6ds && d & 0x10 != 0 ? .int2 : .int1,
                                                 level: d & 0x20 != 0 ? .activeLow : .activeHigh,
                                                 mode: d & 0x40 != 0 ? .pulsed : .latched))
        let flags = input.byte()
        let profile = profiles[Int(flags & 3)]
        let sensor = SimulatedSensor(model: model, profile: profile, seed: UInt64(flags >> 4))
        sensor.bus.bitsPerSecond = flags & 0x04 != 0 ? nil : 400_000
        let bus = GarbledBus(sensor.bus, input: input, maximumReadLength: flags & 0x08 != 0 ? 32 : nil)
        let line = GarbledLine(sensor.line, input: input, clock: sensor.clock)

        let imu: any IMU
        switch family {
        case .mpu6050:
            guard let driver = try? MPU6050(bus: bus, address: model.address, clock: sensor.clock) else { return }
            imu = driver
        case .lsm6ds:
            let driver = LSM6DS(bus: bus, address: model.address, clock: sensor.clock)
            driver.fifoCompression = d & 0x80 == 0
            imu = driver
        }
        let stream = IMUStream(imu: imu, line: line, clock: sensor.clock)
        let begin = sensor.clock.nowNanoseconds
        var started = false
        for _ in 0..<3 where !started {
            do { try stream.start(config); started = true } catch { continue }
        }
        guard started else { return }

        var samples: [IMUSample] = []
        var pipeline = PipelineHarness(choice: flags >> 4)
        var cleanSteps = 0
        var lastTime: UInt64?
        for _ in 0..<maximumSteps {
            if input.isEmpty { cleanSteps += 1 }
            if cleanSteps > 8 { break }
            samples.removeAll(keepingCapacity: true)
            _ = stream.step(into: &samples)
            let now = sensor.clock.nowNanoseconds
            for s in samples {
                check(s.acceleration.x.isFinite && s.acceleration.y.isFinite && s.acceleration.z.isFinite
                      && s.angularRate.x.isFinite && s.angularRate.y.isFinite && s.angularRate.z.isFinite,
                      "a sample with a non-finite value: \(s)")
                // The LSM6DS driver's own bound on a timestamp word (plausibleSampleWindow: now,
                // plus 1 s, plus 5 % of the time since the counter was anchored), doubled.
                check(s.timestampNanoseconds <= now &+ 2 * Nanoseconds.perSecond &+ (now &- begin) / 10,
                      "a sample timed \(s.timestampNanoseconds) ns, after the read at \(now) ns (began \(begin) ns)")
            }
            // The MPU-6050 decoder's promise: each sample at least half a period after the one before.
            if family == .mpu6050 {
                for s in samples {
                    if let last = lastTime {
                        check(s.timestampNanoseconds > last, "a sample timed \(s.timestampNanoseconds) ns, not after the previous one (\(last) ns)")
                    }
                    lastTime = s.timestampNanoseconds
                }
            }
            check(samples.count < 100_000, "one step gave \(samples.count) samples")
            pipeline.feed(samples)
            _ = stream.takeNotices()
        }
        _ = try? stream.stop()
    }

    /// A broken promise: abort, so libFuzzer saves the input (the harness's own trap, on purpose).
    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fuzzFailure(message()) }
    }
}

/// Ends the run as a crash libFuzzer records, with `message` on stderr.
public func fuzzFailure(_ message: String) -> Never {
    var text = "fuzz check failed: " + message + "\n"
    text.withUTF8 { buffer in _ = fwriteStderr(buffer) }
    abortProcess()
}
