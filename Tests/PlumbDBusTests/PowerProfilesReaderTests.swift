import Foundation
import PlumbHAL
import Testing
@testable import PlumbDBus

/// Fixtures/fake-power-profiles.py, a separate process serving ActiveProfile on a private bus
/// under power-profiles-daemon's names.
final class FakePowerProfiles {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fake-power-profiles.py").path
    /// The fake needs the system Python with dbus-python and PyGObject (scripts/setup installs
    /// python3-dbus and python3-gi).
    static let available: Bool = {
        guard PrivateBus.available, FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = ["-c", "import dbus, dbus.mainloop.glib, gi.repository.GLib"]
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()

    let process = Process()
    let input = Pipe()
    let output = Pipe()

    init(address: String, names: String, profile: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Self.script, address, names, profile]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        try expectLine("ready")
    }

    /// Sends a command and waits for the fake's "ok".
    func send(_ command: String) throws {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        try expectLine("ok")
    }

    /// Sends a command and returns the fake's answer line.
    func ask(_ command: String) throws -> String {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        return try readLine()
    }

    /// Ends the fake and waits until it has left the bus.
    func quit() {
        input.fileHandleForWriting.write(Data("quit\n".utf8))
        process.waitUntilExit()
    }

    private func expectLine(_ expected: String) throws {
        guard try readLine() == expected else {
            throw TimedOut(what: "the fake power-profiles daemon's \"\(expected)\"")
        }
    }

    /// One line of the fake's output, waiting at most 10 s for it (a hung fake fails the test
    /// instead of hanging the run).
    private func readLine() throws -> String {
        var line = Data()
        let fd = output.fileHandleForReading.fileDescriptor
        let deadline = Date().addingTimeInterval(10)
        while !line.contains(UInt8(ascii: "\n")) {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            guard poll(&ready, 1, left) > 0 else { throw TimedOut(what: "a line from the fake power-profiles daemon") }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

@Suite("power-profiles-daemon's ActiveProfile over D-Bus", .enabled(if: FakePowerProfiles.available,
       "needs dbus-daemon, /usr/bin/python3 with python3-dbus and python3-gi (scripts/setup installs them)"))
struct PowerProfilesReaderTests {
    /// The policy power-profiles-daemon installs, in essence: anyone may talk to the daemon; here
    /// the test's user may also own the names.
    static let daemonPolicy = """
      <policy context="default">
        <allow send_destination="org.freedesktop.UPower.PowerProfiles"/>
        <allow send_destination="net.hadess.PowerProfiles"/>
      </policy>
      <policy user="\(NSUserName())">
        <allow own="org.freedesktop.UPower.PowerProfiles"/>
        <allow own="net.hadess.PowerProfiles"/>
      </policy>
    """

    @Test func readsTheOldNameAsDebian12ServesIt() throws {
        let bus = try PrivateBus(policy: false, extraPolicy: Self.daemonPolicy)
        let daemon = try FakePowerProfiles(address: bus.address, names: "hadess", profile: "power-saver")
        let reader = PowerProfilesReader(address: bus.address)
        #expect(try reader.activeProfile() == .profile("power-saver"))
        try daemon.send("set balanced")
        #expect(try reader.activeProfile() == .profile("balanced"), "each read asks the daemon again")
    }

    @Test func prefersTheNewNameWhenBothAreServed() throws {
        let bus = try PrivateBus(policy: false, extraPolicy: Self.daemonPolicy)
        let daemon = try FakePowerProfiles(address: bus.address, names: "upower", profile: "performance")
        let reader = PowerProfilesReader(address: bus.address)
        #expect(try reader.activeProfile() == .profile("performance"))
        daemon.quit()
        let old = try FakePowerProfiles(address: bus.address, names: "hadess", profile: "power-saver")
        #expect(try reader.activeProfile() == .profile("power-saver"), "falls back to the old name on the same connection")
        _ = old
    }

    @Test func aDaemonThatLeavesIsNoDaemonNotAnError() throws {
        let bus = try PrivateBus(policy: false, extraPolicy: Self.daemonPolicy)
        let reader = PowerProfilesReader(address: bus.address)
        #expect(try reader.activeProfile() == .noDaemon)
        let daemon = try FakePowerProfiles(address: bus.address, names: "both", profile: "power-saver")
        #expect(try reader.activeProfile() == .profile("power-saver"))
        daemon.quit()
        #expect(try reader.activeProfile() == .noDaemon)
    }

    /// The read must not start the daemon: power-profiles-daemon is D-Bus activatable, so a Get
    /// without NO_AUTO_START would start it (through systemd) at every power poll on a system
    /// where the admin stopped it, or fail with an activation error where it is masked.
    @Test func readingDoesNotAskTheBusToStartTheDaemon() throws {
        let bus = try PrivateBus(policy: false, extraPolicy: Self.daemonPolicy)
        let daemon = try FakePowerProfiles(address: bus.address, names: "both", profile: "balanced")
        let reader = PowerProfilesReader(address: bus.address)
        #expect(try reader.activeProfile() == .profile("balanced"))
        #expect(try daemon.ask("autostart") == "autostart no")
    }

    @Test func aDaemonThatDoesNotAnswerInTimeIsLeftAloneForAWhile() throws {
        let bus = try PrivateBus(policy: false, extraPolicy: Self.daemonPolicy)
        let daemon = try FakePowerProfiles(address: bus.address, names: "hadess", profile: "power-saver")
        let clock = VirtualClock()
        // A timeout of 0.5 s, not the 100 ms default (the fake hangs for 1 s): on a loaded machine
        // the fake's answer after the quiet time can take over 100 ms, so that ask times out too
        // and the reader goes quiet again (the likely cause of this test's one failure, at load 12
        // in a helper's run).
        let reader = PowerProfilesReader(address: bus.address, services: [.hadess], timeoutMicroseconds: 500_000, clock: clock,
                                         quietNanoseconds: 30_000_000_000)
        try daemon.send("hang")
        #expect(throws: PowerProfilesError.self) { _ = try reader.activeProfile() }
        do { _ = try reader.activeProfile() } catch { Issue.record("asked again within the quiet time: \(error)") }
        #expect(try reader.activeProfile() == .noBus, "not asked: the saved state stands in")
        clock.advance(by: 30_000_000_000)
        try daemon.send("set balanced")
        // The hung reply may still be in flight on the connection; the next read asks afresh.
        var answer = try? reader.activeProfile()
        if answer != .profile("balanced") { answer = try? reader.activeProfile() }
        #expect(answer == .profile("balanced"), "asked again after the quiet time")
    }

    @Test func noBusIsReportedAsSuch() throws {
        let reader = PowerProfilesReader(address: "unix:path=/nonexistent/plumb-test-bus.sock")
        #expect(try reader.activeProfile() == .noBus)
    }

    @Test func aBusThatGoesAwayIsNoBusAndTheReaderReconnects() throws {
        var bus: PrivateBus? = try PrivateBus(policy: false, extraPolicy: Self.daemonPolicy)
        let address = bus!.address
        let daemon = try FakePowerProfiles(address: address, names: "hadess", profile: "power-saver")
        let reader = PowerProfilesReader(address: address)
        #expect(try reader.activeProfile() == .profile("power-saver"))
        daemon.quit()
        bus = nil
        #expect(try reader.activeProfile() == .noBus)
        #expect(try reader.activeProfile() == .noBus, "no stale connection is reused")
    }

    @Test func refusalsAndWrongTypesAreErrorsNamingTheServiceAndBus() throws {
        let bus = try PrivateBus(policy: false, extraPolicy: Self.daemonPolicy)
        let daemon = try FakePowerProfiles(address: bus.address, names: "hadess", profile: "balanced")
        let reader = PowerProfilesReader(address: bus.address)
        try daemon.send("deny")
        #expect {
            _ = try reader.activeProfile()
        } throws: { error in
            guard let e = error as? PowerProfilesError, e.kind == .denied else { return false }
            return e.service == .hadess && e.bus == bus.address && e.description.contains("system.d")
        }
        try daemon.send("integer")
        #expect(throws: PowerProfilesError(.notAString, service: .hadess, bus: bus.address, detail: "")) {
            _ = try reader.activeProfile()
        }
        try daemon.send("set power-saver")
        #expect(try reader.activeProfile() == .profile("power-saver"), "recovers once the daemon answers")
    }

    @Test func theBusPolicyRefusingTheCallIsDenied() throws {
        // Deny-by-default bus (as Debian's system bus) without the daemon's send policy.
        let bus = try PrivateBus(policy: false, extraPolicy: """
          <policy user="\(NSUserName())">
            <allow own="net.hadess.PowerProfiles"/>
          </policy>
        """)
        let daemon = try FakePowerProfiles(address: bus.address, names: "hadess", profile: "balanced")
        let reader = PowerProfilesReader(address: bus.address, services: [.hadess])
        #expect {
            _ = try reader.activeProfile()
        } throws: { error in
            (error as? PowerProfilesError)?.kind == .denied
        }
        _ = daemon
    }
}

