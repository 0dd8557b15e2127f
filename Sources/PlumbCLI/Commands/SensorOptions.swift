import Foundation
import PlumbConfiguration
import PlumbHAL
import PlumbDrivers
import PlumbLinux
import PlumbSimulation

/// The options every command that reads a sensor shares, and opening the sensor they name:
/// real hardware (`--bus`, `--address`, `--part`, `--interrupt`) or the emulator (`--simulate`,
/// `--chip`, `--profile` or `--replay`, `--faults`, `--seed`).
enum SensorOptions {
    static let specs: [OptionSpec] = [
        .option("bus", value: "PATH", help: "The I2C bus, such as /dev/i2c-1 or just 1 (default: the first bus with an IMU)."),
        .option("address", value: "ADDR", help: "The chip's address, such as 0x68 (default: found by probing)."),
        .option("part", value: "NAME", help: "Drive the chip as this part whatever its WHO_AM_I says, unless it answers as another family's part (\(IMUFamilies.partKeys.joined(separator: ", ")))."),
        .option("interrupt", value: "[CHIP:]LINE", help: "The data-ready GPIO line, by offset or name, such as gpiochip0:17 (default: poll)."),
        .flag("simulate", help: "Use an emulated chip in virtual time instead of hardware."),
        .option("chip", value: "NAME", help: "The emulated part (\(SimulatedChips.all.map(\.key).joined(separator: ", "))). Default mpu6050."),
        .option("profile", value: "NAME", help: "The emulated motion: \(MotionProfile.builtInNames.joined(separator: ", ")). Default rest."),
        .option("replay", value: "FILE", help: "Replay a recording (BROAD CSV columns t_s,gyr_x..acc_z) as the emulated motion."),
        .option("faults", value: "SPEC", help: "Emulated faults, such as errors=0.01,reset@5s,stuck@2s+300ms,high@4s+1s,lost=0.1,silent@3s+1s,storm@6s+1s,storm@8s+2s/50Hz."),
        .option("seed", value: "N", help: "Seed for the emulated noise and faults. Default 1."),
        .flag("no-fifo-compression", help: "Never compress the FIFO of an LSM6DSO-generation chip (it compresses at high rates)."),
    ]

    /// A sensor ready to use.
    struct Opened {
        var imu: any IMU
        var identity: IMUIdentity
        var line: (any InterruptLine)?
        var clock: any MonotonicClock
        /// The simulation behind it, when `--simulate`.
        var simulation: SimulatedSensor?
        /// The clock of the hardware bus, read from the device tree; `nil` for a simulation.
        var busClock: BusClockSupport.Reading? = nil
        /// The adapter's longest read (32 for SMBus-only adapters), or `nil`.
        var maximumReadLength: Int? = nil

        /// Tells `stream` the bus clock (so that it says when `rateSetting` asks too much of the
        /// bus), and warns through `warn` when the clock file could not be read.
        func useBusClock(on stream: IMUStream, rateSetting: String, warn: (String) -> Void) {
            guard let busClock else { return }
            if let error = busClock.error {
                warn("the clock of \(identity.bus) is unknown, its load not checked: cannot read \(error.path): \(error.message)")
            }
            stream.busClock = BusClockSupport.streamClock(busClock, maximumReadLength: maximumReadLength, rateSetting: rateSetting,
                                                          model: BusClockSupport.model())
        }
    }

    static func validateSimulationOptions(_ args: ParsedArguments) throws(CLIError) {
        if !args.has("simulate") {
            for name in ["chip", "profile", "replay", "faults", "seed"] where args.string(name) != nil {
                throw .usage("'--\(name)' needs '--simulate'.")
            }
        } else {
            for name in ["bus", "interrupt"] where args.string(name) != nil {
                throw .usage("'--\(name)' names hardware; it cannot be combined with '--simulate'.")
            }
        }
        if args.string("profile") != nil, args.string("replay") != nil {
            throw .usage("Give '--profile' or '--replay', not both.")
        }
    }

