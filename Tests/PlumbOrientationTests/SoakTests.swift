import Foundation
import PlumbDrivers
import PlumbHAL
import PlumbSimulation
import Synchronization
import Testing
@testable import PlumbOrientation

/// One cycle of the soak: the tour (every face), 60 s at rest where it ends, shaking (5 Hz,
/// 4 m/s², rocking 0.15 rad) for 30 s, and 60 s at rest lying flat, sampled at 100 Hz.
struct SoakCycle {
    static let rate = 100.0
    let samples: [IMUSample]
    /// Rest spans within the cycle, seconds (start, end).
    let rests: [(Double, Double)]
    let duration: Double

    init() {
        let tour = MotionProfile.tour()
        let tourLength = tour.duration ?? 33
        let end = tour.state(at: tourLength)
        let shaking = MotionProfile.shaking()
        var samples: [IMUSample] = []
        var random = SeededRandom(seed: 5)
        let errors = SensorErrorModel.part(.mpu6050)
        let spans: [(length: Double, state: (Double) -> MotionState)] = [
            (tourLength, { tour.state(at: $0) }),
            (60, { _ in end }),
            (30, { shaking.state(at: $0) }),
            (60, { _ in MotionState(angularRate: .zero, specificForce: SIMD3(0, 0, 9.80665), attitude: nil) }),
        ]
        var t0 = 0.0
        var rests: [(Double, Double)] = []
        for (index, span) in spans.enumerated() {
            let count = Int((span.length * Self.rate).rounded())
            for k in 0..<count {
                let state = span.state(Double(k) / Self.rate)
                let (rate, force) = errors.measure(state, bandwidth: 44, random: &random)
                samples.append(IMUSample(timestampNanoseconds: UInt64(((t0 + Double(k) / Self.rate) * 1e9).rounded()),
                                         acceleration: force, angularRate: rate))
            }
            if index == 1 || index == 3 { rests.append((t0, t0 + span.length)) }
            t0 += span.length
        }
        self.samples = samples
        self.rests = rests
        self.duration = t0
    }
}

/// Plays the soak cycle again and again in virtual time, in FIFO batches, until `hours` pass.
final class SoakSource: MotionSampleSource {
    let name = "soak"
    let cycle: SoakCycle
    let virtualClock = VirtualClock()
    var clock: any MonotonicClock { virtualClock }
    let end: UInt64
    var index = 0
    var offset: UInt64 = 0
    var batch = 5

    init(cycle: SoakCycle, hours: Double) {
        self.cycle = cycle
        self.end = UInt64(hours * 3600e9)
    }

    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
        batch = configuration.fifoWatermark
        return configuration
    }

    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        guard virtualClock.nowNanoseconds < end else { return .finished }
        for _ in 0..<batch {
            var s = cycle.samples[index]
            s.timestampNanoseconds += offset
            samples.append(s)
            index += 1
            if index == cycle.samples.count {
                index = 0
                offset += UInt64((cycle.duration * 1e9).rounded())
            }
        }
        virtualClock.advance(to: samples[samples.count - 1].timestampNanoseconds)
        return .samples
    }

    func stop() throws(MotionSourceError) {}
}

/// Resident memory of this process in bytes (/proc/self/statm), or nil where there is none.
func residentBytes() -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Hours of the soak; PLUMB_SOAK_HOURS overrides (for profiling).
let soakHours = Double(ProcessInfo.processInfo.environment["PLUMB_SOAK_HOURS"] ?? "") ?? 24

@Suite("24-hour soak (virtual time)")
struct SoakTests {
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/statm"), "needs /proc/self/statm to measure memory"))
    func aDayOfTourShakingAndRestIsSteady() async throws {
        let cycle = SoakCycle()
        let motion = MotionOrientation(source: { SoakSource(cycle: cycle, hours: soakHours) })
        let stream = motion.orientationChanges(bufferingPolicy: .unbounded)
        var changes = 0
        var atRest: [Double] = []
        var memoryAfterOneHour: Int?
        var lastTime = 0.0
        for await change in stream {
            changes += 1
            let t = Double(change.sampleNanoseconds) / 1e9
            lastTime = t
            let phase = t.truncatingRemainder(dividingBy: cycle.duration)
            if cycle.rests.contains(where: { phase >= $0.0 && phase < $0.1 }) { atRest.append(t) }
            if memoryAfterOneHour == nil, t > 3600 { memoryAfterOneHour = residentBytes() }
        }
        let memoryAtEnd = residentBytes()
        let cycles = soakHours * 3600 / cycle.duration
        #expect(lastTime > (soakHours - 0.1) * 3600, "the source ran the whole time")
        #expect(atRest.isEmpty, "changes while at rest at \(atRest.prefix(5))")
        // Each tour reports its six faces (and a portrait passed on the 180° turn); shaking flat
        // reports face up once.
        #expect(Double(changes) >= 6 * cycles && Double(changes) <= 9 * cycles, "\(changes) changes in \(cycles) cycles")
        if let a = memoryAfterOneHour, let b = memoryAtEnd {
            #expect(b - a < 2 << 20, "resident memory grew from \(a) to \(b) bytes")
        }
    }
}
