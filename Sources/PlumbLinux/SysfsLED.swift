#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import PlumbHAL

/// An LED of the Linux LED class: `/sys/class/leds/<name>/brightness`, 0 for off and
/// `max_brightness` for on (Documentation/leds/leds-class.rst). Writing a brightness of 0 also
/// stops a blinking trigger such as `timer`; on a Raspberry Pi the ACT LED is `ACT`, the power
/// LED `PWR`.
public final class SysfsLED: DigitalOutput {
    public let name: String
    /// The LED's directory, such as /sys/class/leds/ACT.
    public let directory: String
    /// The brightness written for "on".
    public let maxBrightness: Int

    /// - Parameters:
    ///   - name: the directory name under `root` ("ACT", "led0", "input3::capslock").
    ///   - root: the class directory, replaceable for tests. Default /sys/class/leds.
    ///   - clearTrigger: write "none" to `trigger` first, so the kernel stops driving the LED.
    public init(_ name: String, root: String = "/sys/class/leds", clearTrigger: Bool = true) throws(GPIOError) {
        self.name = name
        directory = root + "/" + name
        var error: Int32 = 0
        guard let text = Sys.readFile(directory + "/max_brightness", error: &error) else {
            let available = (Sys.listDirectory(root, error: &error) ?? []).sorted().joined(separator: ", ")
            throw GPIOError(.lineNotFound, errno: error,
                            message: "no LED \"\(name)\" in \(root) (found: \(available.isEmpty ? "none" : available))")
        }
        guard let max = Self.maxBrightness(in: text) else {
            throw GPIOError(.requestFailed, message: "\(directory)/max_brightness reads \"\(text.trimmingSpace())\", not a positive number")
        }
        maxBrightness = max
        if clearTrigger { try write("trigger", "none") }
    }

    public func set(_ active: Bool) throws(GPIOError) {
        try write("brightness", active ? String(maxBrightness) : "0")
    }

    /// The trigger in effect: the name in brackets in `trigger` ("none [mmc0] timer" → "mmc0"),
    /// or `nil` when the file marks none. Read before taking the LED over, to give it back.
    public func readTrigger() throws(GPIOError) -> String? {
        Self.selectedTrigger(try read("trigger"))
    }

    /// `max_brightness` as the LED class gives it (a positive integer), or nil. No system call:
    /// for tests and the fuzzer.
    public static func maxBrightness(in content: String) -> Int? {
        guard let max = Int(content.trimmingSpace()), max > 0 else { return nil }
        return max
    }

    /// The selected trigger in a `trigger` file's content: the name in brackets ("none [mmc0]
    /// timer" → "mmc0"; Documentation/ABI/testing/sysfs-class-led, "trigger"), or nil when none is
    /// marked. No system call: for tests and the fuzzer.
    public static func selectedTrigger(_ content: String) -> String? {
        guard let open = content.firstIndex(of: "["), let close = content[open...].firstIndex(of: "]") else { return nil }
        return String(content[content.index(after: open)..<close])
    }

    /// What ``takeOver()`` found, for ``giveBack(_:)``: the trigger in effect (nil when none is
    /// marked) and the brightness.
    public struct SavedState: Sendable, Equatable {
        public var trigger: String?
        /// 0...``maxBrightness``.
        public var brightness: Int

        public init(trigger: String?, brightness: Int) {
            self.trigger = trigger; self.brightness = brightness
        }
    }

    /// Saves the trigger and brightness, then selects the trigger "none" so that the kernel stops
    /// driving the LED (the ACT LED stops showing SD-card activity). Give the result to
    /// ``giveBack(_:)`` however the use ends: a trigger left at "none" stays so until reboot.
    public func takeOver() throws(GPIOError) -> SavedState {
        let saved = SavedState(trigger: try readTrigger(), brightness: try readBrightness())
        try setTrigger("none")
        return saved
    }

    /// Gives the LED back as ``takeOver()`` found it: its trigger again (the ACT LED blinks for
    /// the SD card), or with no trigger but "none" its old brightness.
    public func giveBack(_ saved: SavedState) throws(GPIOError) {
        if let trigger = saved.trigger, trigger != "none" {
            try setTrigger(trigger)
        } else {
            try setBrightness(saved.brightness)
        }
    }

    /// Selects a trigger by name ("mmc0", "heartbeat", "none").
    public func setTrigger(_ name: String) throws(GPIOError) {
        try write("trigger", name)
    }

    /// The brightness now, 0...``maxBrightness``.
    public func readBrightness() throws(GPIOError) -> Int {
        let text = try read("brightness")
        guard let value = Int(text) else {
            throw GPIOError(.requestFailed, message: "\(directory)/brightness reads \"\(text)\", not a number")
        }
        return value
    }

    /// Sets a raw brightness (restoring a saved one).
    public func setBrightness(_ value: Int) throws(GPIOError) {
        try write("brightness", String(value))
    }

    private func read(_ attribute: String) throws(GPIOError) -> String {
        var error: Int32 = 0
        guard let text = Sys.readFile(directory + "/" + attribute, error: &error) else {
            throw GPIOError(error == EACCES ? .permissionDenied : .requestFailed, errno: error,
                            message: "cannot read \(directory)/\(attribute): \(Sys.describe(errno: error))")
        }
        return text.trimmingSpace()
    }

    private func write(_ attribute: String, _ value: String) throws(GPIOError) {
        let path = directory + "/" + attribute
        let fd = FBSys.open(path, O_WRONLY | O_TRUNC)
        guard fd >= 0 else {
            throw GPIOError(-fd == EACCES ? .permissionDenied : .requestFailed, errno: -fd,
                            message: "cannot open \(path): \(FBSys.describe(-fd))\(-fd == EACCES ? " (LED files belong to root; run as root or add a udev rule)" : "")")
        }
        defer { FBSys.close(fd) }
        let bytes = Array((value + "\n").utf8)
        let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard n == bytes.count else {
            let e = n < 0 ? errno : EIO
            throw GPIOError(.requestFailed, errno: e, message: "writing \"\(value)\" to \(path) failed: \(FBSys.describe(e))")
        }
    }
}
