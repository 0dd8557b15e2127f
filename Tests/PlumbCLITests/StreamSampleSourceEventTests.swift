import Foundation
import PlumbConfiguration
import PlumbDrivers
import PlumbHAL
import PlumbOrientation
import PlumbSimulation
import Synchronization
import Testing
@testable import PlumbCLI

/// Where a live source's events go when the command reading it is not `plumb run` (which takes
/// them after every read): `plumb dbus` on the board's IMU prints them; a source nobody drains
/// keeps a bounded number.
@Suite struct StreamSampleSourceEventTests {
    /// A board browning out every 2 s for 10 minutes, read by a program that never takes the
    /// events: at most 64 kept, and the first of what is taken says how many were dropped.
    @Test func untakenEventsAreBounded() throws {
        let sensor = SimulatedSensor(model: try #require(SimulatedChips.model("mpu6050")), profile: .rest(), seed: 3)
        let imu = try DaemonFactory.makeIMU(bus: sensor.bus, address: I2CAddress(0x68), clock: sensor.clock, part: nil)
        let source = StreamSampleSource(name: "emulated MPU-6050", imu: imu, line: sensor.line, clock: sensor.clock)
        try FaultPlan(parsing: (1...300).map { "reset@\($0 * 2)s" }.joined(separator: ",")).install(on: sensor)
        _ = try source.start(IMUConfiguration(outputDataRate: 100, fifoWatermark: 5))
        var samples: [IMUSample] = []
        let end = sensor.clock.nowNanoseconds + Nanoseconds.seconds(610)
        while sensor.clock.nowNanoseconds < end {
            samples.removeAll(keepingCapacity: true)
            _ = try source.read(into: &samples, timeoutNanoseconds: 100_000_000)
        }
        let events = source.takeEvents()
        #expect(events.count == StreamSampleSource.maximumPendingEvents + 1)
        let first = try #require(events.first)
        #expect(first.level == .warning)
        #expect(first.message.hasPrefix("emulated MPU-6050: "), "\(first.message)")
        #expect(first.message.hasSuffix(" earlier events were dropped (not taken in time)"), "\(first.message)")
        // The count is what went: 300 brown-outs each said something.
        let dropped = Int(first.message.dropFirst("emulated MPU-6050: ".count).split(separator: " ").first ?? "") ?? 0
        #expect(dropped >= 300 - StreamSampleSource.maximumPendingEvents, "\(first.message)")
        #expect(source.takeEvents().isEmpty)
        try source.stop()
    }

    /// `plumb dbus` on the board's IMU: each claim session's source prints its notices and
    /// warnings as "plumb dbus: …" (the service's journal) and keeps none; information stays out.
    /// The check at start prints nothing: a warning of the chip's is said when a claim runs it.
    @Test func theDBusSessionSourcePrintsItsEvents() throws {
        let context = CommandContext.capturing()
        let sinks = Mutex<[@Sendable (DaemonEvent) -> Void]>([])
        let source = try DBusLiveSensor.source(Configuration(), path: "test.json", normal: EnergySettings.defaultNormal, open: { sink in
            sinks.withLock { $0.append(sink) }
            return IdleSource()
        }, context: context, powerMonitor: nil)
        try source.start { _ in }
        defer { source.stop() }
        let deadline = Date().addingTimeInterval(10)
        while sinks.withLock({ $0.count }) < 2, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        let (check, session) = try sinks.withLock { s in (try #require(s.first), try #require(s.dropFirst().first)) }
        let events = [DaemonEvent(level: .warning, message: "gap in the stream of IMU at 0x68 on /dev/i2c-1: 12 samples lost (chip reset)"),
                      DaemonEvent(level: .notice, message: "IMU at 0x68 on /dev/i2c-1: interrupts again"),
                      DaemonEvent(level: .info, message: "found MPU-6050 (WHO_AM_I 0x68) at 0x68 on /dev/i2c-1")]
        for event in events { check(event) }
        #expect(context.err.captured == "")
        for event in events { session(event) }
        #expect(context.err.captured == """
            plumb dbus: gap in the stream of IMU at 0x68 on /dev/i2c-1: 12 samples lost (chip reset)
            plumb dbus: IMU at 0x68 on /dev/i2c-1: interrupts again

            """)
    }
}
