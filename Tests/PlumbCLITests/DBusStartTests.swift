import Foundation
import PlumbConfiguration
import PlumbDBus
import PlumbDrivers
import PlumbHAL
import PlumbOrientation
import PlumbSimulation
import Synchronization
import Testing
@testable import PlumbCLI

/// A board's I2C bus as `plumb dbus` opens it, emulated: /dev/i2c-1 with an MPU-6050 at 0x68
/// standing upright in portrait, which can be unplugged and plugged in again at any time. The
/// emulated bus is touched only by the thread that transfers (the test's for the check at start,
/// the notifier's reader for a claim); the test flips ``plugged`` from its own, and the next
/// transfer applies it: unplugged, nothing acknowledges the chip's address, and the emulated bus
/// fails as its adapter does (``EmulatedI2CBus/nothingAnswersErrno``).
final class DBusBoard: I2CBus, @unchecked Sendable {
    private let bus: EmulatedI2CBus
    private let pluggedIn = Mutex(true)
    /// What the emulated bus's fault rules say now; changed only inside ``transfer(_:address:)``.
    private var applied = true

    /// - Parameter nothingAnswersErrno: ENXIO (a PC's adapter, i2c-stub) or EREMOTEIO (a Raspberry Pi's).
    init(nothingAnswersErrno: Int32) {
        let clock = VirtualClock(startNanoseconds: Nanoseconds.perSecond)
        bus = EmulatedI2CBus(path: "/dev/i2c-1", clock: clock)
        bus.nothingAnswersErrno = nothingAnswersErrno
        let chip = MPU6050Emulator(variant: MPU6050.variant(named: "mpu6050")!, profile: Emulated.upright)
        chip.profileStart = clock.nowNanoseconds
        bus.attach(chip, at: I2CAddress(0x68))
    }

    /// Whether the chip is on the bus.
    var plugged: Bool {
        get { pluggedIn.withLock { $0 } }
        set { pluggedIn.withLock { $0 = newValue } }
    }

    var path: String { bus.path }

    /// Makes every transfer fail with `errno` from now on (a fault other than silence at the
    /// address); only from the thread that transfers, like the rest of the emulated bus.
    func failEveryTransfer(errno: Int32) { bus.faults = [FaultRule(.always, effect: .errno(errno))] }

    /// The emulated bus's virtual clock.
    var clock: any MonotonicClock { bus.clock }

    /// Transfers that succeeded.
    var transfers: Int { succeeded.withLock { $0 } }
    private let succeeded = Mutex(0)

    func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
        let plugged = self.plugged
        if plugged != applied {
            bus.faults = plugged ? [] : [FaultRule(.always, effect: .noAcknowledge)]
            applied = plugged
        }
        // The stream's back-off is instant on the virtual clock: keep an unplugged chip's retries
        // from spinning.
        if !plugged { Thread.sleep(forTimeInterval: 0.001) }
        try bus.transfer(&operations, address: address)
        succeeded.withLock { $0 += 1 }
    }

    /// The IMU at `address` as `plumb dbus` opens it on a board without a data-ready line: the
    /// driver `imu.part: auto` picks, behind the streaming engine, polling. Unplugged, it waits a
    /// little first, so that the notifier's retries (instant on the virtual clock) do not spin.
    func open(address: UInt8, eventSink: @escaping @Sendable (DaemonEvent) -> Void) throws -> any MotionSampleSource {
        if !plugged { Thread.sleep(forTimeInterval: 0.01) }
        let at = I2CAddress(address)
        let imu = try DaemonFactory.makeIMU(bus: self, address: at, clock: bus.clock, part: nil)
        let source = StreamSampleSource(name: "IMU at \(at) on /dev/i2c-1, polling", imu: imu, line: nil, clock: bus.clock)
        source.eventSink = eventSink
        return source
    }

    /// The service's source for the configuration `json` on this board, as `plumb dbus` makes it.
    func dbusSource(_ json: String = "{}", address: UInt8, context: CommandContext) throws -> MotionOrientationSource {
        let configuration = try Configuration.decode(json, file: "test.json")
        var normal = DaemonFactory.imuConfiguration(configuration)
        normal.gyroscopeEnabled = true
        return try DBusLiveSensor.source(configuration, path: "test.json", normal: normal, open: { sink in try self.open(address: address, eventSink: sink) },
                                         context: context, powerMonitor: nil)
    }
}

