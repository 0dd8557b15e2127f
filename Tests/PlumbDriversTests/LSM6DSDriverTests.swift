import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// The LSM6DS driver against the register-level emulator, in virtual time.
final class LSM6DSRig {
    let clock = VirtualClock(startNanoseconds: 1_000_000_000)
    let bus: EmulatedI2CBus
    let chip: LSM6DSEmulator
    let line: SimulatedInterruptLine
    let recorder: RecordingBus
    let imu: LSM6DS

    init(_ variant: LSM6DS.Variant, profile: MotionProfile = .rest(), errorModel: SensorErrorModel = .ideal,
         wiredTo pin: InterruptPinConfiguration.Pin = .int1, part: LSM6DS.Variant? = nil, maximumReadLength: Int? = nil) {
        bus = EmulatedI2CBus(clock: clock, maximumReadLength: maximumReadLength)
        // The chip samples on between the bytes of a burst, as the part does.
        bus.timesEachByte = true
        chip = LSM6DSEmulator(variant: variant, clock: clock, profile: profile, errorModel: errorModel)
        bus.attach(chip, at: I2CAddress(UInt8(0x6A)))
        line = SimulatedInterruptLine(clock: clock)
        line.source = chip
        chip.interruptLine = line
        chip.wiredPin = pin
        recorder = RecordingBus(bus)
        // A part that shares its WHO_AM_I with a different default row needs the override, as on a board.
        let needsPart = LSM6DS.Variant.matching(whoAmI: variant.whoAmI).first != variant
        imu = LSM6DS(bus: recorder, address: I2CAddress(UInt8(0x6A)), clock: clock, part: part ?? (needsPart ? variant : nil))
    }

    /// identify, reset, apply, start.
    @discardableResult
    func start(_ configuration: IMUConfiguration) throws -> IMUConfiguration {
        try imu.identify()
        try imu.reset()
        let effective = try imu.apply(configuration)
        try imu.startStreaming()
        return effective
    }

    /// Waits for watermark edges and drains until `count` samples have arrived.
    func collect(_ count: Int, timeout: UInt64 = 2_000_000_000) throws -> (samples: [IMUSample], gaps: [StreamGap]) {
        var samples: [IMUSample] = []
        var gaps: [StreamGap] = []
        var quiet = 0
        while samples.count < count {
            let edge = try line.waitForEdge(timeoutNanoseconds: timeout)
            let r = try imu.drain(into: &samples, edge: edge)
            gaps += r.gaps
            quiet = edge == nil && r.sampleCount == 0 ? quiet + 1 : 0
            if quiet > 2 { break }
        }
        return (samples, gaps)
    }
}

/// A bus that records every transfer as text: "w 12 05", "w 0f | r 6c".
final class RecordingBus: I2CBus {
    let inner: EmulatedI2CBus
    var log: [String] = []
    init(_ inner: EmulatedI2CBus) { self.inner = inner }
    var path: String { inner.path }
    var maximumReadLength: Int? { inner.maximumReadLength }
    func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
        try inner.transfer(&operations, address: address)
        log.append(operations.map { ($0.direction == .write ? "w " : "r ") + $0.bytes.map { hex($0) }.joined(separator: " ") }
            .joined(separator: " | "))
    }
}

/// A constant motion: `force` m/s², `rate` rad/s.
func constant(force: SIMD3<Double>, rate: SIMD3<Double>) -> MotionProfile {
    MotionProfile(name: "constant") { _ in MotionState(angularRate: rate, specificForce: force, attitude: nil) }
}

@Suite struct LSM6DSDriverTests {
    static let g = 9.80665

