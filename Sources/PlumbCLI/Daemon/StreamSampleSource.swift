import PlumbDrivers
import PlumbHAL
import PlumbOrientation

/// A source that has things to log besides samples (gaps, identity, recovery notices).
protocol DaemonEventSource: AnyObject {
    func takeEvents() -> [DaemonEvent]
}

/// A driver behind the streaming engine as the daemon's sample source: the hardware IMU, or the
/// real driver against the emulated chip for `--simulate`.
final class StreamSampleSource: MotionSampleSource, DaemonEventSource {
    let name: String
    let imu: any IMU
    let stream: IMUStream
    var clock: any MonotonicClock { stream.clock }
    private var events: [DaemonEvent] = []

    init(name: String, imu: any IMU, line: (any InterruptLine)?, clock: any MonotonicClock) {
        self.name = name
        self.imu = imu
        stream = IMUStream(imu: imu, line: line, clock: clock)
    }

    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
        let effective: IMUConfiguration
        do { effective = try stream.start(configuration) } catch { throw .imu(error) }
        if let identity = imu.identity {
            events.append(DaemonEvent(level: .info, message: "found \(identity.part) (WHO_AM_I 0x\(hex(identity.whoAmI))) at \(identity.address) on \(identity.bus)"))
            for warning in identity.warnings { events.append(DaemonEvent(level: .warning, message: warning)) }
        }
        return effective
    }

    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        let before = samples.count
        for gap in stream.step(into: &samples) {
            let lost = gap.lostSamples.map { ", \($0) samples lost" } ?? ""
            events.append(DaemonEvent(level: .warning, message: "gap in the stream from \(name): \(gap.reason.rawValue)\(lost)"))
        }
        for notice in stream.takeNotices() { events.append(DaemonEvent(level: .notice, message: notice.message)) }
        return samples.count > before ? .samples : .timedOut
    }

    func stop() throws(MotionSourceError) {
        do { try stream.stop() } catch { throw .imu(error) }
    }

    func takeEvents() -> [DaemonEvent] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }
}