/// `plumb dbus` on a board where the IMU does not answer. It only built the driver at start,
/// which touches no register, so a miswired board started serving and the first claim failed in
/// the notifier's retry loop, said nowhere; now the start fails as `plumb run`'s does, naming the
/// bus and address, with its wiring fix; a failure after a claim is logged with the same fix, and
/// the sensor is read again once the chip answers.
@Suite(.serialized) struct DBusStartTests {
    static let pi = "remote I/O error (no acknowledge: nothing at the address, or a NACK or bus fault during the transfer)"

    /// What the emulated adapter's error says for an empty 0x69 or 0x68.
    static func nothing(at address: String, errno: Int32) -> String {
        errno == Errno.ENXIO ? "nothing answers at \(address) on /dev/i2c-1" : "\(pi) at \(address) on /dev/i2c-1 (errno 121)"
    }

    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func nothingAtTheAddressFailsAtStartWithPlumbRunsWiringFix(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let context = CommandContext.capturing()
        #expect(throws: CLIError.failure(
            "cannot start IMU at 0x69 on /dev/i2c-1, polling: \(Self.nothing(at: "0x69", errno: errno))",
            fix: I2CHelp.wiringFix(bus: "/dev/i2c-1", address: I2CAddress(0x69)) + " 'plumb probe' lists what answers; then restart plumb-sensor-proxy (systemctl restart plumb-sensor-proxy).")) {
            _ = try board.dbusSource(#"{"imu": {"address": "0x69"}}"#, address: 0x69, context: context)
        }
        // plumb run's fix, with the service's own restart at the end.
        #expect(SensorPipeline.startFix(.bus(I2CError(errno: errno, bus: "/dev/i2c-1", address: I2CAddress(0x69))), configurationPath: "test.json")
                == I2CHelp.wiringFix(bus: "/dev/i2c-1", address: I2CAddress(0x69)) + " 'plumb probe' lists what answers; then restart plumb (systemctl restart plumb).")
    }

    /// A rate the chip refuses fails at start too, with `plumb run`'s fix naming imu.rate.
    @Test func aRateTheChipRefusesFailsAtStart() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        #expect(throws: CLIError.failure(
            "cannot start IMU at 0x68 on /dev/i2c-1, polling: output data rate 2.0 Hz: the MPU-6050 FIFO runs at 3.9...1000 Hz",
            fix: "Set imu.rate in test.json within the chip's range named above (the FIFO watermark follows from the rate).")) {
            _ = try board.dbusSource(#"{"imu": {"rate": 2}}"#, address: 0x68, context: CommandContext.capturing())
        }
    }

    /// The chip answers: the check starts and stops it and says nothing; the sensor is then off
    /// until a claim.
    @Test func aChipThatAnswersPassesTheCheckQuietly() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        let context = CommandContext.capturing()
        let source = try board.dbusSource(address: 0x68, context: context)
        #expect(board.transfers > 10, "the check set the chip up and stopped it")
        #expect(!source.motion.isEnabled)
        #expect(context.err.captured == "")
    }

    /// The chip unplugged after the start: the first claim's sensor fails; the notice says so with
    /// plumb run's wiring fix, the service's source keeps running, and the chip plugged in again
    /// is read again: the notice says so and the orientation reaches the property.
    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aChipGoneAtTheClaimIsLoggedWithTheFixAndReadAgainWhenBack(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let context = CommandContext.capturing()
        let source = try board.dbusSource(address: 0x68, context: context)
        board.plugged = false
        let reports = Mutex<[AccelerometerOrientation]>([])
        // What SensorProxyService does on the first ClaimAccelerometer.
        try source.start { value in reports.withLock { $0.append(value) } }
        defer { source.stop() }
        let failed = """
            plumb dbus: sensor failed (tried again every second while a client holds its claim): \
            IMU at 0x68 on /dev/i2c-1, polling: \(Self.nothing(at: "0x68", errno: errno))
            plumb dbus: fix: \(I2CHelp.wiringFix) 'plumb probe' lists what answers; plumb dbus reads it again once it answers.

            """
        Self.waitUntil("the failure to be logged (have \(context.err.captured))") { context.err.captured == failed }
        #expect(source.motion.isEnabled, "the claim stands while the sensor fails")
        board.plugged = true
        Self.waitUntil("the orientation and the notice after the chip came back (have \(reports.withLock { $0 }), \(context.err.captured))") {
            reports.withLock { $0.last } == .normal && context.err.captured.contains("reading again")
        }
        #expect(context.err.captured == failed + """
            plumb dbus: IMU at 0x68 on /dev/i2c-1, polling: reading again after: \(Self.nothing(at: "0x68", errno: errno))

            """)
    }

    /// The chip unplugged while a claim runs it: the stream cannot set it up again and says so
    /// with the wiring fix (without it the journal had the failed reads and no fix); the chip
    /// plugged in again is set up again, the gap is said, and the sensor runs on.
    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aChipGoneWhileClaimedIsLoggedWithTheFixAndSetUpAgainWhenBack(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let context = CommandContext.capturing()
        let source = try board.dbusSource(address: 0x68, context: context)
        let reports = Mutex<[AccelerometerOrientation]>([])
        try source.start { value in reports.withLock { $0.append(value) } }
        defer { source.stop() }
        Self.waitUntil("the first orientation (have \(reports.withLock { $0 }))") { reports.withLock { $0.last } == .normal }
        board.plugged = false
        let fix = "plumb dbus: fix: \(I2CHelp.wiringFix) 'plumb probe' lists what answers; the chip is set up again once it answers.\n"
        Self.waitUntil("the fix (have \(context.err.captured))") { context.err.captured.contains(fix) }
        let unplugged = context.err.captured
        #expect(unplugged.hasSuffix("""
            plumb dbus: re-initialising failed: \(Self.nothing(at: "0x68", errno: errno)); trying again
            \(fix)
            """), "\(unplugged)")
        #expect(source.motion.isEnabled)
        board.plugged = true
        Self.waitUntil("the gap once the chip is back (have \(context.err.captured))") {
            context.err.captured.contains("plumb dbus: gap in the stream from IMU at 0x68 on /dev/i2c-1, polling: busError")
        }
        #expect(context.err.captured.components(separatedBy: "fix: ").count == 2, "the fix is said once: \(context.err.captured)")
        let reads = board.transfers
        Self.waitUntil("reads after the chip came back") { board.transfers > reads + 10 }
        #expect(source.motion.isSensorRunning)
    }

    /// A failure whose cause is not an empty address has no wiring fix: its message says what it is.
    @Test func aBusFaultIsLoggedWithoutTheWiringFix() {
        let eio = MotionSourceError.bus(I2CError(errno: Errno.EIO, bus: "/dev/i2c-1", address: I2CAddress(0x68)))
        let notice = SensorNotice(kind: .failure, source: "IMU at 0x68 on /dev/i2c-1, polling", message: eio.description,
                                  timeNanoseconds: 0, error: eio)
        #expect(DBusLiveSensor.noticeLines(notice) == [
            "sensor failed (tried again every second while a client holds its claim): IMU at 0x68 on /dev/i2c-1, polling: bus error at 0x68 on /dev/i2c-1 (errno 5)",
        ])
        let restored = SensorNotice(kind: .restored, source: "IMU at 0x68 on /dev/i2c-1, polling", message: "reading again after: x", timeNanoseconds: 0)
        #expect(DBusLiveSensor.noticeLines(restored) == ["IMU at 0x68 on /dev/i2c-1, polling: reading again after: x"])
    }

    /// Polls `condition` for up to 20 s of wall time (the notifier runs on its own thread).
    static func waitUntil(_ what: @autoclosure () -> String, _ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(20)
        while !condition() {
            guard Date() < deadline else {
                Issue.record("timed out waiting for \(what())")
                return
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}
