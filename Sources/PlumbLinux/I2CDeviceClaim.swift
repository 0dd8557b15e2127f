#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import PlumbHAL
import Synchronization

/// A claim on one chip, an address on an I2C adapter, that every other process sees: one plumb
/// process drives a chip at a time.
///
/// A chip wired to a data-ready line is guarded by the line (the kernel gives a GPIO line to one
/// requester), but a polled chip (`"interrupt": "poll"`) had no guard: `plumb read` or
/// `plumb calibrate` typed while `plumb.service` ran reset and reconfigured the service's chip
/// under it. The claim is an open-file-description record lock (fcntl(2) `F_OFD_SETLK`, Linux
/// 3.15) on the one byte of the adapter's device node at the chip's address, so two chips on one
/// bus are claimed apart, and the kernel drops the lock when the process ends, however it ends.
///
/// Within one process the claims of one chip share a lock (counted), since OFD locks of two
/// descriptions conflict even in one process: a daemon's reload and its wait for the chip open
/// the same chip again while the first claim still lives.
///
/// When the lock cannot be taken for a reason other than another holder (the node cannot be
/// opened again for reading and writing, or its file system takes no locks), the claim holds nothing (``isHeld`` false):
/// a guard is not worth refusing a sensor that works.
///
/// The corresponding call is `fcntl(fd, F_OFD_SETLK, {F_WRLCK, SEEK_SET, address, 1})`.
public final class I2CDeviceClaim: Sendable {
    /// The device node, as given.
    public let path: String
    public let address: I2CAddress
    private let key: Key?

    /// True when this claim holds (a share of) the lock.
    public var isHeld: Bool { key != nil }

    private init(path: String, address: I2CAddress, key: Key?) {
        self.path = path
        self.address = address
        self.key = key
    }

    deinit {
        if let key { Self.registry.release(key) }
    }

    /// Claims the chip at `address` on the adapter whose node is `path`.
    ///
    /// - Throws: ``I2CDeviceInUse`` when another process holds it.
    public static func acquire(path: String, address: I2CAddress) throws(I2CDeviceInUse) -> I2CDeviceClaim {
        let key = try registry.acquire(path: path, address: address)
        return I2CDeviceClaim(path: path, address: address, key: key)
    }

    /// Whether another process claims the chip at `address` on the adapter whose node is `path`,
    /// found without claiming it (fcntl(2) `F_OFD_GETLK` on the chip's byte, as ``acquire(path:address:)``
    /// would lock it): `plumb probe` tells the chips another plumb process drives. A claim this
    /// process holds is not another's (false). The kernel gives no process for an OFD lock
    /// (`l_pid` is -1), so the holder is not named.
    ///
    /// - Returns: nil when it cannot be told: the node cannot be opened for reading and writing,
    ///   or its file system takes no locks (as where ``acquire(path:address:)`` holds nothing).
    public static func isClaimedElsewhere(path: String, address: I2CAddress) -> Bool? {
        registry.isClaimedElsewhere(path: path, address: address)
    }

    fileprivate struct Key: Hashable, Sendable {
        var file: FileIdentity
        var address: UInt8
    }

    private static let registry = Registry()

    /// The locks this process holds: one open file description per chip, closed with its last claim.
    private final class Registry: Sendable {
        private struct Holder { var fd: Int32; var claims: Int }
        private let held = Mutex<[Key: Holder]>([:])

        /// The key of the lock now shared, nil when none could be taken (see the type's discussion).
        func acquire(path: String, address: I2CAddress) throws(I2CDeviceInUse) -> Key? {
            let outcome: Result<Key?, I2CDeviceInUse> = held.withLock { held in
                let fd = Sys.open(path, O_RDWR)   // a write lock needs a description open for writing
                guard fd >= 0 else { return .success(nil) }
                var error: Int32 = 0
                guard let file = Sys.fileIdentity(fd, error: &error) else {
                    Sys.close(fd)
                    return .success(nil)
                }
                let key = Key(file: file, address: address.rawValue)
                if var holder = held[key] {
                    Sys.close(fd)
                    holder.claims += 1
                    held[key] = holder
                    return .success(key)
                }
                let r = Sys.lockByte(fd, offset: Int(address.rawValue))
                guard r == 0 else {
                    Sys.close(fd)
                    if r == -EAGAIN || r == -EACCES {
                        return .failure(I2CDeviceInUse(path: path, address: address))
                    }
                    return .success(nil)
                }
                held[key] = Holder(fd: fd, claims: 1)
                return .success(key)
            }
            return try outcome.get()
        }

        /// See ``I2CDeviceClaim/isClaimedElsewhere(path:address:)``.
        func isClaimedElsewhere(path: String, address: I2CAddress) -> Bool? {
            held.withLock { held in
                let fd = Sys.open(path, O_RDWR)   // as acquire opens it: F_WRLCK is tested against it
                guard fd >= 0 else { return nil }
                defer { Sys.close(fd) }
                var error: Int32 = 0
                guard let file = Sys.fileIdentity(fd, error: &error) else { return nil }
                // Ours: the test from this new description would find our own lock in the way.
                if held[Key(file: file, address: address.rawValue)] != nil { return false }
                let r = Sys.testByte(fd, offset: Int(address.rawValue))
                return r < 0 ? nil : r == 1
            }
        }

        func release(_ key: Key) {
            held.withLock { held in
                guard var holder = held[key] else { return }
                holder.claims -= 1
                if holder.claims == 0 {
                    Sys.close(holder.fd)
                    held[key] = nil
                } else {
                    held[key] = holder
                }
            }
        }
    }
}

/// Another process holds the chip (``I2CDeviceClaim``).
public struct I2CDeviceInUse: Error, Equatable, CustomStringConvertible {
    public let path: String
    public let address: I2CAddress

    public init(path: String, address: I2CAddress) {
        self.path = path
        self.address = address
    }

    public var description: String {
        "the chip at \(address) on \(path) is in use by another plumb process"
    }
}
