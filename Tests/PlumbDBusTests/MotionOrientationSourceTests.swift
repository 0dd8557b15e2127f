import Foundation
import PlumbDrivers
import PlumbHAL
import PlumbOrientation
import PlumbSimulation
import Synchronization
import Testing
@testable import PlumbDBus

/// A motion profile sampled at the requested rate in virtual time, noise-free, ending at `end`,
/// at most 20 times faster than real time (an unpaced one with no end kept a core busy for as
/// long as its test ran: see `VirtualTimePacer`).
final class ProfileSource: MotionSampleSource {
    let name = "profile"
    private let virtualClock = VirtualClock()
    var clock: any MonotonicClock { virtualClock }
    private let profile: MotionProfile
    private let end: Double
    private var period: UInt64 = 10_000_000
    private var next: UInt64 = 0
    private var pacer = VirtualTimePacer(speedup: 20, wall: WallClock(), minimumPauseNanoseconds: 200 * Nanoseconds.perMicrosecond)

    init(_ profile: MotionProfile, end: Double) {
        self.profile = profile
        self.end = end
    }

    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
        period = UInt64((1e9 / configuration.outputDataRate).rounded())
        pacer.reset()
        return configuration
    }

    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        guard Double(next) / 1e9 <= end else { return .finished }
        let state = profile.state(at: Double(next) / 1e9)
        samples.append(IMUSample(timestampNanoseconds: next, acceleration: state.specificForce, angularRate: state.angularRate))
        virtualClock.advance(to: next)
        next += period
        pacer.pace(virtualNanoseconds: next)
        return .samples
    }

    func stop() throws(MotionSourceError) {}
}

@Suite struct MotionOrientationSourceTests {
    @Test func theTourReportsEveryUprightFaceAsTheDesktopSeesIt() throws {
        let tour = MotionProfile.tour()
        let end = (tour.duration ?? 40) + 1
        let motion = MotionOrientation(source: { ProfileSource(tour, end: end) })
        let source = MotionOrientationSource(motion: motion)
        let seen = Reports()
        try source.start { seen.append($0) }
        try waitUntil(seconds: 30, "the tour's last face (have \(seen.values))") { seen.values.last == .rightUp }
        source.stop()
        // +y, (−z keeps it), −y, −x, +x up; the 180° turn from −x to +x sweeps through the +y face
        // at up to 94 °/s, too fast for the classifier's rate gate to call it held. (The tour
        // starts face up, reported as undefined unless the virtual-time reader has already
        // reached the +y face when the first report is taken.)
        #expect(seen.values.filter { $0 != .undefined } == [.normal, .bottomUp, .leftUp, .rightUp])
        #expect(!motion.isEnabled)
    }

    /// `orientation.interfaceOrientations` without portraitUpsideDown: the tour's upside-down face
    /// leaves the property as it was.
    @Test func anInterfaceOrientationNotAllowedIsNotReported() throws {
        let tour = MotionProfile.tour()
        let end = (tour.duration ?? 40) + 1
        let motion = MotionOrientation(source: { ProfileSource(tour, end: end) })
        let source = MotionOrientationSource(motion: motion, allowedInterfaces: [.portrait, .landscapeLeft, .landscapeRight])
        let seen = Reports()
        try source.start { seen.append($0) }
        try waitUntil(seconds: 30, "the tour's last face (have \(seen.values))") { seen.values.last == .rightUp }
        source.stop()
        #expect(seen.values.filter { $0 != .undefined } == [.normal, .leftUp, .rightUp])
    }

    /// Landscape only (a landscape kiosk): the tour's portrait face, first upright, is not allowed,
    /// so the property stays undefined until a landscape face is seen; it never says normal
    /// (portrait), which the desktop would turn the screen to.
    @Test func anUprightFaceNotAllowedLeavesThePropertyUndefined() throws {
        let tour = MotionProfile.tour()
        let end = (tour.duration ?? 40) + 1
        let motion = MotionOrientation(source: { ProfileSource(tour, end: end) })
        let source = MotionOrientationSource(motion: motion, allowedInterfaces: [.landscapeLeft, .landscapeRight])
        let seen = Reports()
        try source.start { seen.append($0) }
        try waitUntil(seconds: 30, "the tour's last face (have \(seen.values))") { seen.values.last == .rightUp }
        source.stop()
        #expect(seen.values.filter { $0 != .undefined } == [.leftUp, .rightUp])
    }

