import Foundation
import Synchronization
import Testing
@testable import PlumbMQTT

@Suite struct MQTTEndpointTests {
    @Test func parsesSchemesAndDefaultPorts() throws {
        #expect(try MQTTEndpoint.parse("mqtt://broker.lan") == MQTTEndpoint(host: "broker.lan", port: 1883, tls: false))
        #expect(try MQTTEndpoint.parse("mqtts://broker.lan") == MQTTEndpoint(host: "broker.lan", port: 8883, tls: true))
        #expect(try MQTTEndpoint.parse("mqtt://127.0.0.1:18830/") == MQTTEndpoint(host: "127.0.0.1", port: 18830, tls: false))
        #expect(try MQTTEndpoint.parse("mqtts://[::1]:8884") == MQTTEndpoint(host: "::1", port: 8884, tls: true))
        #expect(try MQTTEndpoint.parse("mqtts://[::1]:8884").description == "mqtts://[::1]:8884")
    }

    @Test func refusesCredentialsOtherSchemesAndBadPorts() {
        #expect(throws: MQTTError.credentialsInURL) {
            try MQTTEndpoint.parse("mqtt://user:secret@host")
        }
        for bad in ["http://host", "host:1883", "mqtt://", "mqtt://host:0", "mqtt://host:70000", "mqtt://host:x"] {
            #expect(throws: MQTTError.self) { try MQTTEndpoint.parse(bad) }
        }
    }

    @Test func nodeNamesAreSafeInTopicsAndHomeAssistantIDs() {
        #expect(MQTTSettings.sanitise("kiosk-3.example.org") == "kiosk-3")
        #expect(MQTTSettings.sanitise("a+b#c/d") == "a_b_c_d")
        #expect(MQTTSettings.sanitise("") == "plumb")
        let s = MQTTSettings(endpoint: MQTTEndpoint(host: "h", port: 1, tls: false), node: "pi")
        #expect(s.availabilityTopic == "plumb/pi/availability")
        #expect(s.orientationTopic == "plumb/pi/orientation")
        #expect(s.clientID == "plumb-pi")
        var secret = s
        secret.username = "kiosk"
        secret.password = "hunter2"
        #expect(secret.description == "mqtt://h:1 as plumb-pi, user kiosk (password set), topics plumb/pi/...")
    }
}

@Suite struct MQTTMessagesTests {
    @Test func orientationAndGravityAreJSON() throws {
        let o = MQTTMessages.orientation(seq: 3, t: 12.5, device: "faceUp", interface: "portrait")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(o.utf8)) as? [String: Any])
        #expect(object["seq"] as? Int == 3)
        #expect(object["deviceOrientation"] as? String == "faceUp")
        #expect(object["interfaceOrientation"] as? String == "portrait")
        let g = MQTTMessages.gravity(t: 1, x: 0, y: -1, z: 0)
        let gravity = try #require(try JSONSerialization.jsonObject(with: Data(g.utf8)) as? [String: Any])
        #expect(gravity["pitch_deg"] as? Double == 90)
        #expect(gravity["roll_deg"] as? Double == 0)
    }

    @Test func attitudeFollowsTheDeviceFrame() {
        // Face up: gravity along -z.
        let flat = MQTTMessages.attitude(x: 0, y: 0, z: -1)
        #expect(abs(flat.pitch) < 1e-9 && abs(flat.roll) < 1e-9)
        // Landscape left: the right edge (+x) up, gravity along -x.
        #expect(abs(MQTTMessages.attitude(x: -1, y: 0, z: 0).roll + 90) < 1e-9)
        #expect(abs(MQTTMessages.attitude(x: 0.5, y: 0, z: -0.5).roll - 45) < 1e-9)
    }

    @Test func discoveryDescribesSensorsOfOneDevice() throws {
        var s = MQTTSettings(endpoint: MQTTEndpoint(host: "h", port: 1, tls: false), node: "kiosk\"1")
        s.gravityRate = 0
        let configs = MQTTMessages.discovery(s)
        #expect(configs.map(\.topic) == ["homeassistant/sensor/kiosk_1/device_orientation/config",
                                         "homeassistant/sensor/kiosk_1/interface_orientation/config"])
        for config in configs {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(config.payload.utf8)) as? [String: Any])
            #expect(object["state_topic"] as? String == "plumb/kiosk_1/orientation")
            #expect(object["availability_topic"] as? String == "plumb/kiosk_1/availability")
            #expect((object["device"] as? [String: Any])?["identifiers"] as? [String] == ["plumb_kiosk_1"])
        }
        s.gravityRate = 2
        #expect(MQTTMessages.discovery(s).count == 4)
        #expect(Set(MQTTMessages.discoveryTopics(s)) == Set(MQTTMessages.discovery(s).map(\.topic)))
        #expect(MQTTMessages.escape("a\"b\\c\n") == "a\\\"b\\\\c\\u000a")
    }
}

