import Testing
@testable import PlumbOrientation

/// ``OrientationClassifier/Settings`` set field by field: held to the initialiser's ranges where
/// it is written, and a settle time or maximum wait too long to count is "never", not a trap.
@Suite struct ClassifierSettingsTests {
    /// Feeds `gravity` every 10 ms for `seconds` from `start` (nanoseconds, near the clock's end
    /// if need be) and returns the changes.
    static func hold(_ c: inout OrientationClassifier, _ gravity: SIMD3<Double>, seconds: Double, from start: UInt64) -> [DeviceOrientation] {
        var changes: [DeviceOrientation] = []
        for i in 0..<Int(seconds * 100) {
            if let change = c.update(gravity: gravity, timeNanoseconds: start + UInt64(i) * 10_000_000) { changes.append(change) }
        }
        return changes
    }

    @Test func valuesSetInRangeAreKept() {
        var s = OrientationClassifier.Settings.default
        s.settleTime = 0
        s.maximumWait = 0.6
        s.dwellMarginDegrees = 44.5
        s.maximumRotationRate = .infinity
        s.maximumWait = nil
        #expect(s == OrientationClassifier.Settings(settleTime: 0, maximumRotationRate: .infinity, dwellMarginDegrees: 44.5))
    }

    /// A settle time too long to count in nanoseconds, set directly or given to the initialiser
    /// (it allowed these before and the classifier trapped on them), never lets a face settle,
    /// and the time it is due does not wrap past the clock's end.
    @Test(arguments: [Double.infinity, 1e300, 2e10, OrientationClassifier.longestWait])
    func aHugeSettleTimeNeverSettles(seconds: Double) {
        var s = OrientationClassifier.Settings.default
        s.settleTime = seconds
        #expect(OrientationClassifier.Settings(settleTime: seconds) == s)
        var c = OrientationClassifier(settings: s, initial: .portrait)
        let start = UInt64.max - 5_000_000_000
        #expect(Self.hold(&c, gravityInPlane(90), seconds: 3, from: start).isEmpty)
        #expect(c.candidate == .landscapeLeft)
        #expect(c.decisionDueNanoseconds == .max)
        // Early on the clock the due time is the start plus the longest wait.
        var early = OrientationClassifier(settings: s, initial: .portrait)
        #expect(Self.hold(&early, gravityInPlane(90), seconds: 3, from: 1_000_000_000).isEmpty)
        #expect(early.decisionDueNanoseconds == 1_000_000_000 + UInt64(1) << 62)
    }

    /// The same for the time cap: up 32° from landscapeLeft's axis (in its cone, short of a 15°
    /// hysteresis) waits for ever under a huge cap, and is accepted under a 0.6 s one.
    @Test(arguments: [1e300, 1e12, 0.6])
    func aHugeMaximumWaitNeverEnds(seconds: Double) throws {
        var s = OrientationClassifier.Settings(hysteresisDegrees: 15, settleTime: 0.1)
        s.maximumWait = seconds
        var c = OrientationClassifier(settings: s, initial: .portrait)
        let start = UInt64.max - 5_000_000_000
        let changes = Self.hold(&c, gravityInPlane(58), seconds: 3, from: start)
        if seconds < 1 {
            #expect(changes == [.landscapeLeft])
        } else {
            #expect(changes.isEmpty)
            #expect(c.dwellFace == .landscapeLeft)
            #expect(c.dwellDueNanoseconds == .max)
        }
    }

    /// Out of range, set directly, is held to the range where it is written, as the initialiser
    /// does (it used to stop the process there).
    @Test func outOfRangeSetDirectlyIsHeldThere() {
        var s = OrientationClassifier.Settings.default
        s.settleTime = -0.1
        #expect(s.settleTime == 0)
        s.maximumWait = -1
        #expect(s.maximumWait == 0)
        // No cap is nil: an infinite one is taken as none.
        var steady = OrientationClassifier.Settings.steadyAccelerometerOnly
        steady.maximumWait = .infinity
        #expect(steady.maximumWait == nil)
        s.hysteresisDegrees = 45
        #expect(s.hysteresisDegrees < 45 && s.hysteresisDegrees > 44.99)
        #expect(s == OrientationClassifier.Settings(hysteresisDegrees: 45, settleTime: -0.1, maximumWait: -1))
    }
}
