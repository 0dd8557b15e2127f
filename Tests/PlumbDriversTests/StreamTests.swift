import Testing
import PlumbHAL
@testable import PlumbDrivers
import PlumbSimulation

/// Checks every sample against the profile's truth at its timestamp.
struct TruthCheck {
    let rig: MPURig
    let profile: MotionProfile
    let accelTolerance: Double
    let gyroTolerance: Double
    var checked = 0
    var worstAccel = 0.0, worstGyro = 0.0
    var failures: [String] = []
    var lastTime: UInt64 = 0

    init(rig: MPURig, profile: MotionProfile, config: IMUConfiguration) {
        self.rig = rig
        self.profile = profile
        let model = rig.chip.errorModel
        let bandwidth = config.lowPassBandwidth ?? 188
        let accelLSB = MotionConstants.standardGravity / (32768 / config.accelerometerRange)
        let gyroLSB = config.gyroscopeRange / 32768 * .pi / 180
        accelTolerance = 6.5 * model.accelerometerNoise(bandwidth: bandwidth) + accelLSB + maxAbs(model.accelerometerBias) + 0.02
        gyroTolerance = 6.5 * model.gyroscopeNoise(bandwidth: bandwidth) + gyroLSB + maxAbs(model.gyroscopeBias) + 0.002
    }

    mutating func check(_ samples: ArraySlice<IMUSample>) {
        for s in samples {
            let truth = profile.state(at: rig.sensor.profileTime(s.timestampNanoseconds))
            let da = maxAbs(s.acceleration - truth.specificForce), dg = maxAbs(s.angularRate - truth.angularRate)
            worstAccel = max(worstAccel, da); worstGyro = max(worstGyro, dg)
            if da > accelTolerance || dg > gyroTolerance || s.timestampNanoseconds <= lastTime {
                if failures.count < 5 { failures.append("t=\(s.timestampNanoseconds) da=\(da) dg=\(dg) last=\(lastTime)") }
            }
            lastTime = s.timestampNanoseconds
            checked += 1
        }
    }
}

/// Runs a stream for `seconds` of virtual time, checking every sample.
@discardableResult
func runStream(_ rig: MPURig, profile: MotionProfile, config: IMUConfiguration, seconds: Double,
               check: inout TruthCheck, gaps: inout [StreamGap], stream: IMUStream? = nil) throws -> IMUStream {
    let stream = stream ?? IMUStream(imu: rig.driver, line: rig.line, clock: rig.clock)
    if stream.statistics.drains == 0 { try stream.start(config) }
    let end = rig.clock.nowNanoseconds + UInt64(seconds * 1e9)
    var samples: [IMUSample] = []
    samples.reserveCapacity(4096)
    var steps = 0
    while rig.clock.nowNanoseconds < end {
        samples.removeAll(keepingCapacity: true)
        gaps += stream.step(into: &samples)
        check.check(samples[...])
        steps += 1
        if steps > Int(seconds * 10_000) + 1000 { Issue.record("the stream did not advance virtual time"); break }
    }
    return stream
}

@Suite struct IMUStreamTests {
    let config = IMUConfiguration(outputDataRate: 1000, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 16)

    @Test(arguments: ["mpu6050", "mpu6500"])
    func wakesAtMostOdrOverWatermarkAndLosesNothing(key: String) throws {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig(key, profile: profile, errorModel: nil)
        var check = TruthCheck(rig: rig, profile: profile, config: IMUConfiguration(outputDataRate: 1000, accelerometerRange: 4, gyroscopeRange: 500, lowPassBandwidth: 188))
        var gaps: [StreamGap] = []
        let stream = try runStream(rig, profile: profile, config: config, seconds: 10, check: &check, gaps: &gaps)
        #expect(gaps.isEmpty)
        #expect(check.failures.isEmpty)
        #expect(stream.mode == .interrupts)
        #expect(abs(check.checked - 10_000) <= 20)
        #expect(Double(stream.statistics.wakeups) / 10 <= 1000.0 / 16 + 1)
    }

