import CMosquitto
import Foundation
import Synchronization

/// Something the publisher reports for the log. Never contains the username or password.
public struct MQTTReport: Sendable, Equatable {
    public enum Level: Sendable, Equatable { case debug, info, warning, error }
    public var level: Level
    public var message: String
}

/// Publishes orientation and gravity to an MQTT broker through libmosquitto, and keeps doing so
/// while the broker comes and goes.
///
/// - Availability: `<prefix>/<node>/availability` is "online" (retained) after every connect and
///   "offline" (retained) on ``stop()``; the broker publishes "offline" itself as our last will
///   when the connection dies without a DISCONNECT (plumb killed, board unplugged).
/// - Orientation changes are retained; while disconnected they wait in a queue of
///   ``MQTTSettings/queueSize`` (oldest dropped first, so the newest is always delivered), and on
///   every connect the queue is sent in order, or the current state again when it is empty.
/// - Gravity is sent at most ``MQTTSettings/gravityRate`` times a second, not retained, and only
///   while connected.
/// - Reconnects: a network thread runs libmosquitto's loop and reconnects after
///   ``MQTTSettings/reconnectMinimum`` s, doubling to ``MQTTSettings/reconnectMaximum``. A failure
///   is reported once (at `.error`/`.warning`); the same failure again is `.debug`.
///
/// Locking: `state` is held while calling `mosquitto_publish` (so messages leave in the order
/// they were queued), and never inside a libmosquitto callback: libmosquitto runs callbacks under
/// its own callback mutex, which `mosquitto_publish` may take too (QoS 0 completion), so the only
/// callback records the CONNACK code in `callbacks` and the network thread acts on it afterwards.
///
/// Teardown: the libmosquitto handle lives in a ``Client`` that the network thread holds until it
/// leaves, so it is destroyed by whichever side lets go last, never under a running thread. A
/// publisher released after ``stop(timeout:)`` timed out (a thread held up in a report callback, a
/// connect that takes long) is freed when its thread ends; until then the thread still says
/// goodbye on the handle (offline, DISCONNECT).
public final class MQTTPublisher: @unchecked Sendable {
    // @unchecked: `handle` is shared by the network thread (connect, loop) and by callers of the
    // publish methods, which libmosquitto supports (its packet queues have their own mutexes);
    // everything else mutable is inside a Mutex (whether the network thread was started too: `start()`
    // and `stop()` may be called from different threads).

