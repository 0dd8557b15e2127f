import Foundation
import PlumbHAL
import Synchronization

/// An ``OrientationSource`` that plays a fixed list of orientations, each held for a time: for
/// trying a desktop's rotation without a sensor (`plumb dbus --script normal:3,left-up:3`) and for
/// tests.
///
/// Every `start` plays the script from its first step on its own thread; after the last step the
/// last orientation stays (or the script starts over when `repeats` is set). Time comes from the
/// injected clock, so with a ``VirtualClock`` a script plays at once.
public final class ScriptedOrientationSource: OrientationSource {
    /// One step: an orientation and how long it is held, in seconds.
    public struct Step: Sendable, Equatable {
        public var orientation: AccelerometerOrientation
        /// Seconds.
        public var duration: Double

        public init(_ orientation: AccelerometerOrientation, for duration: Double) {
            self.orientation = orientation
            self.duration = duration
        }
    }

    /// A script that could not be read, with the offending step.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var step: String
        public var reason: String
        public var description: String { "bad script step '\(step)': \(reason)" }
    }

    public let steps: [Step]
    public let repeats: Bool
    private let clock: any MonotonicClock
    private struct Run { var generation: UInt64; var running: Bool; var finished: DispatchSemaphore? }
    private let state = Mutex(Run(generation: 0, running: false, finished: nil))
    /// How long one sleep lasts at most, so `stop` returns quickly (nanoseconds).
    private let slice: UInt64 = 20 * Nanoseconds.perMillisecond

    public init(steps: [Step], repeats: Bool = false, clock: any MonotonicClock) {
        precondition(!steps.isEmpty, "a script needs at least one step")
        self.steps = steps
        self.repeats = repeats
        self.clock = clock
    }

    /// Reads "normal:2,left-up:1.5,bottom-up:2": orientation strings as the D-Bus property carries
    /// them, each with the seconds it is held.
    public static func parse(_ text: String) throws(ParseError) -> [Step] {
        var steps: [Step] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 2 else {
                throw ParseError(step: String(part), reason: "expected ORIENTATION:SECONDS")
            }
            let name = fields[0].trimmingCharacters(in: .whitespaces)
            guard let orientation = AccelerometerOrientation(rawValue: name) else {
                let names = AccelerometerOrientation.allCases.map(\.rawValue).joined(separator: ", ")
                throw ParseError(step: String(part), reason: "orientation must be one of \(names)")
            }
            guard let seconds = Double(fields[1].trimmingCharacters(in: .whitespaces)), (0...maximumStepSeconds).contains(seconds) else {
                throw ParseError(step: String(part), reason: "seconds must be a number 0...\(Int(maximumStepSeconds)) (a day)")
            }
            steps.append(Step(orientation, for: seconds))
        }
        return steps
    }

    /// The longest a parsed step may last (s). After the last step its orientation stays, so a
    /// longer hold is never needed.
    public static let maximumStepSeconds = 86_400.0

    public func start(report: @escaping @Sendable (AccelerometerOrientation) -> Void) throws {
        let begun: (UInt64, DispatchSemaphore)? = state.withLock { run in
            guard !run.running else { return nil }
            run.running = true
            run.generation &+= 1
            let finished = DispatchSemaphore(value: 0)
            run.finished = finished
            return (run.generation, finished)
        }
        guard let (generation, finished) = begun else { return }
        let thread = Thread { [self] in
            play(generation: generation, report: report)
            finished.signal()
        }
        thread.name = "plumb-script"
        thread.start()
    }

    public func stop() {
        let finished: DispatchSemaphore? = state.withLock { run in
            guard run.running else { return nil }
            run.running = false
            run.generation &+= 1
            defer { run.finished = nil }
            return run.finished
        }
        finished?.wait()
    }

    private func isCurrent(_ generation: UInt64) -> Bool {
        state.withLock { $0.running && $0.generation == generation }
    }

    private func play(generation: UInt64, report: @Sendable (AccelerometerOrientation) -> Void) {
        repeat {
            for step in steps {
                guard isCurrent(generation) else { return }
                report(step.orientation)
                // Saturated: a step built in code (or slowed by --speed 0.001) may last past UInt64 nanoseconds.
                let hold = step.duration.isFinite && step.duration < 1e9 ? Nanoseconds.seconds(max(0, step.duration)) : UInt64.max / 2
                let start = clock.nowNanoseconds
                let end = start > UInt64.max - hold ? UInt64.max : start + hold
                while clock.nowNanoseconds < end {
                    guard isCurrent(generation) else { return }
                    clock.sleep(nanoseconds: min(slice, end - clock.nowNanoseconds))
                }
            }
        } while repeats && isCurrent(generation)
    }
}