    @Test func sampleTimesFollowTheChipsRealClock() throws {
        // Specific force x ramps 10 m/s² per second, so each sample says when it was taken.
        let rig = MPURig("mpu6050", profile: RampTiming.profile) { $0.clockError = 0.015 }
        let stream = IMUStream(imu: rig.driver, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: 500, accelerometerRange: 2, fifoWatermark: 16))
        var samples: [IMUSample] = []
        while rig.clock.nowNanoseconds < 4_000_000_000 { _ = stream.step(into: &samples) }
        let settled = samples.dropFirst(200)
        let worst = RampTiming.worstError(settled, on: rig.sensor)
        #expect(worst < 150e-6) // the accelerometer LSB is 60 µs of ramp
        let span = Double(settled.last!.timestampNanoseconds - settled.first!.timestampNanoseconds) / Double(settled.count - 1)
        #expect(abs(span / (2e6 / 1.015) - 1) < 1e-4)
    }

    @Test func fallsBackToPollingWhenEdgesStopAndReturns() throws {
        let profile = MotionProfile.rest()
        let rig = MPURig("mpu6050", profile: profile, errorModel: nil)
        rig.line.silentWindows = [2_000_000_000...4_000_000_000]
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        let stream = try runStream(rig, profile: profile, config: config, seconds: 2.5, check: &check, gaps: &gaps)
        #expect(stream.mode == .polling)
        try runStream(rig, profile: profile, config: config, seconds: 3, check: &check, gaps: &gaps, stream: stream)
        #expect(stream.mode == .interrupts)
        let notices = stream.takeNotices().map(\.message)
        #expect(notices == ["samples arrive but simulated INT line shows no edges; timing from the estimated period",
                            "interrupts from simulated INT line are back"])
        #expect(gaps.isEmpty)
        #expect(check.failures.isEmpty)
        #expect(abs(check.checked - 5500) <= 40) // up to a watermark and a period may still sit in the FIFO at the end
    }

    @Test func chipResetMidStreamIsDetectedAndReported() throws {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig("mpu6050", profile: profile, errorModel: nil)
        rig.chip.scheduledResets = [3_000_000_000]
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        let stream = try runStream(rig, profile: profile, config: config, seconds: 5, check: &check, gaps: &gaps)
        // One reset, found and reported once. The brown-out at 3 s falls inside a FIFO burst (the
        // bus runs byte by byte, as the wire does), so that burst's tail reads the emptied FIFO:
        // those records are a `.busError` gap of their own, as in BrownOutMidBurstTests.
        #expect(gaps.filter { $0.reason == .chipReset }.count == 1, "\(gaps)")
        #expect(gaps.allSatisfy { $0.reason == .chipReset || $0.reason == .busError } && gaps.count <= 2, "\(gaps)")
        #expect(stream.statistics.reinitialisations == 1)
        #expect(stream.takeNotices().map(\.message) == [
            "the MPU-6050 at 0x68 on simulated bus lost its configuration (a reset or brown-out); re-initialising (if this repeats, check the sensor's supply)"])
        #expect(check.failures.isEmpty)
        #expect(check.checked > 4500)
    }

    /// The chip unplugged for a second mid-stream: the reads fail, setting it up again fails and
    /// is said once with its error (for the owner to word the fix: nothing answers at the
    /// address), and once it answers the stream goes on after one gap.
    /// On a PC's adapter (ENXIO) and a Raspberry Pi's (EREMOTEIO).
    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aChipGoneForASecondIsSaidWithItsErrorAndSetUpAgain(errno: Int32) throws {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig("mpu6050", profile: profile, errorModel: nil)
        rig.bus.nothingAnswersErrno = errno
        rig.bus.faults = [.init(.always, effect: .noAcknowledge, window: 2_000_000_000...3_000_000_000)]
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        let stream = try runStream(rig, profile: profile, config: config, seconds: 5, check: &check, gaps: &gaps)
        let notices = stream.takeNotices()
        let failed = try #require(notices.first { $0.message.hasPrefix("re-initialising failed") }, "\(notices.map(\.message))")
        let error = IMUError.bus(I2CError(errno: errno, bus: "simulated bus", address: I2CAddress(0x68)))
        if errno == Errno.ENXIO { #expect(error.description == "nothing answers at 0x68 on simulated bus") }
        #expect(failed.message == "re-initialising failed: \(error); trying again")
        #expect(failed.error == error)
        #expect(notices.filter { $0.error != nil } == [failed], "said once, the other notices carry no error")
        #expect(stream.statistics.reinitialisations == 1)
        #expect(gaps.map(\.reason) == [.busError], "\(gaps)")
        #expect(check.failures.isEmpty)
    }

    @Test(arguments: ["mpu6050", "mpu6500"])
    func stalledReaderOverflowsTheFIFOAndResynchronises(key: String) throws {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig(key, profile: profile, errorModel: nil)
        // The bus hangs for 400 ms: far longer than the FIFO holds at 1 kHz.
        rig.bus.faults = [.init(.always, effect: .stuck, window: 2_000_000_000...2_400_000_000)]
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        try runStream(rig, profile: profile, config: config, seconds: 4, check: &check, gaps: &gaps)
        #expect(gaps.contains { $0.reason == .fifoOverflow })
        #expect(check.failures.isEmpty)
        #expect(rig.chip.counters.fifoOverflows > 0)
    }

    /// Every register the driver touches, failing for 300 ms mid-stream: a recovery, reported
    /// gaps, and never a wrong sample or a hang.
    @Test(arguments: [0x75, 0x6B, 0x6C, 0x68, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x37, 0x38, 0x23, 0x6A, 0x3A, 0x72, 0x74, 0x41] as [UInt8])
    func faultSweepOverEveryRegisterTouched(register: UInt8) throws {
        let profile = MotionProfile.slowRotation()
        for key in ["mpu6050", "mpu6500"] {
            let rig = MPURig(key, profile: profile, errorModel: nil)
            rig.bus.faults = [.init(.register(register), effect: .errno(Errno.EREMOTEIO), window: 2_000_000_000...2_300_000_000),
                              .init(.register(register), effect: .errno(Errno.EIO), count: 1)]
            var check = TruthCheck(rig: rig, profile: profile, config: config)
            var gaps: [StreamGap] = []
            let stream: IMUStream
            do {
                stream = try runStream(rig, profile: profile, config: config, seconds: 4, check: &check, gaps: &gaps)
            } catch let error as IMUError {
                // A fault during start-up surfaces as a typed bus error, and a retry succeeds.
                guard case .bus = error else { Issue.record("unexpected \(error)"); continue }
                continue
            }
            #expect(check.failures.isEmpty, "\(key) register 0x\(hex(register))")
            #expect(check.checked > 3000, "\(key) register 0x\(hex(register))")
            // The stream is healthy at the end.
            var tail: [IMUSample] = []
            for _ in 0..<10 { _ = stream.step(into: &tail) }
            #expect(tail.count >= 100, "\(key) register 0x\(hex(register))")
        }
    }
}

