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

/// The daemon's session on the emulated board that can be unplugged, polling its MPU-6050 at
/// 0x68, with one output that needs the sensor while told.
private func lostChipSession(_ board: DBusBoard, stallLimit: UInt64 = 10 * Nanoseconds.perSecond) throws -> (SensorPipeline, ClaimingOutput) {
    let at = I2CAddress(UInt8(0x68))
    let imu = try DaemonFactory.makeIMU(bus: board, address: at, clock: board.clock, part: nil)
    let source = StreamSampleSource(name: "IMU at \(at) on /dev/i2c-1, polling", imu: imu, line: nil, clock: board.clock)
    let output = ClaimingOutput()
    let pipeline = try SensorPipeline(
        source: source, configuration: IMUConfiguration(), orientation: OrientationPipeline(fused: FusionAlgorithm.complementary.makeGravityEstimator()),
        outputs: [output], allowedInterfaces: Set(InterfaceOrientation.allCases), stallLimit: stallLimit, describe: { _ in "" })
    return (pipeline, output)
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
        let (pipeline, output) = try lostChipSession(board, stallLimit: .max)
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

    /// The claim comes back while the chip is still away: the start cannot set it up. That ended
    /// `plumb run` ("cannot restart …"); the session, which has tried the chip every second since
    /// the pause, goes on trying, says nothing more, and takes the chip's samples once it answers.
    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aClaimWhileTheChipIsStillAwayWaitsForIt(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let (pipeline, output) = try lostChipSession(board)
        var log: [String] = []
        func step() throws { log += try pipeline.step(timeoutNanoseconds: 100_000_000).map(\.message) }
        board.plugged = false
        for _ in 0..<200 where output.presence.isEmpty { try step() }
        guard case .absent = output.presence.first else { Issue.record("never lost: \(log)"); return }
        output.needsSensor = false
        try step()
        #expect(!pipeline.sensorActive)

        output.needsSensor = true
        for _ in 0..<50 { try step() }
        #expect(!pipeline.sensorActive)
        let said = log.filter { $0.contains("still does not answer") }
        #expect(said.count == 1 && said[0].hasSuffix("; it is tried every second and set up again once it answers"), "\(log.suffix(10))")

        board.plugged = true
        for _ in 0..<200 where output.presence.count < 2 { try step() }
        #expect(pipeline.sensorActive)
        #expect(output.presence.last == .present, "\(output.presence)")
        #expect(log.contains { $0.hasPrefix("IMU at 0x68 on /dev/i2c-1, polling answers after ") }, "\(log.suffix(10))")
        for _ in 0..<5 { try step() }
        #expect(pipeline.sensorActive)
    }

    /// The chip comes back while the sensor is paused and no claim is made (a desktop claims only
    /// while HasAccelerometer is true): nothing started it again, so it stayed absent for good and
    /// no desktop claimed it until `plumb run` restarted. It is tried every second, told present
    /// once it answers, and paused again.
    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aChipBackWhilePausedIsToldPresentWithoutAClaim(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let (pipeline, output) = try lostChipSession(board, stallLimit: .max)
        var log: [String] = []
        func step() throws { log += try pipeline.step(timeoutNanoseconds: 100_000_000).map(\.message) }
        board.plugged = false
        for _ in 0..<200 where output.presence.isEmpty { try step() }
        guard case .absent = output.presence.first else { Issue.record("never lost: \(log)"); return }
        output.needsSensor = false
        for _ in 0..<30 { try step() }
        #expect(!pipeline.sensorActive)
        #expect(output.presence.count == 1, "\(output.presence)")

        board.plugged = true
        for _ in 0..<200 where output.presence.count < 2 { try step() }
        #expect(output.presence.count == 2 && output.presence.last == .present, "\(output.presence) \(log.suffix(10))")
        for _ in 0..<5 { try step() }
        #expect(!pipeline.sensorActive, "\(log.suffix(10))")
        #expect(log.filter { $0 == "sensor stopped: no output needs it (no D-Bus claim)" }.count == 2, "\(log.suffix(10))")
        #expect(output.presence.count == 2, "\(output.presence)")
    }

    /// The chip goes just as the claim is released, before the stream notices: the pause's stop
    /// finds nothing answering. That ended `plumb run` ("cannot stop …"); the chip is now taken
    /// as lost (the outputs told absent), paused without its stop, tried every second and told
    /// present once it answers.
    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aStopThatFindsNothingAnsweringPausesAndAwaitsTheChip(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let (pipeline, output) = try lostChipSession(board, stallLimit: .max)
        var log: [String] = []
        func step() throws { log += try pipeline.step(timeoutNanoseconds: 100_000_000).map(\.message) }
        try step()
        board.plugged = false
        output.needsSensor = false
        try step()
        #expect(!pipeline.sensorActive)
        guard case .absent = output.presence.first else { Issue.record("not told absent: \(output.presence) \(log)"); return }
        #expect(log.contains { $0.hasPrefix("IMU at 0x68 on /dev/i2c-1, polling does not answer, so it is paused without its stop (") }, "\(log)")
        #expect(pipeline.status.hasPrefix("waiting for the IMU at 0x68"), "\(pipeline.status)")

        board.plugged = true
        for _ in 0..<200 where output.presence.count < 2 { try step() }
        #expect(output.presence.count == 2 && output.presence.last == .present, "\(output.presence)")
        for _ in 0..<5 { try step() }
        #expect(!pipeline.sensorActive)
    }

    /// The chip comes back just before the claim is released, while the session still takes it
    /// as lost (no samples yet): the pause's stop succeeds. The sensor was paused with the outputs
    /// told absent and nothing to start it again without a claim, which a desktop makes only
    /// while HasAccelerometer is true, so it stayed absent until `plumb run` restarted. The
    /// chip answered the stop: it is set up once and told present, then paused again.
    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aChipBackJustBeforeThePauseIsToldPresent(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let (pipeline, output) = try lostChipSession(board, stallLimit: .max)
        var log: [String] = []
        func step() throws { log += try pipeline.step(timeoutNanoseconds: 100_000_000).map(\.message) }
        board.plugged = false
        for _ in 0..<200 where output.presence.isEmpty { try step() }
        guard case .absent = output.presence.first else { Issue.record("never lost: \(log)"); return }

        board.plugged = true
        output.needsSensor = false
        try step()
        #expect(!pipeline.sensorActive, "\(log.suffix(10))")
        for _ in 0..<50 where output.presence.count < 2 { try step() }
        #expect(output.presence.count == 2 && output.presence.last == .present, "\(output.presence) \(log.suffix(10))")
        for _ in 0..<5 { try step() }
        #expect(!pipeline.sensorActive, "\(log.suffix(10))")
        #expect(output.presence.count == 2, "\(output.presence)")
        #expect(pipeline.status == "", "\(pipeline.status)")
    }

    /// `plumb run` stopped, or reloaded, while the sensor is paused without its stop (the chip
    /// away): nothing is stopped, so the shutdown says nothing and does not fail, and a reload
    /// awaits the chip in the pipeline it builds (``DaemonHandover/awaitsSensor``).
    @Test func aShutdownWhilePausedAndAwayIsCleanAndTheReloadAwaitsTheChip() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        let (pipeline, output) = try lostChipSession(board, stallLimit: .max)
        board.plugged = false
        for _ in 0..<200 where output.presence.isEmpty { _ = try pipeline.step(timeoutNanoseconds: 100_000_000) }
        output.needsSensor = false
        _ = try pipeline.step(timeoutNanoseconds: 100_000_000)
        #expect(!pipeline.sensorActive)
        let selection = BoardSelection(board: Board(id: "generic", name: "Generic", models: [], i2cBus: "/dev/i2c-1", interrupt: nil,
                                                    display: nil, leds: [], imuAddress: I2CAddress(UInt8(0x68))), reason: .override)
        #expect(pipeline.handOver(to: DaemonSetup(path: "plumb.json", configuration: Configuration(), board: selection)).awaitsSensor)
        #expect(try pipeline.shutdown() == [])
    }

    /// A stop that fails for another reason than silence at the address still ends the session.
    @Test func aStopThatFailsOtherwiseStillEndsTheSession() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        let (pipeline, output) = try lostChipSession(board, stallLimit: .max)
        _ = try pipeline.step(timeoutNanoseconds: 100_000_000)
        board.failEveryTransfer(errno: Errno.EINVAL)
        output.needsSensor = false
        #expect(throws: CLIError.self) { _ = try pipeline.step(timeoutNanoseconds: 100_000_000) }
        #expect(output.presence.isEmpty)
    }
}