    public let settings: MQTTSettings
    private let client: Client
    private var handle: OpaquePointer { client.handle }
    private var callbacks: CallbackBox { client.callbacks }
    private let report: @Sendable (MQTTReport) -> Void
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)
    /// What TLS failures have been reported since the last CONNACK (network thread only).
    private let tlsFailures: Mutex<TLSFailureReport>

    private struct State {
        /// The network thread was started and has not been waited for by ``stop(timeout:)``.
        var threadStarted = false
        var connected = false
        var stopping = false
        var queue: [String] = []
        var latest: String?
        var seq = 0
        var dropped = 0
        var lastGravity: UInt64?
        var lastReported: String?
    }

    /// The CONNACK result and the last TLS error libmosquitto logged, written by libmosquitto's
    /// callbacks, read by the network thread.
    private final class CallbackBox: Sendable {
        let connack = Mutex<Int32?>(nil)
        let tlsError = Mutex<String?>(nil)
    }

    /// The libmosquitto handle and the box its callbacks write to, destroyed with the last reference
    /// (the publisher's or the network thread's).
    private final class Client: @unchecked Sendable {
        // @unchecked: `handle` is used from several threads as libmosquitto allows (see the class
        // comment above); it is destroyed only in deinit, when no thread can hold a reference.
        let handle: OpaquePointer
        let callbacks: CallbackBox

        init?(clientID: String) {
            let callbacks = CallbackBox()
            // The handle keeps an unretained pointer to `callbacks`: both live exactly as long as this.
            guard let handle = mosquitto_new(clientID, true, Unmanaged.passUnretained(callbacks).toOpaque()) else { return nil }
            self.handle = handle
            self.callbacks = callbacks
        }

        deinit { mosquitto_destroy(handle) }
    }

    private static let libraryReady: Bool = {
        mosquitto_lib_init()
        return true
    }()

    /// Sets up the client (TLS files are checked here) without connecting; ``start()`` connects.
    public init(settings: MQTTSettings, report: @escaping @Sendable (MQTTReport) -> Void) throws(MQTTError) {
        precondition(MQTTPublisher.libraryReady)
        precondition((0...2).contains(settings.qos), "QoS must be 0, 1 or 2")
        precondition(settings.queueSize >= 1, "the queue must hold at least the newest change")
        self.settings = settings
        self.tlsFailures = Mutex(TLSFailureReport(endpoint: settings.endpoint.description, tls: settings.endpoint.tls,
                                                  caFile: settings.caFile, certFile: settings.certFile))
        self.report = report
        guard let client = Client(clientID: settings.clientID) else {
            throw .setup("cannot create an MQTT client (out of memory, or an empty client id)")
        }
        // From here every stored property is set, so a throw below releases `client`, which
        // destroys the handle: the error paths must not destroy it themselves (a double free).
        self.client = client
        let handle = client.handle
        mosquitto_connect_callback_set(handle) { _, context, code in
            guard let context else { return }
            let box = Unmanaged<CallbackBox>.fromOpaque(context).takeUnretainedValue()
            box.connack.withLock { $0 = code }
        }
        // libmosquitto reports why a TLS handshake failed only in its log ("OpenSSL Error[0]:
        // error:0A00045C:SSL routines::tlsv13 alert certificate required"): keep the reason.
        mosquitto_log_callback_set(handle) { _, context, level, text in
            guard let context, let text, level & Int32(MOSQ_LOG_ERR) != 0 else { return }
            let line = String(cString: text)
            guard line.hasPrefix("OpenSSL Error") else { return }
            let box = Unmanaged<CallbackBox>.fromOpaque(context).takeUnretainedValue()
            let reason = line.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? line
            box.tlsError.withLock { if $0 == nil { $0 = reason } }
        }
        let offline = Array("offline".utf8)
        var rc = mosquitto_will_set(handle, settings.availabilityTopic, Int32(offline.count), offline, settings.qos, true)
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw .setup("cannot set the last will on \(settings.availabilityTopic): \(Self.describe(rc))")
        }
        if settings.username != nil || settings.password != nil {
            rc = mosquitto_username_pw_set(handle, settings.username, settings.password)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                throw .setup("cannot set the MQTT username and password: \(Self.describe(rc))")
            }
        }
        if settings.endpoint.tls || settings.caFile != nil || settings.certFile != nil {
            guard settings.caFile != nil else {
                throw .setup("\(settings.endpoint) needs a CA file to check the broker's certificate (caFile in the configuration)")
            }
            guard (settings.certFile == nil) == (settings.keyFile == nil) else {
                throw .setup("a client certificate needs its key and the other way round (certFile and keyFile)")
            }
            for file in [settings.caFile, settings.certFile, settings.keyFile].compactMap({ $0 })
            where !FileManager.default.isReadableFile(atPath: file) {
                throw .setup("cannot read the TLS file \(file); check the path and that plumb may read it")
            }
            rc = mosquitto_tls_set(handle, settings.caFile, nil, settings.certFile, settings.keyFile, nil)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                throw .setup("TLS setup failed (caFile \(settings.caFile ?? "-"), certFile \(settings.certFile ?? "-")): \(Self.describe(rc))")
            }
        }
    }

    /// Starts the network thread, which connects (and reconnects) in the background.
    public func start() {
        let first = state.withLock { s in
            defer { s.threadStarted = true }
            return !s.threadStarted
        }
        precondition(first, "start() once")
        // The thread holds the publisher and, explicitly, the client (the handle) until it leaves.
        let thread = Thread { [self, client] in withExtendedLifetime(client) { runLoop() } }
        thread.name = "plumb.mqtt"
        thread.start()
    }

    /// Publishes "offline", disconnects cleanly (so the broker does not send the last will) and
    /// waits up to `timeout` seconds for the network thread to end.
    public func stop(timeout: Double = 5) {
        let started = state.withLock { s in
            s.stopping = true
            return s.threadStarted
        }
        guard started else { return }
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            emit(.warning, "the MQTT thread did not stop within \(timeout) s")
        }
        state.withLock { $0.threadStarted = false }
    }

    /// Waits until connected with nothing queued (every change so far handed to libmosquitto), at
    /// most `timeout` seconds; false if that did not happen in time.
    public func waitUntilDelivered(timeout: Double) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while true {
            if state.withLock({ $0.connected && $0.queue.isEmpty }) { return true }
            if Date() >= end { return false }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Whether a CONNACK accepted us and the connection has not been lost since.
    public var isConnected: Bool { state.withLock { $0.connected } }

    /// How many changes were dropped from a full queue so far.
    public var droppedChanges: Int { state.withLock { $0.dropped } }

    /// Publishes an orientation change (retained), or queues it while disconnected.
    public func publishOrientation(device: String, interface: String, t: Double) {
        state.withLock { s in
            s.seq += 1
            let payload = MQTTMessages.orientation(seq: s.seq, t: t, device: device, interface: interface)
            s.latest = payload
            if s.connected, publish(settings.orientationTopic, payload, retain: true) { return }
            s.queue.append(payload)
            if s.queue.count > settings.queueSize {
                s.queue.removeFirst(s.queue.count - settings.queueSize)
                s.dropped += 1
            }
        }
    }

    /// Publishes gravity if connected and at least 1/gravityRate s have passed since the last one.
    public func publishGravity(_ x: Double, _ y: Double, _ z: Double, t: Double, nowNanoseconds: UInt64) {
        guard settings.gravityRate > 0 else { return }
        let interval = UInt64(1e9 / settings.gravityRate)
        state.withLock { s in
            guard s.connected else { return }
            if let last = s.lastGravity, nowNanoseconds &- last < interval { return }
            s.lastGravity = nowNanoseconds
            _ = publish(settings.gravityTopic, MQTTMessages.gravity(t: t, x: x, y: y, z: z), retain: false)
        }
    }

    // MARK: - The network thread

    private func runLoop() {
        var failures = 0
        var socketUp = false
        while !state.withLock({ $0.stopping }) {
            if !socketUp {
                let rc = mosquitto_connect(handle, settings.endpoint.host, settings.endpoint.port, settings.keepAlive)
                if rc == MOSQ_ERR_SUCCESS.rawValue {
                    socketUp = true
                } else if let tls = tlsFailure(rc) {
                    if !tls.isEmpty { emit(.error, tls) }
                    backOff(&failures)
                    continue
                } else {
                    emit(.error, "cannot connect to \(settings.endpoint): \(Self.describe(rc))")
                    backOff(&failures)
                    continue
                }
            }
            let rc = mosquitto_loop(handle, 100, 1)
            if let code = callbacks.connack.withLock({ c -> Int32? in defer { c = nil }; return c }) {
                if code == 0 {
                    failures = 0
                    tlsFailures.withLock { $0.connected() }
                    connected()
                } else {
                    emit(.error, "the broker \(settings.endpoint) refused the connection: \(String(cString: mosquitto_connack_string(code)))"
                         + (code == 4 || code == 5 ? " (check username and password in \(settings.credentialsPlace))" : ""))
                    refusedOrLost(&socketUp)
                    backOff(&failures)
                    continue
                }
            }
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                let wasConnected = state.withLock { $0.connected }
                refusedOrLost(&socketUp)
                if state.withLock({ $0.stopping }) { break }
                // A broker that rejects our certificate does so after the TLS 1.3 handshake, so
                // it shows as a connection lost before any CONNACK. It is not slow to show: with a C
                // program making these calls against mosquitto 2.0.11 (require_certificate) on
                // loopback, the alert (or the reset that hides it, then a reasonless protocol error
                // from mosquitto_connect) came within 10 ms of the connect in each of 600 attempts
                // with no certificate or one from another CA; no keepalive or loop timeout is waited.
                if !wasConnected, let tls = tlsFailure(rc) {
                    if !tls.isEmpty { emit(.error, tls) }
                    backOff(&failures)
                    continue
                }
                emit(.warning, "lost the connection to \(settings.endpoint): \(Self.describe(rc)); reconnecting")
                backOff(&failures)
            }
        }
        if socketUp { disconnectCleanly() }
        finished.signal()
    }

    /// After a CONNACK of 0: online, discovery, then the queued changes in order (or the current
    /// state once more).
    private func connected() {
        let dropped: Int = state.withLock { s in
            _ = publish(settings.availabilityTopic, "online", retain: true)
            if settings.homeAssistant {
                for config in MQTTMessages.discovery(settings) { _ = publish(config.topic, config.payload, retain: true) }
            } else {
                // An empty retained message deletes a retained config: the sensors disappear.
                for topic in MQTTMessages.discoveryTopics(settings) { _ = publish(topic, "", retain: true) }
            }
            if s.queue.isEmpty, let latest = s.latest { _ = publish(settings.orientationTopic, latest, retain: true) }
            var sent = 0
            for payload in s.queue {
                guard publish(settings.orientationTopic, payload, retain: true) else { break }
                sent += 1
            }
            s.queue.removeFirst(sent)
            s.connected = true
            s.lastReported = nil
            let dropped = s.dropped
            s.dropped = 0
            return dropped
        }
        emit(.info, "connected to \(settings.endpoint) as \(settings.clientID); publishing under \(settings.base)")
        if dropped > 0 {
            emit(.warning, "\(dropped) orientation changes were dropped while disconnected (queueSize \(settings.queueSize)); the newest was delivered")
        }
    }

    /// A clear message when `rc` is a TLS failure, naming what to check; "" when it was reported
    /// as a debug line only; nil when it is not a TLS failure. Takes the reason libmosquitto
    /// logged, so the next attempt reports its own. See ``TLSFailureReport``.
    private func tlsFailure(_ rc: Int32) -> String? {
        let reason = callbacks.tlsError.withLock { r -> String? in defer { r = nil }; return r }
        let kind: TLSFailureReport.Failure = switch rc {
        case MOSQ_ERR_TLS.rawValue: .tls
        case MOSQ_ERR_PROTOCOL.rawValue, MOSQ_ERR_ERRNO.rawValue: .protocolError
        case MOSQ_ERR_CONN_LOST.rawValue: .connectionLost
        default: .other
        }
        switch tlsFailures.withLock({ $0.classify(kind, reason: reason, description: Self.describe(rc)) }) {
        case .notTLS: return nil
        case .debug(let message):
            report(MQTTReport(level: .debug, message: message))
            return ""
        case .error(let message): return message
        }
    }

    private func refusedOrLost(_ socketUp: inout Bool) {
        state.withLock { $0.connected = false }
        mosquitto_disconnect(handle)
        socketUp = false
    }

    /// Waits min·2^failures seconds (at most the maximum), in slices so ``stop()`` is prompt.
    private func backOff(_ failures: inout Int) {
        let delay = min(settings.reconnectMaximum, settings.reconnectMinimum * pow(2, Double(min(failures, 30))))
        failures += 1
        emit(.debug, "retrying in \(delay) s")
        let end = Date().addingTimeInterval(delay)
        while Date() < end, !state.withLock({ $0.stopping }) { Thread.sleep(forTimeInterval: 0.05) }
    }

    private func disconnectCleanly() {
        let wasConnected = state.withLock { s in
            let was = s.connected
            if was { _ = publish(settings.availabilityTopic, "offline", retain: true) }
            s.connected = false
            return was
        }
        if wasConnected {
            // Let the queued packets out (bounded: at most 20 × 50 ms).
            for _ in 0..<20 where mosquitto_want_write(handle) {
                guard mosquitto_loop(handle, 50, 1) == MOSQ_ERR_SUCCESS.rawValue else { break }
            }
        }
        mosquitto_disconnect(handle)
        for _ in 0..<5 { guard mosquitto_loop(handle, 20, 1) == MOSQ_ERR_SUCCESS.rawValue else { break } }
    }

    /// Sends one message; false when libmosquitto refuses it (not connected).
    private func publish(_ topic: String, _ payload: String, retain: Bool) -> Bool {
        let bytes = Array(payload.utf8)
        let rc = mosquitto_publish(handle, nil, topic, Int32(bytes.count), bytes, settings.qos, retain)
        if rc != MOSQ_ERR_SUCCESS.rawValue {
            // Called with `state` held: report directly (emit takes the lock).
            report(MQTTReport(level: .debug, message: "publish to \(topic) failed: \(Self.describe(rc))"))
            return false
        }
        return true
    }

    /// Reports a message; one identical to the previous report is demoted to `.debug`, so a broker
    /// that stays away gives one error line, not one per retry.
    private func emit(_ level: MQTTReport.Level, _ message: String) {
        var level = level
        if level != .debug {
            let repeated = state.withLock { s -> Bool in
                defer { s.lastReported = message }
                return s.lastReported == message
            }
            if repeated { level = .debug }
        }
        report(MQTTReport(level: level, message: message))
    }

    static func describe(_ rc: Int32) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
        return String(cString: mosquitto_strerror(rc))
    }
}

