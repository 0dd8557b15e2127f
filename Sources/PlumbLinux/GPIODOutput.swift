import PlumbHAL

/// A GPIO line driven as an output through libgpiod: an LED, an enable pin.
///
/// The corresponding calls are `gpiod_line_request_output` / `gpiod_line_set_value` (v1) and
/// `gpiod_chip_request_lines` / `gpiod_line_request_set_value` (v2).
public final class GPIODOutput: DigitalOutput {
    public var name: String { request.name }
    private let request: GPIODRequest

    /// Requests `line` as an output at `initialValue` (logical: true = active).
    ///
    /// - Parameters:
    ///   - activeLow: the line is active at the low level (an LED wired to 3V3).
    ///   - consumer: the name other programs see in `gpioinfo`. Default "plumb".
    public init(_ line: GPIOLineSelector, initialValue: Bool = false, activeLow: Bool = false, bias: GPIOBias = .asIs,
                consumer: String = "plumb") throws(GPIOError) {
        request = try GPIODRequest(line, output: true, edges: nil, bias: bias, activeLow: activeLow,
                                   initialValue: initialValue, consumer: consumer)
    }

    public func set(_ active: Bool) throws(GPIOError) {
        let r = Sys.gpioSetValue(request.handle, active)
        if r < 0 {
            throw GPIOError(.requestFailed, errno: -r,
                            message: "setting \(name) to \(active ? "active" : "inactive") failed: \(Sys.describe(errno: -r)) (errno \(-r))")
        }
    }
}
