import Foundation
import PlumbHAL
import PlumbDrivers
import PlumbLinux
import PlumbSimulation

/// `plumb probe`: the I2C adapters, what each can do, and every IMU that answers on them.
enum Probe {
    static let spec = CommandSpec(
        name: "probe",
        abstract: "List I2C adapters and the IMUs that answer on them.",
        discussion: """
        Reads the identity register of each supported family at each of its addresses (WHO_AM_I 0x75 at
        0x68/0x69 for the MPU-6050 family) and names the part found, with a warning for clone IDs.
        A chip answering 0x68 is an MPU-9150 when its AK8975 magnetometer answers at 0x0C through the
        I2C bypass (INT_PIN_CFG is set for the look and written back as found). A chip that another
        program is streaming from (INT_ENABLE or USER_CTRL.FIFO_EN set) is only read: it is named by
        WHO_AM_I alone, with a warning. The registers of other chips are only read.
        A chip another plumb process drives (plumb run, plumb dbus, a plumb read or calibrate) is marked
        "in use by another plumb process" and is only read: nothing is written to it, so an MPU-6050 there
        is not told from an MPU-9150 (a warning says so). Any other chip found is claimed while it is probed
        (a few milliseconds), so a plumb starting that moment waits for it instead of being reconfigured.
        Each bus's clock is read from the device tree (/sys/bus/i2c/devices/i2c-N/of_node/clock-frequency):
        "unknown" on adapters without one (x86, i2c-stub). With --simulate it probes the emulated bus instead.
        """,
        options: [
            .option("bus", value: "PATH", help: "Probe only this bus, such as /dev/i2c-1."),
            .option("format", value: "FORMAT", help: "text or json. Default text."),
            .flag("simulate", help: "Probe an emulated bus with one chip on it."),
            .option("chip", value: "NAME", help: "The emulated part (\(SimulatedChips.all.map(\.key).joined(separator: ", "))). Default mpu6050."),
            .option("faults", value: "SPEC", help: "Emulated faults (see 'plumb read --help')."),
        ])

    struct Device: Codable, Equatable {
        var address: String
        var register: String
        var whoAmI: String
        var family: String?
        var part: String?
        var key: String?
        var warnings: [String]
        /// "in use by another plumb process" when one claims the chip (``I2CDeviceClaim``); absent
        /// otherwise (and when it cannot be told).
        var inUse: String?
    }

    struct Adapter: Codable, Equatable {
        var path: String
        var name: String
        /// "100 kHz (device tree)", "unknown (…)".
        var clock: String
        /// The clock in hertz, or `nil` when unknown.
        var clockHz: Int?
        var functionality: [String]
        var error: String?
        var devices: [Device]
    }

