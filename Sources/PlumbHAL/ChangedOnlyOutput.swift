/// A ``DigitalOutput`` that passes a level on only when it differs from the last one written:
/// an LED shown at 10 Hz is written when it turns on or off, not ten times a second (a sysfs LED
/// is an open, a write and a close each time). The first level is always written, and so is
/// the next after a failed write or ``forget()``.
public final class ChangedOnlyOutput: DigitalOutput {
    /// The output written to.
    public let output: any DigitalOutput
    /// The level last written, or nil before the first (or after a failure or ``forget()``).
    public private(set) var level: Bool?

    public var name: String { output.name }

    public init(_ output: any DigitalOutput) {
        self.output = output
    }

    public func set(_ active: Bool) throws(GPIOError) {
        guard active != level else { return }
        level = nil
        try output.set(active)
        level = active
    }

    /// Writes the next level whatever it is: after something else drove the output (a trigger
    /// given back to the kernel).
    public func forget() {
        level = nil
    }
}
