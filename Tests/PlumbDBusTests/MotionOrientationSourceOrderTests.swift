import Foundation
import PlumbOrientation
import Synchronization
import Testing
@testable import PlumbDBus

/// A claim starting while the notifier publishes (`plumb dbus`): the source's start reports the
/// notifier's state when the claim began, and a change posted on the notification queue meanwhile
/// is delivered from that queue's thread. The start's report was made after leaving the source's
/// lock, so the newer value could go out first and the older one after it, leaving the property
/// at the older value (the race `OrientationRelay.start` had; `OrientationRelayOrderTests`).
@Suite struct MotionOrientationSourceOrderTests {
    @Test func aChangeDeliveredDuringTheStartsReportIsPassedOnAfterIt() throws {
        // No sensor: the notifier stays at its start state (unknown, so the property is undefined)
        // and the change is posted by hand, as the notifier posts it.
        let motion = MotionOrientation(source: { () throws(MotionSourceError) -> any MotionSampleSource in
            throw .other("no sensor in this test")
        })
        let source = MotionOrientationSource(motion: motion)
        let reported = Mutex<[AccelerometerOrientation]>([])
        let posted = DispatchSemaphore(value: 0)
        let calls = Atomic<Int>(0)
        try source.start(report: { value in
            if calls.add(1, ordering: .sequentiallyConsistent).oldValue == 0 {
                // The notification queue's delivery, on its own thread, while this report is
                // under way; the pause keeps it under way long enough for the delivery to reach
                // the source.
                let thread = Thread {
                    let change = OrientationChange(deviceOrientation: .portrait, previousDeviceOrientation: .unknown,
                                                   interfaceOrientation: .portrait, interfaceOrientationChanged: false,
                                                   gravity: SIMD3(0, -1, 0), sampleNanoseconds: 1, publishedNanoseconds: 1)
                    NotificationCenter.default.post(name: MotionOrientationChangedNotification, object: motion,
                                                    userInfo: [MotionOrientation.UserInfoKey.change: change])
                    posted.signal()
                }
                thread.start()
                Thread.sleep(forTimeInterval: 0.2)
            }
            reported.withLock { $0.append(value) }
        }, presence: { _ in })
        #expect(posted.wait(timeout: .now() + 10) == .success)
        source.stop()
        #expect(reported.withLock { $0 } == [.undefined, .normal], "the newest value is the last one passed on")
    }
}