    static let command = Command(spec) { args, context in
        let format = try args.choice("format", ["text", "json"]) ?? "text"
        if !args.has("simulate") {
            for name in ["chip", "faults"] where args.string(name) != nil { throw CLIError.usage("'--\(name)' needs '--simulate'.") }
        }
        let busPath = try args.string("bus").map(I2CHelp.busPath)
        var adapters: [Adapter] = []
        var simulated: SimulatedChipModel?
        if args.has("simulate") {
            if args.string("bus") != nil { throw CLIError.usage("'--bus' names hardware; it cannot be combined with '--simulate'.") }
            let sensor = try SensorOptions.simulation(args)
            simulated = sensor.model
            let hertz = sensor.bus.bitsPerSecond
            let clock = hertz.map { frequencyText(hertz: $0) + " (emulated)" } ?? "unknown (instant transfers)"
            adapters.append(try probe(bus: sensor.bus, name: "emulated \(sensor.model.part)", clock: (clock, hertz.map { Int($0) }),
                                      functionality: ["I2C"], monotonic: sensor.clock))
        } else {
            var list: [I2CAdapter] = []
            do throws(I2CError) { list = try I2CAdapter.list() } catch {
                // With --bus the node is opened directly below; without it there is nothing to probe.
                if busPath == nil {
                    throw CLIError.failure(I2CHelp.noAdapters(error), fix: I2CHelp.enableFix)
                }
            }
            if let path = busPath {
                list = list.filter { $0.devicePath == path }
                if list.isEmpty {
                    list = [I2CAdapter(number: -1, name: "", devicePath: path, functionality: nil)]
                }
            }
            if list.isEmpty {
                throw CLIError.failure("this machine has no I2C bus (/sys/class/i2c-adapter is empty)", fix: I2CHelp.enableFix)
            }
            for a in list {
                let functionality = a.functionality?.decoded ?? []
                let reading = BusClockSupport.read(busPath: a.devicePath)
                let clock = (reading.text, reading.clock?.hertz.map { Int($0) })
                if let reason = a.unavailableReason {
                    adapters.append(Adapter(path: a.devicePath, name: a.name, clock: clock.0, clockHz: clock.1, functionality: functionality,
                                            error: reason, devices: []))
                    continue
                }
                do {
                    let bus = try LinuxI2CBus(path: a.devicePath)
                    adapters.append(try probe(bus: bus, name: a.name, clock: clock, functionality: bus.functionality.decoded, monotonic: SystemClock(),
                                              claimNode: a.devicePath))
                } catch let error as I2CError {
                    // The one-line reason and its fix, as the other commands give them.
                    let reason: String
                    if case .failure(let message, let fix) = I2CHelp.openFailure(error, buses: list.map(\.devicePath)) {
                        reason = message + (fix.map { ". " + $0 } ?? "")
                    } else {
                        reason = error.description
                    }
                    adapters.append(Adapter(path: a.devicePath, name: a.name, clock: clock.0, clockHz: clock.1, functionality: functionality,
                                            error: reason, devices: []))
                }
            }
        }
        switch format {
        case "json":
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            struct Report: Codable { var adapters: [Adapter] }
            let data = try encoder.encode(Report(adapters: adapters))
            context.out.line(String(decoding: data, as: UTF8.self))
        default:
            for a in adapters { context.out.write(text(a, simulated: simulated)) }
        }
        if adapters.allSatisfy({ $0.error != nil }) {
            throw CLIError.failure("no I2C bus could be probed", fix: "See the error under each bus above.")
        }
    }

    /// - Parameters:
    ///   - monotonic: paces retries of the families' refine steps (an MPU-6050 family chip
    ///     answering 0x68 is checked for the MPU-9150's magnetometer through the I2C bypass).
    ///   - claimNode: the adapter's device node, where each chip found is claimed for the probe or
    ///     found claimed by another plumb process (``Claims``); nil for an emulated bus.
    static func probe(bus: any I2CBus, name: String, clock: (text: String, hertz: Int?), functionality: [String],
                      monotonic: any MonotonicClock, claimNode: String? = nil) throws(CLIError) -> Adapter {
        // Asked before a family's refine step writes to the chip (the MPU-9150 look sets
        // INT_PIN_CFG): a chip another plumb process drives is only read, any other is held.
        let claims = Claims(node: claimNode)
        defer { withExtendedLifetime(claims) {} }
        let findings: [ProbeFinding]
        do {
            findings = try IMUFamilies.probe(bus, refiningWith: monotonic, leavingAlone: { claims.leaveAloneReason($0) })
        } catch {
            return Adapter(path: bus.path, name: name, clock: clock.text, clockHz: clock.hertz, functionality: functionality,
                           error: error.description, devices: [])
        }
        let devices = findings.map { f in
            Device(address: f.address.description, register: "0x" + hex(f.register), whoAmI: "0x" + hex(f.whoAmI),
                   family: f.family, part: f.part, key: f.partKey, warnings: f.warnings,
                   inUse: claims.isClaimedElsewhere(f.address) ? inUseNote : nil)
        }
        return Adapter(path: bus.path, name: name, clock: clock.text, clockHz: clock.hertz, functionality: functionality, error: nil, devices: devices)
    }

