// The harness: what a check is, what it may use, and how it fails.
//
// This program runs only inside the VM test's guest (scripts/vm-test), as root, with i2c-stub,
// gpio-sim and vfb loaded. It drives the simulated hardware directly through sysfs (the guest's
// equivalent of a person with i2cset and a jumper wire); everything under test goes through
// PlumbLinux.
import Glibc
import PlumbHAL
import PlumbLinux

/// One check: a name ("i2c.block-read-over-32"), and a body that returns a short detail for the
/// PASS line or throws ``CheckFailure`` (or any error) to fail.
struct VMCheck: Sendable {
    var name: String
    var run: @Sendable (VMEnvironment) throws -> String
}

/// A failed expectation, with what was expected and what happened.
struct CheckFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Fails the check with `message` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(CheckFailure) {
    if !condition { throw CheckFailure(message()) }
}

/// Runs `body`, then `restore` whatever happened. A failed restore fails the check: it would leave
/// the simulated hardware wrong for the checks after it (both failures are named when the body
/// failed too).
func restoring<T>(_ restore: () throws -> Void, _ body: () throws -> T) throws -> T {
    let result: Result<T, any Error>
    do { result = .success(try body()) } catch { result = .failure(error) }
    do { try restore() } catch {
        if case .failure(let first) = result { throw CheckFailure("\(first); restoring the simulated hardware afterwards also failed: \(error)") }
        throw CheckFailure("restoring the simulated hardware afterwards failed: \(error)")
    }
    return try result.get()
}

/// What the guest's /init set up, discovered at start.
struct VMEnvironment: Sendable {
    /// N of /dev/i2c-N for the adapter named "SMBus stub driver".
    var i2cBus: Int
    /// i2c-stub's chip addresses (chip_addr=0x68,0x6a).
    var stubAddresses: [I2CAddress] = [I2CAddress(UInt8(0x68)), I2CAddress(UInt8(0x6A))]
    /// An address where nothing answers.
    var emptyAddress = I2CAddress(UInt8(0x50))
    /// The gpio-sim bank: chip name ("gpiochip0"), label, and sysfs dir with sim_gpioN/{pull,value}.
    var gpioChip: String
    var gpioLabel: String
    var gpioSimDirectory: String
    /// Line 1 is named "DRDY" (the IMU's data-ready pin), line 2 "LED"; lines 0 and 3 are unnamed.
    var drdyOffset: UInt32 = 1
    var ledOffset: UInt32 = 2
    var spareOffset: UInt32 = 3
    let clock = SystemClock()

    static func discover() throws -> VMEnvironment {
        let adapters = try I2CAdapter.list()
        guard let stub = adapters.first(where: { $0.name == "SMBus stub driver" }) else {
            throw CheckFailure("no adapter named \"SMBus stub driver\" among \(adapters.map(\.name)); is i2c-stub loaded?")
        }
        let sim = environment("PLUMB_VM_GPIO_SIM") ?? ""
        let chip = environment("PLUMB_VM_GPIO_CHIP") ?? ""
        let label = environment("PLUMB_VM_GPIO_LABEL") ?? "imu-sim"
        return VMEnvironment(i2cBus: stub.number, gpioChip: chip, gpioLabel: label, gpioSimDirectory: sim)
    }

    // MARK: - Driving the simulated hardware

    /// Pulls gpio-sim line `offset` up (a rising edge) or down.
    func pull(_ offset: UInt32, up: Bool) throws {
        try writeSysfs("\(gpioSimDirectory)/sim_gpio\(offset)/pull", up ? "pull-up" : "pull-down")
    }

    /// The level gpio-sim sees on line `offset` (what an output drives).
    func simValue(_ offset: UInt32) throws -> Int {
        let text = try readSysfs("\(gpioSimDirectory)/sim_gpio\(offset)/value")
        guard let v = Int(text) else { throw CheckFailure("unexpected sim_gpio\(offset)/value \"\(text)\"") }
        return v
    }

    /// i2c-stub's functionality mask, changeable at run time.
    static let stubFunctionalityPath = "/sys/module/i2c_stub/parameters/functionality"
}

func environment(_ name: String) -> String? {
    guard let p = getenv(name) else { return nil }
    let s = String(cString: p)
    return s.isEmpty ? nil : s
}

func writeSysfs(_ path: String, _ text: String) throws {
    let fd = open(path, O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { throw CheckFailure("cannot open \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    let n = text.withCString { write(fd, $0, strlen($0)) }
    guard n == text.utf8.count else { throw CheckFailure("writing \"\(text)\" to \(path) failed: \(String(cString: strerror(errno)))") }
}

func readSysfs(_ path: String) throws -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw CheckFailure("cannot open \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 256)
    let n = read(fd, &buffer, buffer.count)
    guard n >= 0 else { throw CheckFailure("reading \(path) failed: \(String(cString: strerror(errno)))") }
    var s = String(decoding: buffer[0..<n], as: UTF8.self)
    while s.last == "\n" { s.removeLast() }
    return s
}

/// "0x1f".
func hexByte(_ b: UInt8) -> String { "0x" + hex(b) }

/// "1.234 ms".
func milliseconds(_ ns: UInt64) -> String {
    let us = ns / 1_000
    let frac = us % 1_000
    return "\(us / 1_000).\(frac < 100 ? (frac < 10 ? "00" : "0") : "")\(frac) ms"
}