    @Test func aDeviceLyingFlatSinceStartIsUndefined() throws {
        let motion = MotionOrientation(source: { ProfileSource(.rest(), end: 5) })   // z up: face up
        let source = MotionOrientationSource(motion: motion)
        let seen = Reports()
        try source.start { seen.append($0) }
        try waitUntil("face up") { motion.deviceOrientation == .faceUp }
        try waitUntil("the recording to end") { !motion.isSensorRunning }
        source.stop()
        // The notifier's interface orientation is its portrait default; the property must not claim it.
        #expect(motion.interfaceOrientation == .portrait)
        #expect(seen.values == [.undefined])
    }

    /// The notifier's sensor notices reach `notices` while the source runs: a sensor that fails
    /// after a claim is said in the service's log (it changes no property), and so are the
    /// samples again after it.
    @Test func sensorNoticesReachTheHandlerWhileRunning() throws {
        let broken = Mutex(true)
        let motion = MotionOrientation(source: { () throws(MotionSourceError) -> any MotionSampleSource in
            if broken.withLock({ $0 }) {
                Thread.sleep(forTimeInterval: 0.01)
                throw .bus(I2CError(errno: Errno.ENXIO, bus: "/dev/i2c-1", address: I2CAddress(0x68)))
            }
            return ProfileSource(.rest(), end: .infinity)
        })
        let notices = Mutex<[SensorNotice]>([])
        let source = MotionOrientationSource(motion: motion, notices: { notice in notices.withLock { $0.append(notice) } })
        try source.start { _ in }
        try waitUntil("the failure notice") { notices.withLock { $0.count } == 1 }
        broken.withLock { $0 = false }
        try waitUntil("the restored notice") { notices.withLock { $0.count } == 2 }
        source.stop()
        let seen = notices.withLock { $0 }
        #expect(seen.map(\.kind) == [.failure, .restored])
        #expect(seen.first?.error == .bus(I2CError(errno: Errno.ENXIO, bus: "/dev/i2c-1", address: I2CAddress(0x68))))
        #expect(seen.first?.message == "nothing answers at 0x68 on /dev/i2c-1")
    }

    @Test func stoppingStopsTheNotifier() throws {
        let motion = MotionOrientation(source: { ProfileSource(.rest(), end: .infinity) })
        let source = MotionOrientationSource(motion: motion)
        try source.start { _ in }
        #expect(motion.isEnabled)
        source.stop()
        #expect(!motion.isEnabled)
        try waitUntil("the reader to stop the sensor") { !motion.isSensorRunning }
    }
}

@Suite struct OrientationRelayTests {
    @Test func passesChangesOnOnlyWhileClaimed() throws {
        let relay = OrientationRelay()
        let seen = Reports()
        relay.publish(device: .faceUp, interface: .portrait)          // no upright face yet
        try relay.start { seen.append($0) }
        #expect(seen.values == [.undefined])
        relay.publish(device: .landscapeRight, interface: .landscapeLeft)
        relay.publish(device: .faceDown, interface: .landscapeLeft)   // flat: unchanged
        relay.stop()
        #expect(!relay.isClaimed)
        relay.publish(device: .portraitUpsideDown, interface: .portraitUpsideDown)
        #expect(seen.values == [.undefined, .leftUp])
        try relay.start { seen.append($0) }                           // a new claim gets the latest at once
        #expect(seen.values == [.undefined, .leftUp, .bottomUp])
        #expect(relay.current == .bottomUp)
    }

    /// `plumb run` with a landscape-only `orientation.interfaceOrientations`: its session hands
    /// the outputs portrait (its default) for an upright portrait face, which the relay must not
    /// publish; the property stays undefined until a landscape face comes.
    @Test func anInterfaceOrientationNotAllowedIsNotPublished() throws {
        let relay = OrientationRelay(allowedInterfaces: [.landscapeLeft, .landscapeRight])
        let seen = Reports()
        try relay.start { seen.append($0) }
        relay.publish(device: .portrait, interface: .portrait)
        #expect(relay.current == .undefined)
        relay.publish(device: .landscapeRight, interface: .landscapeLeft)
        relay.publish(device: .portraitUpsideDown, interface: .landscapeLeft) // the session keeps the last allowed one
        relay.stop()
        #expect(seen.values == [.undefined, .leftUp])
    }
}
