import Foundation
import PlumbDrivers
import PlumbHAL
import PlumbOrientation
import Testing

/// The source factory takes any error: the README's `configure(source: { try makeSource() })` did
/// not compile ("invalid conversion of thrown error type 'any Error' to 'MotionSourceError'"), as
/// Swift does not infer a closure's typed throws from its context, and a program's own errors
/// (a recording's `Data(contentsOf:)`) had to be wrapped by hand.
@Suite struct SourceFactoryTests {
    struct MissingFile: Error, CustomStringConvertible {
        var description: String { "no recording at /srv/trial.csv" }
    }

    static func makeSource() throws -> any MotionSampleSource { throw MissingFile() }

    /// The README's snippet, as written there (its names; a source that fails).
    @Test func theReadmeSnippetCompilesAndAnyErrorIsReported() async {
        let motion = MotionOrientation()
        motion.configure(source: { try Self.makeSource() })
        motion.start()
        defer { motion.stop() }
        #expect(await eventually { motion.lastError != nil })
        #expect(motion.lastError == "sensor source: no recording at /srv/trial.csv")
    }

    /// A ``MotionSourceError`` stays itself: a recording's error still ends the session.
    @Test func aMotionSourceErrorIsKept() async {
        let motion = MotionOrientation()
        motion.configure(source: { throw MotionSourceError.recording("trial.csv:3: column acc_x is missing") })
        let notices = motion.sensorNotices
        motion.start()
        #expect(await eventually { !motion.isEnabled })
        var iterator = notices.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.error == .recording("trial.csv:3: column acc_x is missing"))
    }
}
