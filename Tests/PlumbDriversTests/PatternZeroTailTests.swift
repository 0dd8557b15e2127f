import Foundation
import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// A pattern-FIFO bus whose reads go to zero partway through a burst (SDA held low, or the chip's
/// brown-out, from a byte on): first one whole burst (a loss: the samples after it are held for
/// the next timestamp set), then, in a later burst, from the first byte of the pattern's timestamp
/// set to the end. The chip popped every set it was asked for.
///
/// It follows the pattern position from the driver's FIFO_STATUS1–4 reads (the driver reads them
/// before every burst) to find where the timestamp set falls in a burst.
final class PatternTailZeroingBus: I2CBus {
    let inner: EmulatedI2CBus
    let wordsPerPattern: Int
    /// Where the timestamp set starts in the pattern, in words.
    let timestampWord: Int
    /// From this virtual time: one burst zeroed whole, then the next holding the timestamp set zeroed from it.
    let from: UInt64
    let clock: VirtualClock
    private var position = 0
    private(set) var zeroedWhole = false
    private(set) var zeroedTail = false

    init(_ inner: EmulatedI2CBus, clock: VirtualClock, pattern: LSM6DS.PatternFIFO, from: UInt64) {
        self.inner = inner; self.clock = clock; self.from = from
        wordsPerPattern = pattern.wordsPerPattern
        // The first instant holds every set; the timestamp set is its last.
        timestampWord = (pattern.instants[0].count - 1) * 3
    }
    var path: String { inner.path }
    var maximumReadLength: Int? { inner.maximumReadLength }

    func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
        try inner.transfer(&operations, address: address)
        guard operations.count == 2, operations[1].direction == .read else { return }
        let read = operations[1].bytes
        switch operations[0].bytes.first {
        case LSM6DS.Register.fifoStatus1 where read.count == 4:
            position = Int(read[2]) | Int(read[3] & 0x03) << 8
        case LSM6DS.PatternFIFO.dataRegister where clock.nowNanoseconds >= from && !zeroedTail:
            let words = read.count / 2
            defer { position = (position + words) % wordsPerPattern }
            if !zeroedWhole {
                zeroedWhole = true
                for j in operations[1].bytes.indices { operations[1].bytes[j] = 0 }
                return
            }
            let offset = (timestampWord - position % wordsPerPattern + wordsPerPattern) % wordsPerPattern
            guard offset + 3 <= words else { return } // no timestamp set in this burst: the samples stay held
            zeroedTail = true
            for j in (offset * 2)..<read.count { operations[1].bytes[j] = 0 }
        default:
            break
        }
    }
}

/// The zeroed tail of a pattern-FIFO burst that starts at a timestamp set: the set is no
/// timestamp (a counter of 0), so neither the samples held since a loss nor the timeline after
/// it are timed from it.
///
/// Before the fix the tail was dropped word by word from the end of the decoded words, where the
/// decoder puts the timestamp word before its instant's sensor words, so the zero timestamp
/// stayed (and the instant's good gyroscope and accelerometer sets went instead): it timed the
/// samples held since the loss (``LSM6DS/SampleAssembler/holdsSamplesAfterDiscontinuity``, on the
/// pattern FIFO since this session) by the slots since the loss alone, and as the last trusted
/// counter value (0) it made every later timestamp set look hours ahead, so no sample was emitted
/// again until the stream was restarted.
@Suite struct PatternZeroTailTests {
    @Test(arguments: [("lsm6ds3", 104.0, 4, true), ("lsm6dsl", 208.0, 8, true), ("lsm6ds3", 12.5, 7, false)])
    func aZeroedTailFromATimestampSetTimesNothing(chip: String, rate: Double, watermark: Int, gyroscope: Bool) throws {
        let model = try #require(SimulatedChips.model(chip))
        let variant = try #require(LSM6DS.Variant.all.first { $0.key == chip })
        let sensor = SimulatedSensor(model: model, profile: BroadSlice.profile, seed: 1)
        let log = FIFOTruthLog(reservingCapacity: Int(rate * 8))
        sensor.chip.fifoTruth = log
        let pattern = LSM6DS.PatternFIFO(gyroscopeDecimation: gyroscope ? 1 : 0, accelerometerDecimation: 1,
                                         timestampDecimation: variant.timestampDecimation)
        let bus = PatternTailZeroingBus(sensor.bus, clock: sensor.clock, pattern: pattern,
                                        from: sensor.clock.nowNanoseconds + 2 * Nanoseconds.perSecond)
        let needsPart = LSM6DS.Variant.matching(whoAmI: variant.whoAmI).first != variant
        let driver = LSM6DS(bus: bus, address: model.address, clock: sensor.clock, part: needsPart ? variant : nil)
        let stream = IMUStream(imu: driver, line: sensor.line, clock: sensor.clock)
        let effective = try stream.start(IMUConfiguration(outputDataRate: rate, accelerometerRange: 8, gyroscopeRange: 1000,
                                                          fifoWatermark: watermark, gyroscopeEnabled: gyroscope))
        var samples: [IMUSample] = []
        var gaps: [StreamGap] = []
        let end = sensor.clock.nowNanoseconds + 6 * Nanoseconds.perSecond
        var steps = 0
        while sensor.clock.nowNanoseconds < end, steps < 200_000 {
            gaps += stream.step(into: &samples)
            steps += 1
        }
        #expect(bus.zeroedWhole && bus.zeroedTail, "the faults took effect")
        let entries = log.entries
        let period = entries.count > 100
            ? Double(entries[entries.count - 1].nanoseconds - entries[entries.count - 101].nanoseconds) / 100
            : 1e9 / effective.outputDataRate
        let check = DifferentialCheck(samples: samples, gaps: gaps, truth: entries, period: period, tolerance: 125_000)
        for f in check.failures { Issue.record("\(chip) \(rate) Hz: \(f)") }
        // Two bursts lost, and little more: the stream goes on after them.
        #expect(check.emitted > Int(rate * 6 * 0.85), "\(chip) \(rate) Hz: \(check.emitted) samples in 6 s; gaps \(gaps.map { "\($0.reason):\($0.lostSamples ?? -1)" })")
    }
}
