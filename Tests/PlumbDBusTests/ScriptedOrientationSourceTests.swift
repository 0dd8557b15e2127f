import PlumbHAL
import Synchronization
import Testing
@testable import PlumbDBus

@Suite struct ScriptedOrientationSourceTests {
    @Test func parsesAScript() throws {
        let steps = try ScriptedOrientationSource.parse("normal:2, left-up:1.5,bottom-up:0")
        #expect(steps == [.init(.normal, for: 2), .init(.leftUp, for: 1.5), .init(.bottomUp, for: 0)])
    }

    @Test func refusesBadSteps() {
        #expect(throws: ScriptedOrientationSource.ParseError(step: "sideways:1", reason: "orientation must be one of undefined, normal, bottom-up, left-up, right-up")) {
            try ScriptedOrientationSource.parse("normal:1,sideways:1")
        }
        #expect(throws: ScriptedOrientationSource.ParseError(step: "normal", reason: "expected ORIENTATION:SECONDS")) {
            try ScriptedOrientationSource.parse("normal")
        }
        #expect(throws: ScriptedOrientationSource.ParseError(step: "normal:-1", reason: "seconds must be a number 0...86400 (a day)")) {
            try ScriptedOrientationSource.parse("normal:-1")
        }
        #expect(throws: ScriptedOrientationSource.ParseError(step: "normal:1e300", reason: "seconds must be a number 0...86400 (a day)")) {
            try ScriptedOrientationSource.parse("normal:1e300")
        }
    }

    /// A step past UInt64 nanoseconds (1e300 s, or a day at --speed 0.001 ... 1e12 s) used to trap
    /// converting its duration on the script's thread.
    @Test func aStepPastTheNanosecondClockHoldsUntilStopped() throws {
        let clock = VirtualClock()
        let source = ScriptedOrientationSource(steps: [.init(.leftUp, for: 1e300), .init(.normal, for: 1)], clock: clock)
        let seen = Reports()
        try source.start { seen.append($0, at: clock.nowNanoseconds) }
        try seen.wait(count: 1)
        source.stop()
        #expect(seen.values == [.leftUp])
    }

    @Test func playsEveryStepInOrderInVirtualTime() throws {
        let clock = VirtualClock()
        let source = ScriptedOrientationSource(steps: [.init(.normal, for: 2), .init(.leftUp, for: 3), .init(.rightUp, for: 1)], clock: clock)
        let seen = Reports()
        try source.start { seen.append($0, at: clock.nowNanoseconds) }
        try seen.wait(count: 3)
        source.stop()
        #expect(seen.values == [.normal, .leftUp, .rightUp])
        #expect(seen.times == [0, 2_000_000_000, 5_000_000_000])
    }

    @Test func stopEndsTheScriptAndStartPlaysItAgain() throws {
        let clock = VirtualClock()
        let source = ScriptedOrientationSource(steps: [.init(.bottomUp, for: 1), .init(.normal, for: 1)], repeats: true, clock: clock)
        let seen = Reports()
        try source.start { seen.append($0, at: clock.nowNanoseconds) }
        try seen.wait(count: 5)
        source.stop()
        let count = seen.values.count
        #expect(Array(seen.values.prefix(5)) == [.bottomUp, .normal, .bottomUp, .normal, .bottomUp])
        // Nothing after stop returned.
        clock.advance(by: 10_000_000_000)
        #expect(seen.values.count == count)
        try source.start { seen.append($0, at: clock.nowNanoseconds) }
        try seen.wait(count: count + 1)
        source.stop()
        #expect(seen.values[count] == .bottomUp)
    }
}

/// Reports collected from another thread.
final class Reports: Sendable {
    private let state = Mutex<(values: [AccelerometerOrientation], times: [UInt64])>(([], []))
    var values: [AccelerometerOrientation] { state.withLock { $0.values } }
    var times: [UInt64] { state.withLock { $0.times } }

    func append(_ value: AccelerometerOrientation, at time: UInt64 = 0) {
        state.withLock { $0.values.append(value); $0.times.append(time) }
    }

    /// Waits (real time, at most `seconds`) until `count` reports arrived.
    func wait(count: Int, seconds: Double = 10) throws {
        try waitUntil(seconds: seconds, "\(count) reports (have \(values))") { values.count >= count }
    }
}

struct TimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "timed out waiting for \(what)" }
}

/// Polls `condition` every 5 ms for at most `seconds` of real time.
func waitUntil(seconds: Double = 10, _ what: @autoclosure () -> String, _ condition: () -> Bool) throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
    while !condition() {
        guard clock.now < deadline else { throw TimedOut(what: what()) }
        Thread.sleep(forTimeInterval: 0.005)
    }
}

import Foundation