@Suite struct IMUStreamPinModeTests {
    /// With 50 µs pulses every sample has an edge; with an active-low pin the line watches falling
    /// edges. Either way the stream keeps its timing and loses nothing.
    @Test(arguments: [(InterruptPinConfiguration.Mode.pulsed, InterruptPinConfiguration.Level.activeHigh),
                      (.latched, .activeLow), (.pulsed, .activeLow)])
    func pulsedAndActiveLowPins(mode: InterruptPinConfiguration.Mode, level: InterruptPinConfiguration.Level) throws {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig("mpu6500", profile: profile, errorModel: nil) { $0.clockError = -0.01 }
        rig.line.edges = level == .activeLow ? .falling : .rising
        var config = IMUConfiguration(outputDataRate: 500, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 16)
        config.interrupt = InterruptPinConfiguration(level: level, mode: mode)
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        let stream = try runStream(rig, profile: profile, config: config, seconds: 5, check: &check, gaps: &gaps)
        #expect(gaps.isEmpty)
        #expect(check.failures.isEmpty)
        #expect(stream.mode == .interrupts)
        #expect(abs(rig.driver.sampleClock.period - 2e6 / 0.99) < 20)
        if mode == .pulsed { #expect(stream.statistics.edges > 2000) } else { #expect(stream.statistics.edges < 400) }
    }
}

@Suite struct SMBusOnlyBusTests {
    /// On an SMBus-only adapter (i2c-stub) reads stop at 32 bytes: the FIFO burst is split into
    /// reads that each re-address FIFO_R_W, and nothing is lost or misaligned.
    @Test func streamsThroughThirtyTwoByteReads() throws {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig("mpu6050", profile: profile, errorModel: nil)
        rig.bus.maximumReadLength = 32
        let config = IMUConfiguration(outputDataRate: 1000, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 16)
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        rig.bus.trace = []
        try runStream(rig, profile: profile, config: config, seconds: 2, check: &check, gaps: &gaps)
        #expect(gaps.isEmpty)
        #expect(check.failures.isEmpty)
        #expect(check.checked > 1900)
        let reads = rig.bus.trace!.flatMap(\.operations).filter { $0.direction == .read }
        #expect(reads.allSatisfy { $0.bytes.count <= 32 })
        #expect(reads.contains { $0.bytes.count == 32 })
    }
}

@Suite struct IMUStreamWithoutEdgesTests {
    @Test func pollsWithoutALine() throws {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig("mpu6050", profile: profile, errorModel: nil)
        let config = IMUConfiguration(outputDataRate: 200, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 8)
        let stream = IMUStream(imu: rig.driver, line: nil, clock: rig.clock)
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        try runStream(rig, profile: profile, config: config, seconds: 5, check: &check, gaps: &gaps, stream: stream)
        #expect(stream.mode == .polling)
        #expect(gaps.isEmpty)
        #expect(check.failures.isEmpty)
        #expect(abs(check.checked - 1000) <= 10)
        #expect(Double(stream.statistics.wakeups) / 5 <= 200.0 / 8 + 1)
    }

    /// A third of the pulses never reach the reader: timing still comes out right.
    @Test func losingEdgesAtRandomKeepsTheTiming() throws {
        let profile = MotionProfile.slowRotation()
        let rig = MPURig("mpu6500", profile: profile, errorModel: nil) { $0.clockError = 0.012 }
        rig.line.lostEdgeProbability = 0.33
        var config = IMUConfiguration(outputDataRate: 1000, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 16)
        config.interrupt.mode = .pulsed
        var check = TruthCheck(rig: rig, profile: profile, config: config)
        var gaps: [StreamGap] = []
        let stream = try runStream(rig, profile: profile, config: config, seconds: 5, check: &check, gaps: &gaps)
        #expect(gaps.isEmpty)
        #expect(check.failures.isEmpty)
        #expect(stream.mode == .interrupts)
        #expect(rig.line.counters.edgesLost > 1000)
        #expect(abs(rig.driver.sampleClock.period - 1e6 / 1.012) < 5)
    }
}