@Suite struct MQTTPublisherSetupTests {
    @Test func tlsNeedsAReadableCAFile() {
        var s = MQTTSettings(endpoint: MQTTEndpoint(host: "127.0.0.1", port: 8883, tls: true), node: "t")
        #expect(throws: MQTTError.self) { try MQTTPublisher(settings: s, report: { _ in }) }
        s.caFile = "/nonexistent/ca.pem"
        #expect(throws: MQTTError.setup("cannot read the TLS file /nonexistent/ca.pem; check the path and that plumb may read it")) {
            try MQTTPublisher(settings: s, report: { _ in })
        }
    }

    /// With no broker listening, changes queue (bounded) and the connection error is reported
    /// once however often the thread retries.
    @Test func queuesWhileNoBrokerAndReportsTheFailureOnce() throws {
        var s = MQTTSettings(endpoint: MQTTEndpoint(host: "127.0.0.1", port: 1, tls: false), node: "t")
        s.queueSize = 2
        s.reconnectMinimum = 0.01
        s.reconnectMaximum = 0.02
        let reports = ReportLog()
        let publisher = try MQTTPublisher(settings: s, report: { reports.append($0) })
        publisher.start()
        for (i, face) in ["portrait", "faceUp", "landscapeLeft"].enumerated() {
            publisher.publishOrientation(device: face, interface: "portrait", t: Double(i))
        }
        Thread.sleep(forTimeInterval: 0.3)
        publisher.stop()
        #expect(!publisher.isConnected)
        #expect(publisher.droppedChanges == 1)
        let errors = reports.all.filter { $0.level == .error }
        #expect(errors.count == 1)
        #expect(errors.first?.message.hasPrefix("cannot connect to mqtt://127.0.0.1:1: ") == true)
        #expect(reports.all.filter { $0.level == .debug && $0.message.hasPrefix("cannot connect") }.count >= 2)
    }

    /// `start()` on one thread and `stop()` on another (a daemon stopping from its signal
    /// queue): whether the network thread runs is shared state (a ThreadSanitizer run checks
    /// it), and stop still waits for the thread and stops only once.
    @Test func startAndStopOnDifferentThreads() throws {
        var s = MQTTSettings(endpoint: MQTTEndpoint(host: "127.0.0.1", port: 1, tls: false), node: "t")
        s.reconnectMinimum = 0.01
        s.reconnectMaximum = 0.02
        let reports = ReportLog()
        let publisher = try MQTTPublisher(settings: s, report: { reports.append($0) })
        let started = DispatchSemaphore(value: 0)
        let stopped = DispatchSemaphore(value: 0)
        Thread { publisher.start(); started.signal() }.start()
        started.wait()
        Thread.sleep(forTimeInterval: 0.05)
        Thread { publisher.stop(timeout: 5); stopped.signal() }.start()
        #expect(stopped.wait(timeout: .now() + 10) == .success)
        publisher.stop(timeout: 0.01)
        #expect(!publisher.isConnected)
        #expect(!reports.all.contains { $0.message.contains("did not stop") })
    }
}

final class ReportLog: Sendable {
    private let reports = Mutex<[MQTTReport]>([])
    func append(_ r: MQTTReport) { reports.withLock { $0.append(r) } }
    var all: [MQTTReport] { reports.withLock { $0 } }
}
