import PlumbConfiguration
import PlumbDBus
import PlumbDrivers
import PlumbFusion
import PlumbHAL
import PlumbOrientation
import Testing
@testable import PlumbCLI

/// An output that needs the sensor only when told (the D-Bus output while claimed) and records
/// what the session says about the chip's presence.
private final class ClaimingOutput: DaemonOutput {
    var name: String { "claiming" }
    var needsSensor = true
    var presence: [SensorPresence] = []
    func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws {}
    func sensorPresenceChanged(_ presence: SensorPresence) { self.presence.append(presence) }
    func restore() throws {}
}

/// `plumb run` with `dbus` the only output, its chip unplugged while a desktop holds a claim,
/// then the claim released (a screen lock): the session pauses the sensor, whose stop writes to
/// the chip that no longer answers. That ended `plumb run` ("cannot stop … (to pause it: no
/// output needs it): nothing answers …"). The chip is known lost, so it is paused all the same,
/// and with the next claim it is set up again and told present once its samples come.
@Suite struct PauseWhileLostTests {
    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aClaimReleasedWhileTheChipIsAwayPausesTheSensor(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let at = I2CAddress(UInt8(0x68))
        let imu = try DaemonFactory.makeIMU(bus: board, address: at, clock: board.clock, part: nil)
        let source = StreamSampleSource(name: "IMU at \(at) on /dev/i2c-1, polling", imu: imu, line: nil, clock: board.clock)
        let output = ClaimingOutput()
        let pipeline = try SensorPipeline(
            source: source, configuration: IMUConfiguration(), orientation: OrientationPipeline(fused: FusionAlgorithm.complementary.makeGravityEstimator()),
            outputs: [output], allowedInterfaces: Set(InterfaceOrientation.allCases), stallLimit: .max, describe: { _ in "" })
        var log: [String] = []
        func step() throws { log += try pipeline.step(timeoutNanoseconds: 100_000_000).map(\.message) }

        board.plugged = false
        for _ in 0..<200 where output.presence.isEmpty { try step() }
        guard case .absent = output.presence.first else { Issue.record("never lost: \(log)"); return }

        output.needsSensor = false
        try step()
        #expect(!pipeline.sensorActive)
        #expect(log.contains("sensor stopped: no output needs it (no D-Bus claim)"), "\(log)")
        #expect(log.contains { $0.hasPrefix("IMU at 0x68 on /dev/i2c-1, polling still does not answer, so it is paused without its stop (") }, "\(log)")

        board.plugged = true
        output.needsSensor = true
        for _ in 0..<200 where output.presence.count < 2 { try step() }
        #expect(pipeline.sensorActive)
        #expect(output.presence.count == 2 && output.presence.last == .present, "\(output.presence)")
    }

    /// A stop that fails while the chip is not known lost still ends the session, as before.
    @Test func aStopThatFailsWithTheChipNotKnownLostStillFails() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        let at = I2CAddress(UInt8(0x68))
        let imu = try DaemonFactory.makeIMU(bus: board, address: at, clock: board.clock, part: nil)
        let source = StreamSampleSource(name: "IMU at \(at) on /dev/i2c-1, polling", imu: imu, line: nil, clock: board.clock)
        let output = ClaimingOutput()
        let pipeline = try SensorPipeline(
            source: source, configuration: IMUConfiguration(), orientation: OrientationPipeline(fused: FusionAlgorithm.complementary.makeGravityEstimator()),
            outputs: [output], allowedInterfaces: Set(InterfaceOrientation.allCases), stallLimit: .max, describe: { _ in "" })
        _ = try pipeline.step(timeoutNanoseconds: 100_000_000)
        board.plugged = false
        output.needsSensor = false
        #expect(throws: CLIError.self) { _ = try pipeline.step(timeoutNanoseconds: 100_000_000) }
        #expect(output.presence.isEmpty)
    }
}
