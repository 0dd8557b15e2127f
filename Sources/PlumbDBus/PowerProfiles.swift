import CSDBus
import Glibc
import PlumbHAL
import Synchronization

/// Reads power-profiles-daemon's live `ActiveProfile` over D-Bus, for the notifier's low-energy
/// mode ("power-saver" turns it on).
///
/// The daemon (and the drop-in replacements tuned-ppd and tlp-pd) serves
/// `org.freedesktop.UPower.PowerProfiles` at `/org/freedesktop/UPower/PowerProfiles` from 0.20 on
/// and the older `net.hadess.PowerProfiles` at `/net/hadess/PowerProfiles` before and beside it
/// (Debian 12 ships 0.12, with the old name only); `ActiveProfile` is a string property, one of
/// "power-saver", "balanced", "performance" (power-profiles-daemon's README, D-Bus API section).
/// Both names are tried, the new one first. The property is readable by anyone under the
/// daemon's bus policy. The daemon is D-Bus activatable: the read is sent with NO_AUTO_START, so
/// a daemon that is not running is reported as ``Answer/noDaemon`` and never started by it.
///
/// One connection is kept and reopened after a failure. Each read waits at most
/// ``timeoutMicroseconds`` (100 ms: a local Get takes well under a millisecond); a daemon that
/// did not answer in time is not asked again for ``quietNanoseconds`` (given a clock), so a hung
/// daemon costs one timeout a while, not one per power poll. The CLI reads it on a poller thread
/// (PlumbOrientation's `BackgroundPowerStateMonitor`), never on the sensor's thread.
public final class PowerProfilesReader: Sendable {
    /// What a read found.
    public enum Answer: Sendable, Equatable {
        /// The daemon answered with this profile.
        case profile(String)
        /// The bus answered but no power-profiles service is on it (not installed or not running).
        case noDaemon
        /// No bus could be reached (no system bus in this container, or the socket is not
        /// reachable from the service's sandbox): the caller falls back to the state the daemon
        /// saves on disk.
        case noBus
    }

    /// A bus name, object path and interface serving `ActiveProfile`.
    public struct Service: Sendable, Equatable {
        public var name: String
        public var path: String
        public var interface: String
        public init(name: String, path: String, interface: String) {
            self.name = name; self.path = path; self.interface = interface
        }
        /// power-profiles-daemon 0.20 and later, tuned-ppd, tlp-pd.
        public static let upower = Service(name: "org.freedesktop.UPower.PowerProfiles", path: "/org/freedesktop/UPower/PowerProfiles",
                                           interface: "org.freedesktop.UPower.PowerProfiles")
        /// power-profiles-daemon before 0.20 (Debian 12), still served beside the new name.
        public static let hadess = Service(name: "net.hadess.PowerProfiles", path: "/net/hadess/PowerProfiles",
                                           interface: "net.hadess.PowerProfiles")
    }

    /// The bus address, or nil for the system bus (DBUS_SYSTEM_BUS_ADDRESS, else
    /// /run/dbus/system_bus_socket).
    public let address: String?
    public let services: [Service]
    public let timeoutMicroseconds: UInt64
    /// How long a daemon that did not answer is left alone; reads meanwhile answer ``Answer/noBus``
    /// (the saved state stands in). Needs ``clock``.
    public let quietNanoseconds: UInt64
    public let clock: (any MonotonicClock)?
    private let quietUntil = Mutex<UInt64?>(nil)

    private final class Connection: @unchecked Sendable {
        let handle: OpaquePointer
        init(handle: OpaquePointer) { self.handle = handle }
        deinit { plumb_bus_close(handle) }
    }
    private let connection = Mutex<Connection?>(nil)

    public init(address: String? = nil, services: [Service] = [.upower, .hadess], timeoutMicroseconds: UInt64 = 100_000,
                clock: (any MonotonicClock)? = nil, quietNanoseconds: UInt64 = 30_000_000_000) {
        self.address = address
        self.services = services
        self.timeoutMicroseconds = timeoutMicroseconds
        self.clock = clock
        self.quietNanoseconds = quietNanoseconds
    }

    /// The bus's name in messages.
    public var busName: String { address ?? SensorProxyError.systemBus }

    /// Reads `ActiveProfile`. Throws only for answers that need the user's attention (the policy
    /// refuses the read, the daemon does not answer in time, the property is not a string); a
    /// missing bus or daemon is an ``Answer``, not an error.
    public func activeProfile() throws(PowerProfilesError) -> Answer {
        if let clock, let until = quietUntil.withLock({ $0 }) {
            if clock.nowNanoseconds < until { return .noBus }
            quietUntil.withLock { $0 = nil }
        }
        do {
            return try ask()
        } catch {
            if error.kind == .noReply, let clock {
                let until = clock.nowNanoseconds &+ quietNanoseconds
                quietUntil.withLock { $0 = until }
            }
            throw error
        }
    }

