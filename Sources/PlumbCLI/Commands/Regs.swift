import PlumbConfiguration
import PlumbHAL
import PlumbDrivers
import PlumbLinux
import PlumbSimulation

/// `plumb regs`: read, write and decode a chip's registers with the register map its driver uses.
enum Regs {
    static let command = Command(
        group: CommandSpec(name: "regs", abstract: "Read, write and decode the IMU's registers by datasheet name.",
                           discussion: """
                           The register maps are the drivers' own tables: names, fields, value meanings, access and
                           reset values. Works on a real bus (--bus, --address, --part) or on the emulator
                           (--simulate --chip NAME), which starts from the chip's power-on state. A chip another
                           program is streaming from (INT_ENABLE or USER_CTRL.FIFO_EN set), or that another plumb
                           process drives, is identified by reading alone, as 'plumb probe' does: no MPU-9150 look
                           through the I2C bypass.
                           """),
        subcommands: [RegsDump.command, RegsGet.command, RegsSet.command])

    /// The options every `regs` subcommand takes.
    static let commonOptions: [OptionSpec] = [
        .option("bus", value: "PATH", help: "The I2C bus, such as /dev/i2c-1 or just 1 (default: the first bus with an IMU)."),
        .option("address", value: "ADDR", help: "The chip's address, such as 0x68 (default: found by probing)."),
        .option("part", value: "NAME", help: "Decode as this part whatever its WHO_AM_I says, unless it answers as another family's part (\(IMUFamilies.partKeys.joined(separator: ", ")))."),
        .option("format", value: "FORMAT", help: "text or json. Default text."),
        .flag("simulate", help: "Use an emulated chip (in its power-on state) instead of hardware."),
        .option("chip", value: "NAME", help: "The emulated part (\(SimulatedChips.all.map(\.key).joined(separator: ", "))). Default mpu6050."),
    ]

    /// A chip ready for register access.
    struct Target {
        var editor: RegisterEditor
        var identity: IMUIdentity
        /// Keeps the emulated bus and chip alive.
        var simulation: SimulatedSensor?
        /// The chip's claim, held while the command reads and writes it (nil on the emulator; holds
        /// nothing when another plumb process claims the chip: ``Probe/Claims``).
        var claims: Probe.Claims? = nil
    }

    /// Finds the chip the options name and its register map (detection through the drivers'
    /// `identify()`), on hardware or on the emulator.
    static func open(_ args: ParsedArguments, context: CommandContext) throws(CLIError) -> Target {
        if args.has("simulate") {
            if args.string("bus") != nil { throw .usage("'--bus' names hardware; it cannot be combined with '--simulate'.") }
        } else if args.string("chip") != nil {
            throw .usage("'--chip' needs '--simulate'.")
        }
        let part = args.string("part")
        if let part, IMUFamilies.family(forPart: part) == nil {
            throw .usage("The value '\(part)' is invalid for '--part': expected one of \(IMUFamilies.partKeys.joined(separator: ", ")).")
        }
        let address = try SensorOptions.address(args, context: context)
        if args.has("simulate") {
            let chipName = args.string("chip") ?? "mpu6050"
            guard let model = SimulatedChips.model(chipName) else {
                throw .usage("The value '\(chipName)' is invalid for '--chip': expected one of \(SimulatedChips.all.map(\.key).joined(separator: ", ")).")
            }
            let sensor = SimulatedSensor(model: model)
            return try target(bus: sensor.bus, address: address, part: part, clock: sensor.clock, simulation: sensor, context: context)
        }
        let clock = SystemClock()
        return try search(SensorOptions.candidateBuses(args), address: address, part: part, clock: clock, context: context) { path throws(I2CError) in
            try LinuxI2CBus(path: path, clock: clock)
        }
    }

    /// The chip on the first bus in `paths` that has it, as ``SensorOptions/search(_:at:_:)``
    /// searches: an unknown chip on /dev/i2c-1 is told, not hidden behind a later silent bus
    /// (a Raspberry Pi's HDMI DDC /dev/i2c-20 and -21).
    static func search(_ paths: [String], address: I2CAddress?, part: String?, clock: any MonotonicClock, context: CommandContext,
                       open: (String) throws(I2CError) -> any I2CBus) throws(CLIError) -> Target {
        try SensorOptions.search(paths, at: address) { path throws(CLIError) -> Target in
            let bus: any I2CBus
            do throws(I2CError) { bus = try open(path) } catch { throw I2CHelp.openFailure(error) }
            return try target(bus: bus, address: address, part: part, clock: clock, simulation: nil, context: context, claimNode: path)
        }
    }

