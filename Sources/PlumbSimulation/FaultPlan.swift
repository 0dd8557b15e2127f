import PlumbHAL

/// Faults for a simulated run, from the `--faults` option: a comma-separated list.
///
/// | item | meaning |
/// |---|---|
/// | `errors=P` | each bus transfer fails with EREMOTEIO with probability P (0.01 = 1 %) |
/// | `reg=0xNN` | every transfer touching register 0xNN fails with EIO |
/// | `nack@T+D` | nothing acknowledges from T for D seconds (``EmulatedI2CBus/nothingAnswersErrno``: EREMOTEIO on a ``SimulatedSensor``, as on a Raspberry Pi) |
/// | `stuck@T+D` | the bus is stuck from T for D seconds (ETIMEDOUT after 25 ms each) |
/// | `low@T+D` | SDA is held low from T for D seconds: every read answers 0x00, writes are lost, no error |
/// | `high@T+D` | nothing drives SDA from T for D seconds: every read answers 0xFF, writes are lost, no error |
/// | `reset@T` | the chip suffers a power-on reset at T (repeatable) |
/// | `lost=P` | each interrupt edge is lost with probability P |
/// | `silent@T+D` | no interrupt edges from T for D seconds |
/// | `storm@T+D` | the interrupt line fires every 20 µs from T for D seconds, whatever the chip does |
/// | `storm@T+D/F` | the same at F pulses a second (`100Hz`, `1kHz`): a slow storm, such as a floating pin picking up mains hum |
///
/// Times are seconds after the start of the simulation, with an optional `s` or `ms` suffix:
/// `stuck@5s+200ms`.
public struct FaultPlan: Sendable, Equatable {
    public var busFaults: [FaultRule] = []
    /// Seconds after start.
    public var resets: [Double] = []
    public var lostEdgeProbability = 0.0
    /// Seconds after start, and duration.
    public var silentWindows: [(start: Double, duration: Double)] = []
    /// Seconds after start, duration, and the period in nanoseconds (``stormPeriodNanoseconds``
    /// unless the item gives a rate): interrupt storms.
    public var storms: [(start: Double, duration: Double, periodNanoseconds: UInt64)] = []
    /// 20 µs: 50 000 edges a second, far beyond any data-ready rate.
    public static let stormPeriodNanoseconds: UInt64 = 20_000
    /// Bus windows need the start time to become absolute; kept relative here.
    var relativeBusWindows: [(index: Int, start: Double, duration: Double)] = []

    public init() {}

    public static func == (a: FaultPlan, b: FaultPlan) -> Bool {
        a.busFaults == b.busFaults && a.resets == b.resets && a.lostEdgeProbability == b.lostEdgeProbability
            && a.silentWindows.map(\.start) == b.silentWindows.map(\.start) && a.silentWindows.map(\.duration) == b.silentWindows.map(\.duration)
            && a.storms.map(\.start) == b.storms.map(\.start) && a.storms.map(\.duration) == b.storms.map(\.duration)
            && a.storms.map(\.periodNanoseconds) == b.storms.map(\.periodNanoseconds)
            && a.relativeBusWindows.map(\.index) == b.relativeBusWindows.map(\.index)
            && a.relativeBusWindows.map(\.start) == b.relativeBusWindows.map(\.start)
            && a.relativeBusWindows.map(\.duration) == b.relativeBusWindows.map(\.duration)
    }

