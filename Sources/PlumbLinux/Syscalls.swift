// Every call PlumbLinux makes into libc, libi2c and libgpiod, in one place.
//
// Following swift-system's `Internals/Syscalls.swift`: each wrapper first asks the mocking layer
// (debug builds only, see Mocking.swift) whether a test wants to record, fail or answer the call,
// and otherwise calls the real function. Release builds compile the mocking check away.
//
// Conventions: the I2C wrappers return the C result, with a failure as a negative errno
// (libi2c's own convention; the ioctl wrappers convert theirs). The file wrappers return nil and
// leave the errno in `lastErrno`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CI2C
import CGPIOD
import CPlumbLinux

enum Sys {
    // MARK: - Files

    /// open(2), with O_CLOEXEC added. Returns the fd or a negative errno.
    static func open(_ path: String, _ flags: Int32) -> Int32 {
        if let reply = mocked(.open(path: path, flags: flags)) { return reply.result }
        let fd = path.withCString { Glibc.open($0, flags | O_CLOEXEC) }
        return fd < 0 ? -errno : fd
    }

    /// close(2).
    static func close(_ fd: Int32) {
        if mocked(.close(fd: fd)) != nil { return }
        _ = Glibc.close(fd)
    }

    /// The whole content of a (small, sysfs) file as text, or nil with `error` set to the errno.
    static func readFile(_ path: String, error: inout Int32) -> String? {
        if let reply = mocked(.readFile(path: path)) {
            switch reply {
            case .text(let text): return text
            case .bytes(let bytes): return String(decoding: bytes, as: UTF8.self)
            default: error = -reply.result; return nil
            }
        }
        return readBytes(path, error: &error).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The whole content of a (small, sysfs or device-tree) file as bytes, or nil with `error` set
    /// to the errno: for binary properties such as a device tree's big-endian cells.
    static func readFileBytes(_ path: String, error: inout Int32) -> [UInt8]? {
        if let reply = mocked(.readFile(path: path)) {
            switch reply {
            case .bytes(let bytes): return bytes
            case .text(let text): return Array(text.utf8)
            default: error = -reply.result; return nil
            }
        }
        return readBytes(path, error: &error)
    }

    private static func readBytes(_ path: String, error: inout Int32) -> [UInt8]? {
        let fd = path.withCString { Glibc.open($0, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { error = errno; return nil }
        defer { _ = Glibc.close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                error = errno
                return nil
            }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        return bytes
    }

    // MARK: - Network

    /// Whether this process may open a stream socket of `family`: socket(2), closed again at once.
    /// Returns 0, or the negative errno (EAFNOSUPPORT under systemd's `RestrictAddressFamilies=`).
    static func socketProbe(family: Int32) -> Int32 {
        if let reply = mocked(.socket(family: family)) { return reply.result < 0 ? reply.result : 0 }
        let fd = Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return -errno }
        _ = Glibc.close(fd)
        return 0
    }

    /// The target of a symbolic link, or nil with `error` set.
    static func readLink(_ path: String, error: inout Int32) -> String? {
        if let reply = mocked(.readLink(path: path)) {
            if case .text(let text) = reply { return text }
            error = -reply.result
            return nil
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = path.withCString { Glibc.readlink($0, &buffer, buffer.count - 1) }
        guard n >= 0 else { error = errno; return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The names in a directory (without "." and ".."), or nil with `error` set.
    static func listDirectory(_ path: String, error: inout Int32) -> [String]? {
        if let reply = mocked(.listDirectory(path: path)) {
            if case .names(let names) = reply { return names }
            error = -reply.result
            return nil
        }
        guard let dir = path.withCString({ opendir($0) }) else { error = errno; return nil }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    // MARK: - i2c-dev ioctls

    /// `ioctl(fd, I2C_FUNCS, &funcs)`: the adapter's functionality mask, or a negative errno.
    static func i2cFunctionality(_ fd: Int32, _ funcs: inout UInt) -> Int32 {
        if let reply = mocked(.i2cFunctionality(fd: fd)) {
            if case .value(let v) = reply { funcs = UInt(v); return 0 }
            return reply.result
        }
        let r = ioctl(fd, UInt(I2C_FUNCS), &funcs)
        return r < 0 ? -errno : r
    }

    /// `ioctl(fd, I2C_SLAVE or I2C_SLAVE_FORCE, address)`. Returns 0 or a negative errno.
    static func i2cSetAddress(_ fd: Int32, _ address: UInt8, force: Bool) -> Int32 {
        if let reply = mocked(.i2cSetAddress(fd: fd, address: address, force: force)) { return reply.result }
        let r = ioctl(fd, UInt(force ? I2C_SLAVE_FORCE : I2C_SLAVE), CInt(address))
        return r < 0 ? -errno : r
    }

    /// `ioctl(fd, I2C_RDWR, &data)` over `count` messages. Returns the number of messages
    /// transferred or a negative errno.
    static func i2cReadWrite(_ fd: Int32, _ messages: UnsafeMutablePointer<i2c_msg>, _ count: Int) -> Int32 {
        #if DEBUG
        if let driver = MockingDriver.current {
            let records = (0..<count).map { i -> MockingDriver.Message in
                let m = messages[i]
                let isRead = m.flags & UInt16(I2C_M_RD) != 0
                let bytes = isRead ? [] : Array(UnsafeBufferPointer(start: m.buf, count: Int(m.len)))
                return .init(address: UInt8(truncatingIfNeeded: m.addr), isRead: isRead, length: Int(m.len), bytes: bytes)
            }
            let reply = driver.handle(.i2cReadWrite(fd: fd, messages: records))
            switch reply {
            case .passThrough: break
            case .reads(let reads):
                var next = 0
                for i in 0..<count where messages[i].flags & UInt16(I2C_M_RD) != 0 {
                    guard next < reads.count else { break }
                    let data = reads[next]
                    for j in 0..<min(data.count, Int(messages[i].len)) { messages[i].buf[j] = data[j] }
                    next += 1
                }
                return Int32(count)
            default:
                return reply.result
            }
        }
        #endif
        var data = i2c_rdwr_ioctl_data(msgs: messages, nmsgs: UInt32(count))
        let r = ioctl(fd, UInt(I2C_RDWR), &data)
        return r < 0 ? -errno : r
    }

    // MARK: - libi2c SMBus calls (each returns a negative errno on failure)

    static func smbusReadByte(_ fd: Int32) -> Int32 {
        if let reply = mocked(.smbusReadByte(fd: fd)) { return reply.result }
        return i2c_smbus_read_byte(fd)
    }

    static func smbusWriteByte(_ fd: Int32, _ value: UInt8) -> Int32 {
        if let reply = mocked(.smbusWriteByte(fd: fd, value: value)) { return reply.result }
        return i2c_smbus_write_byte(fd, value)
    }

    static func smbusReadByteData(_ fd: Int32, _ register: UInt8) -> Int32 {
        if let reply = mocked(.smbusReadByteData(fd: fd, register: register)) { return reply.result }
        return i2c_smbus_read_byte_data(fd, register)
    }

    static func smbusWriteByteData(_ fd: Int32, _ register: UInt8, _ value: UInt8) -> Int32 {
        if let reply = mocked(.smbusWriteByteData(fd: fd, register: register, value: value)) { return reply.result }
        return i2c_smbus_write_byte_data(fd, register, value)
    }

    /// `i2c_smbus_read_i2c_block_data`: reads up to 32 bytes into `buffer`; returns the count read.
    static func smbusReadI2CBlock(_ fd: Int32, _ register: UInt8, _ buffer: UnsafeMutableBufferPointer<UInt8>) -> Int32 {
        #if DEBUG
        if let reply = mocked(.smbusReadI2CBlock(fd: fd, register: register, length: buffer.count)) {
            if case .bytes(let data) = reply {
                let n = min(data.count, buffer.count)
                for i in 0..<n { buffer[i] = data[i] }
                return Int32(n)
            }
            return reply.result
        }
        #endif
        return i2c_smbus_read_i2c_block_data(fd, register, UInt8(buffer.count), buffer.baseAddress)
    }

    /// `i2c_smbus_write_i2c_block_data`: writes up to 32 bytes starting at `register`.
    static func smbusWriteI2CBlock(_ fd: Int32, _ register: UInt8, _ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        if let reply = mocked(.smbusWriteI2CBlock(fd: fd, register: register, bytes: Array(bytes))) { return reply.result }
        return i2c_smbus_write_i2c_block_data(fd, register, UInt8(bytes.count), bytes.baseAddress)
    }

    // MARK: - Record locks

    /// `plumb_ofd_lock_byte`: an open-file-description write lock on the byte at `offset`, without
    /// waiting (fcntl(2) F_OFD_SETLK). Returns 0 or a negative errno (-EAGAIN/-EACCES: held).
    static func lockByte(_ fd: Int32, offset: Int) -> Int32 {
        if let reply = mocked(.lockByte(fd: fd, offset: offset)) { return reply.result }
        return plumb_ofd_lock_byte(fd, offset)
    }

    /// `plumb_ofd_test_byte`: whether another open file description holds a lock on the byte at
    /// `offset` (fcntl(2) F_OFD_GETLK), taking none. Returns 1 (held), 0 (free) or a negative errno.
    static func testByte(_ fd: Int32, offset: Int) -> Int32 {
        if let reply = mocked(.testByte(fd: fd, offset: offset)) { return reply.result }
        return plumb_ofd_test_byte(fd, offset)
    }

    /// fstat(2)'s device and inode numbers: which file `fd` is, whatever path opened it.
    /// Returns nil with `error` set to the errno.
    static func fileIdentity(_ fd: Int32, error: inout Int32) -> FileIdentity? {
        if let reply = mocked(.fileIdentity(fd: fd)) {
            if case .value(let inode) = reply { return FileIdentity(device: 0, inode: UInt64(inode)) }
            error = -reply.result
            return nil
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else { error = errno; return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    // MARK: - Clock

    /// clock_gettime(CLOCK_MONOTONIC) in nanoseconds.
    static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// nanosleep(2) for `nanoseconds`, resumed after signals.
    static func sleep(nanoseconds: UInt64) {
        if mocked(.sleep(nanoseconds: nanoseconds)) != nil { return }
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    // MARK: - Processes (ShellProcess)

    /// posix_spawn(3) of `/bin/sh -c command` with `environment` ("NAME=value" strings), in a new
    /// process group of its own, with no signal blocked and SIGINT, SIGTERM, SIGHUP and SIGPIPE at
    /// their default actions. Returns the process id or a negative errno.
    static func spawnShell(_ command: String, environment: [String]) -> Int32 {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // Group 0: a new group whose id is the child's process id.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        // Standard input from /dev/null: in a group of its own the command is in the background
        // of plumb's terminal, where a read of it stops the command (SIGTTIN) until the end.
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let words: [String] = ["/bin/sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
        return result == 0 ? pid : -result
    }

    /// Blocks until process `pid` has ended, without reaping it (waitid(2) with WNOWAIT), so that
    /// its id stays reserved until ``reap(_:)``. Resumed after signals.
    static func waitForExit(_ pid: Int32) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
    }

    /// Reaps ended process `pid` (waitpid(2)) and says how it ended (the W* macros, which Swift
    /// does not import: the low 7 bits are the signal, 0 when it exited; bits 8–15 the status).
    static func reap(_ pid: Int32) -> ShellProcess.Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            // ECHILD when something else reaped it (SIGCHLD set to SIG_IGN reaps at once).
            if errno != EINTR { return .unknown(errno: errno) }
        }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
    }

    /// kill(2): 0, or a negative errno. A negative `pid` names a process group.
    static func kill(_ pid: Int32, _ signal: Int32) -> Int32 {
        Glibc.kill(pid, signal) == 0 ? 0 : -errno
    }

    // MARK: - libgpiod (through the CGPIOD shim)

    static func gpioRequest(_ config: UnsafePointer<plumb_gpio_config>, _ result: UnsafeMutablePointer<plumb_gpio_result>) -> OpaquePointer? {
        plumb_gpio_request(config, result)
    }

    /// 1 when an edge is queued, 0 on timeout, or a negative errno.
    static func gpioWait(_ line: OpaquePointer, _ timeoutNanoseconds: Int64) -> Int32 {
        if let reply = mocked(.gpioWait(timeoutNanoseconds: timeoutNanoseconds)) { return reply.result }
        let r = plumb_gpio_wait(line, timeoutNanoseconds)
        return r < 0 ? -errno : r
    }

    /// The number of events read into `events`, or a negative errno.
    static func gpioRead(_ line: OpaquePointer, _ events: UnsafeMutablePointer<plumb_gpio_event>, _ max: Int32) -> Int32 {
        if let reply = mocked(.gpioRead(max: max)) { return reply.result }
        let r = plumb_gpio_read(line, events, max)
        return r < 0 ? -errno : r
    }

    static func gpioGetValue(_ line: OpaquePointer) -> Int32 {
        if let reply = mocked(.gpioGetValue) { return reply.result }
        let r = plumb_gpio_get_value(line)
        return r < 0 ? -errno : r
    }

    static func gpioSetValue(_ line: OpaquePointer, _ value: Bool) -> Int32 {
        if let reply = mocked(.gpioSetValue(value)) { return reply.result }
        let r = plumb_gpio_set_value(line, value ? 1 : 0)
        return r < 0 ? -errno : r
    }

    static func gpioRelease(_ line: OpaquePointer) {
        plumb_gpio_release(line)
    }

    static var gpioAPIMajor: Int { Int(plumb_gpio_api_major()) }

    static var gpioLibraryVersion: String { String(cString: plumb_gpio_library_version()) }

    /// strerror(3).
    static func describe(errno value: Int32) -> String {
        String(cString: strerror(value))
    }

    // MARK: - Mocking hook

    /// The mocking layer's reply for `call`, or nil to make the real call (always nil in release).
    @inline(__always)
    static func mocked(_ call: @autoclosure () -> MockingDriver.Call) -> MockingDriver.Reply? {
        #if DEBUG
        guard let driver = MockingDriver.current else { return nil }
        let reply = driver.handle(call())
        if case .passThrough = reply { return nil }
        return reply
        #else
        return nil
        #endif
    }
}

/// A file as the kernel knows it (stat(2)'s `st_dev` and `st_ino`).
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
}
