import Foundation
import Synchronization
import Testing
@testable import PlumbDBus

/// A private dbus-daemon on a temporary unix socket, configured as Debian's system bus is (deny
/// by default: owning names and method calls need a policy) plus the project's policy file.
final class PrivateBus {
    static let daemonPath = "/usr/bin/dbus-daemon"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: daemonPath) }
    /// packaging/plumb-sensor-proxy.conf in this repository.
    static let policyFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../packaging/plumb-sensor-proxy.conf").standardized.path

    let directory: URL
    let process = Process()
    let address: String

    /// - Parameters:
    ///   - policy: include the project's policy file, and let the user running the tests own the
    ///     name (the file names only root and plumb).
    ///   - extraPolicy: more `<policy>` elements, for other services' tests.
    init(policy: Bool = true, extraPolicy: String = "") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-dbus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bus.conf")
        let extra = policy ? """
          <include>\(Self.policyFile)</include>
          <policy user="\(NSUserName())"><allow own="net.hadess.SensorProxy"/></policy>
        """ : ""
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>unix:path=\(directory.path)/bus.sock</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <deny own="*"/>
            <deny send_type="method_call"/>
            <allow send_type="signal"/>
            <allow send_requested_reply="true" send_type="method_return"/>
            <allow send_requested_reply="true" send_type="error"/>
            <allow receive_type="method_call"/>
            <allow receive_type="method_return"/>
            <allow receive_type="error"/>
            <allow receive_type="signal"/>
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
            <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
          </policy>
        \(extra)
        \(extraPolicy)
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
        guard address.hasPrefix("unix:") else { throw TimedOut(what: "dbus-daemon's address") }
    }

    deinit {
        // SIGKILL: the daemon inherits the test runner's blocked-signal mask, so SIGTERM would wait.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A source the test drives: counts starts and stops and reports what the test tells it to; the
/// first `failures` starts throw `failure`.
final class ManualSource: OrientationSource {
    private struct State {
        var starts = 0
        var stops = 0
        var failures: Int
        var report: (@Sendable (AccelerometerOrientation) -> Void)?
        var presence: (@Sendable (SensorPresence) -> Void)?
    }
    private let state: Mutex<State>
    let failure: String

    init(failing failure: String = "", times failures: Int = 0) {
        self.failure = failure
        state = Mutex(State(failures: failures))
    }

    var starts: Int { state.withLock { $0.starts } }
    var stops: Int { state.withLock { $0.stops } }
    var running: Bool { state.withLock { $0.report != nil } }

    struct Failure: Error, CustomStringConvertible { var description: String }

    func start(report: @escaping @Sendable (AccelerometerOrientation) -> Void) throws {
        let fails = state.withLock { s in
            guard s.failures == 0 else { s.failures -= 1; return true }
            s.starts += 1
            s.report = report
            return false
        }
        if fails { throw Failure(description: failure) }
        report(.undefined)
    }

    func start(report: @escaping @Sendable (AccelerometerOrientation) -> Void,
               presence: @escaping @Sendable (SensorPresence) -> Void) throws {
        try start(report: report)
        state.withLock { $0.presence = presence }
    }

    func stop() { state.withLock { $0.stops += 1; $0.report = nil; $0.presence = nil } }

    func emit(_ value: AccelerometerOrientation) { state.withLock { $0.report }?(value) }

    /// Says the sensor stopped answering or answers again, as a running source does.
    func tell(_ presence: SensorPresence) { state.withLock { $0.presence }?(presence) }
}

/// What a running service reported, collected from its thread.
final class Recorder: Sendable {
    let events = Mutex<[SensorProxyService.Event]>([])
    /// nil while running; .some(nil) after a clean stop; .some(error) after a failure.
    let result = Mutex<SensorProxyError??>(.none)
}

/// Runs a service on its own thread for the length of a test.
final class RunningService: Sendable {
    let service: SensorProxyService
    let recorder = Recorder()

    init(source: (any OrientationSource)?, address: String) throws {
        let recorder = self.recorder
        service = SensorProxyService(source: source, busAddress: address) { event in recorder.events.withLock { $0.append(event) } }
        service.runInBackground { error in recorder.result.withLock { $0 = .some(error) } }
        try waitUntil("the service to own the name") {
            recorder.events.withLock { $0.contains { if case .ready = $0 { true } else { false } } } || recorder.result.withLock { $0 != nil }
        }
        if let error = recorder.result.withLock({ $0 }) ?? nil { throw error }
    }

    var recorded: [SensorProxyService.Event] { recorder.events.withLock { $0 } }

    func shutDown() throws {
        service.stop()
        try waitUntil("the service to stop") { recorder.result.withLock { $0 != nil } }
    }
}

@Suite(.serialized, .enabled(if: PrivateBus.available, "needs dbus-daemon (Debian package dbus-daemon)"))
struct SensorProxyServiceTests {
    @Test func claimsStartAndStopTheSensorPerClient() throws {
        let bus = try PrivateBus()
        let source = ManualSource()
        let running = try RunningService(source: source, address: bus.address)
        defer { try? running.shutDown() }
        #expect(source.starts == 0)

        let first = try SensorProxyBus(address: bus.address)
        let second = try SensorProxyBus(address: bus.address)
        try first.call("ClaimAccelerometer")
        #expect(source.starts == 1 && source.running)
        try first.call("ClaimAccelerometer")      // a second claim from the same client is the same claim
        try second.call("ClaimAccelerometer")
        #expect(source.starts == 1)
        try first.call("ReleaseAccelerometer")
        #expect(source.running)                    // the second client still holds it
        try second.call("ReleaseAccelerometer")
        #expect(source.stops == 1 && !source.running)
        try second.call("ReleaseAccelerometer")    // releasing again is harmless
        #expect(source.stops == 1)
        try first.call("ClaimAccelerometer")
        #expect(source.starts == 2)
        try first.call("ReleaseAccelerometer")
        #expect(source.stops == 2)
        #expect(running.recorded.filter { if case .claimed(.accelerometer, _) = $0 { true } else { false } }.count == 3)
    }

    @Test func aClientThatLeavesTheBusLosesItsClaim() throws {
        let bus = try PrivateBus()
        let source = ManualSource()
        let running = try RunningService(source: source, address: bus.address)
        defer { try? running.shutDown() }
        var client: SensorProxyBus? = try SensorProxyBus(address: bus.address)
        let name = client!.uniqueName
        try client!.call("ClaimAccelerometer")
        try client!.call("ClaimLight")
        #expect(source.running)
        client = nil                               // the connection closes without a release
        try waitUntil("the claim to be dropped") { !source.running }
        #expect(source.stops == 1)
        #expect(running.recorded.contains(.released(.accelerometer, client: name, clientLeft: true)))
        #expect(running.recorded.contains(.released(.light, client: name, clientLeft: true)))
        #expect(running.service.status.claims == SensorClaims())
    }

    @Test func orientationReportsBecomeThePropertyInOrder() throws {
        let bus = try PrivateBus()
        let source = ManualSource()
        let running = try RunningService(source: source, address: bus.address)
        defer { try? running.shutDown() }
        let client = try SensorProxyBus(address: bus.address)
        #expect(try client.stringProperty("AccelerometerOrientation") == "undefined")
        try client.call("ClaimAccelerometer")
        for value in [AccelerometerOrientation.normal, .leftUp, .leftUp, .bottomUp, .rightUp] { source.emit(value) }
        try waitUntil("right-up") { (try? client.stringProperty("AccelerometerOrientation")) == "right-up" }
        let changes = running.recorded.compactMap { if case .orientationChanged(let o) = $0 { o } else { nil } }
        #expect(changes == [.normal, .leftUp, .bottomUp, .rightUp])
        // Released, the last value stays and later reports from the stopped source are dropped.
        try client.call("ReleaseAccelerometer")
        source.emit(.normal)
        #expect(try client.stringProperty("AccelerometerOrientation") == "right-up")
        #expect(try client.stringProperty("LightLevelUnit") == "lux")
    }

    @Test func aSourceThatCannotStartTurnsTheAccelerometerAbsentUntilItStarts() throws {
        let bus = try PrivateBus()
        let source = ManualSource(failing: "no IMU at 0x68 on /dev/i2c-1", times: 1)
        let running = try RunningService(source: source, address: bus.address)
        defer { try? running.shutDown() }
        let client = try SensorProxyBus(address: bus.address)
        try client.call("ClaimAccelerometer")      // claiming still succeeds, as the interface allows
        try waitUntil("HasAccelerometer false") { !running.service.status.hasAccelerometer }
        #expect(running.recorded.contains(.sensorFailed("no IMU at 0x68 on /dev/i2c-1")))
        #expect(!source.running)
        // The failed start holds no sensor; the next first claim tries again, and succeeds.
        try client.call("ReleaseAccelerometer")
        try client.call("ClaimAccelerometer")
        #expect(source.running)
        try waitUntil("HasAccelerometer true again") { running.service.status.hasAccelerometer }
    }

    @Test func theNameCanBeOwnedOnce() throws {
        let bus = try PrivateBus()
        let running = try RunningService(source: nil, address: bus.address)
        defer { try? running.shutDown() }
        let second = SensorProxyService(source: nil, busAddress: bus.address)
        #expect(throws: SensorProxyError(.nameTaken, errno: EEXIST, bus: bus.address)) { try second.run() }
    }

    /// The owner is often another plumb (plumb.service with outputs.dbus, plumb-sensor-proxy.service,
    /// or one started by hand), not iio-sensor-proxy, which the fix alone named; busctl names it.
    @Test func aTakenNamesFixSaysHowToFindTheOwner() throws {
        let bus = try PrivateBus()
        let running = try RunningService(source: nil, address: bus.address)
        defer { try? running.shutDown() }
        let second = SensorProxyService(source: nil, busAddress: bus.address)
        var taken: SensorProxyError?
        do { try second.run() } catch { taken = error }
        #expect(taken?.kind == .nameTaken)
        if let error = taken {
            #expect(error.fix == "'busctl --address=\(bus.address) status net.hadess.SensorProxy' names the process that owns it. "
                    + "If it is iio-sensor-proxy: systemctl stop iio-sensor-proxy (or systemctl mask it to replace it for good). "
                    + "If it is plumb: plumb.service (outputs.dbus), plumb-sensor-proxy.service or a plumb started by hand already serves it; "
                    + "run one of them, not both")
        }
        #expect(SensorProxyError(.nameTaken, errno: EEXIST, bus: SensorProxyError.systemBus).fix.hasPrefix("'busctl status net.hadess.SensorProxy' names"))
    }

    @Test func aPolicyThatDeniesTheNameIsReported() throws {
        let bus = try PrivateBus(policy: false)
        let service = SensorProxyService(source: nil, busAddress: bus.address)
        #expect(throws: SensorProxyError(.notAllowed, errno: EACCES, bus: bus.address)) { try service.run() }
    }

    @Test func noBusIsAConnectError() throws {
        let service = SensorProxyService(source: nil, busAddress: "unix:path=/nonexistent/plumb-test.sock")
        #expect(throws: SensorProxyError(.connect, errno: ENOENT, bus: "unix:path=/nonexistent/plumb-test.sock")) { try service.run() }
    }
}

