import Foundation
import Glibc
import Synchronization
import Testing
@testable import PlumbMQTT

/// Releasing a publisher whose network thread is still running (``MQTTPublisher/stop(timeout:)``
/// timed out): the libmosquitto handle must outlive the thread, which still uses it to say
/// goodbye. Run under AddressSanitizer (scripts/test.d/60-asan) a handle freed under the thread is
/// a heap-use-after-free report.
@Suite struct PublisherTeardownTests {
    @Test func releasedWhileTheThreadIsBusyThenTheThreadFinishes() throws {
        let broker = try OneShotBroker()
        var s = MQTTSettings(endpoint: MQTTEndpoint(host: "127.0.0.1", port: broker.port, tls: false), node: "t")
        s.reconnectMinimum = 0.01
        s.reconnectMaximum = 0.02
        s.homeAssistant = false
        let gate = Gate()
        let reports = ReportLog()
        weak var released: MQTTPublisher?
        do {
            // The network thread reports "connected" after the CONNACK and is held there (inside
            // the report callback) until the gate opens: it is busy, and its next steps use the
            // handle (publish "offline", loop, disconnect).
            let publisher = try MQTTPublisher(settings: s, report: { report in
                reports.append(report)
                if report.level == .info, report.message.hasPrefix("connected to") { gate.hold() }
            })
            released = publisher
            publisher.start()
            #expect(gate.waitUntilHeld(timeout: 10), "the thread never connected to the fake broker")
            publisher.stop(timeout: 0.05)
            #expect(reports.all.contains { $0.message.contains("did not stop within") })
        }
        // The last reference the test had is gone while the thread is still held.
        gate.open()
        // The thread says goodbye on the handle, ends, and only then is everything freed.
        let end = Date().addingTimeInterval(10)
        while released != nil, Date() < end { Thread.sleep(forTimeInterval: 0.01) }
        #expect(released == nil, "the publisher was not freed after its thread ended")
        #expect(broker.finish(timeout: 10) == .disconnected, "the thread did not send DISCONNECT on the handle after release")
    }
}

/// A gate the network thread waits at (from a report callback) until the test opens it.
private final class Gate: Sendable {
    private let held = DispatchSemaphore(value: 0)
    private let opened = DispatchSemaphore(value: 0)
    func hold() {
        held.signal()
        opened.wait()
    }
    func waitUntilHeld(timeout: Double) -> Bool { held.wait(timeout: .now() + timeout) == .success }
    func open() { opened.signal() }
}

/// A loopback MQTT 3.1.1 "broker" for one client: accepts one connection, reads CONNECT, answers
/// CONNACK (accepted), then reads until the client's DISCONNECT (0xE0 0x00) or end of stream.
/// Every read is bounded by a receive timeout.
private final class OneShotBroker: Sendable {
    enum Outcome: Sendable, Equatable { case disconnected, closedWithoutDisconnect, failed(String) }
    let port: Int32
    private let listener: Int32
    private let outcome = Mutex<Outcome?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BrokerError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 1) == 0 else { close(fd); throw BrokerError("bind/listen: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { close(fd); throw BrokerError("getsockname: errno \(errno)") }
        listener = fd
        port = Int32(UInt16(bigEndian: address.sin_port))
        Thread { [self] in
            let result = serve()
            outcome.withLock { $0 = result }
            done.signal()
        }.start()
    }

    /// How the client left, waiting at most `timeout` seconds.
    func finish(timeout: Double) -> Outcome {
        guard done.wait(timeout: .now() + timeout) == .success else { return .failed("timed out") }
        return outcome.withLock { $0 } ?? .failed("no outcome")
    }

    private func serve() -> Outcome {
        defer { close(listener) }
        var pollFD = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&pollFD, 1, 10_000) == 1 else { return .failed("no client connected") }
        let client = accept(listener, nil, nil)
        guard client >= 0 else { return .failed("accept: errno \(errno)") }
        defer { close(client) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var answered = false
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            // Whole packets: fixed header byte, remaining length (varint), body.
            while let (type, size) = Self.packet(at: received) {
                received.removeFirst(size)
                switch type {
                case 0x10 where !answered:
                    let connack: [UInt8] = [0x20, 0x02, 0x00, 0x00]
                    guard send(client, connack, connack.count, Int32(MSG_NOSIGNAL)) == connack.count else {
                        return .failed("send CONNACK: errno \(errno)")
                    }
                    answered = true
                case 0xE0: return .disconnected
                default: break
                }
            }
            let n = recv(client, &buffer, buffer.count, 0)
            if n == 0 { return .closedWithoutDisconnect }
            if n < 0 { return .failed("recv: errno \(errno)") }
            received += buffer[0..<n]
        }
    }

    /// The packet type (high nibble) and total size of the first whole packet in `bytes`.
    private static func packet(at bytes: [UInt8]) -> (UInt8, Int)? {
        var length = 0
        var multiplier = 1
        var index = 1
        while true {
            guard index < bytes.count, index <= 4 else { return nil }
            let byte = Int(bytes[index])
            length += (byte & 0x7F) * multiplier
            multiplier *= 128
            index += 1
            if byte & 0x80 == 0 { break }
        }
        guard bytes.count >= index + length else { return nil }
        return (bytes[0] & 0xF0, index + length)
    }
}

private struct BrokerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
