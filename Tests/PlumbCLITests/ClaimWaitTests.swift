import CGPIOD
import Foundation
import Glibc
import PlumbConfiguration
import PlumbDBus
import PlumbDrivers
import PlumbHAL
import PlumbSimulation
import Testing
@testable import PlumbCLI
@testable import PlumbLinux

/// A scratch file standing in for /dev/i2c-1 (record locks work alike on both; `scripts/vm-test`
/// checks a real i2c-dev node), and another plumb process's claim of the chip at 0x68 on it: an
/// OFD lock on the byte at 0x68 taken through a description of its own, which conflicts with this
/// process's descriptions as another process's would.
final class ClaimedNode: @unchecked Sendable {
    let path: String
    private var fd: Int32 = -1

    init() {
        path = NSTemporaryDirectory() + "plumb-claim-wait-\(UUID().uuidString)"
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
    }

    deinit {
        release()
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Takes the other process's claim; false when it is refused (this process holds the chip).
    @discardableResult
    func hold(_ address: UInt8 = 0x68) -> Bool {
        precondition(fd < 0)
        let fd = open(path, O_RDWR | O_CLOEXEC)
        #expect(fd >= 0)
        guard Sys.lockByte(fd, offset: Int(address)) == 0 else { close(fd); return false }
        self.fd = fd
        return true
    }

    /// Lets go: the other process ends.
    func release() {
        if fd >= 0 { close(fd) }
        fd = -1
    }
}

private final class RecordingNotifier: ServiceNotifier {
    var states: [String] = []
    var watchdogIntervalNanoseconds: UInt64? { nil }
    func notify(_ state: String) throws { states.append(state) }
}

/// The generic board whose IMU is the MPU-6050 at 0x68 on /dev/i2c-1, polled.
private let generic = BoardSelection(board: Board(id: "generic", name: "Generic", models: [], i2cBus: "/dev/i2c-1", interrupt: nil,
                                                  display: nil, leds: [], imuAddress: I2CAddress(UInt8(0x68))), reason: .override)

/// The same board with the IMU's data-ready pin on line 17 of gpiochip0.
let wired = BoardSelection(board: Board(id: "generic", name: "Generic", models: [], i2cBus: "/dev/i2c-1",
                                                interrupt: InterruptLocation(chip: .device("gpiochip0"), line: .offset(17)),
                                                display: nil, leds: [], imuAddress: I2CAddress(UInt8(0x68))), reason: .override)

/// What requesting line 17 of gpiochip0 gives while a plumb holds it under consumer "plumb", as the
/// kernel's EBUSY reaches ``GPIODRequest/error(_:selector:described:chip:label:consumer:output:heldHere:)``:
/// another plumb process (`heldHere` nil), or this one, as an LED's line (true) or as the IMU's
/// data-ready line (false).
func lineHeldByPlumb(heldHere: Bool? = nil) -> GPIOError {
    var result = plumb_gpio_result()
    result.status = PLUMB_GPIO_LINE_BUSY
    result.error_number = EBUSY
    withUnsafeMutableBytes(of: &result.consumer) { buffer in
        for (i, byte) in "plumb".utf8.enumerated() { buffer[i] = byte }
    }
    return GPIODRequest.error(result, selector: GPIOLineSelector(chip: "gpiochip0", line: .offset(17)),
                              described: "gpiochip0 line 17 (GPIO17)", chip: "gpiochip0", label: "pinctrl-bcm2711", consumer: "plumb",
                              heldHere: heldHere)
}

/// ``DaemonFactory``'s hardware source on `board`, its claim taken on `node`.
private func factory(_ board: DBusBoard, node: ClaimedNode, waits: Bool) -> DaemonFactory {
    var factory = DaemonFactory(source: .hardware, context: .capturing(), realClock: board.clock)
    factory.sysfsRoot = NSTemporaryDirectory() + "plumb-no-sysfs"
    factory.waitsForSensor = waits
    factory.openBus = { path in
        guard path == "/dev/i2c-1" else { throw CLIError.failure("no emulated bus \(path)") }
        return (board, board.clock)
    }
    let claimPath = node.path
    factory.claimNode = { _ in claimPath }
    return factory
}

/// systemd's STATUS while `plumb run` waits for the other plumb process.
private let claimedStatus = "STATUS=waiting for the IMU at 0x68 on /dev/i2c-1, polling: the chip is in use by another plumb process, taken once it lets go ('pgrep -a plumb' lists them)"

/// A plumb service started while another plumb process (a `plumb calibrate` typed meanwhile)
/// claims its chip. It failed its start ("the chip at 0x68 on /dev/i2c-1 is in use by another
/// plumb process"), and systemd restarted it into the same refusal until the start limit left it
/// failed. With `--wait-for-sensor` (both units pass it) it now waits, as for a chip that does
/// not answer: ready, saying why and which fix, trying every second without holding the claim or
/// touching the chip, and started once the other lets go. Without the flag it is refused at once.
@Suite(.serialized) struct ClaimWaitTests {
    /// `plumb run --wait-for-sensor` as `Run` builds it (the daemon, the factory's hardware source)
    /// with no outputs, on the emulated board.
    @Test func plumbRunWaitsForTheOtherProcessToLetGo() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        let node = ClaimedNode()
        #expect(node.hold())
        let factory = factory(board, node: node, waits: true)
        let notifier = RecordingNotifier()
        let err = Output.capture()
        var turn = 0
        var retakenWhileWaiting: Bool?
        var transfersWhileClaimed = -1
        var refusedOnceStarted: Bool?
        var startedAt: Int?
        let daemon = Daemon(
            log: DaemonLog(output: err, format: .plain, level: .info), notifier: notifier, clock: board.clock,
            takeSignals: {
                turn += 1
                // The other process's later operation (calibrate's next step, a read after it):
                // the waiting service holds nothing, so it is not refused.
                if turn == 25 {
                    node.release()
                    retakenWhileWaiting = node.hold()
                }
                if turn == 50 {
                    transfersWhileClaimed = board.transfers
                    node.release()
                }
                if startedAt == nil, turn > 50, notifier.states.last?.hasPrefix("STATUS=IMU at 0x68") == true {
                    startedAt = turn
                    // Now the service holds the chip: another plumb is refused.
                    refusedOnceStarted = !node.hold()
                    node.release()
                }
                return startedAt.map { turn > $0 + 5 } == true ? [.terminate] : []
            },
            load: { () throws(CLIError) -> DaemonSetup in
                DaemonSetup(path: "plumb.json", configuration: Configuration(), board: generic)
            },
            build: { setup, handover in try factory.build(setup, handover: handover) },
            duration: Nanoseconds.seconds(60))
        let status = daemon.run()
        let log = err.captured
        #expect(status == ExitCode.success, "\(log)")
        #expect(notifier.states.first?.hasPrefix("READY=1\n" + claimedStatus) == true, "\(notifier.states.prefix(3))")
        let waits = log.split(separator: "\n").filter { $0.contains("waiting for that process to let go") }
        #expect(waits == ["plumb: warning: IMU at 0x68 on /dev/i2c-1, polling: the chip at 0x68 on \(node.path) is in use by another plumb process; waiting for that process to let go, trying to claim the chip every second"],
                "\(log)")
        #expect(log.contains("plumb: warning: fix: " + SensorPipeline.claimedFix + "\n"), "\(log)")
        #expect(retakenWhileWaiting == true, "the waiting service held the claim")
        #expect(transfersWhileClaimed == 0, "the chip was touched before the claim was held")
        #expect(log.contains("the other plumb process let go of IMU at 0x68 on /dev/i2c-1, polling after "), "\(log)")
        #expect(log.contains("s of waiting; sensor started: IMU at 0x68 on /dev/i2c-1, polling at 100 Hz"), "\(log)")
        #expect(refusedOnceStarted == true, "the started service does not hold the claim")
        #expect(board.transfers > 0)
    }

    /// The other plumb process lets go of the chip's claim a moment before its data-ready line
    /// (or the claim is free when the service starts, the line not yet): the start that takes
    /// the claim finds the line busy, held by consumer "plumb". That ended the service (exit 1,
    /// "gpiochip0 line 17 (GPIO17) is busy: held by consumer \"plumb\" …"); it now counts as
    /// still waiting: the claim is dropped again (another plumb takes it in between), nothing is
    /// sent to the chip, the status and the log stay those of the wait, and the service starts
    /// once the line is free too.
    @Test(arguments: [true, false])
    func aDataReadyLineStillHeldAfterTheClaimIsAwaitedToo(claimedAtStart: Bool) throws {
        let sensor = PlumbSimulation.SimulatedSensor(model: try #require(SimulatedChips.model("mpu6050")), seed: 1)
        let node = ClaimedNode()
        if claimedAtStart { #expect(node.hold()) }
        var factory = DaemonFactory(source: .hardware, context: .capturing(), realClock: sensor.clock)
        factory.sysfsRoot = NSTemporaryDirectory() + "plumb-no-sysfs"
        factory.waitsForSensor = true
        factory.openBus = { _ in (sensor.bus, sensor.clock) }
        let claimPath = node.path
        factory.claimNode = { _ in claimPath }
        var lineHeld = true
        var refusedRequests = 0
        var claimHeldAtRequests: [Bool] = []
        factory.openLine = { selector throws(GPIOError) in
            #expect(selector == GPIOLineSelector(chip: "gpiochip0", line: .offset(17)))
            // The line is asked for only with the chip's claim held.
            let taken = node.hold()
            if taken { node.release() }
            claimHeldAtRequests.append(!taken)
            if lineHeld {
                refusedRequests += 1
                throw lineHeldByPlumb()
            }
            return sensor.line
        }
        let notifier = RecordingNotifier()
        let err = Output.capture()
        var turn = 0
        var claimFreeWhileLineHeld: [Bool] = []
        var transfersWhileLineHeld = -1
        var startedAt: Int?
        var refusedOnceStarted: Bool?
        let daemon = Daemon(
            log: DaemonLog(output: err, format: .plain, level: .info), notifier: notifier, clock: sensor.clock,
            takeSignals: {
                turn += 1
                if turn == 10, claimedAtStart { node.release() }
                if turn > 10, lineHeld {
                    // Between the starts the waiting service holds nothing.
                    let taken = node.hold()
                    if taken { node.release() }
                    claimFreeWhileLineHeld.append(taken)
                }
                // Freed after three refused requests (within ClaimAwaitingSource.lineHeldLimitNanoseconds).
                if lineHeld, refusedRequests == 3 {
                    transfersWhileLineHeld = sensor.bus.counters.transactions
                    lineHeld = false
                }
                if startedAt == nil, !lineHeld, notifier.states.last?.hasPrefix("STATUS=IMU at 0x68") == true {
                    startedAt = turn
                    // Started, the service holds the claim.
                    refusedOnceStarted = !node.hold()
                    if refusedOnceStarted == false { node.release() }
                }
                return startedAt.map { turn > $0 + 5 } == true ? [.terminate] : []
            },
            load: { () throws(CLIError) -> DaemonSetup in
                DaemonSetup(path: "plumb.json", configuration: Configuration(), board: wired)
            },
            build: { setup, handover in try factory.build(setup, handover: handover) },
            duration: Nanoseconds.seconds(60))
        let status = daemon.run()
        let log = err.captured
        let source = "IMU at 0x68 on /dev/i2c-1, data-ready line 17 on gpiochip0"
        #expect(status == ExitCode.success, "\(log)")
        #expect(refusedRequests >= 3, "the line was asked for again every second: \(refusedRequests)")
        #expect(!claimHeldAtRequests.isEmpty && !claimHeldAtRequests.contains(false), "the line was asked for without the claim")
        #expect(!claimFreeWhileLineHeld.isEmpty && !claimFreeWhileLineHeld.contains(false), "the waiting service held the claim")
        #expect(transfersWhileLineHeld == 0, "the chip was touched before the line was free")
        #expect(notifier.states.first?.hasPrefix("READY=1\nSTATUS=waiting for the \(source): the chip is in use by another plumb process") == true,
                "\(notifier.states.prefix(3))")
        let waits = log.split(separator: "\n").filter { $0.contains("waiting for that process to let go") }
        let why = claimedAtStart ? "the chip at 0x68 on \(node.path) is in use by another plumb process"
            : "the data-ready line of the chip at 0x68 on /dev/i2c-1 (line 17 on gpiochip0) is still held by another plumb process"
        #expect(waits == ["plumb: warning: \(source): \(why); waiting for that process to let go, trying to claim the chip every second"], "\(log)")
        #expect(!log.contains("is busy"), "\(log)")
        #expect(log.contains("the other plumb process let go of \(source) after "), "\(log)")
        #expect(startedAt != nil, "\(log)")
        #expect(sensor.bus.counters.transactions > 0)
        #expect(refusedOnceStarted == true, "the started service does not hold the claim")
    }

    /// A data-ready line held under consumer "plumb" long after the chip's claim was free is not a
    /// process letting go but a plumb that uses the line for itself (a `plumb led` on the pin, a
    /// second IMU set to the same imu.interrupt): awaited, it kept the service waiting for ever,
    /// its STATUS saying the chip was in use. After ClaimAwaitingSource.lineHeldLimitNanoseconds
    /// it fails as a busy line does, naming the holder and the fix, the chip still untouched.
    @Test func aLineHeldLongAfterTheClaimWasFreeFailsAsABusyLine() throws {
        let sensor = PlumbSimulation.SimulatedSensor(model: try #require(SimulatedChips.model("mpu6050")), seed: 1)
        let node = ClaimedNode()
        var factory = DaemonFactory(source: .hardware, context: .capturing(), realClock: sensor.clock)
        factory.sysfsRoot = NSTemporaryDirectory() + "plumb-no-sysfs"
        factory.waitsForSensor = true
        factory.openBus = { _ in (sensor.bus, sensor.clock) }
        let claimPath = node.path
        factory.claimNode = { _ in claimPath }
        var requests = 0
        factory.openLine = { _ throws(GPIOError) in
            requests += 1
            throw lineHeldByPlumb()
        }
        let err = Output.capture()
        let started = sensor.clock.nowNanoseconds
        let daemon = Daemon(
            log: DaemonLog(output: err, format: .plain, level: .info), notifier: RecordingNotifier(), clock: sensor.clock,
            takeSignals: { sensor.clock.nowNanoseconds &- started > Nanoseconds.seconds(30) ? [.terminate] : [] },
            load: { () throws(CLIError) -> DaemonSetup in
                DaemonSetup(path: "plumb.json", configuration: Configuration(), board: wired)
            },
            build: { setup, handover in try factory.build(setup, handover: handover) },
            duration: Nanoseconds.seconds(60))
        let status = daemon.run()
        let log = err.captured
        #expect(status == ExitCode.failure, "\(log)")
        #expect((3...8).contains(requests), "the line was asked for every second until the limit: \(requests)")
        #expect(log.contains("is busy") && log.contains("still held 5 s after the chip's claim was free"), "\(log)")
        #expect(log.contains("Free the line (gpioinfo names its user)"), "\(log)")
        #expect(sensor.bus.counters.transactions == 0, "the chip was touched")
        #expect(node.hold(), "the claim was left held")
    }

    /// A reload (SIGHUP) while the service waits for the other process: the pipeline built next
    /// awaits the claim too, holding nothing; once started, a second reload keeps the chip claimed
    /// throughout (the old source lives until the new one shares its claim), and afterwards the
    /// claim is still held. Another plumb is refused at every turn once the service started.
    @Test func reloadWhileWaitingAndOnceStartedKeepsTheClaimRight() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        let node = ClaimedNode()
        #expect(node.hold())
        let factory = factory(board, node: node, waits: true)
        let notifier = RecordingNotifier()
        let err = Output.capture()
        var turn = 0
        var startedAt: Int?
        var takenDuringBuilds: [Bool] = []
        var takenOnceStarted: [Bool] = []
        var transfersWhileClaimed = -1
        let daemon = Daemon(
            log: DaemonLog(output: err, format: .plain, level: .info), notifier: notifier, clock: board.clock,
            takeSignals: {
                turn += 1
                if turn == 20 { return [.reload] }   // while waiting
                if turn == 40 {
                    transfersWhileClaimed = board.transfers
                    node.release()
                }
                if startedAt == nil, turn > 40, notifier.states.last?.hasPrefix("STATUS=IMU at 0x68") == true { startedAt = turn }
                guard let startedAt else { return [] }
                let taken = node.hold()
                if taken { node.release() }
                takenOnceStarted.append(taken)
                if turn == startedAt + 5 { return [.reload] }
                return turn > startedAt + 10 ? [.terminate] : []
            },
            load: { () throws(CLIError) -> DaemonSetup in
                DaemonSetup(path: "plumb.json", configuration: Configuration(), board: generic)
            },
            build: { setup, handover in
                let pipeline = try factory.build(setup, handover: handover)
                if startedAt != nil {
                    let taken = node.hold()
                    if taken { node.release() }
                    takenDuringBuilds.append(taken)
                }
                return pipeline
            },
            duration: Nanoseconds.seconds(60))
        let status = daemon.run()
        let log = err.captured
        #expect(status == ExitCode.success, "\(log)")
        #expect(transfersWhileClaimed == 0, "the chip was touched before the claim was held")
        #expect(log.split(separator: "\n").filter { $0.contains("waiting for that process to let go") }.count == 2,
                "one line at start, one for the reload's pipeline: \(log)")
        #expect(startedAt != nil, "\(log)")
        #expect(takenDuringBuilds == [false], "the reload's build let the chip go")
        #expect(!takenOnceStarted.isEmpty && !takenOnceStarted.contains(true), "another plumb took the chip from the running service: \(takenOnceStarted)")
    }

    /// SIGTERM while the service waits for the other process: it stops cleanly (exit 0) without
    /// touching the chip or warning that it could not be put to sleep.
    @Test func terminateWhileWaitingForTheClaim() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        let node = ClaimedNode()
        #expect(node.hold())
        let factory = factory(board, node: node, waits: true)
        let err = Output.capture()
        var turn = 0
        let daemon = Daemon(
            log: DaemonLog(output: err, format: .plain, level: .info), notifier: RecordingNotifier(), clock: board.clock,
            takeSignals: {
                turn += 1
                return turn == 30 ? [.terminate] : []
            },
            load: { () throws(CLIError) -> DaemonSetup in
                DaemonSetup(path: "plumb.json", configuration: Configuration(), board: generic)
            },
            build: { setup, handover in try factory.build(setup, handover: handover) },
            duration: Nanoseconds.seconds(60))
        let status = daemon.run()
        let log = err.captured
        #expect(status == ExitCode.success, "\(log)")
        #expect(board.transfers == 0)
        #expect(!log.contains("could not be put to sleep"), "\(log)")
        #expect(log.split(separator: "\n").filter { $0.contains("waiting for that process to let go") }.count == 1, "\(log)")
        node.release()
        #expect(node.hold(), "the stopped service held the claim")
    }

    /// Without --wait-for-sensor: refused at once, as before, the chip untouched.
    @Test func plumbRunWithoutTheFlagIsRefusedAtOnce() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        let node = ClaimedNode()
        #expect(node.hold())
        let factory = factory(board, node: node, waits: false)
        #expect(throws: I2CHelp.inUse(I2CDeviceInUse(path: node.path, address: I2CAddress(0x68)))) {
            _ = try factory.build(DaemonSetup(path: "plumb.json", configuration: Configuration(), board: generic))
        }
        #expect(board.transfers == 0)
    }

    /// The source `plumb dbus --wait-for-sensor` makes (``DBusLiveSensor/awaitingSource``) for the
    /// emulated `board`, its chip's claim taken on `claimPath`.
    private func awaitingDBusSource(board: DBusBoard, claimPath: String, context: CommandContext) throws -> DBusSensorWait {
        let configuration = Configuration()
        var configured = DaemonFactory.imuConfiguration(configuration)
        configured.gyroscopeEnabled = true
        let normal = configured
        let setup = DaemonSetup(path: "test.json", configuration: configuration, board: generic)
        return try DBusLiveSensor.awaitingSource(configuration, path: "test.json", normal: normal, open: { sink in
            var factory = DaemonFactory(source: .hardware, context: context, realClock: board.clock)
            factory.sysfsRoot = NSTemporaryDirectory() + "plumb-no-sysfs"
            factory.eventSink = sink
            factory.openBus = { _ in (board, board.clock) }
            factory.claimNode = { _ in claimPath }
            return try factory.makeSource(setup, imuConfiguration: normal, calibration: nil, awaitsClaim: true).0
        }, context: context, powerMonitor: nil)
    }

    /// `plumb dbus --wait-for-sensor` (plumb-sensor-proxy.service) on the same board: it serves
    /// with HasAccelerometer false, says why once, checks every second without holding the claim
    /// between checks, and turns HasAccelerometer true once the other process lets go.
    @Test func plumbDBusWaitsForTheOtherProcessToLetGo() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        let node = ClaimedNode()
        #expect(node.hold())
        let context = CommandContext.capturing()
        let source = try awaitingDBusSource(board: board, claimPath: node.path, context: context)
        let lines = context.err.captured.split(separator: "\n").map(String.init)
        #expect(lines == ["plumb dbus: IMU at 0x68 on /dev/i2c-1, polling: the chip at 0x68 on \(node.path) is in use by another plumb process; serving without it (HasAccelerometer false), trying to claim the chip every second",
                          "plumb dbus: fix: " + SensorPipeline.claimedFix], "\(lines)")
        #expect(source.isAwaiting)
        let service = SensorProxyService(source: source, absentAtStart: source.absentAtStart)
        #expect(!service.status.hasAccelerometer)

        var checks = 0
        var retaken: Bool?
        var transfersWhileClaimed = -1
        let line = try source.waitForSensor(service: service, clock: board.clock, shouldStop: {
            checks += 1
            if checks == 2 {
                node.release()
                retaken = node.hold()
            }
            if checks == 4 {
                transfersWhileClaimed = board.transfers
                node.release()
            }
            return checks > 10
        })
        #expect(retaken == true, "the waiting service held the claim between checks")
        #expect(transfersWhileClaimed == 0, "the chip was touched before the claim was held")
        #expect(line == "the other plumb process let go of IMU at 0x68 on /dev/i2c-1, polling after 4 s of waiting (HasAccelerometer true)")
        #expect(service.status.hasAccelerometer)
        #expect(!source.isAwaiting)
        #expect(context.err.captured.split(separator: "\n").count == 2, "the checks say nothing more")
    }

    /// `plumb dbus --wait-for-sensor` while the other process lets go of a chip that then does
    /// not answer (unplugged meanwhile): it said nothing, and went on waiting as if the chip were
    /// still claimed; `plumb run` says "the other plumb process let go of …" and what it awaits
    /// now. plumb dbus says the same, once, and names the chip's answer when it comes.
    @Test func plumbDBusSaysWhenTheOtherProcessLetsGoOfASilentChip() throws {
        let board = DBusBoard(nothingAnswersErrno: Errno.ENXIO)
        let node = ClaimedNode()
        #expect(node.hold())
        let context = CommandContext.capturing()
        let source = try awaitingDBusSource(board: board, claimPath: node.path, context: context)
        #expect(source.isAwaiting)
        let service = SensorProxyService(source: source, absentAtStart: source.absentAtStart)
        var checks = 0
        var linesWhileSilent: [String] = []
        let line = try source.waitForSensor(service: service, clock: board.clock, shouldStop: {
            checks += 1
            if checks == 3 {
                board.plugged = false
                node.release()
            }
            if checks == 6 {
                linesWhileSilent = context.err.captured.split(separator: "\n").map(String.init)
                board.plugged = true
            }
            return checks > 10
        })
        let name = "IMU at 0x68 on /dev/i2c-1, polling"
        #expect(linesWhileSilent.dropFirst(2) == ["plumb dbus: the other plumb process let go of \(name)",
                                                  "plumb dbus: \(name) does not answer (nothing answers at 0x68 on /dev/i2c-1); serving without it (HasAccelerometer false), trying it every second",
                                                  "plumb dbus: fix: " + SensorPipeline.stopFix(.bus(I2CError(errno: Errno.ENXIO, bus: "/dev/i2c-1", address: I2CAddress(0x68))),
                                                                                               then: "plumb dbus takes it within a second once it answers.")],
                "\(linesWhileSilent)")
        #expect(line == "\(name) answers after 6 s of waiting (HasAccelerometer true)")
        #expect(service.status.hasAccelerometer)
        #expect(context.err.captured.split(separator: "\n").count == 5, "said once: \(context.err.captured)")
    }

    /// `plumb probe` on a chip another plumb process claims writes nothing to it: the claim was
    /// looked up only after the MPU-9150 look, which sets INT_PIN_CFG and puts it back under the
    /// other process. The look is skipped there, and a warning says what was not told apart and why.
    @Test func probeWritesNothingToAChipAnotherPlumbClaims() throws {
        let sensor = PlumbSimulation.SimulatedSensor(model: try #require(SimulatedChips.model("mpu6050")), seed: 1)
        let node = ClaimedNode()
        /// The register writes to 0x68 while `body` runs (a write-only transfer; a register read
        /// writes its address first, then reads).
        func writes(_ body: () throws -> Probe.Adapter) rethrows -> (Probe.Adapter, [String]) {
            sensor.bus.trace = []
            let adapter = try body()
            let written = (sensor.bus.trace ?? []).filter { event in
                event.address == I2CAddress(0x68) && event.operations.allSatisfy { $0.direction == .write }
            }
            sensor.bus.trace = nil
            return (adapter, written.map(\.description))
        }
        func probe() throws -> Probe.Adapter {
            try Probe.probe(bus: sensor.bus, name: "test", clock: ("unknown", nil), functionality: ["I2C"], monotonic: sensor.clock,
                            claimNode: node.path)
        }
        // Unclaimed, the look writes (the count sees writes).
        let (free, freeWrites) = try writes(probe)
        #expect(!freeWrites.isEmpty)
        #expect(free.devices.map(\.warnings) == [[]])
        #expect(node.hold())
        let (claimed, claimedWrites) = try writes(probe)
        #expect(claimedWrites == [], "written to a chip another plumb claims: \(claimedWrites)")
        #expect(claimed.devices.map(\.part) == ["MPU-6050"])
        #expect(claimed.devices.map(\.inUse) == [Probe.inUseNote])
        #expect(claimed.devices.first?.warnings == ["WHO_AM_I 0x68 is an MPU-6050 or an MPU-9150, and the MPU-9150's AK8975 could not be looked for: "
                                                    + Probe.leftAloneReason + "; driving it as MPU-6050 (pass --part mpu9150 if it is an MPU-9150)"],
                "\(claimed.devices)")
        #expect(Probe.text(claimed).contains("        warning: WHO_AM_I 0x68 is an MPU-6050 or an MPU-9150"), "\(Probe.text(claimed))")
        node.release()
    }

    /// `plumb regs` on a chip another plumb process claims writes nothing to it either. The chip
    /// here does not stream (INT_ENABLE and FIFO_EN clear, as between the other process's reset and
    /// its first stream), which alone let the MPU-9150 look (INT_PIN_CFG set and put back) through.
    @Test func regsWritesNothingToAChipAnotherPlumbClaims() throws {
        let sensor = PlumbSimulation.SimulatedSensor(model: try #require(SimulatedChips.model("mpu6050")), seed: 1)
        let node = ClaimedNode()
        let context = CommandContext.capturing()
        func writes() throws -> (Regs.Target, [String]) {
            sensor.bus.trace = []
            let target = try Regs.target(bus: sensor.bus, address: nil, part: nil, clock: sensor.clock, simulation: nil,
                                         context: context, claimNode: node.path)
            let written = (sensor.bus.trace ?? []).filter { event in
                event.address == I2CAddress(0x68) && event.operations.allSatisfy { $0.direction == .write }
            }
            sensor.bus.trace = nil
            return (target, written.map(\.description))
        }
        do {
            // The target holds the chip's claim while it lives (regsHoldsTheChipAndWarnsBeforeWritingAClaimedOne).
            let (free, freeWrites) = try writes()
            #expect(!freeWrites.isEmpty, "unclaimed and idle, the look writes (the count sees writes)")
            #expect(free.identity.warnings == [])
        }
        #expect(node.hold())
        let (claimed, claimedWrites) = try writes()
        #expect(claimedWrites == [], "written to a chip another plumb claims: \(claimedWrites)")
        #expect(claimed.identity.part == "MPU-6050")
        #expect(claimed.identity.warnings == ["WHO_AM_I 0x68 is an MPU-6050 or an MPU-9150, and the MPU-9150's AK8975 could not be looked for: "
                                              + Probe.leftAloneReason + "; driving it as MPU-6050 (pass --part mpu9150 if it is an MPU-9150)"],
                "\(claimed.identity.warnings)")
        node.release()
    }

    /// `plumb probe` marks a chip another plumb process claims, without claiming it.
    @Test func probeSaysWhichChipAnotherPlumbClaims() throws {
        let sensor = PlumbSimulation.SimulatedSensor(model: try #require(SimulatedChips.model("mpu6050")), seed: 1)
        let node = ClaimedNode()
        func probe() throws -> Probe.Adapter {
            try Probe.probe(bus: sensor.bus, name: "test", clock: ("unknown", nil), functionality: ["I2C"], monotonic: sensor.clock,
                            claimNode: node.path)
        }
        #expect(try probe().devices.map(\.inUse) == [nil], "no claim")
        #expect(node.hold())
        let adapter = try probe()
        #expect(adapter.devices.map(\.inUse) == ["in use by another plumb process"])
        #expect(Probe.text(adapter).contains("  0x68  WHO_AM_I 0x68  MPU-6050 (mpu6050)  (in use by another plumb process: 'pgrep -a plumb' lists them)\n"),
                "\(Probe.text(adapter))")
        let json = String(decoding: try JSONEncoder().encode(adapter.devices[0]), as: UTF8.self)
        #expect(json.contains(#""inUse":"in use by another plumb process""#), "\(json)")
        // The probe took no claim: the holder lets go and takes it again.
        node.release()
        #expect(node.hold())
        node.release()
        // This process's own claim is not another's.
        let own = try I2CDeviceClaim.acquire(path: node.path, address: I2CAddress(0x68))
        #expect(own.isHeld)
        #expect(try probe().devices.map(\.inUse) == [nil])
    }

    /// `plumb probe` holds the claim of a chip no one claims while it writes to it (the MPU-9150
    /// look): a plumb claiming the chip that moment is refused (it waits, with --wait-for-sensor)
    /// instead of configuring the chip and then having INT_PIN_CFG put back under it. Before, the
    /// probe only checked the claim, and the other process's claim was granted mid-look.
    @Test func probeHoldsTheChipWhileItWritesToIt() throws {
        let sensor = PlumbSimulation.SimulatedSensor(model: try #require(SimulatedChips.model("mpu6050")), seed: 1)
        let node = ClaimedNode()
        let bus = ClaimTryingBus(sensor.bus, node: node)
        let adapter = try Probe.probe(bus: bus, name: "test", clock: ("unknown", nil), functionality: ["I2C"], monotonic: sensor.clock,
                                      claimNode: node.path)
        #expect(adapter.devices.map(\.inUse) == [nil])
        #expect(!bus.triedWhileWriting.isEmpty, "the look writes to the chip")
        #expect(bus.triedWhileWriting.allSatisfy { !$0 }, "another process's claim was granted while the probe wrote: \(bus.triedWhileWriting)")
        #expect(node.hold(), "the probe let go of the claim when it ended")
        node.release()
    }

    /// `plumb regs` holds the chip's claim while the command reads and writes it; on a chip another
    /// plumb process claims, `set` still writes as asked, with a warning.
    @Test func regsHoldsTheChipAndWarnsBeforeWritingAClaimedOne() throws {
        let sensor = PlumbSimulation.SimulatedSensor(model: try #require(SimulatedChips.model("mpu6050")), seed: 1)
        let node = ClaimedNode()
        let context = CommandContext.capturing()
        do {
            let target = try Regs.target(bus: sensor.bus, address: nil, part: nil, clock: sensor.clock, simulation: nil,
                                         context: context, claimNode: node.path)
            let granted = node.hold()
            if granted { node.release() }
            #expect(!granted, "another process claimed the chip while plumb regs held it")
            #expect(Regs.claimedWriteWarning(target) == nil)
            withExtendedLifetime(target) {}
        }
        #expect(node.hold(), "plumb regs let go of the claim with its target")
        node.release()
        // An LSM6DS (no refine step asks about the claim) is held as well.
        let lsm = PlumbSimulation.SimulatedSensor(model: try #require(SimulatedChips.model("lsm6dso")), seed: 1)
        do {
            let target = try Regs.target(bus: lsm.bus, address: nil, part: nil, clock: lsm.clock, simulation: nil,
                                         context: context, claimNode: node.path)
            let granted = node.hold(0x6a)
            if granted { node.release() }
            #expect(!granted, "another process claimed the LSM6DSO while plumb regs held it")
            withExtendedLifetime(target) {}
        }
        #expect(node.hold())
        let target = try Regs.target(bus: sensor.bus, address: nil, part: nil, clock: sensor.clock, simulation: nil,
                                     context: context, claimNode: node.path)
        #expect(Regs.claimedWriteWarning(target)?.hasPrefix("another plumb process drives the chip at 0x68 on ") == true,
                "\(String(describing: Regs.claimedWriteWarning(target)))")
        node.release()
    }
}

/// A bus that, before each write to 0x68, tries another process's claim of the chip (and lets go
/// again): whether each try was granted.
private final class ClaimTryingBus: I2CBus {
    let base: any I2CBus
    let node: ClaimedNode
    private(set) var triedWhileWriting: [Bool] = []
    init(_ base: any I2CBus, node: ClaimedNode) {
        self.base = base
        self.node = node
    }
    var path: String { base.path }
    var maximumReadLength: Int? { base.maximumReadLength }
    var attemptsPerTransfer: Int { base.attemptsPerTransfer }
    func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
        if address == I2CAddress(0x68), operations.allSatisfy({ $0.direction == .write }) {
            let granted = node.hold()
            if granted { node.release() }
            triedWhileWriting.append(granted)
        }
        try base.transfer(&operations, address: address)
    }
}
