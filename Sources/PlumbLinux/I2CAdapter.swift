import PlumbHAL
import Glibc

/// One I2C adapter the kernel knows, from /sys/class/i2c-adapter.
public struct I2CAdapter: Sendable, Equatable {
    /// N of /dev/i2c-N (adapter numbers can change between boots; match on ``name``).
    public var number: Int
    /// The adapter's name, e.g. "bcm2835 (i2c@7e804000)" or "SMBus stub driver".
    public var name: String
    /// "/dev/i2c-N".
    public var devicePath: String
    /// What `I2C_FUNCS` reports, or nil when the node could not be opened (see ``unavailableReason``).
    public var functionality: I2CFunctionality?
    /// Why ``functionality`` is missing, e.g. "no /dev/i2c-1: … load i2c-dev".
    public var unavailableReason: String?

    public init(number: Int, name: String, devicePath: String, functionality: I2CFunctionality?, unavailableReason: String? = nil) {
        self.number = number
        self.name = name
        self.devicePath = devicePath
        self.functionality = functionality
        self.unavailableReason = unavailableReason
    }

    /// Lists the adapters in number order.
    ///
    /// - Parameters:
    ///   - sysfsRoot: where sysfs is mounted ("/sys"); tests pass a temporary directory.
    ///   - deviceDirectory: where the i2c-dev nodes are ("/dev").
    /// - Throws: ``I2CError`` when `<sysfsRoot>/class/i2c-adapter` cannot be read (no I2C support
    ///   in the kernel). An empty list means the kernel has I2C but no adapter is enabled.
    public static func list(sysfsRoot: String = "/sys", deviceDirectory: String = "/dev") throws(I2CError) -> [I2CAdapter] {
        let directory = "\(sysfsRoot)/class/i2c-adapter"
        var error: Int32 = 0
        guard let entries = Sys.listDirectory(directory, error: &error) else {
            throw I2CError(errno: error, bus: directory, address: nil, kind: .cannotOpen,
                           detail: "cannot list I2C adapters: \(directory): \(Sys.describe(errno: error)); is I2C enabled in the kernel?")
        }
        var adapters: [I2CAdapter] = []
        for entry in entries where entry.hasPrefix("i2c-") {
            guard let number = Int(entry.dropFirst(4)) else { continue }
            var nameError: Int32 = 0
            let name = Sys.readFile("\(directory)/\(entry)/name", error: &nameError)?.trimmingTrailingNewlines() ?? ""
            let node = "\(deviceDirectory)/i2c-\(number)"
            var adapter = I2CAdapter(number: number, name: name, devicePath: node, functionality: nil)
            let fd = Sys.open(node, O_RDWR)
            if fd >= 0 {
                var funcs: UInt = 0
                let r = Sys.i2cFunctionality(fd, &funcs)
                Sys.close(fd)
                if r >= 0 {
                    adapter.functionality = I2CFunctionality(rawValue: UInt32(truncatingIfNeeded: funcs))
                } else {
                    adapter.unavailableReason = "I2C_FUNCS on \(node) failed: \(Sys.describe(errno: -r))"
                }
            } else if -fd == Errno.ENOENT {
                adapter.unavailableReason = "no \(node): load i2c-dev (`sudo modprobe i2c-dev`; on a Raspberry Pi, dtparam=i2c_arm=on in /boot/firmware/config.txt loads it)"
            } else if -fd == Errno.EACCES || -fd == Errno.EPERM {
                adapter.unavailableReason = "permission denied on \(node): add the user to group i2c (`sudo usermod -aG i2c $USER`, then log in again) or run as root"
            } else {
                adapter.unavailableReason = "cannot open \(node): \(Sys.describe(errno: -fd))"
            }
            adapters.append(adapter)
        }
        return adapters.sorted { $0.number < $1.number }
    }
}

extension String {
    func trimmingTrailingNewlines() -> String {
        var s = Substring(self)
        while let last = s.last, last == "\n" || last == "\r" || last == " " { s.removeLast() }
        return String(s)
    }
}
