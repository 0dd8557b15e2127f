import Foundation
import Synchronization
import Testing
@testable import PlumbDBus

/// A claim starting while the daemon's session publishes: `plumb run` resumes its sensor as soon
/// as ``OrientationRelay/isClaimed`` turns true, so its first orientation can be published while
/// the claim's start is still reporting the latest one. The relay reported that one after leaving
/// its lock, so the newer value went out first and the older one after it: the service's
/// property ended where it began, and the claim got no PropertiesChanged.
@Suite struct OrientationRelayOrderTests {
    @Test func aPublishDuringTheClaimsFirstReportIsPassedOnAfterIt() throws {
        let relay = OrientationRelay()
        let reported = Mutex<[AccelerometerOrientation]>([])
        let published = DispatchSemaphore(value: 0)
        try relay.start(report: { value in
            let first = reported.withLock { $0.isEmpty }
            if first {
                // The session's step, on its own thread, while this report is under way; the
                // pause keeps it under way long enough for the publish to reach the relay.
                let thread = Thread {
                    relay.publish(device: .portrait, interface: .portrait)
                    published.signal()
                }
                thread.start()
                Thread.sleep(forTimeInterval: 0.2)
            }
            reported.withLock { $0.append(value) }
        }, presence: { _ in })
        #expect(published.wait(timeout: .now() + 10) == .success)
        #expect(reported.withLock { $0 } == [.undefined, .normal], "the newest value is the last one passed on")
    }
}