/// Decides how a failed connection attempt to an mqtts:// broker is reported.
///
/// libmosquitto reports why a TLS handshake failed only in its log ("OpenSSL Error[0]: ...");
/// a failure with that reason is reported with what to check. When the broker closes the socket
/// in the middle of the handshake, libmosquitto may return a protocol error or a lost connection
/// without logging a reason; a later attempt usually logs it (a broker rejecting a client
/// certificate after the TLS 1.3 handshake closed the socket before its alert could be read twice
/// in a row in one test run), so the first ``unexplainedBeforeReport`` such failures are debug
/// lines and later ones an error that says what to check. Until a CONNACK, a reasonless failure
/// after a reported one repeats that report (the publisher prints a repeated line once).
struct TLSFailureReport: Sendable {
    enum Failure: Sendable { case tls, protocolError, connectionLost, other }
    enum Outcome: Sendable, Equatable { case notTLS, debug(String), error(String) }

    static let unexplainedBeforeReport = 3

    let endpoint: String
    let tls: Bool
    let caFile: String?
    let certFile: String?
    private(set) var last: String?
    private(set) var unexplained = 0

    init(endpoint: String, tls: Bool, caFile: String?, certFile: String?) {
        self.endpoint = endpoint
        self.tls = tls
        self.caFile = caFile
        self.certFile = certFile
    }