    /// Builds the emulated sensor the options describe.
    static func simulation(_ args: ParsedArguments, defaultProfile: String = "rest") throws(CLIError) -> SimulatedSensor {
        let chipName = args.string("chip") ?? "mpu6050"
        guard let model = SimulatedChips.model(chipName) else {
            throw .usage("The value '\(chipName)' is invalid for '--chip': expected one of \(SimulatedChips.all.map(\.key).joined(separator: ", ")).")
        }
        let profile: MotionProfile
        if let path = args.string("replay") {
            profile = try SimulatedIMU.recordedProfile(path)
        } else {
            let name = args.string("profile") ?? defaultProfile
            guard let p = MotionProfile.named(name) else {
                throw .usage("The value '\(name)' is invalid for '--profile': expected one of \(MotionProfile.builtInNames.joined(separator: ", ")).")
            }
            profile = p
        }
        let seed = UInt64(try args.int("seed", in: 0...Int.max) ?? 1)
        let sensor = SimulatedSensor(model: model, profile: profile, seed: seed)
        if let spec = args.string("faults") {
            do { try FaultPlan(parsing: spec).install(on: sensor) } catch { throw .usage(error.message + ".") }
        }
        return sensor
    }

    /// Opens the sensor: identifies it and returns its driver.
    static func open(_ args: ParsedArguments, context: CommandContext, defaultProfile: String = "rest") throws(CLIError) -> Opened {
        try validateSimulationOptions(args)
        let part = args.string("part")
        if let part, IMUFamilies.family(forPart: part) == nil {
            throw .usage("The value '\(part)' is invalid for '--part': expected one of \(IMUFamilies.partKeys.joined(separator: ", ")).")
        }
        let address = try Self.address(args, context: context)

        if args.has("simulate") {
            let sensor = try simulation(args, defaultProfile: defaultProfile)
            let (imu, identity) = try identify(bus: sensor.bus, address: address, part: part, clock: sensor.clock,
                                               fifoCompression: !args.has("no-fifo-compression"), simulated: sensor.model)
            return Opened(imu: imu, identity: identity, line: sensor.line, clock: sensor.clock, simulation: sensor)
        }

        let clock = SystemClock()
        let setting = busSetting(args)
        return try search(candidateBuses(args), at: address) { path throws(CLIError) -> Opened in
            let bus: LinuxI2CBus
            do throws(I2CError) { bus = try LinuxI2CBus(path: path, clock: clock) } catch { throw I2CHelp.openFailure(error, setting: setting) }
            // Claimed once its address is known, before anything is written to it: a polled chip
            // another plumb drives is left alone (not looked behind, not reset).
            let (imu, identity) = try identify(bus: bus, address: address, part: part, clock: clock,
                                               fifoCompression: !args.has("no-fifo-compression"),
                                               claim: { at throws(CLIError) in
                do throws(I2CDeviceInUse) { try bus.claim(at) } catch { throw I2CHelp.inUse(error) }
            })
            var line: (any InterruptLine)?
            if let spec = args.string("interrupt") { line = try interruptLine(spec) }
            return Opened(imu: imu, identity: identity, line: line, clock: clock, simulation: nil,
                          busClock: BusClockSupport.read(busPath: path), maximumReadLength: bus.maximumReadLength)
        }
    }

    /// The first bus in `paths` where `attempt` finds the chip (`address`, or any IMU address).
    /// A bus that could not be opened, or a chip that answered wrongly, says more than a silent
    /// bus, so such an error is the one thrown; else the silent buses are named together (a
    /// Raspberry Pi has /dev/i2c-1 and the HDMI DDC buses, where nothing answers at 0x68–0x6b).
    static func search<T>(_ paths: [String], at address: I2CAddress?,
                          _ attempt: (String) throws(CLIError) -> T) throws(CLIError) -> T {
        var lastError: CLIError?
        var silent: [String] = []
        for path in paths {
            do { return try attempt(path) } catch {
                if error == silence(path, at: address) { silent.append(path) } else { lastError = error }
            }
        }
        if let lastError { throw lastError }
        if !silent.isEmpty { throw silence(silent.joined(separator: ", "), at: address) }
        throw .failure("no IMU found", fix: "Run 'plumb probe' to see what answers on each bus.")
    }

    /// `--address`: "0x68", "68h", "0b1101000" or decimal "104". A decimal that reads as one of
    /// the IMUs' addresses in hexadecimal ("68") gets a warning: it is 0x44, where no IMU answers.
    static func address(_ args: ParsedArguments, context: CommandContext) throws(CLIError) -> I2CAddress? {
        guard let text = args.string("address") else { return nil }
        guard let address = I2CAddress(parsing: text) else {
            throw .usage("The value '\(text)' is invalid for '--address': expected a 7-bit address 0x08...0x77, such as 0x68.")
        }
        // As I2CAddress(parsing:) reads it: around it whitespace, before it a "+" ("+68" is 68 too).
        let written = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let digits = written.hasPrefix("+") ? String(written.dropFirst()) : written
        if digits.allSatisfy({ $0.isASCII && $0.isNumber }), let hex = Int(digits, radix: 16), [0x68, 0x69, 0x6A, 0x6B].contains(hex) {
            context.err.line("warning: --address \(written) is decimal (\(address)); the IMUs answer at 0x68, 0x69, 0x6A or 0x6B: write 0x\(digits) for hexadecimal")
        }
        return address
    }