    /// Why a fault specification was refused: the message names the item.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// Parses a `--faults` value.
    public init(parsing spec: String) throws(ParseError) {
        for raw in spec.split(separator: ",") {
            let item = raw.trimmingCharacters()
            func fail(_ why: String) -> ParseError {
                ParseError(message: "fault '\(item)': \(why) (expected errors=P, reg=0xNN, nack@T+D, stuck@T+D, low@T+D, high@T+D, reset@T, lost=P, silent@T+D or storm@T+D[/F])")
            }
            if let value = item.value(after: "errors=") {
                guard let p = Double(value), (0...1).contains(p) else { throw fail("P must be a probability 0...1") }
                busFaults.append(FaultRule(.rate(p), effect: .errno(Errno.EREMOTEIO)))
            } else if let value = item.value(after: "lost=") {
                guard let p = Double(value), (0...1).contains(p) else { throw fail("P must be a probability 0...1") }
                lostEdgeProbability = p
            } else if let value = item.value(after: "reg=") {
                let digits = value.lowercased().hasPrefix("0x") ? String(value.dropFirst(2)) : value
                guard let r = UInt8(digits, radix: 16) else { throw fail("the register must be hexadecimal, 0x00...0xff") }
                busFaults.append(FaultRule(.register(r), effect: .errno(Errno.EIO)))
            } else if let value = item.value(after: "reset@") {
                guard let t = FaultPlan.seconds(value), t >= 0 else {
                    throw fail("T must be a time such as 10s or 500ms, at most \(FaultPlan.maximumSeconds) s")
                }
                resets.append(t)
            } else if let (kind, value) = ["nack@", "stuck@", "low@", "high@", "silent@", "storm@"].lazy.compactMap({ k in item.value(after: k).map { (k, $0) } }).first {
                var value = value
                var period = Self.stormPeriodNanoseconds
                if kind == "storm@", let slash = value.firstIndex(of: "/") {
                    guard let hertz = FaultPlan.hertz(String(value[value.index(after: slash)...])), hertz <= 1e8 else {
                        throw fail("F must be a rate such as 100Hz or 2kHz, at most 100 MHz")
                    }
                    period = UInt64((1e9 / hertz).rounded())
                    value = String(value[..<slash])
                }
                let parts = value.split(separator: "+").map(String.init)
                guard parts.count == 2, let t = FaultPlan.seconds(parts[0]), let d = FaultPlan.seconds(parts[1]), t >= 0, d > 0 else {
                    throw fail("expected a start and a duration, such as \(kind)5s+200ms, each at most \(FaultPlan.maximumSeconds) s")
                }
                let effects: [String: FaultRule.Effect] = ["nack@": .noAcknowledge, "stuck@": .stuck, "low@": .reads(0x00), "high@": .reads(0xFF)]
                switch kind {
                case "silent@": silentWindows.append((t, d))
                case "storm@": storms.append((t, d, period))
                default:
                    relativeBusWindows.append((busFaults.count, t, d))
                    busFaults.append(FaultRule(.always, effect: effects[kind] ?? .stuck))
                }
            } else {
                throw fail("unknown fault")
            }
        }
        resets.sort()
    }

    /// The latest start and the longest duration a fault may have (s): about 31 years, so that
    /// start + duration in nanoseconds stays far inside the virtual clock's `UInt64`.
    public static let maximumSeconds = 1e9

    /// A time or duration in seconds ("10s", "500ms", "2"), or `nil` when it is not a number
    /// or is past ``maximumSeconds`` (nan, inf and 1e30 would not fit the nanosecond clock).
    static func seconds(_ text: String) -> Double? {
        let value: Double?
        if text.hasSuffix("ms") { value = Double(text.dropLast(2)).map { $0 / 1000 } }
        else if text.hasSuffix("s") { value = Double(text.dropLast()) }
        else { value = Double(text) }
        guard let value, value.isFinite, abs(value) <= maximumSeconds else { return nil }
        return value
    }

    /// A rate in hertz ("100Hz", "2kHz", "50"), or `nil` when it is not a positive finite number.
    static func hertz(_ text: String) -> Double? {
        let value: Double?
        if text.hasSuffix("kHz") { value = Double(text.dropLast(3)).map { $0 * 1000 } }
        else if text.hasSuffix("Hz") { value = Double(text.dropLast(2)) }
        else { value = Double(text) }
        guard let value, value.isFinite, value > 0 else { return nil }
        return value
    }

    /// Installs the faults on a simulated sensor whose run starts now.
    public func install(on sensor: SimulatedSensor) {
        let start = sensor.clock.nowNanoseconds
        func at(_ s: Double) -> UInt64 { start + UInt64((s * 1e9).rounded()) }
        var rules = busFaults
        for w in relativeBusWindows { rules[w.index].window = at(w.start)...at(w.start + w.duration) }
        sensor.bus.faults += rules
        sensor.chip.scheduledResets = (sensor.chip.scheduledResets + resets.map(at)).sorted()
        sensor.line.lostEdgeProbability = lostEdgeProbability
        sensor.line.silentWindows += silentWindows.map { at($0.start)...at($0.start + $0.duration) }
        sensor.line.storms += storms.map {
            SimulatedInterruptLine.Storm(window: at($0.start)...at($0.start + $0.duration), periodNanoseconds: $0.periodNanoseconds)
        }
    }
}

extension String {
    fileprivate func value(after prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }
}