    /// A CONNACK arrived: start afresh.
    mutating func connected() {
        last = nil
        unexplained = 0
    }

    /// One failed attempt: `failure` is libmosquitto's result, `reason` the OpenSSL reason it
    /// logged (if any), `description` its own text for the result.
    mutating func classify(_ failure: Failure, reason: String?, description: String) -> Outcome {
        if failure == .tls || reason != nil {
            let message = "TLS with \(endpoint) failed: \(reason ?? description)" + hint(reason: reason ?? "")
            last = message
            return .error(message)
        }
        guard failure == .protocolError || failure == .connectionLost else { return .notTLS }
        if let last { return .error(last) }
        guard tls, failure == .protocolError else { return .notTLS }
        unexplained += 1
        if unexplained <= Self.unexplainedBeforeReport {
            return .debug("TLS with \(endpoint) ended without a reason: \(description)")
        }
        let message = "TLS with \(endpoint) failed: the broker closed the connection during the handshake without a reason ("
            + description + ")" + hint(reason: "")
        last = message
        return .error(message)
    }

    /// What to check after a TLS failure whose OpenSSL reason (if any) is `reason`.
    func hint(reason: String) -> String {
        let lower = reason.lowercased()
        if let certFile {
            return lower.contains("alert") || lower.contains("certificate required")
                ? " (the broker rejected the client certificate \(certFile): check that it is signed by a CA the broker trusts and has not expired)"
                : " (check caFile \(caFile ?? "-") against the broker's certificate, and the client certificate \(certFile) and its key)"
        }
        if lower.contains("certificate required") || lower.contains("handshake failure") || lower.contains("alert") {
            return " (the broker requires a client certificate: set certFile and keyFile in the configuration file)"
        }
        return " (check caFile \(caFile ?? "-") against the broker's certificate)"
    }
}
