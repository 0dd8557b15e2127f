import Foundation
import PlumbDrivers
import PlumbHAL
import Testing
@testable import PlumbOrientation

/// Every numeric field of ``EnergySettings`` and ``OrientationClassifier/Settings`` takes any
/// value without stopping the process (`EnergySettings(pollInterval: 0)` did, and so did a
/// negative, infinite or not-a-number one): out of range is the nearest in range, not a number
/// the default, and what the reader does with the result does not trap either.
@Suite struct SettingsRangeTests {
    static let bad: [Double] = [0, -1, -.infinity, .infinity, .nan, 1e300, -0.0]

    /// Each of them in a process of its own: on the old code the first stopped it.
    @Test func noValueStopsTheProcess() async {
        await #expect(processExitsWith: .success) {
            for v in SettingsRangeTests.bad {
                var e = EnergySettings(pollInterval: v, turnWakeInterval: v)
                e.pollInterval = v
                e.turnWakeInterval = v
                var s = OrientationClassifier.Settings(hysteresisDegrees: v, settleTime: v, maximumRotationRate: v, rateTimeConstant: v,
                                                       maximumWait: v, dwellMarginDegrees: v, dwellMaximumRotationRate: v)
                s.hysteresisDegrees = v; s.settleTime = v; s.maximumRotationRate = v; s.rateTimeConstant = v
                s.maximumWait = v; s.dwellMarginDegrees = v; s.dwellMaximumRotationRate = v
                // The classifier and the pipeline take them, and count their times.
                var c = OrientationClassifier(settings: s, initial: .portrait)
                _ = c.update(gravity: SIMD3(0, -1, 0), timeNanoseconds: 0)
                _ = c.update(gravity: SIMD3(-1, 0, 0), timeNanoseconds: 10_000_000)
                _ = c.decisionDueNanoseconds
                var p = OrientationPipeline(fused: AccelerometerGravity(), classifier: s, accelerometerOnlyClassifier: s,
                                            usesGyroscope: false, turnWakeInterval: e.turnWakeInterval)
                _ = p.process(IMUSample(timestampNanoseconds: 0, acceleration: SIMD3(9.8, 0, 0), angularRate: .zero))
                _ = p.wakeHint
                _ = OrientationClassifier.nanoseconds(e.pollInterval)
            }
        }
    }

    /// `OrientationPipeline.turnWakeInterval` and `BackgroundPowerStateMonitor`'s intervals given
    /// directly, not through ``EnergySettings``: each is held as ``EnergySettings`` holds it. The
    /// pipeline's initialiser stopped the process on 0, a negative, an infinite or a not-a-number
    /// interval, one set afterwards stopped it at the next wake hint of a turn, and the monitor's
    /// initialiser stopped it on such a poll interval. In a process of its own, as above.
    @Test func intervalsGivenDirectlyAreHeldAsEnergySettingsHoldsThem() async {
        await #expect(processExitsWith: .success) {
            for v in [0, -1, .nan, .infinity] as [Double] {
                let held = EnergySettings(turnWakeInterval: v).turnWakeInterval
                var p = OrientationPipeline(fused: AccelerometerGravity(), usesGyroscope: false, turnWakeInterval: v)
                #expect(p.turnWakeInterval == held, "\(v)")
                // A turn in progress (TurnWakeTests): portrait for 1 s at 12.5 Hz, then up 50°
                // from it for 0.4 s, past the boundary and short of the hysteresis.
                var t: UInt64 = 0
                for degrees in Array(repeating: 0.0, count: 13) + Array(repeating: 50.0, count: 5) {
                    let r = degrees * .pi / 180
                    _ = p.process(IMUSample(timestampNanoseconds: t, acceleration: 9.81 * SIMD3(sin(r), cos(r), 0), angularRate: .zero))
                    t += 80_000_000
                }
                let last = t - 80_000_000
                let hint = p.wakeHint
                #expect(hint == held.map { last + UInt64(($0 * 1e9).rounded()) }, "\(v)")
                p.turnWakeInterval = 0.5
                p.turnWakeInterval = v
                #expect(p.turnWakeInterval == held, "\(v)")
                #expect(p.wakeHint == hint, "\(v)")

                let monitor = BackgroundPowerStateMonitor(TestPowerMonitor(), pollInterval: v, firstReadTimeout: v)
                #expect(monitor.pollInterval == EnergySettings(pollInterval: v).pollInterval, "\(v)")
                #expect(monitor.pollInterval == (v.isNaN ? 2 : v.isInfinite ? OrientationClassifier.longestWait : EnergySettings.minimumPollInterval), "\(v)")
                #expect(monitor.firstReadTimeout == (v.isNaN ? 0.2 : max(0, min(v, OrientationClassifier.longestWait))), "\(v)")
                _ = try? monitor.readPowerState()
                monitor.sessionEnded()
            }
        }
    }

    /// ``SeedOrientationRule``'s sampling interval is held as ``EnergySettings`` holds its
    /// intervals: 0 or a negative one is ``SeedOrientationRule/minimumInterval``, an infinite one
    /// ``OrientationClassifier/longestWait``, not a number the seed's 0.15 s. The initialiser
    /// stopped the process on 0 and below (its precondition), and on an infinite or not-a-number
    /// interval (its conversion to nanoseconds). In a process of its own.
    @Test func theSeedRulesIntervalIsHeld() async {
        await #expect(processExitsWith: .success) {
            for (v, held) in [(0, 0.001), (-1, 0.001), (-.infinity, 0.001), (.infinity, OrientationClassifier.longestWait),
                              (.nan, 0.15), (1e300, OrientationClassifier.longestWait)] as [(Double, Double)] {
                var rule = SeedOrientationRule(interval: v)
                #expect(rule.interval == held, "\(v)")
                // Standing on the long edge from the start: the rule reads one sample per tick
                // and takes landscape once its readings times the interval pass 0.19 s (at 1 ms,
                // 191 readings: every sample of 100 Hz for 1.91 s).
                var changed: [DeviceOrientation] = []
                var t: UInt64 = 0
                for _ in 0..<300 {
                    if let o = rule.update(acceleration: SIMD3(9.81, 0, 0), timeNanoseconds: t) { changed.append(o) }
                    t += 10_000_000
                }
                #expect(changed == (held <= 0.15 ? [.landscapeLeft] : []), "\(v)")
                // Ticks of the longest interval run past UInt64's end within such times.
                _ = rule.update(acceleration: SIMD3(9.81, 0, 0), timeNanoseconds: UInt64.max - 1)
                _ = rule.update(acceleration: SIMD3(9.81, 0, 0), timeNanoseconds: UInt64.max)
            }
        }
    }

    @Test func thePollIntervalIsHeldToItsRange() {
        #expect(EnergySettings(pollInterval: 0).pollInterval == 0.01)
        #expect(EnergySettings.minimumPollInterval == 0.01)
        #expect(EnergySettings(pollInterval: -3).pollInterval == 0.01)
        #expect(EnergySettings(pollInterval: .nan).pollInterval == 2)
        #expect(EnergySettings(pollInterval: .infinity).pollInterval == OrientationClassifier.longestWait)
        #expect(EnergySettings(pollInterval: 0.5).pollInterval == 0.5)
        var e = EnergySettings.default
        e.pollInterval = 0
        #expect(e.pollInterval == 0.01)
        e.pollInterval = .nan
        #expect(e == EnergySettings.default)
    }

    /// As `plumb watch --turn-wake 0` takes it: 0 or less is never.
    @Test func theTurnWakeIntervalIsHeldToItsRange() {
        #expect(EnergySettings(turnWakeInterval: 0).turnWakeInterval == nil)
        #expect(EnergySettings(turnWakeInterval: -1).turnWakeInterval == nil)
        #expect(EnergySettings(turnWakeInterval: .nan).turnWakeInterval == EnergySettings.defaultTurnWakeInterval)
        #expect(EnergySettings(turnWakeInterval: .infinity).turnWakeInterval == OrientationClassifier.longestWait)
        #expect(EnergySettings(turnWakeInterval: 0.5).turnWakeInterval == 0.5)
        var e = EnergySettings.default
        e.turnWakeInterval = -0.5
        #expect(e.turnWakeInterval == nil)
        e.turnWakeInterval = 1e300
        #expect(e.turnWakeInterval == OrientationClassifier.longestWait)
    }

    @Test func classifierFieldsAreHeldToTheirRanges() {
        typealias S = OrientationClassifier.Settings
        let low = S(hysteresisDegrees: -1, settleTime: -1, maximumRotationRate: -1, rateTimeConstant: -1,
                    maximumWait: -1, dwellMarginDegrees: -1, dwellMaximumRotationRate: -1)
        #expect(low == S(hysteresisDegrees: 0, settleTime: 0, maximumRotationRate: 0, rateTimeConstant: 0,
                         maximumWait: 0, dwellMarginDegrees: 0, dwellMaximumRotationRate: 0))
        // Not a number: the defaults (no time cap).
        let nan = S(hysteresisDegrees: .nan, settleTime: .nan, maximumRotationRate: .nan, rateTimeConstant: .nan,
                    maximumWait: .nan, dwellMarginDegrees: .nan, dwellMaximumRotationRate: .nan)
        #expect(nan == S.default)
        let high = S(hysteresisDegrees: 90, settleTime: .infinity, maximumRotationRate: .infinity, rateTimeConstant: .infinity,
                     maximumWait: .infinity, dwellMarginDegrees: 90, dwellMaximumRotationRate: .infinity)
        #expect(high.hysteresisDegrees == 45.0.nextDown)
        #expect(high.dwellMarginDegrees == 45.0.nextDown)
        #expect(high.settleTime == .infinity)
        #expect(high.rateTimeConstant == .greatestFiniteMagnitude)
        #expect(high.maximumWait == nil)
        // Values in range are kept as given.
        #expect(S.steadyAccelerometerOnly == S(hysteresisDegrees: 15, settleTime: 0.1, maximumRotationRate: 60, rateTimeConstant: 0.1,
                                               maximumWait: 0.6, dwellMarginDegrees: 12, dwellMaximumRotationRate: 80))
        #expect(S.steadyAccelerometerOnly.maximumWait == 0.6)
    }

    /// The notifier runs with a poll interval that was 0: the monitor is read every 10 ms of the
    /// source's clock, and the sensor is still read between.
    @Test func aNotifierWithAZeroPollIntervalRuns() async {
        let log = SourceLog()
        let monitor = TestPowerMonitor()
        let motion = MotionOrientation(source: { ProfileSource(.rest(), log: log) }, energy: EnergySettings(pollInterval: 0), monitor: monitor)
        motion.start()
        defer { motion.stop() }
        #expect(await eventually { log.reads > 20 && monitor.reads.withLock { $0 } > 2 })
    }
}