    @Test(arguments: LSM6DS.Variant.all)
    func roundTripEveryAccelerometerRange(variant: LSM6DS.Variant) throws {
        for range in variant.accelerometerRanges {
            let force = SIMD3(0.61, -0.37, 0.12) * range.g * Self.g
            let rig = LSM6DSRig(variant, profile: constant(force: force, rate: SIMD3(0.1, -0.2, 0.3)))
            let effective = try rig.start(IMUConfiguration(outputDataRate: 104, accelerometerRange: range.g, fifoWatermark: 8))
            #expect(effective.accelerometerRange == range.g)
            let got = try rig.collect(16).samples
            #expect(got.count >= 16, "\(variant.name) ±\(range.g) g")
            let lsb = range.milliGPerLSB * 1e-3 * Self.g
            for s in got {
                let e = s.acceleration - force
                #expect(max(abs(e.x), abs(e.y), abs(e.z)) <= lsb, "\(variant.name) ±\(range.g) g: \(s.acceleration) vs \(force)")
            }
        }
    }

    @Test(arguments: LSM6DS.Variant.all)
    func roundTripEveryGyroscopeRange(variant: LSM6DS.Variant) throws {
        for range in variant.gyroscopeRanges {
            let rate = SIMD3(0.58, -0.83, 0.21) * range.dps * .pi / 180
            let rig = LSM6DSRig(variant, profile: constant(force: SIMD3(0, 0, Self.g), rate: rate))
            let effective = try rig.start(IMUConfiguration(outputDataRate: 208, gyroscopeRange: range.dps, fifoWatermark: 8))
            #expect(effective.gyroscopeRange == range.dps)
            let got = try rig.collect(16).samples
            #expect(got.count >= 16)
            let lsb = range.milliDPSPerLSB * 1e-3 * .pi / 180
            for s in got {
                let e = s.angularRate - rate
                #expect(max(abs(e.x), abs(e.y), abs(e.z)) <= lsb, "\(variant.name) ±\(range.dps) dps")
            }
        }
    }

    @Test func registerStateAfterApplyLSM6DSO() throws {
        let rig = LSM6DSRig(.lsm6dso)
        try rig.start(IMUConfiguration(outputDataRate: 833, accelerometerRange: 16, gyroscopeRange: 2000, fifoWatermark: 16))
        let r = rig.chip.registers
        #expect(r[0x10] == 0x74)  // 833 Hz, ±16 g (code 1)
        #expect(r[0x11] == 0x7C)  // 833 Hz, ±2000 dps
        #expect(r[0x12] == 0x44)  // BDU | IF_INC
        #expect(r[0x15] == 0x00)
        #expect(r[0x18] == 0xE2)  // reset value 0xE0 + I3C_DISABLE
        #expect(r[0x19] == 0x20)  // TIMESTAMP_EN
        #expect(r[0x07] == 33)    // 16 × 2 + 1 words
        #expect(r[0x08] == 0x46)  // FIFO_COMPR_RT_EN | UNCOPTR_RATE 3 (uncompressed every 32)
        #expect(rig.chip.embeddedRegister(0x05) == 0x08) // EMB_FUNC_EN_B: FIFO_COMPR_EN
        #expect(r[0x01] == 0x00)  // back in the main bank
        #expect(rig.chip.isCompressing)
        #expect(r[0x09] == 0x77)  // BDR 833 Hz both
        #expect(r[0x0A] == 0xD6)  // TS every 32, temperature 1.6 Hz, continuous
        #expect(r[0x0B] == 0x00)  // data-ready latched
        #expect(r[0x56] == 0x01)  // LIR
        #expect(r[0x0D] == 0x08)  // watermark on INT1
        #expect(r[0x0E] == 0x00)
    }