/// `gdbus monitor` on the service's object: the PropertiesChanged signals as a desktop receives
/// them, one line each ("/net/hadess/SensorProxy: org.freedesktop.DBus.Properties.PropertiesChanged
/// ('net.hadess.SensorProxy', {'HasAccelerometer': <false>}, @as [])").
final class SignalMonitor: @unchecked Sendable {
    static let gdbusPath = "/usr/bin/gdbus"
    static let stdbufPath = "/usr/bin/stdbuf"
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: gdbusPath) && FileManager.default.isExecutableFile(atPath: stdbufPath)
    }
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

    /// Everything it printed so far.
    var raw: String { output.text.withLock { $0 } }

    /// The PropertiesChanged lines so far.
    var changes: [String] {
        output.text.withLock { $0 }.split(separator: "\n").map(String.init).filter { $0.contains("PropertiesChanged") }
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// A chip lost during a claim kept HasAccelerometer true (the README said so): iio-sensor-proxy
/// turns it false when udev removes its device and true when one is added, with
/// PropertiesChanged each time. The source now tells the service, which does the same.
@Suite(.serialized, .enabled(if: PrivateBus.available && SignalMonitor.available, "needs dbus-daemon and gdbus"))
struct SensorPresenceTests {
    static let lostSignal = "/net/hadess/SensorProxy: org.freedesktop.DBus.Properties.PropertiesChanged ('net.hadess.SensorProxy', {'HasAccelerometer': <false>}, @as [])"
    static let backSignal = "/net/hadess/SensorProxy: org.freedesktop.DBus.Properties.PropertiesChanged ('net.hadess.SensorProxy', {'HasAccelerometer': <true>, 'AccelerometerOrientation': <'left-up'>}, @as [])"

    @Test func aSensorLostDuringAClaimTurnsHasAccelerometerFalseUntilItAnswers() throws {
        let bus = try PrivateBus()
        let source = ManualSource()
        let running = try RunningService(source: source, address: bus.address)
        defer { try? running.shutDown() }
        let monitor = try SignalMonitor(address: bus.address)
        let client = try SensorProxyBus(address: bus.address)
        // gdbus monitor subscribes asynchronously, and its "Monitoring signals" line does not
        // promise that its match rule is in place: orientations go out (right-up, bottom-up in
        // turn) until it shows one, then left-up, sent once and last, so that once it shows
        // left-up nothing sent before is still on its way (signals arrive in order).
        try waitUntil("the monitor to start (have \(monitor.raw))") { monitor.raw.contains("Monitoring signals") }
        try client.call("ClaimAccelerometer")
        var turn = false
        try waitUntil("the monitor to see an orientation (have \(monitor.raw))") {
            guard monitor.changes.isEmpty else { return true }
            turn.toggle()
            source.emit(turn ? .rightUp : .bottomUp)
            Thread.sleep(forTimeInterval: 0.02)
            return false
        }
        source.emit(.leftUp)
        try waitUntil("the monitor to see left-up (have \(monitor.changes))") { monitor.changes.last?.contains("'left-up'") == true }
        let base = monitor.changes.count
        #expect(running.service.status.hasAccelerometer)

        source.tell(.absent("IMU at 0x68 on /dev/i2c-1, polling: re-initialising failed: nothing answers at 0x68 on /dev/i2c-1; trying again"))
        try waitUntil("HasAccelerometer false on the bus (have \(monitor.changes))") { monitor.changes.count == base + 1 }
        #expect(monitor.changes.last == Self.lostSignal)
        #expect(!running.service.status.hasAccelerometer)
        // The service records the event on its bus thread after setting the property: waited for.
        try waitUntil("the lost event (have \(running.recorded))") {
            running.recorded.contains(.sensorLost("IMU at 0x68 on /dev/i2c-1, polling: re-initialising failed: nothing answers at 0x68 on /dev/i2c-1; trying again"))
        }
        #expect(source.running, "the claim stands while the chip is away")
        #expect(try client.stringProperty("AccelerometerOrientation") == "left-up")

        // Told again while away, nothing more is sent.
        source.tell(.absent("again"))
        source.tell(.present)
        try waitUntil("HasAccelerometer true on the bus (have \(monitor.changes))") { monitor.changes.count == base + 2 }
        #expect(monitor.changes.last == Self.backSignal)
        #expect(running.service.status.hasAccelerometer)
        try waitUntil("the back event (have \(running.recorded))") { running.recorded.contains(.sensorBack) }
        #expect(running.recorded.filter { $0 == .sensorBack }.count == 1)
        #expect(running.recorded.filter { if case .sensorLost = $0 { true } else { false } }.count == 1)
    }

    /// `plumb run`'s dbus output: the daemon's session tells the relay (``OrientationRelay/tell(_:)``)
    /// that its chip stopped answering and that it answers again, and the service turns
    /// HasAccelerometer false and back as for `plumb dbus`. Before, the relay told no presence
    /// and HasAccelerometer stayed true.
    @Test func plumbRunsRelayTurnsHasAccelerometerFalseUntilTheChipAnswers() throws {
        let bus = try PrivateBus()
        let relay = OrientationRelay()
        let running = try RunningService(source: relay, address: bus.address)
        defer { try? running.shutDown() }
        let monitor = try SignalMonitor(address: bus.address)
        let client = try SensorProxyBus(address: bus.address)
        try waitUntil("the monitor to start (have \(monitor.raw))") { monitor.raw.contains("Monitoring signals") }
        try client.call("ClaimAccelerometer")
        // As above: orientations until the monitor shows one, then left-up, sent once and last.
        var turn = false
        try waitUntil("the monitor to see an orientation (have \(monitor.raw))") {
            guard monitor.changes.isEmpty else { return true }
            turn.toggle()
            if turn { relay.publish(device: .landscapeLeft, interface: .landscapeRight) }
            else { relay.publish(device: .portraitUpsideDown, interface: .portraitUpsideDown) }
            Thread.sleep(forTimeInterval: 0.02)
            return false
        }
        relay.publish(device: .landscapeRight, interface: .landscapeLeft)
        try waitUntil("the monitor to see left-up (have \(monitor.changes))") { monitor.changes.last?.contains("'left-up'") == true }
        let base = monitor.changes.count
        #expect(running.service.status.hasAccelerometer)

        let lost = "IMU at 0x68 on /dev/i2c-1, polling: re-initialising failed: nothing answers at 0x68 on /dev/i2c-1; trying again"
        relay.tell(.absent(lost))
        try waitUntil("HasAccelerometer false on the bus (have \(monitor.changes))") { monitor.changes.count == base + 1 }
        #expect(monitor.changes.last == Self.lostSignal)
        #expect(!running.service.status.hasAccelerometer)
        // The bus thread records the event after it sent the signal the monitor saw.
        try waitUntil("the lost event (have \(running.recorded))") { running.recorded.contains(.sensorLost(lost)) }
        #expect(try client.stringProperty("AccelerometerOrientation") == "left-up")

        relay.tell(.absent(lost))
        relay.tell(.present)
        try waitUntil("HasAccelerometer true on the bus (have \(monitor.changes))") { monitor.changes.count == base + 2 }
        #expect(monitor.changes.last == Self.backSignal)
        #expect(running.service.status.hasAccelerometer)
        try waitUntil("the back event (have \(running.recorded))") { running.recorded.contains(.sensorBack) }
        #expect(running.recorded.filter { $0 == .sensorBack }.count == 1)
        #expect(running.recorded.filter { if case .sensorLost = $0 { true } else { false } }.count == 1)
    }

    /// The daemon's sensor runs for its other outputs while no desktop holds a claim: a chip lost
    /// meanwhile is told to the relay unclaimed, and the next claim finds HasAccelerometer false
    /// until the chip answers again.
    @Test func plumbRunsRelayTellsAClaimMadeWhileTheChipIsAway() throws {
        let bus = try PrivateBus()
        let relay = OrientationRelay()
        let running = try RunningService(source: relay, address: bus.address)
        defer { try? running.shutDown() }
        let client = try SensorProxyBus(address: bus.address)
        relay.tell(.absent("gone"))
        #expect(running.service.status.hasAccelerometer, "nobody claims: the service has not started the relay")
        try client.call("ClaimAccelerometer")
        try waitUntil("HasAccelerometer false") { !running.service.status.hasAccelerometer }
        // The event goes out on the bus thread after the property changed under the claim's start.
        try waitUntil("the lost event (have \(running.recorded))") { running.recorded.contains(.sensorLost("gone")) }
        relay.tell(.present)
        try waitUntil("HasAccelerometer true") { running.service.status.hasAccelerometer }
        try client.call("ReleaseAccelerometer")
        try client.call("ClaimAccelerometer")
        #expect(running.service.status.hasAccelerometer, "a claim after the chip came back finds it present")
        #expect(running.recorded.filter { if case .sensorLost = $0 { true } else { false } }.count == 1)
    }

    /// Released while away, the next claim's start does not make it present: only the sensor
    /// answering does. A report from the earlier claim's run is dropped.
    @Test func aNewClaimWhileAwayStaysAbsentUntilTheSensorAnswers() throws {
        let bus = try PrivateBus()
        let source = ManualSource()
        let running = try RunningService(source: source, address: bus.address)
        defer { try? running.shutDown() }
        let client = try SensorProxyBus(address: bus.address)
        try client.call("ClaimAccelerometer")
        source.tell(.absent("gone"))
        try waitUntil("HasAccelerometer false") { !running.service.status.hasAccelerometer }
        try client.call("ReleaseAccelerometer")
        try client.call("ClaimAccelerometer")
        #expect(source.starts == 2)
        #expect(!running.service.status.hasAccelerometer)
        source.tell(.present)
        try waitUntil("HasAccelerometer true") { running.service.status.hasAccelerometer }
    }
}