    /// The chip at `address` (or the first IMU found) on `bus`, identified without writing to it
    /// when another program streams from it (`leavingBusyChipsAlone`, as `plumb probe`): reading
    /// registers must not change the chip under that program. `dump` reads no register whose read
    /// has a side effect; only `get` of such a register and `set` touch the chip, as asked.
    /// - Parameter claimNode: the bus's device node, where the chip is claimed for the command
    ///   (``Probe/Claims``) or found claimed by another plumb process: such a chip is only read while
    ///   it is identified, streaming or not (it may be between its reset and its first stream);
    ///   `set` then writes it as asked, with a warning. `nil` for an emulated bus.
    static func target(bus: any I2CBus, address: I2CAddress?, part: String?, clock: any MonotonicClock,
                       simulation: SimulatedSensor?, context: CommandContext, claimNode: String? = nil) throws(CLIError) -> Target {
        let claims = Probe.Claims(node: claimNode)
        let (_, identity) = try SensorOptions.identify(
            bus: bus, address: address, part: part, clock: clock, leavingBusyChipsAlone: true,
            simulated: simulation?.model, faultsOption: false,
            leavingAlone: { claims.leaveAloneReason($0) })
        guard let map = IMUFamilies.registerMap(forPart: identity.partKey) else {
            throw .failure("no register map for \(identity.part)", fix: nil)
        }
        for w in identity.warnings { context.err.line("warning: \(w)") }
        // Claimed now if identifying it asked nothing (an LSM6DS, a part named): held for the command.
        _ = claims.isClaimedElsewhere(identity.address)
        return Target(editor: RegisterEditor(map: map, bus: bus, address: identity.address), identity: identity, simulation: simulation,
                      claims: claimNode == nil ? nil : claims)
    }

    /// The warning `plumb regs set` gives before it writes to a chip another plumb process claims
    /// (it writes as asked: poking a running chip's registers is how one debugs it), nil otherwise.
    static func claimedWriteWarning(_ target: Target) -> String? {
        guard target.claims?.isClaimedElsewhere(target.editor.address) == true else { return nil }
        return "another plumb process drives the chip at \(target.editor.address) on \(target.identity.bus): this write changes it under that process, which may not notice ('pgrep -a plumb' lists them)"
    }

    static func format(_ args: ParsedArguments) throws(CLIError) -> String {
        try args.choice("format", ["text", "json"]) ?? "text"
    }

    static func busFailure(_ error: I2CError) -> CLIError {
        .failure(error.description, fix: nil)
    }

    /// The CLI form of a refusal: malformed requests exit 64, refusals 1. A misspelt register
    /// name gets the nearest name of `map` ("Did you mean 'PWR_MGMT_1'?").
    static func cliError(_ error: RegisterEditError, map: RegisterMap) -> CLIError {
        if case .unknownRegister(let text, _) = error, RegisterEditor.number(text) == nil, let near = nearestRegister(text, in: map) {
            return .usage(error.description + " Did you mean '\(near)'?")
        }
        return error.isUsage ? .usage(error.description) : .failure(error.description, fix: error.fix)
    }

    /// The register name of `map` nearest to `text`: within two edits ignoring case, and ignoring
    /// underscores too ("pwrmgmt1" is PWR_MGMT_1), through the configuration's ``nearest(_:in:)``.
    static func nearestRegister(_ text: String, in map: RegisterMap) -> String? {
        let names = map.registers.map(\.name)
        if let near = nearest(text, in: names) { return near }
        func bare(_ s: String) -> String { s.filter { $0 != "_" } }
        let bareNames = names.map(bare)
        guard let near = nearest(bare(text), in: bareNames), let i = bareNames.firstIndex(of: near) else { return nil }
        return names[i]
    }
}

/// `plumb regs dump`: every register of the chip, decoded.
enum RegsDump {
    static let spec = CommandSpec(
        name: "dump", abstract: "Show every register with its datasheet name, value and decoded fields.",
        discussion: """
        Text: one line per address, such as 'ACCEL_CONFIG 0x1C = 0x10  AFS_SEL=±8 g' (fields shown when they
        have a meaning or are non-zero); '(unknown)' for an address the map does not describe. Registers whose
        read has a side effect (FIFO data, read-to-clear status) are not read: use 'plumb regs get' for them.
        JSON: {"part", "bus", "device", "registers": [one object per register with address, name, value, fields]}.
        """,
        options: Regs.commonOptions)