    @Test func registerStateAfterApplyLSM6DS3() throws {
        let rig = LSM6DSRig(.lsm6ds3, wiredTo: .int2)
        var c = IMUConfiguration(outputDataRate: 416, accelerometerRange: 4, gyroscopeRange: 125, fifoWatermark: 10)
        c.interrupt = InterruptPinConfiguration(pin: .int2, level: .activeLow)
        try rig.start(c)
        let r = rig.chip.registers
        #expect(r[0x10] == 0x68)  // 416 Hz, ±4 g (code 2)
        #expect(r[0x11] == 0x62)  // 416 Hz, FS_125
        #expect(r[0x12] == 0x64)  // BDU | H_LACTIVE | IF_INC
        #expect(r[0x18] == 0x38)  // untouched: no I3C on LSM6DS3
        #expect(r[0x19] == 0x38)
        #expect(r[0x58] == 0x81)  // TIMER_EN | LIR
        #expect(r[0x5C] == 0x10)  // TIMER_HR
        #expect(r[0x06] == 66)    // (10 × 2 + 2) × 3 words
        #expect(r[0x07] == 0x80)  // TIMER_PEDO_FIFO_EN
        #expect(r[0x08] == 0x09)  // gyroscope and accelerometer every sample
        #expect(r[0x09] == 0x28)  // timestamp every 8th
        #expect(r[0x0A] == 0x36)  // ODR_FIFO 416 Hz, continuous
        #expect(r[0x0D] == 0x00)
        #expect(r[0x0E] == 0x08)  // watermark on INT2
    }

    @Test func pulsedOpenDrainActiveLowOnTheDSOGeneration() throws {
        let rig = LSM6DSRig(.lsm6dsox)
        var c = IMUConfiguration(outputDataRate: 104, fifoWatermark: 8)
        c.interrupt = InterruptPinConfiguration(pin: .int1, level: .activeLow, drive: .openDrain, mode: .pulsed)
        let effective = try rig.start(c)
        #expect(effective.interrupt == c.interrupt)
        let r = rig.chip.registers
        #expect(r[0x12] == 0x74) // BDU | H_LACTIVE | PP_OD | IF_INC
        #expect(r[0x0B] == 0x80) // DATAREADY_PULSED
        #expect(r[0x56] == 0x00) // LIR off
    }

    @Test func compressionOffLeavesTheFIFOUncompressed() throws {
        let rig = LSM6DSRig(.lsm6dso)
        rig.imu.fifoCompression = false
        try rig.start(IMUConfiguration(outputDataRate: 833, fifoWatermark: 16))
        #expect(rig.chip.registers[0x08] == 0x00)
        #expect(rig.chip.embeddedRegister(0x05) == 0x00)
        #expect(!rig.chip.isCompressing)
        #expect(rig.imu.maximumSamplesPerWatermark == 16)
    }

    @Test func compressionTranscriptReadsModifiesAndLeavesTheEmbeddedBank() throws {
        let rig = LSM6DSRig(.lsm6dso)
        try rig.imu.identify()
        try rig.imu.reset()
        rig.recorder.log.removeAll()
        try rig.imu.apply(IMUConfiguration(outputDataRate: 833, fifoWatermark: 16))
        let bank = rig.recorder.log.drop { $0 != "w 01 80" }.prefix(4)
        #expect(Array(bank) == ["w 01 80", "w 05 | r 00", "w 05 08", "w 01 00"])
        // 33 words; the fewest a sample can take is 2/3 + 1/32 of a word.
        #expect(rig.imu.maximumSamplesPerWatermark == 48)
    }