    /// The chips `plumb probe` and `plumb regs` look at on one adapter, each claimed
    /// (``I2CDeviceClaim``) the first time it is asked about and held for as long as this lives, or
    /// found claimed by another plumb process, which is then left alone.
    ///
    /// Checking the claim without taking it (``I2CDeviceClaim/isClaimedElsewhere(path:address:)``)
    /// left a window: a `plumb run` claiming and configuring the chip just after the check had its
    /// INT_PIN_CFG put back to the value the MPU-9150 look read before the reset. Held, the claim
    /// makes that plumb wait (`--wait-for-sensor`, as the shipped units run) or refuses it with the
    /// claim's message, for the few milliseconds a probe takes.
    final class Claims {
        /// The adapter's device node; nil for an emulated bus (nothing is claimed).
        let node: String?
        private var held: [I2CAddress: I2CDeviceClaim] = [:]
        private var elsewhere: [I2CAddress: Bool] = [:]

        init(node: String?) { self.node = node }

        /// Whether another plumb process claims the chip at `address`; when none does, the chip is
        /// claimed here from now on. False when it cannot be told (the claim holds nothing).
        func isClaimedElsewhere(_ address: I2CAddress) -> Bool {
            if let known = elsewhere[address] { return known }
            var found = false
            if let node {
                do throws(I2CDeviceInUse) { held[address] = try I2CDeviceClaim.acquire(path: node, address: address) } catch { found = true }
            }
            elsewhere[address] = found
            return found
        }

        /// ``Probe/leftAloneReason`` for a chip another plumb process claims, nil otherwise (the
        /// chip is then held: ``isClaimedElsewhere(_:)``).
        func leaveAloneReason(_ address: I2CAddress) -> String? {
            isClaimedElsewhere(address) ? Probe.leftAloneReason : nil
        }
    }

    /// The note on a chip another plumb process claims (``Device/inUse``).
    static let inUseNote = "in use by another plumb process"

    /// Why a chip another plumb process claims gets no refine step (``IMUFamilies/probe(_:refiningWith:leavingAlone:)``),
    /// in the warning when that leaves its part in doubt.
    static let leftAloneReason = "another plumb process drives the chip, so nothing is written to it; stop that process ('pgrep -a plumb' lists them) and run this again"

    /// - Parameter simulated: the emulated chip of `--simulate`: a silent bus then gets the
    ///   simulator's fix (``I2CHelp/simulatedSilenceFix(_:addressOption:faultsOption:)``), not the wiring and `i2cdetect`.
    static func text(_ a: Adapter, simulated: SimulatedChipModel? = nil) -> String {
        var lines: [String] = []
        var head = a.path
        if !a.name.isEmpty { head += "  \(a.name)" }
        if !a.functionality.isEmpty { head += "  [\(a.functionality.joined(separator: ", "))]" }
        lines.append(head)
        lines.append("  bus clock: \(a.clock)")
        if let error = a.error { lines.append("  error: \(error)") }
        if a.error == nil, a.devices.isEmpty, let simulated {
            lines.append("  no IMU answers at 0x68, 0x69, 0x6a or 0x6b. \(I2CHelp.simulatedSilenceFix(simulated, addressOption: false))")
        } else if a.error == nil, a.devices.isEmpty {
            let number = a.path.hasPrefix("/dev/i2c-") ? String(a.path.dropFirst("/dev/i2c-".count)) : "N"
            lines.append("  no IMU answers at 0x68, 0x69, 0x6a or 0x6b (check the wiring and power; 'i2cdetect -y \(number)' shows every address that answers)")
        }
        for d in a.devices {
            let what = d.part.map { "\($0) (\(d.key ?? ""))" } ?? "unknown chip"
            // The kernel names no process for the claim (an OFD lock's l_pid is -1): pgrep does.
            lines.append("  \(d.address)  WHO_AM_I \(d.whoAmI)  \(what)" + (d.inUse.map { "  (\($0): 'pgrep -a plumb' lists them)" } ?? ""))
            for w in d.warnings { lines.append("        warning: \(w)") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
