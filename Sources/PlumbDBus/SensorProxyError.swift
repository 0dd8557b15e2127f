import Glibc

/// A failure of the D-Bus side of `plumb dbus`: what failed, on which bus, the errno sd-bus
/// returned, and how to fix it.
public struct SensorProxyError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// The connection to the bus could not be made.
        case connect
        /// Another connection owns net.hadess.SensorProxy (usually iio-sensor-proxy itself).
        case nameTaken
        /// The bus policy does not let this user own net.hadess.SensorProxy.
        case notAllowed
        /// Registering the object or the NameOwnerChanged subscription failed.
        case export
        /// Reading, writing or waiting on the connection failed, or the bus went away.
        case connection
    }

    public var kind: Kind
    /// The errno value sd-bus returned (positive), 0 when none.
    public var errno: Int32
    /// The bus: its address, or "the system bus".
    public var bus: String

    public init(_ kind: Kind, errno: Int32, bus: String) {
        self.kind = kind
        self.errno = errno
        self.bus = bus
    }

    /// strerror(errno).
    public var meaning: String { errno == 0 ? "" : String(cString: strerror(errno)) }

    public var description: String {
        switch kind {
        case .connect: return "cannot connect to \(bus): \(meaning)"
        case .nameTaken: return "net.hadess.SensorProxy is already owned on \(bus)"
        case .notAllowed: return "the bus policy of \(bus) does not allow this user to own net.hadess.SensorProxy"
        case .export: return "cannot register /net/hadess/SensorProxy on \(bus): \(meaning)"
        case .connection: return "the connection to \(bus) failed: \(meaning)"
        }
    }

    /// What to do about it.
    public var fix: String {
        switch kind {
        case .connect where bus == SensorProxyError.systemBus:
            return "start the system bus (dbus-daemon or dbus-broker), or give one with --bus-address"
        case .connect:
            return "check the address (for example unix:path=/run/dbus/system_bus_socket) and that the bus is running"
        case .nameTaken:
            // The owner is iio-sensor-proxy or another Plumb: plumb.service with outputs.dbus and
            // plumb-sensor-proxy.service both serve the name, and a second plumb dbus or plumb run
            // started by hand meets the first. busctl's status names the owner's process and unit.
            let status = bus == SensorProxyError.systemBus ? "busctl status net.hadess.SensorProxy"
                : "busctl --address=\(bus) status net.hadess.SensorProxy"
            return "'\(status)' names the process that owns it. If it is iio-sensor-proxy: systemctl stop iio-sensor-proxy "
                + "(or systemctl mask it to replace it for good). If it is plumb: plumb.service (outputs.dbus), plumb-sensor-proxy.service "
                + "or a plumb started by hand already serves it; run one of them, not both"
        case .notAllowed:
            return "install the policy file: scripts/install copies packaging/plumb-sensor-proxy.conf to /etc/dbus-1/system.d/plumb-sensor-proxy.conf, or run as the user it names"
        case .export:
            return "another object may be registered at /net/hadess/SensorProxy on this connection"
        case .connection:
            return "restart plumb dbus when the bus is back (systemd does so with Restart=on-failure)"
        }
    }

    /// The `bus` value for the system bus.
    public static let systemBus = "the system bus"
}
