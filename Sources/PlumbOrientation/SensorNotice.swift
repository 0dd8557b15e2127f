import Foundation
import PlumbDrivers

/// Something the sensor reported besides samples: a gap in the data, a recovery the driver made
/// on its own (a chip re-initialised after a brown-out, polling through an interrupt storm), a
/// failure the reader will retry, a chip that stopped answering, or the end of such failures.
///
/// On a Raspberry Pi a flaky I2C bus or a sagging supply is normal; the notifier rides through
/// it, and these say that it did and how. ``MotionOrientation/sensorNotices`` and
/// ``MotionOrientationSensorNoticeNotification`` deliver them.
public struct SensorNotice: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Samples were lost (FIFO overflow, a bus error during a FIFO read, a chip reset, a stall).
        case gap(StreamGap)
        /// The driver recovered or changed how it reads (re-initialised the chip, polls instead of
        /// waiting on an interrupt line that stopped or storms, the line is back).
        case recovery
        /// The source failed; the reader makes it again every second
        /// (``MotionOrientation/lastError`` holds the same text). Said once per distinct failure.
        /// A recording that cannot be read ends the session instead.
        case failure
        /// The chip stopped answering while its stream runs: setting it up again failed because
        /// nothing acknowledged its address (ENXIO, or EREMOTEIO on a Raspberry Pi:
        /// ``I2CError/mayMeanNothingAnswers``). The source goes on (its stream keeps setting the
        /// chip up again), unlike after a ``failure``; ``error`` holds the failure. Said by the
        /// stream sources (``IMUStreamSource`` with each such notice of its stream, `plumb run`'s
        /// stream source once per loss); a reader takes a repeat as the same loss.
        case lost
        /// Samples arrive again after a ``failure`` or a ``lost``.
        case restored
    }

    public var kind: Kind
    /// The source's name ("MPU-6050 at 0x68 on /dev/i2c-1").
    public var source: String
    /// What happened, with the fix where there is one.
    public var message: String
    /// When it was noticed, on the sensor's monotonic clock, in nanoseconds (0 for a source that
    /// could not even be made, which has no clock yet).
    public var timeNanoseconds: UInt64
    /// The error of a ``Kind/failure`` notice, so that a program can word the fix for its own
    /// users (``MotionSourceError/busError`` tells a chip that does not answer from a bus
    /// fault); `nil` for the other kinds.
    public var error: MotionSourceError?

    public init(kind: Kind, source: String, message: String, timeNanoseconds: UInt64, error: MotionSourceError? = nil) {
        self.kind = kind
        self.source = source
        self.message = message
        self.timeNanoseconds = timeNanoseconds
        self.error = error
    }

    /// A gap, worded as the daemon's journal words it.
    public init(gap: StreamGap, source: String) {
        let lost = gap.lostSamples.map { ", \($0) samples lost" } ?? ""
        self.init(kind: .gap(gap), source: source, message: "gap in the stream: \(gap.reason.rawValue)\(lost)",
                  timeNanoseconds: gap.detectedNanoseconds)
    }

    public var description: String { "\(source): \(message)" }

    /// A notice of the streaming engine's from `source`: ``Kind/lost`` when it reports a chip
    /// that no longer acknowledges its address (``IMUStream/Notice/error`` with
    /// ``I2CError/mayMeanNothingAnswers``), else ``Kind/recovery``.
    public init(stream notice: IMUStream.Notice, source: String) {
        if let error = notice.error, case .bus(let bus) = error, bus.mayMeanNothingAnswers {
            self.init(kind: .lost, source: source, message: notice.message, timeNanoseconds: notice.timeNanoseconds, error: .imu(error))
        } else {
            self.init(kind: .recovery, source: source, message: notice.message, timeNanoseconds: notice.timeNanoseconds)
        }
    }
}

/// Posted on ``MotionOrientation/notificationQueue`` for every ``SensorNotice`` (Plumb's
/// addition; the iOS library has no sensor to lose). userInfo holds ``kMotionOrientationKey`` and
/// ``MotionOrientation/UserInfoKey/sensorNotice``.
public let MotionOrientationSensorNoticeNotification = Notification.Name("PlumbMotionOrientationSensorNoticeNotification")

extension Notification.Name {
    /// Swift spelling of ``MotionOrientationSensorNoticeNotification`` (the same name).
    public static let motionOrientationSensorNotice = MotionOrientationSensorNoticeNotification
}

extension MotionOrientation {
    /// A new stream of ``SensorNotice``s for one subscriber. Unlike ``orientationChanges`` it
    /// does not keep the sensor running. It keeps the newest 64 a slow consumer has not taken,
    /// and finishes with the orientation streams when the source ends.
    public var sensorNotices: AsyncStream<SensorNotice> {
        let (stream, continuation) = AsyncStream.makeStream(of: SensorNotice.self, bufferingPolicy: .bufferingNewest(64))
        let id = state.withLock { s in
            s.nextSubscriber += 1
            s.noticeSubscribers[s.nextSubscriber] = continuation
            return s.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.noticeSubscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands `notices` to every ``sensorNotices`` stream and posts them.
    func publish(notices: [SensorNotice]) {
        guard !notices.isEmpty else { return }
        let (queue, subscribers) = state.withLock { s in (s.queue, Array(s.noticeSubscribers.values)) }
        for notice in notices {
            for continuation in subscribers { continuation.yield(notice) }
        }
        queue.async { [self] in
            for notice in notices {
                NotificationCenter.default.post(name: MotionOrientationSensorNoticeNotification, object: self, userInfo: [
                    kMotionOrientationKey: self,
                    UserInfoKey.sensorNotice: notice,
                ])
            }
        }
    }
}