    static let command = Command(spec) { args, context in
        let format = try Regs.format(args)
        let target = try Regs.open(args, context: context)
        defer { withExtendedLifetime(target) {} }
        let readings: [RegisterEditor.Reading]
        do throws(I2CError) { readings = try target.editor.dump() } catch { throw Regs.busFailure(error) }
        let id = target.identity
        if format == "json" {
            context.out.line("{\"part\":\(jsonText(id.part)),\"bus\":\(jsonText(id.bus)),\"device\":\"\(id.address)\",\"registers\":[")
            for (i, r) in readings.enumerated() { context.out.line(r.json + (i == readings.count - 1 ? "" : ",")) }
            context.out.line("]}")
        } else {
            context.out.line("\(id.part) at \(id.address) on \(id.bus) (WHO_AM_I 0x\(registerHex(id.whoAmI)))")
            for r in readings { context.out.line(r.text) }
        }
    }
}

/// `plumb regs get REG`: one register, decoded.
enum RegsGet {
    static let spec = CommandSpec(
        name: "get", abstract: "Read one register by name or address and decode it.",
        discussion: "Reads the register even when reading has a side effect (INT_STATUS clears, FIFO data pops).",
        options: Regs.commonOptions,
        positionals: [PositionalSpec("REG", help: "A datasheet name (ACCEL_CONFIG) or an address (0x1C).")])

    static let command = Command(spec) { args, context in
        let format = try Regs.format(args)
        let target = try Regs.open(args, context: context)
        defer { withExtendedLifetime(target) {} }
        let register: UInt8
        do throws(RegisterEditError) { register = try target.editor.resolve(args.positionals[0]) } catch { throw Regs.cliError(error, map: target.editor.map) }
        let reading: RegisterEditor.Reading
        do throws(I2CError) { reading = try target.editor.read(register) } catch { throw Regs.busFailure(error) }
        context.out.line(format == "json" ? reading.json : reading.text)
    }
}

/// `plumb regs set REG VALUE…`: a checked read-modify-write.
enum RegsSet {
    static let spec = CommandSpec(
        name: "set", abstract: "Write one register: a whole value, or FIELD=VALUE pairs (read-modify-write).",
        discussion: """
        VALUE is a number (0x10, 16, 0b00010000) or one or more FIELD=VALUE pairs, where a field's value is a
        number or one of its meanings ('AFS_SEL=±8 g', 'AFS_SEL=8g'). Refuses read-only registers (exit 1) and
        values that do not fit (exit 64). Writing a reset bit, changing a power bit (SLEEP, standby, clock) or an
        interface bit (I2C_DISABLE, register-bank switches), or writing an address the map does not describe
        needs --force (exit 1 without it). Prints the value before and after, then reads the register back.
        """,
        options: Regs.commonOptions + [.flag("force", help: "Allow reset, power and interface bits and undescribed addresses.")],
        positionals: [PositionalSpec("REG", help: "A datasheet name (ACCEL_CONFIG) or an address (0x1C)."),
                      PositionalSpec("VALUE", help: "A number, or FIELD=VALUE pairs.", variadic: true)])

    static let command = Command(spec) { args, context in
        let format = try Regs.format(args)
        let target = try Regs.open(args, context: context)
        defer { withExtendedLifetime(target) {} }
        let editor = target.editor
        if let warning = Regs.claimedWriteWarning(target) { context.err.line("warning: " + warning) }
        let plan: RegisterEditor.WritePlan
        do throws(RegisterEditError) {
            let register = try editor.resolve(args.positionals[0])
            plan = try editor.plan(register, Array(args.positionals.dropFirst()), force: args.has("force")) { () throws(I2CError) -> UInt8 in
                try editor.bus.readRegister(register, address: editor.address)
            }
        } catch { throw Regs.cliError(error, map: target.editor.map) }
        let after: RegisterEditor.Reading
        do throws(I2CError) {
            try editor.write(plan)
            after = try editor.read(plan.address)
        } catch { throw Regs.busFailure(error) }
        if format == "json" {
            context.out.line(after.json)
        } else {
            let name = plan.name ?? "(unknown)"
            let before = plan.before.map { "0x" + registerHex($0) } ?? "(not read: \(plan.beforeUnread ?? "skipped"))"
            context.out.line("\(name) 0x\(registerHex(plan.address)): \(before) -> 0x\(registerHex(plan.value))")
            context.out.line(after.text)
        }
        if let readBack = after.value, readBack != plan.value, !plan.triggersReset {
            context.err.line("warning: read back 0x\(registerHex(readBack)) after writing 0x\(registerHex(plan.value)): the chip keeps some bits of its own")
        }
    }
}

/// A JSON string literal for the CLI's hand-written JSON.
func jsonText(_ s: String) -> String {
    var out = "\""
    for c in s.unicodeScalars {
        switch c {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        default: if c.value < 0x20 { out += " " } else { out.unicodeScalars.append(c) }
        }
    }
    return out + "\""
}