    /// Where `--bus` came from: the command line, or `imu.bus` of `--config FILE` (``applyingConfiguration(_:takes:)``).
    static func busSetting(_ args: ParsedArguments) -> I2CHelp.BusSetting {
        args.fromConfiguration["bus"].map { .configuration(path: $0) } ?? .option
    }

    /// The buses to search: `--bus`, or every I2C adapter the kernel lists.
    static func candidateBuses(_ args: ParsedArguments) throws(CLIError) -> [String] {
        if let text = args.string("bus") { return [try I2CHelp.busPath(text)] }
        let candidates: [String]
        do { candidates = try I2CAdapter.list().map(\.devicePath) } catch {
            throw .failure(I2CHelp.noAdapters(error), fix: I2CHelp.enableFix)
        }
        if candidates.isEmpty { throw .failure("this machine has no I2C bus (/sys/class/i2c-adapter is empty)", fix: I2CHelp.enableFix) }
        return candidates
    }

    /// Finds the chip (`address` and `part`, each probed for when `nil`), opens its driver and
    /// identifies it.
    /// - Parameter leavingBusyChipsAlone: for a command that only reads the chip (`plumb regs`): a
    ///   chip another program is streaming from is only read while it is identified
    ///   (``MPU6050/leavesBusyChipsAlone``), as `plumb probe` leaves it.
    /// - Parameter simulated: the emulated chip behind `bus` under `--simulate`: when nothing
    ///   answers, the fix names the simulator's options (``I2CHelp/simulatedSilenceFix(_:addressOption:faultsOption:)``,
    ///   `--faults` among them unless `faultsOption` is false), not the wiring.
    /// - Parameter leavingAlone: why the chip at an address must not be written to at all (another
    ///   plumb process claims it: ``MPU6050/leaveAloneReason``), for `plumb regs`; `nil` for none.
    /// - Parameter claim: called with the chip's address once the probe (which only reads) found
    ///   it, before the driver's identify, which writes to an MPU-6050 (the MPU-9150 look toggles
    ///   INT_PIN_CFG's bypass): a chip another plumb process drives is refused untouched.
    static func identify(bus: any I2CBus, address: I2CAddress?, part: String?, clock: any MonotonicClock,
                         fifoCompression: Bool = true, leavingBusyChipsAlone: Bool = false,
                         simulated: SimulatedChipModel? = nil, faultsOption: Bool = true,
                         leavingAlone: (I2CAddress) -> String? = { _ in nil },
                         claim: ((I2CAddress) throws(CLIError) -> Void)? = nil) throws(CLIError) -> (any IMU, IMUIdentity) {
        func silent() -> CLIError {
            let error = silence(bus.path, at: at)
            guard let simulated, case .failure(let message, _) = error else { return error }
            return .failure(message, fix: I2CHelp.simulatedSilenceFix(simulated, faultsOption: faultsOption))
        }
        var family: IMUFamily?
        var at = address
        if let part { family = IMUFamilies.family(forPart: part) }
        if at == nil || family == nil {
            let findings: [ProbeFinding]
            do { findings = try IMUFamilies.probe(bus) } catch { throw .failure(error.description, fix: nil) }
            // With a part given, a chip of its family comes first (an LSM6DSO at 0x6A before an
            // MPU-6050 at 0x68 for --part lsm6dso); a chip of another family only when none is.
            let known = findings.filter { $0.family != nil && (at == nil || $0.address == at) }
                .sorted { ($0.family == family?.name ? 0 : 1) < ($1.family == family?.name ? 0 : 1) }
            guard let first = known.first else {
                // With a part given, an unknown chip at one of its family's addresses is the one
                // it can be a clone of (an LSM6DS clone at 0x6A, not an MPU clone at 0x68 too).
                let unknowns = findings.filter { at == nil || $0.address == at }
                if let unknown = unknowns.first(where: { family?.addresses.contains($0.address) == true }) ?? unknowns.first {
                    throw unknownChip(unknown, bus: bus.path, part: part, family: family)
                }
                if let at, let elsewhere = known.isEmpty ? findings.first(where: { $0.family != nil }) : nil {
                    throw .failure("no IMU answers at \(at) on \(bus.path), but \(elsewhere.part ?? "an IMU") answers at \(elsewhere.address)",
                                   fix: "Give --address \(elsewhere.address), or leave --address out: the address is found by probing.")
                }
                if findings.isEmpty { throw silent() }
                throw .failure("no IMU answers \(at.map { "at \($0) " } ?? "")on \(bus.path)", fix: "Check that the sensor is powered and on this bus: 'plumb probe' lists every bus.")
            }
            at = first.address
            if family == nil { family = IMUFamilies.all.first { $0.name == first.family } }
        } else if let family, let at {
            // Address and part given, so no probe: the identity register is still read first as
            // the probe reads it, so that an empty address (ENXIO, or EREMOTEIO on a Raspberry Pi)
            // is silence with the wiring fix, counted with the other silent buses, and not a
            // driver's "remote I/O error" from its first read.
            let answer: UInt8?
            do { answer = try IMUFamilies.readIdentity(bus, register: family.identityRegister, address: at) } catch {
                throw .failure(error.description, fix: nil)
            }
            if answer == nil { throw silent() }
        }
        guard let family, let at else { throw .failure("no IMU found on \(bus.path)", fix: nil) }
        try claim?(at)
        do {
            let imu = try family.open(bus, at, clock, part)
            if let lsm = imu as? LSM6DS { lsm.fifoCompression = fifoCompression }
            if let mpu = imu as? MPU6050 {
                mpu.leavesBusyChipsAlone = leavingBusyChipsAlone
                mpu.leaveAloneReason = leavingAlone(at)
            }
            let identity = try imu.identify()
            return (imu, identity)
        } catch {
            throw .failure(error.description, fix: partFix(error))
        }
    }