    private func ask() throws(PowerProfilesError) -> Answer {
        try connection.withLock { (slot: inout Connection?) throws(PowerProfilesError) -> Answer in
            if slot == nil {
                var bus: OpaquePointer?
                let r = address.map { plumb_bus_open($0, &bus) } ?? plumb_bus_open(nil, &bus)
                guard r >= 0, let bus else { return .noBus }
                slot = Connection(handle: bus)
            }
            guard let handle = slot?.handle else { return .noBus }
            for service in services {
                var value = [CChar](repeating: 0, count: 64)
                var errorName = [CChar](repeating: 0, count: 128)
                var message = [CChar](repeating: 0, count: 256)
                let r = plumb_bus_get_property_string(handle, service.name, service.path, service.interface, "ActiveProfile",
                                                      timeoutMicroseconds, &value, value.count, &errorName, errorName.count,
                                                      &message, message.count)
                switch Self.interpret(result: r, value: value, errorName: errorName, message: message, service: service, bus: busName) {
                case .answer(let answer): return answer
                case .tryNext: continue  // not served under this name: try the next one
                case .dropConnection:
                    // The connection broke (the bus restarted) or failed without a reply: open a
                    // new one next time.
                    slot = nil
                    return .noBus
                case .fail(let error): throw error
                }
            }
            return .noDaemon
        }
    }

    /// What one service's reply to the `ActiveProfile` Get means.
    public enum Outcome: Sendable, Equatable {
        /// The read is done.
        case answer(Answer)
        /// The service is not served under this name: ask the next one.
        case tryNext
        /// The connection is unusable: drop it (open a new one next time) and answer ``Answer/noBus``.
        case dropConnection
        case fail(PowerProfilesError)
    }

    /// Interprets what the bus handed over for one service: `result` (CSDBus's
    /// `plumb_bus_get_property_string`, 0 or a negative errno), the property's value, the error
    /// reply's name and message, each a NUL-terminated buffer as the C side fills it. No system
    /// call: for tests and the fuzzer (fuzz/, target `listings`).
    public static func interpret(result r: Int32, value: [CChar], errorName: [CChar], message: [CChar],
                                 service: Service, bus: String) -> Outcome {
        if r >= 0 { return .answer(.profile(string(value))) }
        switch string(errorName) {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
             "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownInterface",
             "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownProperty",
             "org.freedesktop.DBus.Error.InvalidArgs":
            return .tryNext
        case "org.freedesktop.DBus.Error.AccessDenied":
            return .fail(PowerProfilesError(.denied, service: service, bus: bus, detail: string(message)))
        case "org.freedesktop.DBus.Error.Disconnected":
            // sd-bus's name for a connection that broke.
            return .dropConnection
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout":
            return .fail(PowerProfilesError(.noReply, service: service, bus: bus, detail: string(message)))
        case "":
            // Compared as negatives: negating Int32.min (no errno, but the C side's word only) traps.
            if r == -EBADMSG { return .fail(PowerProfilesError(.notAString, service: service, bus: bus, detail: "")) }
            if r == -ETIMEDOUT { return .fail(PowerProfilesError(.noReply, service: service, bus: bus, detail: String(cString: strerror(ETIMEDOUT)))) }
            // Any other failure without a reply.
            return .dropConnection
        default:
            return .fail(PowerProfilesError(.failed, service: service, bus: bus, detail: string(message)))
        }
    }

    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// A read of `ActiveProfile` that needs attention: which service, on which bus, and the fix.
public struct PowerProfilesError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The bus policy refused the read.
        case denied
        /// The daemon did not answer within the timeout.
        case noReply
        /// `ActiveProfile` is not a string.
        case notAString
        /// Any other error reply.
        case failed
    }

    public var kind: Kind
    public var service: PowerProfilesReader.Service
    public var bus: String
    /// The error reply's name and message, when there was one.
    public var detail: String

    public init(_ kind: Kind, service: PowerProfilesReader.Service, bus: String, detail: String) {
        self.kind = kind; self.service = service; self.bus = bus; self.detail = detail
    }

    public var description: String {
        let what = "\(service.name) ActiveProfile on \(bus)"
        let suffix = detail.isEmpty ? "" : " (\(detail))"
        switch kind {
        case .denied:
            return "reading \(what) was refused\(suffix); the daemon's bus policy normally lets anyone read it: check /etc/dbus-1/system.d and /usr/share/dbus-1/system.d for a rule denying this user"
        case .noReply:
            return "\(what) did not answer\(suffix); check the daemon: systemctl status power-profiles-daemon"
        case .notAString:
            return "\(what) is not a string; the service on that name is not a power-profiles daemon"
        case .failed:
            return "reading \(what) failed\(suffix)"
        }
    }
}
