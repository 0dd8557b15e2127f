import Foundation

/// One accepted change of device orientation.
public struct OrientationChange: Sendable, Equatable {
    /// The new device orientation.
    public var deviceOrientation: DeviceOrientation
    /// The device orientation before it.
    public var previousDeviceOrientation: DeviceOrientation
    /// The interface orientation after the change (unchanged by faceUp, faceDown and unknown).
    public var interfaceOrientation: InterfaceOrientation
    /// True when this change also changed the interface orientation.
    public var interfaceOrientationChanged: Bool
    /// Gravity in the device frame at the change (unit vector towards the earth).
    public var gravity: SIMD3<Double>
    /// When the sample that settled it was taken, on the sensor's monotonic clock, in nanoseconds.
    public var sampleNanoseconds: UInt64
    /// When the change was published (the reader's wakeup), same clock, in nanoseconds.
    public var publishedNanoseconds: UInt64

    public init(deviceOrientation: DeviceOrientation, previousDeviceOrientation: DeviceOrientation,
                interfaceOrientation: InterfaceOrientation, interfaceOrientationChanged: Bool,
                gravity: SIMD3<Double>, sampleNanoseconds: UInt64, publishedNanoseconds: UInt64) {
        self.deviceOrientation = deviceOrientation
        self.previousDeviceOrientation = previousDeviceOrientation
        self.interfaceOrientation = interfaceOrientation
        self.interfaceOrientationChanged = interfaceOrientationChanged
        self.gravity = gravity
        self.sampleNanoseconds = sampleNanoseconds
        self.publishedNanoseconds = publishedNanoseconds
    }
}

// The seed library's names, spelled as it spells them (reference/platform.md §7).

/// Posted on every device orientation change; userInfo holds
/// ``kMotionOrientationDeviceOrientationKey`` and ``kMotionOrientationKey``.
public let MotionOrientationChangedNotification = Notification.Name("MotionOrientationChangedNotification")
/// Posted when the interface orientation changes; userInfo holds
/// ``kMotionOrientationInterfaceOrientationKey`` and ``kMotionOrientationKey``.
public let MotionOrientationInterfaceOrientationChangedNotification = Notification.Name("MotionOrientationInterfaceOrientationChangedNotification")
/// userInfo key: the ``MotionOrientation`` that posted.
public let kMotionOrientationKey = "MotionOrientationKey"
/// userInfo key: the new ``DeviceOrientation``.
public let kMotionOrientationDeviceOrientationKey = "MotionOrientationDeviceOrientationKey"
/// userInfo key: the new ``InterfaceOrientation``.
public let kMotionOrientationInterfaceOrientationKey = "MotionOrientationInterfaceOrientationKey"

extension Notification.Name {
    /// Swift spelling of ``MotionOrientationChangedNotification`` (the same name).
    public static let motionOrientationChanged = MotionOrientationChangedNotification
    /// Swift spelling of ``MotionOrientationInterfaceOrientationChangedNotification`` (the same name).
    public static let motionOrientationInterfaceOrientationChanged = MotionOrientationInterfaceOrientationChangedNotification
}

extension MotionOrientation {
    /// Swift spellings of the userInfo keys (the same strings as the seed's `k…Key` constants),
    /// plus ``change``.
    public enum UserInfoKey {
        public static let motionOrientation = kMotionOrientationKey
        public static let deviceOrientation = kMotionOrientationDeviceOrientationKey
        public static let interfaceOrientation = kMotionOrientationInterfaceOrientationKey
        /// The whole ``OrientationChange`` (Plumb's addition).
        public static let change = "PlumbOrientationChangeKey"
        /// The ``SensorNotice`` of a ``MotionOrientationSensorNoticeNotification`` (Plumb's addition).
        public static let sensorNotice = "PlumbSensorNoticeKey"
    }

    /// Posts the seed's notifications for `change` on `queue`.
    func postNotifications(for change: OrientationChange, on queue: DispatchQueue) {
        queue.async { [self] in
            let center = NotificationCenter.default
            center.post(name: MotionOrientationChangedNotification, object: self, userInfo: [
                kMotionOrientationKey: self,
                kMotionOrientationDeviceOrientationKey: change.deviceOrientation,
                UserInfoKey.change: change,
            ])
            if change.interfaceOrientationChanged {
                center.post(name: MotionOrientationInterfaceOrientationChangedNotification, object: self, userInfo: [
                    kMotionOrientationKey: self,
                    kMotionOrientationInterfaceOrientationKey: change.interfaceOrientation,
                    UserInfoKey.change: change,
                ])
            }
        }
    }
}
