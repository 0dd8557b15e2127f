/// Where and how the publisher connects, and what it publishes.
///
/// Credentials and TLS files come from a configuration file only (the CLI never takes them as
/// arguments, so they stay out of `ps` and shell history), and no report ever contains them.
public struct MQTTSettings: Sendable, Equatable, CustomStringConvertible {
    /// The broker: `mqtt://host[:port]` (default port 1883) or `mqtts://host[:port]` (TLS, 8883).
    public var endpoint: MQTTEndpoint
    /// The CA certificate(s) that sign the broker's certificate (PEM); `nil` for none (mqtt://).
    public var caFile: String?
    /// A client certificate and its key (PEM), for brokers that require one.
    public var certFile: String?
    public var keyFile: String?
    public var username: String?
    public var password: String?
    /// The client id; several clients with one id knock each other off the broker.
    public var clientID: String
    /// Topics are `<prefix>/<node>/availability|orientation|gravity`.
    public var prefix: String = "plumb"
    /// The board's name in topics and in Home Assistant's ids (the hostname, sanitised).
    public var node: String
    /// MQTT QoS 0, 1 or 2 for every message (and the last will).
    public var qos: Int32 = 1
    /// Seconds between keep-alive pings; the broker sends the last will after 1.5 × this of silence.
    public var keepAlive: Int32 = 30
    /// Orientation changes held while disconnected; beyond it the oldest are dropped (the newest
    /// is always kept and delivered).
    public var queueSize: Int = 100
    /// Gravity messages per second (0: none). Not retained and not queued: a stale reading is useless.
    public var gravityRate: Double = 1
    /// Publish Home Assistant MQTT discovery configs (false: remove ours if any were published).
    public var homeAssistant: Bool = true
    public var discoveryPrefix: String = "homeassistant"
    /// Reconnect delays: the first wait, doubled after every failure up to the maximum (seconds).
    public var reconnectMinimum: Double = 1
    public var reconnectMaximum: Double = 60
    /// Where the user gives ``username`` and ``password``, for the report of a broker that refuses
    /// them: "--mqtt-config FILE" for `plumb watch`, outputs.mqtt of the configuration file for `plumb run`.
    public var credentialsPlace: String = "the MQTT configuration"

    public init(endpoint: MQTTEndpoint, node: String) {
        self.endpoint = endpoint
        self.node = MQTTSettings.sanitise(node)
        self.clientID = "plumb-\(self.node)"
    }

    public var base: String { "\(prefix)/\(node)" }

    /// Where and as whom; whether a password is set, never what it is.
    public var description: String {
        "\(endpoint) as \(clientID)\(username.map { ", user \($0)" } ?? "")\(password == nil ? "" : " (password set)"), topics \(base)/..."
    }
    public var availabilityTopic: String { "\(base)/availability" }
    public var orientationTopic: String { "\(base)/orientation" }
    public var gravityTopic: String { "\(base)/gravity" }

    /// Letters, digits, `-` and `_` (MQTT wildcards and `/` would change the topic's meaning;
    /// Home Assistant's node ids allow only these).
    public static func sanitise(_ name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
        let cleaned = String(name.split(separator: ".").first.map(String.init) ?? name).map { allowed.contains($0) ? $0 : "_" }
        return cleaned.isEmpty ? "plumb" : String(cleaned)
    }
}

/// A broker address parsed from `mqtt://host:port` or `mqtts://host:port`.
public struct MQTTEndpoint: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int32
    public var tls: Bool

    public init(host: String, port: Int32, tls: Bool) { self.host = host; self.port = port; self.tls = tls }

    /// Parses a broker URL. Credentials in the URL are refused: they would end up in `ps`, shell
    /// history and logs.
    public static func parse(_ url: String) throws(MQTTError) -> MQTTEndpoint {
        let tls: Bool
        let rest: Substring
        if url.hasPrefix("mqtt://") { tls = false; rest = url.dropFirst(7) }
        else if url.hasPrefix("mqtts://") { tls = true; rest = url.dropFirst(8) }
        else { throw .invalidURL("\(url.prefix(40)): expected mqtt://host[:port] or mqtts://host[:port]") }
        let authority = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        if authority.contains("@") {
            throw .credentialsInURL
        }
        var host = String(authority)
        var port: Int32 = tls ? 8883 : 1883
        if host.hasPrefix("[") {
            // [IPv6]:port
            guard let close = host.firstIndex(of: "]") else { throw .invalidURL("\(url): unclosed [ in the host") }
            let after = host[host.index(after: close)...]
            let inner = String(host[host.index(after: host.startIndex)..<close])
            if after.hasPrefix(":") { port = try parsePort(String(after.dropFirst()), url) }
            else if !after.isEmpty { throw .invalidURL("\(url): unexpected text after the address") }
            host = inner
        } else if let colon = host.lastIndex(of: ":") {
            port = try parsePort(String(host[host.index(after: colon)...]), url)
            host = String(host[..<colon])
        }
        guard !host.isEmpty else { throw .invalidURL("\(url): no host") }
        return MQTTEndpoint(host: host, port: port, tls: tls)
    }

    private static func parsePort(_ text: String, _ url: String) throws(MQTTError) -> Int32 {
        guard let port = Int32(text), (1...65535).contains(port) else {
            throw .invalidURL("\(url): the port must be 1...65535")
        }
        return port
    }

    public var description: String { "\(tls ? "mqtts" : "mqtt")://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
}

/// Why the publisher could not be set up.
public enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidURL(String)
    /// `user:password@` in the URL: refused, as it would end up in `ps`, shell history and logs.
    /// The caller names where the credentials go instead (it knows which file the user has).
    case credentialsInURL
    /// libmosquitto refused a setting (a TLS file it cannot read, an option out of range).
    case setup(String)

    public var description: String {
        switch self {
        case .invalidURL(let message): "invalid MQTT broker URL: \(message)"
        case .credentialsInURL: "invalid MQTT broker URL: credentials in the URL are refused (they would show in ps, shell history and logs)"
        case .setup(let message): message
        }
    }
}
