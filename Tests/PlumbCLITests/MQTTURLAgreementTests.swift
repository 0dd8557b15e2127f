import Testing
import PlumbConfiguration
import PlumbMQTT

/// `outputs.mqtt.url` is checked when the file is read with the rules the MQTT output parses it by
/// (`MQTTEndpoint.parse`): before, `plumb config check` passed a port of 99999, a URL with no host
/// or a port that is no number, and `plumb run` then refused to start the output, naming no file
/// or line.
@Suite struct MQTTURLAgreementTests {
    static let urls = [
        "mqtt://broker.lan", "mqtts://broker.lan:8883", "mqtt://127.0.0.1:18830/", "mqtt://[::1]:1883", "mqtts://[::1]",
        "mqtt://x:99999", "mqtt://:1883", "mqtt://x:abc", "mqtt://x:-1", "mqtt://x:0", "mqtt://x:", "mqtt://x:65535",
        "mqtt://[::1", "mqtt://[::1]x", "mqtt://[]:1883", "mqtt://h/path", "mqtt://u:p@h", "http://h",
    ]

    @Test(arguments: urls)
    func theFileAcceptsAURLIfTheOutputDoes(_ url: String) {
        let json = #"{"outputs": {"mqtt": {"url": "\#(url)", "caFile": "/etc/ssl/certs/ca-certificates.crt"}}}"#
        let fileAccepts = (try? Configuration.decode(json, file: "plumb.json")) != nil
        let outputAccepts = (try? MQTTEndpoint.parse(url)) != nil
        #expect(fileAccepts == outputAccepts, "plumb.json \(fileAccepts ? "accepts" : "refuses") \(url), the MQTT output \(outputAccepts ? "accepts" : "refuses") it")
    }

    @Test func theFileNamesTheLineAndThePort() {
        #expect(throws: (any Error).self) { try Configuration.decode(#"{"outputs": {"mqtt": {"url": "mqtt://x:99999"}}}"#, file: "plumb.json") }
        do {
            _ = try Configuration.decode(#"{"outputs": {"mqtt": {"url": "mqtt://x:99999"}}}"#, file: "plumb.json")
        } catch {
            #expect("\(error)" == #"plumb.json:1:30: outputs.mqtt.url: "mqtt://x:99999" has port '99999'; a port is 1...65535"#)
        }
    }
}
