import PlumbHAL
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The SCL clock an I2C adapter was configured with, from the device tree as sysfs shows it.
///
/// The adapter device `i2c-N` (the N of /dev/i2c-N) links to the device-tree node of its
/// controller as `of_node`; the node's `clock-frequency` property is the bus speed in hertz, one
/// 32-bit big-endian cell (Linux Documentation/devicetree/bindings/i2c/i2c.txt, "clock-frequency:
/// frequency of bus clock in Hz"; the Devicetree Specification v0.4 §2.2.4 stores a `<u32>` as
/// 4 bytes, big-endian). The controller drivers read the same property at probe:
/// `i2c-bcm2835.c` (`bcm2835_i2c_probe`, every Raspberry Pi's header bus before the Pi 5) falls
/// back to `I2C_MAX_STANDARD_MODE_FREQ`, 100 kHz, when it is missing, and the DesignWare driver
/// of the Pi 5's RP1 takes it through `i2c_parse_fw_timings`. On a Raspberry Pi the firmware
/// writes it from `dtparam=i2c_arm_baudrate=N` (default 100000, per the firmware's
/// /boot/overlays/README; `i2c_baudrate` is an alias) before the kernel starts, so what is read
/// here is what the driver was told, and a change needs a reboot.
///
/// What it cannot show: the rate the controller really achieves. The BCM2835's divider runs
/// from the VPU core clock, which changes with load on a Pi 3 or Zero 2 W unless `core_freq=250`
/// is set: 100 kHz configured measured 62.5 kHz there (raspberrypi/firmware#1281). The
/// divider's clock (`<controller>_div` in /sys/kernel/debug/clk/clk_summary) needs debugfs and
/// root, so it is not read. Adapters without a device-tree node (ACPI or PCI adapters on x86,
/// `i2c-stub`, most USB adapters) have no `of_node`: their clock is unknown, a normal answer.
public struct I2CBusClock: Sendable, Equatable, CustomStringConvertible {
    /// The bus, as given ("/dev/i2c-1").
    public var busPath: String
    /// The configured SCL frequency in hertz, or `nil` when unknown.
    public var hertz: UInt32?
    /// The file it was read from, when known.
    public var file: String?
    /// Why it is unknown ("i2c-11 has no device-tree node: an ACPI, PCI, USB or stub adapter").
    public var unknownReason: String?

    public init(busPath: String, hertz: UInt32?, file: String? = nil, unknownReason: String? = nil) {
        self.busPath = busPath; self.hertz = hertz; self.file = file; self.unknownReason = unknownReason
    }

    /// "100 kHz (device tree)", or "unknown (…why…)".
    public var description: String {
        guard let hertz else { return "unknown" + (unknownReason.map { " (\($0))" } ?? "") }
        return frequencyText(hertz: Double(hertz)) + " (device tree)"
    }

    /// Reads the clock of the adapter behind `busPath`.
    ///
    /// - Parameters:
    ///   - busPath: "/dev/i2c-N" (a symlink to one, such as a udev alias, is followed once).
    ///   - sysfsRoot: where sysfs is mounted ("/sys"); tests pass a temporary directory.
    /// - Returns: the clock, or an unknown clock with the reason: no such adapter in sysfs, no
    ///   device-tree node, or a node without `clock-frequency`. An unknown clock is not an error.
    /// - Throws: ``SysfsError`` naming the file when `clock-frequency` exists but cannot be read,
    ///   or does not hold one 4-byte big-endian cell of at least 1 Hz (a damaged device tree), or
    ///   naming the directory when the adapter's or its node's exists but cannot be listed.
    ///   Callers that only advise (the bus check) report the error and carry on as if unknown.
    public static func read(busPath: String, sysfsRoot: String = "/sys") throws(SysfsError) -> I2CBusClock {
        guard let name = adapterName(busPath) else {
            return I2CBusClock(busPath: busPath, hertz: nil, unknownReason: "\(busPath) is not an i2c-dev node (/dev/i2c-N)")
        }
        let adapter = "\(sysfsRoot)/bus/i2c/devices/\(name)"
        guard try exists(adapter) else {
            return I2CBusClock(busPath: busPath, hertz: nil, unknownReason: "no adapter \(name) in \(sysfsRoot)/bus/i2c/devices")
        }
        let node = "\(adapter)/of_node"
        guard try exists(node) else {
            return I2CBusClock(busPath: busPath, hertz: nil,
                               unknownReason: "\(name) has no device-tree node: an ACPI, PCI, USB or stub adapter")
        }
        let file = "\(node)/clock-frequency"
        var error: Int32 = 0
        guard let bytes = Sys.readFileBytes(file, error: &error) else {
            if error == ENOENT || error == ENOTDIR {
                return I2CBusClock(busPath: busPath, hertz: nil, unknownReason: "the device-tree node of \(name) has no clock-frequency")
            }
            throw SysfsError(path: file, errno: error, message: Sys.describe(errno: error))
        }
        return I2CBusClock(busPath: busPath, hertz: try hertz(clockFrequency: bytes, file: file), file: file)
    }

    /// The bus clock in a `clock-frequency` property's bytes: one 4-byte big-endian cell of at
    /// least 1 Hz (no system call: for tests and the fuzzer).
    /// - Throws: ``SysfsError`` naming `file` for any other length, or for 0 Hz.
    public static func hertz(clockFrequency bytes: [UInt8], file: String) throws(SysfsError) -> UInt32 {
        guard bytes.count == 4 else {
            let shown = bytes.prefix(8).map { hex($0) }.joined(separator: " ") + (bytes.count > 8 ? " …" : "")
            throw SysfsError(path: file, errno: 0,
                             message: "holds \(bytes.count) bytes (\(shown)), not one 4-byte big-endian cell in hertz")
        }
        let hertz = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard hertz > 0 else {
            throw SysfsError(path: file, errno: 0, message: "holds 0 Hz, not a bus clock")
        }
        return hertz
    }

    /// True when the directory `path` can be listed, false when it does not exist.
    /// - Throws: ``SysfsError`` when it exists but cannot be listed.
    static func exists(_ path: String) throws(SysfsError) -> Bool {
        var error: Int32 = 0
        if Sys.listDirectory(path, error: &error) != nil { return true }
        if error == ENOENT || error == ENOTDIR { return false }
        throw SysfsError(path: path, errno: error, message: Sys.describe(errno: error))
    }

    /// "i2c-1" for "/dev/i2c-1" (or for a symlink to it); `nil` when the path names no i2c-dev node.
    static func adapterName(_ busPath: String) -> String? {
        if let n = adapterName(path: busPath) { return n }
        var error: Int32 = 0
        guard let target = Sys.readLink(busPath, error: &error) else { return nil }
        return adapterName(path: target)
    }

    /// "i2c-1" for a path whose last component is "i2c-1" (a bus path, or a symlink's target as
    /// readlink(2) gives it), else nil. No system call.
    public static func adapterName(path: String) -> String? {
        let base = path.split(separator: "/").last.map(String.init) ?? path
        guard base.hasPrefix("i2c-"), base.count > 4, base.dropFirst(4).allSatisfy(\.isNumber) else { return nil }
        return base
    }
}
