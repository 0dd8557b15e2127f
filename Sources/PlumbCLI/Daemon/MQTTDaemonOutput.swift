import Foundation
import PlumbConfiguration
import PlumbHAL
import PlumbLinux
import PlumbMQTT
import PlumbOrientation
import Synchronization

/// `outputs.mqtt`: orientation changes (retained) and gravity (at `gravityRate`) to an MQTT broker,
/// with availability, last will and Home Assistant discovery (PlumbMQTT's MQTTPublisher). The
/// broker being away never fails the daemon: the publisher queues and reconnects, and its
/// reports come out in the daemon log through ``takeEvents()``.
final class MQTTDaemonOutput: DaemonOutput {
    let name: String
    private let publisher: MQTTPublisher
    private let clock: any MonotonicClock
    private let started: UInt64
    private let reports = ReportBuffer()
    /// `orientation.interfaceOrientations` in the file's order: the interface published is never
    /// one outside them (``DaemonFactory/shownInterface(_:allowed:)``), as `plumb watch --mqtt` prints and publishes.
    private let allowedInterfaces: [InterfaceOrientation]

    /// The publisher's reports, written on its network thread, taken on the daemon's.
    private final class ReportBuffer: Sendable {
        let events = Mutex<[DaemonEvent]>([])
    }

    init(_ output: MQTTOutput, clock: any MonotonicClock, hostname: String = MQTTSupport.hostname,
         allowedInterfaces: [InterfaceOrientation] = InterfaceOrientation.allCases) throws(CLIError) {
        self.allowedInterfaces = allowedInterfaces
        let settings = try MQTTSupport.settings(output, url: nil, hostname: hostname, credentialsPlace: MQTTSupport.configurationCredentials)
        try MQTTSupport.checkNetwork(settings.endpoint, what: "outputs.mqtt")
        let reports = self.reports
        do throws(MQTTError) {
            publisher = try MQTTPublisher(settings: settings) { report in
                reports.events.withLock { $0.append(DaemonEvent(level: MQTTSupport.logLevel(report.level), message: "mqtt: \(report.message)")) }
            }
        } catch {
            throw CLIError.failure(error.description, fix: "Check outputs.mqtt in the configuration ('plumb config check').")
        }
        self.clock = clock
        started = clock.nowNanoseconds
        name = "MQTT \(settings.endpoint) as \(settings.base)"
        publisher.start()
    }

    func orientationChanged(_ orientation: DeviceOrientation, interface: InterfaceOrientation) throws {
        let shown = DaemonFactory.shownInterface(interface, allowed: allowedInterfaces)
        publisher.publishOrientation(device: orientation.rawValue, interface: shown.rawValue, t: seconds())
    }

    func gravityUpdated(_ gravity: SIMD3<Double>) throws {
        publisher.publishGravity(gravity.x, gravity.y, gravity.z, t: seconds(), nowNanoseconds: clock.nowNanoseconds)
    }

    /// Publishes "offline" and disconnects.
    func restore() throws {
        publisher.stop()
    }

    func takeEvents() -> [DaemonEvent] {
        reports.events.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }

    private func seconds() -> Double { Double(clock.nowNanoseconds &- started) / 1e9 }
}

/// From the configuration to the publisher's settings.
enum MQTTSupport {
    /// The short hostname (topics and Home Assistant ids use it).
    static var hostname: String { ProcessInfo.processInfo.hostName }

    /// Where `plumb run` takes the broker's username and password from.
    static let configurationCredentials = "outputs.mqtt (keys username and password) in the configuration file (plumb.json)"

    /// Where `plumb watch --mqtt` takes them from: the file `--mqtt-config` names (`path`, when given).
    static func watchCredentials(_ path: String?) -> String {
        "--mqtt-config \(path ?? "FILE") (keys username and password, as in outputs.mqtt)"
    }

    /// - Parameters:
    ///   - url: the command line's broker URL, which wins over the file's.
    ///   - credentialsPlace: where this command takes username and password from
    ///     (``configurationCredentials``, ``watchCredentials(_:)``), named when a URL holds them
    ///     and when the broker refuses them.
    static func settings(_ o: MQTTOutput, url: String?, hostname: String, credentialsPlace: String) throws(CLIError) -> MQTTSettings {
        let fromCommandLine = url != nil
        guard let url = url ?? o.url else {
            throw CLIError.failure("no MQTT broker URL", fix: "Give --mqtt mqtt://HOST:PORT, or url in the MQTT configuration.")
        }
        let endpoint: MQTTEndpoint
        do throws(MQTTError) { endpoint = try MQTTEndpoint.parse(url) } catch {
            if error == .credentialsInURL {
                if fromCommandLine { throw CLIError.usage("\(error.description); give username and password in \(credentialsPlace).") }
                throw CLIError.failure(error.description, fix: "Take them out of the URL and give username and password in \(credentialsPlace).")
            }
            throw CLIError.usage(error.description)
        }
        var s = MQTTSettings(endpoint: endpoint, node: hostname)
        s.credentialsPlace = credentialsPlace
        s.caFile = o.caFile; s.certFile = o.certFile; s.keyFile = o.keyFile
        s.username = o.username; s.password = o.password
        if let id = o.clientID { s.clientID = id }
        s.prefix = o.prefix
        s.qos = Int32(o.qos)
        s.keepAlive = Int32(o.keepAlive)
        s.queueSize = o.queueSize
        s.gravityRate = o.gravityRate
        s.homeAssistant = o.homeAssistant
        s.discoveryPrefix = o.discoveryPrefix
        s.reconnectMinimum = o.reconnectMinimum
        s.reconnectMaximum = o.reconnectMaximum
        if endpoint.tls, s.caFile == nil {
            throw CLIError.failure("\(endpoint) needs the CA certificate that signed the broker's",
                                   fix: "Set caFile in the MQTT configuration file (--mqtt-config FILE or outputs.mqtt).")
        }
        return s
    }

    /// Refuses to start a publisher that could never connect, because this process's sandbox keeps
    /// every broker out of reach: plumb.service without its network drop-in
    /// (`RestrictAddressFamilies=AF_UNIX`, `PrivateNetwork=yes`), `unshare --net`, a container without
    /// a network. Without this the publisher would retry for ever, saying only that the broker is away.
    static func checkNetwork(_ endpoint: MQTTEndpoint, what: String) throws(CLIError) {
        guard let problem = NetworkAccess.problem(host: endpoint.host) else { return }
        throw CLIError.failure(
            "\(what): plumb cannot reach the broker \(endpoint): \(problem).",
            fix: "plumb.service keeps the network out unless its network drop-in is installed: run 'sudo scripts/install --binary .build/release/plumb --network' "
                + "in the plumb source folder (it adds /etc/systemd/system/plumb.service.d/network.conf), then 'sudo systemctl restart plumb'. "
                + "In a container or another sandbox, give it a network.")
    }

    static func logLevel(_ level: MQTTReport.Level) -> LogLevel {
        switch level {
        case .debug: .debug
        case .info: .info
        case .warning: .warning
        case .error: .error
        }
    }
}