    @Test func resetTranscriptLSM6DSO() throws {
        let rig = LSM6DSRig(.lsm6dso)
        try rig.imu.identify()
        rig.recorder.log.removeAll()
        try rig.imu.reset()
        #expect(rig.recorder.log == [
            "w 01 00",          // the main register bank (FUNC_CFG_ACCESS answers in every bank)
            "w 0a 00",          // FIFO to bypass first
            "w 12 05",          // SW_RESET | IF_INC
            "w 12 | r 04",      // polled after 1 ms: cleared (CTRL3_C back to its reset value)
            "w 12 84",          // BOOT | IF_INC
            "w 12 | r 04",      // polled after the 15 ms boot time: cleared
            "w 12 44",          // BDU | IF_INC
            "w 18 | r e0",      // CTRL9_XL
            "w 18 e2",          // I3C_DISABLE
        ])
    }

    @Test func resetTranscriptLSM6DS3() throws {
        let rig = LSM6DSRig(.lsm6ds3)
        try rig.imu.identify()
        rig.recorder.log.removeAll()
        try rig.imu.reset()
        #expect(rig.recorder.log == ["w 0a 00", "w 12 05", "w 12 | r 04", "w 12 84", "w 12 | r 04", "w 12 44"])
    }

    @Test func resetThatNeverCompletesTimesOutAfterBoundedReads() throws {
        let rig = LSM6DSRig(.lsm6dso)
        rig.chip.resetNeverCompletes = true
        try rig.imu.identify()
        rig.recorder.log.removeAll()
        #expect(throws: IMUError.self) { try rig.imu.reset() }
        #expect(rig.recorder.log.filter { $0 == "w 12 | r 05" }.count == 50)
    }

    /// A part whose BOOT reloads its trim only with the accelerometer on (the ISM330DHCX /
    /// LSM6DSRX generation's register description, public transcriptions) still starts: the reset
    /// polls BOOT a bounded number of times, notes it in `bootCompleted`, and goes on as the kernel
    /// does (it never reads BOOT back). It threw a timeout, so such a board never streamed.
    @Test(arguments: [LSM6DS.Variant.lsm6dsr, .lsm6dso])
    func aBootThatWaitsForTheAccelerometerDoesNotStopTheStart(_ variant: LSM6DS.Variant) throws {
        let rig = LSM6DSRig(variant)
        rig.chip.bootNeedsAccelerometer = true
        try rig.imu.identify()
        try rig.imu.reset()
        #expect(!rig.imu.bootCompleted)
        #expect(rig.recorder.log.filter { $0 == "w 12 | r 84" }.count == rig.imu.pollAttempts)
        try rig.imu.apply(IMUConfiguration(outputDataRate: 104, fifoWatermark: 8))
        try rig.imu.startStreaming()
        let got = try rig.collect(32)
        #expect(got.samples.count >= 32)
        #expect(got.gaps.isEmpty)
        // The chip as the default emulator has it: BOOT clears, and the reset says so.
        let plain = LSM6DSRig(variant)
        try plain.imu.identify()
        try plain.imu.reset()
        #expect(plain.imu.bootCompleted)
    }

    @Test func lsm6dsvIsRefusedThroughTheDriver() throws {
        final class DSV: RegisterTarget {
            var registerPointer: UInt8 = 0
            func readRegister(_ address: UInt8) -> UInt8 { address == 0x0F ? 0x70 : 0 }
            func writeRegister(_ address: UInt8, _ value: UInt8) {}
            func advance(to nanoseconds: UInt64) {}
        }
        let clock = VirtualClock()
        let bus = EmulatedI2CBus(clock: clock)
        bus.attach(DSV(), at: I2CAddress(UInt8(0x6B)))
        let imu = LSM6DS(bus: bus, address: I2CAddress(UInt8(0x6B)), clock: clock)
        #expect(throws: IMUError.self) { try imu.identify() }
        #expect(throws: IMUError.self) { try imu.reset() }
        #expect(bus.counters.bytesWritten == 2) // two WHO_AM_I reads, nothing written to the part
    }

    @Test(arguments: [LSM6DS.Variant.lsm6dso, .lsm6ds3, .lsm6dsl])
    func timestampsMatchGroundTruth(variant: LSM6DS.Variant) throws {
        // The x force is a clock: 1 m/s² per second, so each sample says when it was taken.
        let rig = LSM6DSRig(variant, profile: MotionProfile(name: "ramp") { t in
            MotionState(angularRate: .zero, specificForce: SIMD3(t.truncatingRemainder(dividingBy: 15), 0, Self.g), attitude: nil)
        })
        if variant.generation == .dso { rig.chip.frequencyFine = 6 } // oscillator 0.9 % fast, trimmed
        try rig.start(IMUConfiguration(outputDataRate: 833, accelerometerRange: 2, fifoWatermark: 32))
        let got = try rig.collect(2000).samples
        #expect(got.count >= 2000)
        let origin = rig.chip.profileStart
        var worst = 0.0
        for s in got.dropFirst() where s.acceleration.x > 0.05 && s.acceleration.x < 14.9 {
            let truth = s.acceleration.x // seconds since the profile's origin, ±1 LSB (0.6 mm/s²)
            let stamped = Double(s.timestampNanoseconds - origin) / 1e9
            worst = max(worst, abs(stamped - truth))
        }
        #expect(worst < 0.0008, "\(variant.name): worst timestamp error \(worst) s")
        let spacing = zip(got, got.dropFirst()).map { Double($1.timestampNanoseconds - $0.timestampNanoseconds) }
        #expect(spacing.allSatisfy { $0 > 0 })
    }

    @Test(arguments: [InterruptPinConfiguration.Pin.int1, .int2])
    func watermarkOnTheConfiguredPin(pin: InterruptPinConfiguration.Pin) throws {
        let rig = LSM6DSRig(.lsm6dso, wiredTo: pin)
        rig.imu.fifoCompression = false // one edge per 16.25 samples exactly
        var c = IMUConfiguration(outputDataRate: 833, fifoWatermark: 16)
        c.interrupt.pin = pin
        try rig.start(c)
        rig.line.resetCounters()
        let start = rig.clock.nowNanoseconds
        let got = try rig.collect(833).samples
        let seconds = Double(rig.clock.nowNanoseconds - start) / 1e9
        let wakeups = Double(rig.line.counters.edgesDelivered) / seconds
        #expect(got.count >= 833)
        #expect(wakeups <= 833.0 / 16 * 1.01, "\(wakeups) wakeups/s")
        #expect(wakeups > 833.0 / 16 * 0.8)
    }

    @Test func watermarkOnTheOtherPinNeverWakesTheLine() throws {
        let rig = LSM6DSRig(.lsm6dso, wiredTo: .int2)
        try rig.start(IMUConfiguration(outputDataRate: 104, fifoWatermark: 4))
        #expect(try rig.line.waitForEdge(timeoutNanoseconds: 500_000_000) == nil)
        var samples: [IMUSample] = []
        let r = try rig.imu.drain(into: &samples, edge: nil) // polling still works
        #expect(r.sampleCount + r.settlingDiscards >= 40, "\(r)")
    }

    @Test(arguments: [LSM6DS.Variant.lsm6dso, .lsm6ds3])
    func overflowIsReportedWithTheLossMeasured(variant: LSM6DS.Variant) throws {
        let rig = LSM6DSRig(variant, profile: MotionProfile(name: "ramp") { t in
            MotionState(angularRate: .zero, specificForce: SIMD3(t.truncatingRemainder(dividingBy: 15), 0, Self.g), attitude: nil)
        })
        try rig.start(IMUConfiguration(outputDataRate: 833, accelerometerRange: 2, fifoWatermark: 16))
        var first = try rig.collect(100).samples
        rig.clock.advance(by: 2_000_000_000) // the reader stalls for 2 s
        var after: [IMUSample] = []
        var gaps: [StreamGap] = []
        for _ in 0..<6 {
            let r = try rig.imu.drain(into: &after, edge: nil)
            gaps += r.gaps
            rig.clock.advance(by: 20_000_000)
        }
        #expect(rig.chip.counters.fifoWordsLost > 0)
        let overflow = try #require(gaps.first { $0.reason == .fifoOverflow })
        #expect(overflow.afterNanoseconds == first.last?.timestampNanoseconds)
        let lost = try #require(overflow.lostSamples)
        let firstAfter = try #require(after.first)
        let expectedLost = (Double(firstAfter.timestampNanoseconds - first.last!.timestampNanoseconds) / 1e9 * 833).rounded() - 1
        #expect(abs(Double(lost) - expectedLost) <= 2)
        #expect(lost > 1000)
        // Every sample emitted after the overflow still carries its true time.
        let origin = rig.chip.profileStart
        for s in after where s.acceleration.x > 0.05 && s.acceleration.x < 14.9 {
            #expect(abs(Double(s.timestampNanoseconds - origin) / 1e9 - s.acceleration.x) < 0.0008)
        }
        first += after
        #expect(zip(first, first.dropFirst()).allSatisfy { $0.timestampNanoseconds < $1.timestampNanoseconds })
    }

    @Test(arguments: [LSM6DS.Variant.lsm6dso, .lsm6ds3trc, .lsm6ds3])
    func selfTestPassesOnAHealthyPartAndFailsOnADeadOne(variant: LSM6DS.Variant) throws {
        let rig = LSM6DSRig(variant, errorModel: .noiseOnly(.lsm6dso))
        let config = IMUConfiguration(outputDataRate: 104, fifoWatermark: 8)
        try rig.start(config)
        let ok = try rig.imu.selfTest()
        #expect(ok.passed, "\(ok.axes.map { "\($0.name) \($0.response)" })")
        #expect(ok.axes.count == 6)
        #expect(abs(ok.axes[2].response - 880) < 10)
        #expect(abs(ok.axes[3].response - 310) < 1)
        #expect(try rig.imu.verifyConfiguration())
        #expect(try rig.collect(8).samples.count >= 8) // streaming resumed
        rig.chip.selfTestAccelerometerMilliG = SIMD3(5, 600, 600)
        let bad = try rig.imu.selfTest()
        #expect(!bad.passed)
        #expect(bad.axes.filter { !$0.passed }.map(\.name) == ["accelerometer x"])
    }

    @Test(arguments: [(LSM6DS.Variant.lsm6ds3, 41.5), (.lsm6dso, -3.25), (.lsm6dsl, 60)])
    func temperature(variant: LSM6DS.Variant, celsius: Double) throws {
        let rig = LSM6DSRig(variant)
        rig.chip.temperature = celsius
        try rig.start(IMUConfiguration(outputDataRate: 52, fifoWatermark: 8))
        let got = try rig.collect(120).samples
        let t = try #require(got.last?.temperature)
        #expect(abs(t - celsius) <= 1 / variant.temperatureLSBPerDegree)
    }

    @Test(arguments: [LSM6DS.Variant.lsm6dso, .lsm6ds3])
    func lowEnergyModeIsAccelerometerOnly(variant: LSM6DS.Variant) throws {
        let force = SIMD3(0.0, Self.g, 0)
        let rig = LSM6DSRig(variant, profile: constant(force: force, rate: SIMD3(1, 1, 1)))
        try rig.start(IMUConfiguration(outputDataRate: 26, fifoWatermark: 4, gyroscopeEnabled: false))
        #expect(rig.chip.registers[0x11] >> 4 == 0)
        #expect(rig.chip.registers[0x15] == 0x10)
        let got = try rig.collect(20).samples
        #expect(got.count >= 20)
        #expect(got.allSatisfy { $0.angularRate == .zero && abs($0.acceleration.y - Self.g) < 0.01 })
    }

    @Test func verifyConfigurationSeesAChipReset() throws {
        let rig = LSM6DSRig(.lsm6dso)
        try rig.start(IMUConfiguration())
        #expect(try rig.imu.verifyConfiguration())
        rig.chip.powerOnReset()
        #expect(try rig.imu.verifyConfiguration() == false)
    }

    @Test func smbusBusGetsWholeWordChunks() throws {
        let rig = LSM6DSRig(.lsm6dso, maximumReadLength: 32)
        try rig.start(IMUConfiguration(outputDataRate: 833, fifoWatermark: 32))
        let got = try rig.collect(300).samples
        #expect(got.count >= 300)
        #expect(rig.recorder.log.contains { $0.hasPrefix("w 78 | r ") && $0.split(separator: " ").count == 4 + 28 })
        let spacing = zip(got, got.dropFirst()).map { Double($1.timestampNanoseconds - $0.timestampNanoseconds) / 1e9 }
        #expect(spacing.allSatisfy { abs($0 - 1 / 833.0) < 0.0001 })
    }
}
