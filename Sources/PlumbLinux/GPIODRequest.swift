import PlumbHAL
import CGPIOD
import Synchronization

/// Which GPIO line to request: a chip (by path, name, number or label) and a line (by offset or name).
///
/// Examples: `GPIOLineSelector(chip: "gpiochip0", line: .offset(17))`,
/// `GPIOLineSelector(line: .name("GPIO17"))` (searches every chip),
/// `GPIOLineSelector(chip: "pinctrl-rp1", line: .name("GPIO17"))` (a Pi 5 by label).
public struct GPIOLineSelector: Sendable, Equatable, CustomStringConvertible {
    public enum Line: Sendable, Equatable {
        case offset(UInt32)
        case name(String)
    }

    /// "/dev/gpiochip0", "gpiochip0", "0" or a label such as "pinctrl-bcm2711"; nil searches
    /// every chip for a line name.
    public var chip: String?
    public var line: Line

    public init(chip: String? = nil, line: Line) {
        self.chip = chip
        self.line = line
    }

    public var description: String {
        let l: String
        switch line {
        case .offset(let o): l = "line \(o)"
        case .name(let n): l = "line \"\(n)\""
        }
        return chip.map { "\($0) \(l)" } ?? l
    }
}

/// A line's bias (pull resistor). Needs Linux 5.5 or later on uAPI v1.
public enum GPIOBias: String, Sendable, Equatable, CaseIterable {
    case asIs, disabled, pullUp, pullDown

    var c: plumb_gpio_bias {
        switch self {
        case .asIs: return PLUMB_GPIO_BIAS_AS_IS
        case .disabled: return PLUMB_GPIO_BIAS_DISABLED
        case .pullUp: return PLUMB_GPIO_BIAS_PULL_UP
        case .pullDown: return PLUMB_GPIO_BIAS_PULL_DOWN
        }
    }
}

/// The libgpiod this build is compiled against.
public enum GPIOD {
    /// 1 for libgpiod 1.6 (uAPI v1), 2 for libgpiod 2.x (uAPI v2).
    public static var apiMajorVersion: Int { Sys.gpioAPIMajor }
    /// The loaded library's version, such as "1.6.3" or "2.1.3".
    public static var libraryVersion: String { Sys.gpioLibraryVersion }
}

/// A requested line: the libgpiod handle plus the names used in messages.
final class GPIODRequest {
    let handle: OpaquePointer
    /// "gpiochip0 line 17 (GPIO17)".
    let name: String
    let chipName: String
    let offset: UInt32

    init(_ selector: GPIOLineSelector, output: Bool, edges: EdgeSelection?, bias: GPIOBias, activeLow: Bool,
         initialValue: Bool, consumer: String) throws(GPIOError) {
        var config = plumb_gpio_config()
        var result = plumb_gpio_result()
        let lineName: String?
        switch selector.line {
        case .offset(let o): config.offset = o; lineName = nil
        case .name(let n): lineName = n
        }
        config.output = output ? 1 : 0
        switch edges {
        case .rising: config.edge = PLUMB_GPIO_EDGE_RISING
        case .falling: config.edge = PLUMB_GPIO_EDGE_FALLING
        case .both: config.edge = PLUMB_GPIO_EDGE_BOTH
        case nil: config.edge = PLUMB_GPIO_EDGE_NONE
        }
        config.bias = bias.c
        config.active_low = activeLow ? 1 : 0
        config.initial_value = initialValue ? 1 : 0
        let handle: OpaquePointer? = (selector.chip ?? "").withCString { chip in
            (lineName ?? "").withCString { line in
                consumer.withCString { consumer in
                    config.chip = chip
                    config.line_name = lineName == nil ? nil : line
                    config.consumer = consumer
                    return Sys.gpioRequest(&config, &result)
                }
            }
        }
        let chipName = Self.text(&result.chip_name)
        let label = Self.text(&result.chip_label)
        let foundLine = Self.text(&result.line_name)
        let described = Self.describe(chip: chipName, offset: result.offset, lineName: foundLine)
        guard let handle else {
            throw Self.error(result, selector: selector, described: described, chip: chipName, label: label, consumer: consumer, output: output,
                             heldHere: Self.held.withLock { $0[Self.key(chip: chipName, offset: result.offset)] })
        }
        self.handle = handle
        self.name = described
        self.chipName = chipName
        self.offset = result.offset
        self.output = output
        Self.held.withLock { $0[Self.key(chip: chipName, offset: result.offset)] = output }
    }

    /// Whether this request drives the line (an LED) or waits on it (a data-ready line).
    let output: Bool

    /// The lines this process holds, by chip and offset, each `true` for an output: a line busy
    /// under Plumb's consumer name may be held by this very process (`plumb led --lines 17,17`,
    /// or an LED on the IMU's data-ready line), which stopping another plumb would not free.
    private static let held = Mutex<[String: Bool]>([:])

    private static func key(chip: String, offset: UInt32) -> String { "\(chip)/\(offset)" }