/// `plumb run`'s stall limit (no samples for 10 s ends the session, for systemd to restart) and
/// a chip the stream knows is lost: the stream sets it up again on its own, so the session stays
/// up however long the chip is away (it ended after 10 s, and each restart then failed while
/// nothing answered), and its samples are taken again when it answers. A stream that stops
/// delivering without a known loss still ends the session.
@Suite struct StallWhileLostTests {
    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aChipAwayLongerThanTheStallLimitDoesNotEndTheSession(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let (pipeline, output) = try lostChipSession(board)
        var log: [String] = []
        func step() throws { log += try pipeline.step(timeoutNanoseconds: 100_000_000).map(\.message) }
        try step()
        board.plugged = false
        let unplugged = board.clock.nowNanoseconds
        // 30 s of virtual time away: three times the stall limit.
        var steps = 0
        while board.clock.nowNanoseconds &- unplugged < 30 * Nanoseconds.perSecond, steps < 100_000 {
            try step()
            steps += 1
        }
        #expect(board.clock.nowNanoseconds &- unplugged >= 30 * Nanoseconds.perSecond, "the virtual clock did not move: \(steps) steps")
        guard case .absent = output.presence.first else { Issue.record("never lost: \(log.suffix(20))"); return }
        #expect(log.filter { $0.hasPrefix("no samples from IMU at 0x68 on /dev/i2c-1, polling for ") }.count == 1, "\(log.suffix(20))")

        board.plugged = true
        for _ in 0..<200 where output.presence.count < 2 { try step() }
        #expect(output.presence.last == .present, "\(output.presence)")
        #expect(log.contains("samples from IMU at 0x68 on /dev/i2c-1, polling again"), "\(log.suffix(20))")
    }

    /// A source that delivers nothing and reports no loss.
    final class SilentSource: MotionSampleSource {
        let name = "silent test source"
        let board = VirtualClock()
        var clock: any MonotonicClock { board }
        func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration { configuration }
        func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
            board.advance(by: timeoutNanoseconds)
            return .timedOut
        }
        func stop() throws(MotionSourceError) {}
    }

    @Test func aStreamSilentWithoutAKnownLossStillEndsTheSession() throws {
        let source = SilentSource()
        let pipeline = try SensorPipeline(
            source: source, configuration: IMUConfiguration(), orientation: OrientationPipeline(fused: FusionAlgorithm.complementary.makeGravityEstimator()),
            outputs: [ClaimingOutput()], allowedInterfaces: Set(InterfaceOrientation.allCases), describe: { _ in "" })
        var ended: String?
        for _ in 0..<200 where ended == nil {
            do { _ = try pipeline.step(timeoutNanoseconds: 100_000_000) } catch let error as CLIError {
                if case .failure(let message, _) = error { ended = message } else { ended = "\(error)" }
            }
        }
        #expect(ended == "no samples from silent test source for 10 s")
    }
}
