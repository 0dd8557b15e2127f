import Testing
@testable import PlumbMQTT

/// How failed attempts to an mqtts:// broker are reported (the publisher's network thread feeds
/// libmosquitto's results and logged OpenSSL reasons through this).
@Suite struct TLSFailureReportTests {
    func report(certFile: String? = "/etc/plumb/client.pem") -> TLSFailureReport {
        TLSFailureReport(endpoint: "mqtts://broker.lan:8883", tls: true, caFile: "/etc/plumb/ca.pem", certFile: certFile)
    }

    @Test func reasonlessProtocolErrorsAreDebugLinesThreeTimesThenAnErrorSayingWhatToCheck() {
        var r = report()
        for _ in 0..<TLSFailureReport.unexplainedBeforeReport {
            #expect(r.classify(.protocolError, reason: nil, description: "Protocol error")
                    == .debug("TLS with mqtts://broker.lan:8883 ended without a reason: Protocol error"))
        }
        guard case .error(let message) = r.classify(.protocolError, reason: nil, description: "Protocol error") else {
            Issue.record("the fourth reasonless failure is not an error")
            return
        }
        #expect(message.hasPrefix("TLS with mqtts://broker.lan:8883 failed: the broker closed the connection during the handshake"))
        #expect(message.contains("the client certificate /etc/plumb/client.pem"))
        // Repeated, not re-counted, until a CONNACK.
        #expect(r.classify(.connectionLost, reason: nil, description: "The connection was lost.") == .error(message))
        r.connected()
        #expect(r.classify(.protocolError, reason: nil, description: "Protocol error")
                == .debug("TLS with mqtts://broker.lan:8883 ended without a reason: Protocol error"))
    }

    @Test func aLoggedReasonIsReportedAtOnceWithItsFix() {
        var r = report()
        _ = r.classify(.protocolError, reason: nil, description: "Protocol error")
        let outcome = r.classify(.protocolError, reason: "error:0A000418:SSL routines::tlsv1 alert unknown ca", description: "Protocol error")
        #expect(outcome == .error("TLS with mqtts://broker.lan:8883 failed: error:0A000418:SSL routines::tlsv1 alert unknown ca"
                                  + " (the broker rejected the client certificate /etc/plumb/client.pem: check that it is signed by a CA the broker trusts and has not expired)"))
        // A later reasonless failure of the same attempt series repeats it.
        #expect(r.classify(.protocolError, reason: nil, description: "Protocol error") == outcome)
    }

    @Test func withoutAClientCertificateAnAlertMeansTheBrokerWantsOne() {
        var r = report(certFile: nil)
        let outcome = r.classify(.tls, reason: "error:0A00045C:SSL routines::tlsv13 alert certificate required", description: "A TLS error occurred.")
        guard case .error(let message) = outcome else { Issue.record("not an error: \(outcome)"); return }
        #expect(message.hasSuffix("(the broker requires a client certificate: set certFile and keyFile in the configuration file)"))
    }

    @Test func otherFailuresAndPlainEndpointsAreNotTLS() {
        var r = report()
        #expect(r.classify(.other, reason: nil, description: "Connection refused") == .notTLS)
        #expect(r.classify(.connectionLost, reason: nil, description: "The connection was lost.") == .notTLS)
        var plain = TLSFailureReport(endpoint: "mqtt://broker.lan:1883", tls: false, caFile: nil, certFile: nil)
        for _ in 0..<5 { #expect(plain.classify(.protocolError, reason: nil, description: "Protocol error") == .notTLS) }
    }
}
