import Testing
@testable import PlumbConfiguration

@Suite struct MQTTConfigurationTests {
    func decode(_ mqtt: String) throws(ConfigurationError) -> Configuration {
        try Configuration.decode("{\"outputs\": {\"mqtt\": \(mqtt)}}", file: "plumb.json")
    }

    func message(_ mqtt: String) -> String {
        do { _ = try decode(mqtt); return "no error" } catch { return error.description }
    }

    @Test func decodesEveryKey() throws {
        let c = try decode("""
            {"url": "mqtts://broker.lan:8883", "prefix": "site/kiosks", "qos": 2, "clientId": "k1", "username": "u", "password": "p",
             "caFile": "/etc/ca.pem", "certFile": "/etc/c.pem", "keyFile": "/etc/k.pem", "keepAlive": 10, "queueSize": 5,
             "gravityRate": 2.5, "homeAssistant": false, "discoveryPrefix": "ha", "reconnectMinimum": 0.5, "reconnectMaximum": 8}
            """)
        let m = try #require(c.outputs.mqtt)
        #expect(m.url == "mqtts://broker.lan:8883")
        #expect(m.prefix == "site/kiosks")
        #expect(m.qos == 2 && m.clientID == "k1" && m.username == "u" && m.password == "p")
        #expect(m.caFile == "/etc/ca.pem" && m.certFile == "/etc/c.pem" && m.keyFile == "/etc/k.pem")
        #expect(m.keepAlive == 10 && m.queueSize == 5 && m.gravityRate == 2.5)
        #expect(!m.homeAssistant && m.discoveryPrefix == "ha" && m.reconnectMinimum == 0.5 && m.reconnectMaximum == 8)
        #expect(c.outputs.enabledNames == ["mqtt"])
        #expect(m.description.contains("user u (password set)") && !m.description.contains("\"p\"") && !m.description.contains(" p,"))
        #expect(try decode("{\"enabled\": false, \"url\": \"mqtt://h\"}").outputs.mqtt == nil)
        #expect(try decode("{\"url\": \"mqtt://h\"}").outputs.mqtt?.qos == 1)
    }

    @Test func errorsNameTheKey() {
        #expect(message("{}") == "plumb.json:1:22: outputs.mqtt.url: missing; required when outputs.mqtt is enabled (mqtt://host:1883 or mqtts://host:8883)")
        #expect(message("{\"url\": \"http://h\"}").contains("outputs.mqtt.url: \"http://h\" is not a broker URL"))
        #expect(message("{\"url\": \"mqtt://u:p@h\"}").contains("outputs.mqtt.url: must not hold credentials"))
        #expect(message("{\"url\": \"mqtts://h\"}").contains("outputs.mqtt.caFile: missing; required for mqtts://"))
        #expect(message("{\"url\": \"mqtt://h\", \"qos\": 3}").contains("outputs.mqtt.qos: 3 is not allowed; allowed values: 0, 1, 2"))
        #expect(message("{\"url\": \"mqtt://h\", \"password\": \"x\"}").contains("outputs.mqtt.password: needs a username"))
        #expect(message("{\"url\": \"mqtt://h\", \"certFile\": \"/c\"}").contains("outputs.mqtt.keyFile: missing"))
        #expect(message("{\"url\": \"mqtt://h\", \"queueSize\": 0}").contains("outputs.mqtt.queueSize: 0 is out of range"))
        #expect(message("{\"url\": \"mqtt://h\", \"prefix\": \"a/#\"}").contains("outputs.mqtt.prefix:"))
        #expect(message("{\"url\": \"mqtt://h\", \"pasword\": \"x\"}").contains("outputs.mqtt.pasword: unknown key") )
        #expect(message("{\"url\": \"mqtt://h\", \"reconnectMinimum\": 5, \"reconnectMaximum\": 1}").contains("outputs.mqtt.reconnectMaximum: must be at least"))
    }

    @Test func aStandaloneFileMayLeaveTheURLToTheCommandLine() throws {
        let m = try MQTTOutput.decode("{\"username\": \"u\", \"password\": \"p\"}", file: "mqtt.json")
        #expect(m.url == nil && m.username == "u")
        #expect(throws: ConfigurationError.self) { try MQTTOutput.decode("{\"board\": \"x\"}", file: "mqtt.json") }
    }
}
