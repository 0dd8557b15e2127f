import Foundation
import Testing
@testable import PlumbDBus

/// `plumb run` reloaded with outputs.dbus stops its service and starts the next one at once: the
/// name must be free by the time the stopped service's thread says it ended.
@Suite(.serialized, .enabled(if: PrivateBus.available, "needs dbus-daemon (Debian package dbus-daemon)"))
struct NameReleaseTests {
    @Test func theNameIsFreeOnceAStoppedServiceHasEnded() throws {
        let bus = try PrivateBus()
        var taken = 0
        for _ in 0..<100 {
            do {
                let running = try RunningService(source: nil, address: bus.address)
                try running.shutDown()
            } catch let error as SensorProxyError where error.kind == .nameTaken {
                taken += 1
            }
        }
        #expect(taken == 0, "the name was still taken \(taken) times of 100")
    }
}
