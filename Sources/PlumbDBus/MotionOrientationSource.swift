import Foundation
import PlumbOrientation
import Synchronization

/// The orientation notifier as an ``OrientationSource``: starts and stops a ``MotionOrientation``
/// and reports its interface orientation as iio-sensor-proxy's strings.
///
/// The property stays `undefined` until the notifier has settled on an upright face once, as
/// iio-sensor-proxy's does until a reading passes its thresholds: a device lying flat since start
/// has no interface orientation yet (the notifier's own value is then only its portrait default).
/// Face up and face down afterwards leave it as it was, and so does an interface orientation
/// outside `allowedInterfaces` (`orientation.interfaceOrientations`, as `plumb run` applies it):
/// the property stays `undefined` until an allowed upright face is seen.
///
/// Changes are taken from ``MotionOrientationChangedNotification`` (not from a stream, which
/// would keep the sensor running), so stopping the source stops the sensor. The notifier's
/// ``SensorNotice``s while it runs (a failure it retries every second, the samples again after
/// it) go to `notices`, from ``MotionOrientationSensorNoticeNotification``. They also tell the
/// sensor's presence (``start(report:presence:)``): a ``SensorNotice/Kind/failure`` (the sensor
/// could not be opened or started, or its reads failed) or a ``SensorNotice/Kind/lost`` (the chip
/// stopped answering inside its stream) is ``SensorPresence/absent(_:)``, and the
/// ``SensorNotice/Kind/restored`` that follows once samples arrive is ``SensorPresence/present``.
public final class MotionOrientationSource: OrientationSource {
    public let motion: MotionOrientation
    /// The interface orientations reported; the others leave the property as it was. Default all four.
    public let allowedInterfaces: Set<InterfaceOrientation>
    /// Takes the notifier's sensor notices between ``start(report:)`` and ``stop()``, on the
    /// notifier's ``MotionOrientation/notificationQueue``; `nil` ignores them.
    public let notices: (@Sendable (SensorNotice) -> Void)?

    private struct State {
        var running = false
        var generation: UInt64 = 0
        var seenUpright = false
        /// The latest allowed interface orientation (reported once an allowed upright face is seen).
        var interface = InterfaceOrientation.portrait
        var observers: [ObserverToken] = []
        var last: AccelerometerOrientation?
    }
    private let state = Mutex(State())

    public init(motion: MotionOrientation, allowedInterfaces: Set<InterfaceOrientation> = Set(InterfaceOrientation.allCases),
                notices: (@Sendable (SensorNotice) -> Void)? = nil) {
        self.motion = motion
        self.allowedInterfaces = allowedInterfaces
        self.notices = notices
    }

    public func start(report: @escaping @Sendable (AccelerometerOrientation) -> Void) throws {
        try start(report: report, presence: { _ in })
    }

    /// Starts the notifier and reports its orientation now and on every change. `report` runs
    /// with the source's lock held (the values go out in the order they were taken), so it must
    /// not call ``stop()`` or start the source again: that would wait on the lock it holds.
    /// `presence` runs outside it.
    public func start(report: @escaping @Sendable (AccelerometerOrientation) -> Void,
                      presence: @escaping @Sendable (SensorPresence) -> Void) throws {
        let generation: UInt64? = state.withLock { s in
            guard !s.running else { return nil }
            s.running = true
            s.generation &+= 1
            s.last = nil
            return s.generation
        }
        guard let generation else { return }
        let observer = NotificationCenter.default.addObserver(
            forName: MotionOrientationChangedNotification, object: motion, queue: nil
        ) { [weak self] notification in
            guard let change = notification.userInfo?[MotionOrientation.UserInfoKey.change] as? OrientationChange else { return }
            self?.deliver(generation: generation, report: report) { (change.deviceOrientation, change.interfaceOrientation) }
        }
        let notices = self.notices
        let noticeObserver = NotificationCenter.default.addObserver(
            forName: MotionOrientationSensorNoticeNotification, object: motion, queue: nil
        ) { [weak self] notification in
            guard let notice = notification.userInfo?[MotionOrientation.UserInfoKey.sensorNotice] as? SensorNotice else { return }
            notices?(notice)
            guard self?.state.withLock({ $0.running && $0.generation == generation }) == true else { return }
            switch notice.kind {
            case .failure, .lost: presence(.absent(notice.description))
            case .restored: presence(.present)
            case .gap, .recovery: break
            }
        }
        let tokens = [ObserverToken(token: observer), ObserverToken(token: noticeObserver)]
        state.withLock { $0.observers = tokens }
        motion.start()
        // The notifier's state is read under the source's lock, as a change is delivered: the
        // notifier records a change before it posts it, so a change delivered before this read
        // is one it reads (or reads past), and one delivered after it comes after this report.
        deliver(generation: generation, report: report) { (self.motion.deviceOrientation, self.motion.interfaceOrientation) }
    }

    public func stop() {
        let observers: [ObserverToken]? = state.withLock { s in
            guard s.running else { return nil }
            s.running = false
            s.generation &+= 1
            defer { s.observers = [] }
            return s.observers
        }
        guard let observers else { return }
        for observer in observers { NotificationCenter.default.removeObserver(observer.token) }
        motion.stop()
    }

    /// Takes the orientation `read` gives and reports it if the property changes. `read` and
    /// `report` are called with the source's lock held, so the value reported last is the one
    /// taken last: reported after the lock, the start's first report (the notifier's state when
    /// the claim began) could reach the service after a newer change delivered meanwhile from the
    /// notification queue, and leave the property at the older value with no PropertiesChanged
    /// for the newer one (the race `OrientationRelay.start` had). `report` must therefore not
    /// call back into the source; ``SensorProxyService`` only takes its own lock and wakes its
    /// bus thread.
    private func deliver(generation: UInt64, report: @Sendable (AccelerometerOrientation) -> Void,
                         read: () -> (DeviceOrientation, InterfaceOrientation)) {
        state.withLock { s in
            guard s.running, s.generation == generation else { return }
            let (device, interface) = read()
            // Only an allowed upright face ends `undefined`: one outside `allowedInterfaces` would
            // report the portrait default, which the desktop would turn the screen to.
            if allowedInterfaces.contains(interface) {
                s.interface = interface
                if device.isUpright { s.seenUpright = true }
            }
            let value = s.seenUpright ? AccelerometerOrientation(s.interface) : .undefined
            guard value != s.last else { return }
            s.last = value
            report(value)
        }
    }
}

/// A NotificationCenter observer token; NotificationCenter's add and remove are thread-safe.
private struct ObserverToken: @unchecked Sendable {
    let token: any NSObjectProtocol
}