    /// A chip that acknowledged but whose WHO_AM_I names no supported part, found by the probe
    /// (no `--address`). Without `--part` the fix is to name the part it is a clone of. With
    /// `--part` the user already did, but `--part` alone only picks among chips whose WHO_AM_I
    /// is known (the probe looks for the part's family first); the chip at an address is driven
    /// as the part given whatever it answers only when `--address` names it too. When that
    /// address is not one of the given part's family, the part name may be the mistake, so
    /// the fix says where that part answers.
    static func unknownChip(_ unknown: ProbeFinding, bus: String, part: String?, family: IMUFamily?) -> CLIError {
        let message = "\(unknown.address) on \(bus) answers WHO_AM_I 0x\(hex(unknown.whoAmI)), which is no known IMU"
        guard let part else {
            return .failure(message, fix: "if it is a clone of a supported part, pass --part NAME (\(IMUFamilies.partKeys.joined(separator: ", ")))")
        }
        var fix = "--part \(part) without --address only picks a chip whose WHO_AM_I is known; give --address \(unknown.address) too, and the chip there is driven as \(part) whatever its WHO_AM_I."
        if let family, !family.addresses.contains(unknown.address) {
            let addresses = family.addresses.map(\.description).joined(separator: " or ")
            fix += " Or check the part name: \(part) (\(family.name)) answers at \(addresses), not \(unknown.address)."
        }
        return .failure(message, fix: fix)
    }

    /// The fix for a part given that is not what answers (``IMUError/partMismatch(given:register:read:found:)``);
    /// `nil` for any other failure.
    static func partFix(_ error: IMUError) -> String? {
        guard case .partMismatch(_, _, _, let found) = error else { return nil }
        return "Leave out --part (with --config, set imu.part to \"auto\"): the part is then found by its WHO_AM_I. Or give --part \(found.partKey)."
    }

    static func interruptLine(_ spec: String) throws(CLIError) -> any InterruptLine {
        var chip: String?
        var lineText = spec
        if let colon = spec.lastIndex(of: ":") {
            chip = String(spec[..<colon])
            lineText = String(spec[spec.index(after: colon)...])
        }
        let line: GPIOLineSelector.Line = UInt32(lineText).map { .offset($0) } ?? .name(lineText)
        do {
            return try GPIODInterruptLine(GPIOLineSelector(chip: chip, line: line), edges: .rising, bias: .pullDown)
        } catch {
            throw .failure(error.description, fix: "check the chip and line with 'gpioinfo'; the data-ready pin must be free")
        }
    }
}

extension SensorOptions {
    /// The buses opened but no chip acknowledged at the IMU addresses (or at `at`).
    static func silence(_ buses: String, at: I2CAddress?) -> CLIError {
        .failure("no IMU answers on \(buses) (nothing acknowledged at \(at.map { "\($0)" } ?? "0x68, 0x69, 0x6a or 0x6b"))",
                 fix: I2CHelp.wiringFix(bus: buses.contains(",") ? nil : buses, address: at))
    }
}
