import CSDBus
import Glibc

/// One sd-bus connection carrying the net.hadess.SensorProxy object (a thin owner of the CSDBus
/// handle).
///
/// Used from one thread, the bus thread, except ``wake()``, which any thread may call.
/// The corresponding C API is CSDBus's `plumb_bus_*` (sd-bus underneath).
final class SensorProxyBus: @unchecked Sendable {
    private let handle: OpaquePointer
    /// The address, or "the system bus", for messages.
    let busName: String

    /// Connects to `address`, or to the system bus (DBUS_SYSTEM_BUS_ADDRESS, else
    /// /run/dbus/system_bus_socket) when it is nil.
    init(address: String?) throws(SensorProxyError) {
        busName = address ?? SensorProxyError.systemBus
        var bus: OpaquePointer?
        let r = address.map { plumb_bus_open($0, &bus) } ?? plumb_bus_open(nil, &bus)
        guard r >= 0, let bus else { throw SensorProxyError(.connect, errno: -r, bus: busName) }
        handle = bus
    }

    deinit { plumb_bus_close(handle) }

    /// This connection's unique name (":1.7").
    var uniqueName: String { plumb_bus_unique_name(handle).map { String(cString: $0) } ?? "" }

    /// Registers the object; `callbacks.context` must stay valid until the bus is closed.
    func export(_ callbacks: plumb_bus_callbacks) throws(SensorProxyError) {
        var callbacks = callbacks
        let r = plumb_bus_export(handle, &callbacks)
        guard r >= 0 else { throw SensorProxyError(.export, errno: -r, bus: busName) }
    }

    /// Takes net.hadess.SensorProxy.
    func requestName() throws(SensorProxyError) {
        let r = plumb_bus_request_name(handle)
        switch -r {
        case _ where r >= 0: return
        case EEXIST, EALREADY: throw SensorProxyError(.nameTaken, errno: -r, bus: busName)
        case EACCES, EPERM: throw SensorProxyError(.notAllowed, errno: -r, bus: busName)
        default: throw SensorProxyError(.connect, errno: -r, bus: busName)
        }
    }

    /// Sends PropertiesChanged for `properties` (values read back through the property callback).
    func emitChanged(_ properties: [plumb_property]) throws(SensorProxyError) {
        let ids = properties.map { Int32(bitPattern: $0.rawValue) }
        let r = ids.withUnsafeBufferPointer { plumb_bus_emit_changed(handle, $0.baseAddress, $0.count) }
        guard r >= 0 else { throw SensorProxyError(.connection, errno: -r, bus: busName) }
    }

    /// Dispatches what is ready, then waits for the bus, a wake-up or `timeout` nanoseconds.
    /// Returns true when woken by ``wake()``.
    @discardableResult
    func runOnce(timeoutNanoseconds: UInt64?) throws(SensorProxyError) -> Bool {
        let usec = timeoutNanoseconds.map { $0 / 1_000 } ?? UInt64.max
        let r = plumb_bus_run_once(handle, usec)
        guard r >= 0 else { throw SensorProxyError(.connection, errno: -r, bus: busName) }
        return r == 1
    }

    /// Makes the bus thread's ``runOnce(timeoutNanoseconds:)`` return. Any thread.
    func wake() { _ = plumb_bus_wake(handle) }

    // Client side (tests and tools).

    /// Calls a method of net.hadess.SensorProxy that takes and returns nothing.
    func call(_ member: String) throws(SensorProxyError) {
        var message = [CChar](repeating: 0, count: 256)
        let r = plumb_bus_call(handle, member, &message, message.count)
        guard r >= 0 else { throw SensorProxyError(.connection, errno: -r, bus: busName) }
    }

    /// Reads a string property of net.hadess.SensorProxy.
    func stringProperty(_ name: String) throws(SensorProxyError) -> String {
        var value = [CChar](repeating: 0, count: 256)
        let r = plumb_bus_get_string(handle, name, &value, value.count)
        guard r >= 0 else { throw SensorProxyError(.connection, errno: -r, bus: busName) }
        return String(decoding: value.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