    deinit {
        // Forgotten before the release: a request in the window gets the other-process wording,
        // never a line this process no longer holds named as its own.
        _ = Self.held.withLock { $0.removeValue(forKey: Self.key(chip: chipName, offset: offset)) }
        Sys.gpioRelease(handle)
    }

    /// "gpiochip0 line 17 (GPIO17)".
    static func describe(chip: String, offset: UInt32, lineName: String) -> String {
        "\(chip) line \(offset)" + (lineName.isEmpty ? "" : " (\(lineName))")
    }

    /// The request's failure in words; `output` tells an LED line from a data-ready line, for a
    /// line another plumb process holds. `heldHere` is how this process itself holds the line
    /// (`true` as an output), `nil` when it does not.
    static func error(_ result: plumb_gpio_result, selector: GPIOLineSelector, described: String, chip: String,
                      label: String, consumer: String, output: Bool = false, heldHere: Bool? = nil) -> GPIOError {
        var result = result
        let e = result.error_number
        let reason = e != 0 ? Sys.describe(errno: e) : "unknown error"
        switch result.status {
        case PLUMB_GPIO_CHIP_NOT_FOUND:
            let spec = selector.chip ?? ""
            // The forms the C shim tries, without repeating one ("gpiochip0" is not also /dev/gpiochipgpiochip0).
            var tried = spec.hasPrefix("/") ? ["a path"] : ["/dev/\(spec)"]
            if UInt32(spec) != nil { tried.append("/dev/gpiochip\(spec)") }
            tried.append("a label")
            return GPIOError(.chipNotFound, errno: e,
                             message: "no GPIO chip \"\(spec)\" (tried \(tried.joined(separator: ", "))): \(reason); list chips with `gpiodetect`")
        case PLUMB_GPIO_LINE_NOT_FOUND:
            let chipText = chip.isEmpty ? "no GPIO chip" : "\(chip) [\(label)]"
            switch selector.line {
            case .name(let n):
                return GPIOError(.lineNotFound, errno: e, message: "\(chipText) has no line named \"\(n)\"; list line names with `gpioinfo`")
            case .offset(let o):
                return GPIOError(.lineNotFound, errno: e, message: "\(chipText) has no line \(o); list lines with `gpioinfo \(chip)`")
            }
        case PLUMB_GPIO_LINE_BUSY:
            let holder = text(&result.consumer)
            if let heldHere {
                // This process: stopping another plumb would not free it, the line is named twice.
                let use = heldHere ? "drives an LED on it" : "waits on it as the IMU's data-ready line"
                let fix = switch (heldHere, output) {
                case (true, true): "name each line once in --lines"
                case (false, true): "give the LED another line (the data-ready line is imu.interrupt or the board's)"
                case (true, false): "give the LED another line, or the IMU another data-ready line (imu.interrupt)"
                case (false, false): "give each IMU its own data-ready line (imu.interrupt)"
                }
                // The kernel's consumer name too when it is not plumb's own (a library user's
                // own name for the first request).
                let named = holder.isEmpty || holder == consumer ? "" : " (consumer \"\(holder)\")"
                return GPIOError(.lineBusy, errno: e, message: "\(described) is busy: this plumb process already \(use)\(named); \(fix)")
            }
            if !holder.isEmpty, holder == consumer, output {
                // Only plumb led drives GPIO lines (outputs.leds are sysfs LEDs, whose kernel
                // driver holds a GPIO under the LED's name).
                return GPIOError(.lineBusy, errno: e,
                                 message: "\(described) is busy: held by consumer \"\(holder)\", another plumb process driving it "
                                    + "(a plumb led in another terminal or a script); stop it first, or choose another line",
                                 isHeldByAnotherPlumbProcess: true)
            }
            if !holder.isEmpty, holder == consumer {
                // Plumb's own name: another plumb process reads the IMU this line wakes (the service
                // while the user tries a command). Another line would not help: the two would
                // reset and configure the same chip and drain each other's FIFO.
                return GPIOError(.lineBusy, errno: e,
                                 message: "\(described) is busy: held by consumer \"\(holder)\", another plumb process reading the IMU this line wakes "
                                    + "(plumb.service, plumb-sensor-proxy.service, or a plumb command in another terminal); stop it first "
                                    + "('sudo systemctl stop plumb'): two would each reset and configure the same chip",
                                 isHeldByAnotherPlumbProcess: true)
            }
            let who = holder.isEmpty ? "another consumer (the kernel does not say which)" : "consumer \"\(holder)\""
            return GPIOError(.lineBusy, errno: e,
                             message: "\(described) is busy: held by \(who); stop that program or driver, or choose another line")
        case PLUMB_GPIO_PERMISSION:
            let node = chip.isEmpty ? "the GPIO chip" : "/dev/\(chip)"
            return GPIOError(.permissionDenied, errno: e,
                             message: "permission denied on \(node): run as root or grant access with a udev rule (group gpio)")
        default:
            return GPIOError(.requestFailed, errno: e,
                             message: "requesting \(described) for \(consumer) failed: \(reason) (errno \(e))")
        }
    }

    /// A NUL-terminated C char array as a String.
    static func text<T>(_ tuple: inout T) -> String {
        withUnsafeBytes(of: &tuple) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
