import Foundation
import PlumbConfiguration
import PlumbDBus
import PlumbDrivers
import PlumbHAL
import PlumbSimulation
import Synchronization
import Testing
@testable import PlumbCLI

extension DBusBoard {
    /// The service's source for `plumb dbus --wait-for-sensor` with the configuration `json` on
    /// this board, as the command makes it.
    func awaitingSource(_ json: String = "{}", address: UInt8 = 0x68, context: CommandContext) throws -> DBusSensorWait {
        let configuration = try Configuration.decode(json, file: "test.json")
        var normal = DaemonFactory.imuConfiguration(configuration)
        normal.gyroscopeEnabled = true
        return try DBusLiveSensor.awaitingSource(configuration, path: "test.json", normal: normal,
                                                 open: { sink in try self.open(address: address, eventSink: sink) },
                                                 context: context, powerMonitor: nil)
    }
}

/// `plumb dbus --wait-for-sensor` (plumb-sensor-proxy.service) started while its chip does not
/// answer. It exited 1 at start and systemd restarted it every 2 s, dropping the name; it now
/// serves with HasAccelerometer false, says so once with the wiring fix, checks the chip every
/// second while no claim runs it, and turns HasAccelerometer true once it answers. Any other
/// failure at start still ends it at once.
@Suite(.serialized) struct DBusWaitForSensorTests {
    static let waitLine = "plumb dbus: IMU at 0x68 on /dev/i2c-1, polling does not answer ("
    static let fixLine = "plumb dbus: fix: \(I2CHelp.wiringFix) 'plumb probe' lists what answers; plumb dbus takes it within a second once it answers."

    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aChipThatAnswersLaterTurnsHasAccelerometerTrue(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        board.plugged = false
        let context = CommandContext.capturing()
        let source = try board.awaitingSource(context: context)
        let lines = context.err.captured.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[0].hasPrefix(Self.waitLine)
                && lines[0].hasSuffix("); serving without it (HasAccelerometer false), trying it every second") && lines[1] == Self.fixLine,
                "\(lines)")
        #expect(source.isAwaiting)
        let service = SensorProxyService(source: source, absentAtStart: source.absentAtStart)
        #expect(!service.status.hasAccelerometer)

        // Three checks on the virtual clock find nothing; the chip answers before the fourth.
        var checks = 0
        let line = try source.waitForSensor(service: service, clock: board.clock, shouldStop: {
            checks += 1
            if checks == 4 { board.plugged = true }
            return checks > 10
        })
        #expect(line == "IMU at 0x68 on /dev/i2c-1, polling answers after 4 s of waiting (HasAccelerometer true)")
        #expect(service.status.hasAccelerometer)
        #expect(!source.isAwaiting)
        #expect(service.status.starts == 0, "the checks do not start the service's sensor")
    }

    /// A chip that never answers: the wait goes on until the service stops, HasAccelerometer
    /// stays false, and nothing more is said.
    @Test func aChipThatNeverAnswersWaitsUntilTheServiceStops() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.EREMOTEIO)
        board.plugged = false
        let context = CommandContext.capturing()
        let source = try board.awaitingSource(context: context)
        let said = context.err.captured
        let service = SensorProxyService(source: source, absentAtStart: source.absentAtStart)
        let start = board.clock.nowNanoseconds
        var checks = 0
        let line = try source.waitForSensor(service: service, clock: board.clock, shouldStop: {
            checks += 1
            return checks > 30
        })
        #expect(line == nil)
        #expect(board.clock.nowNanoseconds &- start >= 30 * Nanoseconds.perSecond)
        #expect(!service.status.hasAccelerometer)
        #expect(source.isAwaiting)
        #expect(context.err.captured == said, "the checks say nothing more")
    }

    /// A desktop claims while the chip is awaited and the chip answers by then: the claim's
    /// start checks it first and tells it present (the notifier would see no failure to recover
    /// from, and say nothing); the wait then ends without a check.
    @Test func aClaimOfAChipThatAnswersByThenTellsItPresent() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        board.plugged = false
        let source = try board.awaitingSource(context: CommandContext.capturing())
        board.plugged = true
        let told = Mutex<[SensorPresence]>([])
        try source.start(report: { _ in }, presence: { presence in told.withLock { $0.append(presence) } })
        #expect(told.withLock { $0 } == [.present])
        #expect(!source.isAwaiting)
        let service = SensorProxyService(source: source, absentAtStart: "test")
        var passes = 0
        #expect(try source.waitForSensor(service: service, clock: board.clock, shouldStop: {
            passes += 1
            return passes > 5
        }) == nil)
        #expect(passes == 1, "the wait ended at its first pass: nothing is awaited")
        source.stop()
    }

    /// Only silence at the address is waited for: a rate the chip refuses, or another chip's
    /// WHO_AM_I, still fails the start with its message.
    @Test func aRateTheChipRefusesStillFailsAtStart() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        #expect(throws: CLIError.failure(
            "cannot start IMU at 0x68 on /dev/i2c-1, polling: output data rate 2.0 Hz: the MPU-6050 FIFO runs at 3.9...1000 Hz",
            fix: "Set imu.rate in test.json within the chip's range named above (the FIFO watermark follows from the rate).")) {
            _ = try board.awaitingSource(#"{"imu": {"rate": 2}}"#, context: CommandContext.capturing())
        }
    }

    @Test func aWrongWhoAmIStillFailsAtStart() throws {
        let clock = VirtualClock(startNanoseconds: Nanoseconds.perSecond)
        let bus = EmulatedI2CBus(path: "/dev/i2c-1", clock: clock)
        let chip = MPU6050Emulator(variant: MPU6050.variant(named: "mpu6050")!, profile: Emulated.upright)
        chip.identityOverride = 0x42
        chip.powerOnReset()
        bus.attach(chip, at: I2CAddress(0x68))
        let box = UncheckedBus(bus: bus)
        #expect {
            _ = try DBusLiveSensor.awaitingSource(Configuration(), path: "test.json", normal: IMUConfiguration(), open: { _ in
                let imu = try DaemonFactory.makeIMU(bus: box.bus, address: I2CAddress(0x68), clock: clock, part: nil)
                return StreamSampleSource(name: "IMU at 0x68 on /dev/i2c-1, polling", imu: imu, line: nil, clock: clock)
            }, context: CommandContext.capturing(), powerMonitor: nil)
        } throws: { error in
            guard case CLIError.failure(let message, _) = error else { return false }
            return message.hasPrefix("cannot start IMU at 0x68 on /dev/i2c-1, polling: ") && message.contains("0x42")
        }
    }

    /// The emulated bus in a `@Sendable` opener (the test uses it on one thread).
    struct UncheckedBus: @unchecked Sendable { let bus: EmulatedI2CBus }
}
