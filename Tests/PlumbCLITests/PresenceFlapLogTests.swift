import PlumbHAL
import Testing
@testable import PlumbCLI

/// ``PresenceFlapLog``: the first loss and return in full, then one summary a window while the
/// chip keeps coming and going, and in full again after a quiet window.
@Suite struct PresenceFlapLogTests {
    let second = Nanoseconds.perSecond

    @Test func theFirstLossAndReturnAreToldThenTheRestIsSummedUp() {
        var log = PresenceFlapLog()
        func record(_ change: PresenceFlapLog.Change, _ now: UInt64) -> Bool { log.record(change, now: now) }
        func flush(_ now: UInt64, force: Bool = false) -> PresenceFlapLog.Summary? { log.flush(now: now, force: force) }
        #expect(record(.lost, 0))
        #expect(record(.back, 1 * second))
        #expect(!log.isHolding)
        #expect(!record(.lost, 2 * second))
        #expect(log.isHolding)
        #expect(!record(.back, 3 * second))
        #expect(!record(.lost, 4 * second))
        #expect(flush(61 * second) == nil)
        #expect(flush(62 * second) == PresenceFlapLog.Summary(losses: 2, returns: 1, seconds: 60, last: .lost))
        // Still coming and going: held, and summed up a window later.
        #expect(!record(.back, 70 * second))
        #expect(flush(100 * second) == nil)
        #expect(flush(122 * second) == PresenceFlapLog.Summary(losses: 0, returns: 1, seconds: 60, last: .back))
        // A window without a change: nothing to say, and the next loss is told again.
        #expect(flush(182 * second) == nil)
        #expect(!log.isHolding)
        #expect(record(.lost, 190 * second))
    }

    @Test func aQuietWindowAfterTheToldPairStartsAfresh() {
        var log = PresenceFlapLog()
        func record(_ change: PresenceFlapLog.Change, _ now: UInt64) -> Bool { log.record(change, now: now) }
        func flush(_ now: UInt64, force: Bool = false) -> PresenceFlapLog.Summary? { log.flush(now: now, force: force) }
        #expect(record(.lost, 0))
        #expect(record(.back, 1 * second))
        #expect(record(.lost, 70 * second))
        #expect(record(.back, 71 * second))
        #expect(!record(.lost, 72 * second))
    }

    @Test func aForcedFlushSaysWhatIsHeldAtOnce() {
        var log = PresenceFlapLog()
        func record(_ change: PresenceFlapLog.Change, _ now: UInt64) -> Bool { log.record(change, now: now) }
        func flush(_ now: UInt64, force: Bool = false) -> PresenceFlapLog.Summary? { log.flush(now: now, force: force) }
        #expect(flush(0, force: true) == nil)
        _ = record(.lost, 0)
        _ = record(.back, second)
        #expect(flush(2 * second, force: true) == nil)
        _ = record(.lost, 3 * second)
        #expect(flush(13 * second, force: true) == PresenceFlapLog.Summary(losses: 1, returns: 0, seconds: 10, last: .lost))
        #expect(!log.isHolding)
    }
}