/// What fuzz target `listings` found in ``PowerProfilesReader/interpret(result:value:errorName:message:service:bus:)``.
@Suite struct PowerProfilesInterpretTests {
    static func buffer(_ text: String, _ size: Int) -> [CChar] {
        var b = [CChar](repeating: 0, count: size)
        for (i, byte) in text.utf8.prefix(size - 1).enumerated() { b[i] = CChar(bitPattern: byte) }
        return b
    }

    /// A result of Int32.min with no error reply was negated to compare it with an errno: an
    /// arithmetic-overflow trap (fuzz/corpus/listings/crash-fb56480a…, "AwcAAACA"). It is a
    /// failure without a reply like any other: drop the connection.
    @Test func theMostNegativeResultIsAFailureNotATrap() {
        let outcome = PowerProfilesReader.interpret(result: .min, value: Self.buffer("", 64), errorName: Self.buffer("", 128),
                                                    message: Self.buffer("", 256), service: .upower, bus: "the system bus")
        #expect(outcome == .dropConnection)
    }

    @Test func errnoResultsWithoutAReplyKeepTheirMeaning() {
        func outcome(_ r: Int32) -> PowerProfilesReader.Outcome {
            PowerProfilesReader.interpret(result: r, value: Self.buffer("", 64), errorName: Self.buffer("", 128),
                                          message: Self.buffer("", 256), service: .upower, bus: "the system bus")
        }
        #expect(outcome(-EBADMSG) == .fail(PowerProfilesError(.notAString, service: .upower, bus: "the system bus", detail: "")))
        #expect(outcome(-ETIMEDOUT) == .fail(PowerProfilesError(.noReply, service: .upower, bus: "the system bus",
                                                                detail: String(cString: strerror(ETIMEDOUT)))))
        #expect(outcome(-ECONNRESET) == .dropConnection)
        #expect(outcome(0) == .answer(.profile("")))
    }
}
