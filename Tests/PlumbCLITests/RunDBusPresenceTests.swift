import Foundation
import PlumbConfiguration
import PlumbDrivers
import PlumbFusion
import PlumbHAL
import PlumbOrientation
import Synchronization
import Testing
@testable import PlumbCLI
@testable import PlumbDBus

/// A private dbus-daemon on a temporary unix socket where anyone may own any name and call
/// anything: enough for `plumb run`'s dbus output (the policy file itself is PlumbDBusTests'
/// `PrivateBus`'s business).
private final class OpenBus {
    static let daemonPath = "/usr/bin/dbus-daemon"
    let directory: URL
    let process = Process()
    let address: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-run-dbus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bus.conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(directory.path)/bus.sock</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
          </policy>
        </busconfig>
        """.write(to: config, atomically: true, encoding: .utf8)
        let out = Pipe()
        process.executableURL = URL(fileURLWithPath: Self.daemonPath)
        process.arguments = ["--config-file=\(config.path)", "--nofork", "--print-address=1"]
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard address.hasPrefix("unix:") else { throw CLIError.failure("dbus-daemon printed no address", fix: nil) }
    }

    deinit {
        // SIGKILL: the daemon inherits the test runner's blocked-signal mask, so SIGTERM would wait.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// `gdbus monitor` on the service's object: the PropertiesChanged lines a desktop receives.
private final class PropertiesMonitor: @unchecked Sendable {
    static let gdbusPath = "/usr/bin/gdbus"
    static let stdbufPath = "/usr/bin/stdbuf"
    private let process = Process()
    private final class Captured: Sendable { let text = Mutex("") }
    private let output = Captured()

    init(address: String) throws {
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: Self.stdbufPath)
        process.arguments = ["-oL", Self.gdbusPath, "monitor", "--address", address, "--dest", "net.hadess.SensorProxy",
                             "--object-path", "/net/hadess/SensorProxy"]
        process.standardOutput = pipe
        process.standardError = pipe
        let output = output
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if !data.isEmpty { output.text.withLock { $0 += String(decoding: data, as: UTF8.self) } }
        }
        try process.run()
    }

    var raw: String { output.text.withLock { $0 } }
    var changes: [String] { raw.split(separator: "\n").map(String.init).filter { $0.contains("PropertiesChanged") } }

    /// True once the bus holds the match rule through which the monitor receives the service's
    /// signals, so that every signal the service sends from now on reaches it.
    ///
    /// Its "is owned by" line does not promise that: gdbus monitor (GLib 2.74, gdbus-tool.c's
    /// `monitor_on_name_appeared`) prints the line when its name watcher learns the owner, and
    /// only then subscribes, with the owner's unique name as sender (so GLib's tracking of
    /// well-known senders, CVE-2024-34397's fix, plays no part); the subscription's AddMatch goes
    /// out afterwards from its worker thread. Under load, a claim made on seeing the line had
    /// the service's first PropertiesChanged, AccelerometerOrientation 'normal', reach the bus
    /// 0.1 ms before that AddMatch (a `dbus-monitor` trace of the private bus): the bus passed it
    /// to nobody, and this suite waited a minute for it. The bus itself says when the rule is in
    /// place: dbus-daemon's `org.freedesktop.DBus.Debug.Stats.GetAllMatchRules` (Debian builds
    /// it with the Stats interface). A dbus-daemon without it fails the wait with its error,
    /// rather than waiting on a line that promises nothing.
    func subscribed(busAddress: String) throws -> Bool {
        guard let line = raw.split(separator: "\n").first(where: { $0.contains(" is owned by ") }),
              let owner = line.split(separator: " ").last else { return false }
        let call = Process()
        let pipe = Pipe()
        call.executableURL = URL(fileURLWithPath: Self.gdbusPath)
        call.arguments = ["call", "--address", busAddress, "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                          "--method", "org.freedesktop.DBus.Debug.Stats.GetAllMatchRules"]
        call.standardOutput = pipe
        call.standardError = pipe
        try call.run()
        let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        call.waitUntilExit()
        guard call.terminationStatus == 0 else {
            throw CLIError.failure("gdbus call GetAllMatchRules on \(busAddress) failed: \(printed)",
                                   fix: "The suite needs dbus-daemon built with its Stats interface (Debian's is).")
        }
        // ({':1.2': ["type='signal',path='/net/hadess/SensorProxy',sender=':1.0'", ...], ...},): the
        // rules are the double-quoted strings.
        let rules = printed.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
        return rules.contains { rule in
            rule.contains("type='signal'") && rule.contains("sender='\(owner)'") && rule.contains("path='/net/hadess/SensorProxy'")
        }
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

private var toolsAvailable: Bool {
    [OpenBus.daemonPath, PropertiesMonitor.gdbusPath, PropertiesMonitor.stdbufPath].allSatisfy(FileManager.default.isExecutableFile(atPath:))
}

/// `plumb run` with `outputs.dbus`, its chip unplugged while a desktop holds a claim: the
/// session's stream says the chip is lost, and HasAccelerometer turns false with
/// PropertiesChanged, true again (with the orientation) once its samples come back, as in
/// `plumb dbus` (``DBusPresenceTests``). Before, the session told the output nothing and
/// HasAccelerometer stayed true.
@Suite(.serialized, .enabled(if: toolsAvailable, "needs dbus-daemon and gdbus"))
struct RunDBusPresenceTests {
    static let lostSignal = "/net/hadess/SensorProxy: org.freedesktop.DBus.Properties.PropertiesChanged ('net.hadess.SensorProxy', {'HasAccelerometer': <false>}, @as [])"
    static let backSignal = "/net/hadess/SensorProxy: org.freedesktop.DBus.Properties.PropertiesChanged ('net.hadess.SensorProxy', {'HasAccelerometer': <true>, 'AccelerometerOrientation': <'normal'>}, @as [])"

    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aChipUnpluggedDuringAClaimTurnsHasAccelerometerFalseUntilItAnswers(errno: Int32) throws {
        let bus = try OpenBus()
        let board = DBusBoard(nothingAnswersErrno: errno)
        let at = I2CAddress(UInt8(0x68))
        let imu = try DaemonFactory.makeIMU(bus: board, address: at, clock: board.clock, part: nil)
        let source = StreamSampleSource(name: "IMU at \(at) on /dev/i2c-1, polling", imu: imu, line: nil, clock: board.clock)
        let output = try DBusDaemonOutput(settings: DBusOutput(bus: bus.address))
        defer { try? output.restore() }
        // The stall limit is out of the way: the unplugged chip's retries run on the virtual clock.
        let pipeline = try SensorPipeline(
            source: source, configuration: IMUConfiguration(), orientation: OrientationPipeline(fused: FusionAlgorithm.complementary.makeGravityEstimator()),
            outputs: [output], allowedInterfaces: Set(InterfaceOrientation.allCases), stallLimit: .max, describe: { _ in "" })
        let session = Session(pipeline: pipeline)
        let step = session.step
        let monitor = try PropertiesMonitor(address: bus.address)
        let client = try SensorProxyBus(address: bus.address)
        // The claim's one orientation is sent once: the monitor's match rule must be on the bus
        // first (``PropertiesMonitor/subscribed(busAddress:)``; its "is owned by" line comes
        // before it: waiting on that line lost the orientation in loaded runs).
        try Self.until("the monitor to subscribe (have \(monitor.raw))", step) { try monitor.subscribed(busAddress: bus.address) }
        try client.call("ClaimAccelerometer")
        try Self.until("the monitor to see the orientation (have \(monitor.changes))", step) {
            monitor.changes.last?.contains("'normal'") == true
        }
        let base = monitor.changes.count

        // The signals after the claim's orientation, waited for by what they say (a count that
        // overshoots once would wait out the whole minute and say nothing of what came).
        board.plugged = false
        try Self.until("HasAccelerometer false on the bus (have \(monitor.changes))", step) {
            monitor.changes.dropFirst(base).contains(Self.lostSignal)
        }
        #expect(Array(monitor.changes.dropFirst(base)) == [Self.lostSignal])
        try Self.until("the output's log line (have \(session.log))", step) { session.log.contains { $0.hasPrefix("dbus: HasAccelerometer false: ") } }
        #expect(session.log.contains("dbus: HasAccelerometer false: IMU at 0x68 on /dev/i2c-1, polling: re-initialising failed: \(DBusStartTests.nothing(at: "0x68", errno: errno)); trying again"), "\(session.log)")
        #expect(try client.stringProperty("AccelerometerOrientation") == "normal", "the last orientation stays readable")

        board.plugged = true
        try Self.until("HasAccelerometer true on the bus (have \(monitor.changes))", step) {
            monitor.changes.dropFirst(base + 1).contains { $0.contains("{'HasAccelerometer': <true>") }
        }
        #expect(Array(monitor.changes.dropFirst(base)) == [Self.lostSignal, Self.backSignal])
        try Self.until("the output's log line (have \(session.log))", step) { session.log.contains("dbus: HasAccelerometer true again") }
        #expect(session.log.filter { $0.hasPrefix("dbus: HasAccelerometer false") }.count == 1, "one loss is told once: \(session.log)")
    }

    /// `plumb run --wait-for-sensor` with `outputs.dbus` the only output, started while its chip
    /// does not answer and before any desktop claims (a desktop claims only an accelerometer
    /// that is there): HasAccelerometer turns false on the bus at once, unclaimed, and true once
    /// the chip answers. The output told only a claim's run before, so it stayed true unclaimed.
    @Test func aChipAbsentAtStartIsAbsentOnTheBusUntilItAnswers() throws {
        let bus = try OpenBus()
        let board = DBusBoard(nothingAnswersErrno: Errno.EREMOTEIO)
        board.plugged = false
        let at = I2CAddress(UInt8(0x68))
        let imu = try DaemonFactory.makeIMU(bus: board, address: at, clock: board.clock, part: nil)
        let source = StreamSampleSource(name: "IMU at \(at) on /dev/i2c-1, polling", imu: imu, line: nil, clock: board.clock)
        let output = try DBusDaemonOutput(settings: DBusOutput(bus: bus.address))
        defer { try? output.restore() }
        let monitor = try PropertiesMonitor(address: bus.address)
        try Self.until("the monitor to subscribe (have \(monitor.raw))", {}) { try monitor.subscribed(busAddress: bus.address) }
        let pipeline = try SensorPipeline(
            source: source, configuration: IMUConfiguration(), orientation: OrientationPipeline(fused: FusionAlgorithm.complementary.makeGravityEstimator()),
            outputs: [output], allowedInterfaces: Set(InterfaceOrientation.allCases), waitsForSensor: true, describe: { _ in "" })
        let session = Session(pipeline: pipeline)
        try Self.until("HasAccelerometer false on the bus (have \(monitor.changes))", session.step) { !monitor.changes.isEmpty }
        #expect(monitor.changes == [Self.lostSignal])
        #expect(!pipeline.sensorActive)

        board.plugged = true
        try Self.until("HasAccelerometer true on the bus (have \(monitor.changes))", session.step) { monitor.changes.count == 2 }
        #expect(monitor.changes.last?.contains("{'HasAccelerometer': <true>, 'AccelerometerOrientation': <") == true, "\(monitor.changes)")
    }

    /// The daemon's session and what it logged.
    final class Session {
        let pipeline: SensorPipeline
        var log: [String] = []
        init(pipeline: SensorPipeline) { self.pipeline = pipeline }
        func step() throws { log += try pipeline.step(timeoutNanoseconds: 100_000_000).map(\.message) }
    }

    /// Steps the daemon's session until `condition` holds, for at most 60 s of real time (each
    /// condition takes a few steps and milliseconds; the orientation this suite waited for in
    /// vain was lost, not late: once by the relay, ``OrientationRelayOrderTests``, and once by a
    /// monitor not yet subscribed, ``PropertiesMonitor/subscribed(busAddress:)``).
    static func until(_ what: @autoclosure () -> String, _ step: () throws -> Void, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(60)
        while try !condition() {
            guard Date() < deadline else {
                Issue.record("timed out waiting for \(what())")
                return
            }
            try step()
            Thread.sleep(forTimeInterval: 0.002)
        }
    }
}
