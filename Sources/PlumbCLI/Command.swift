import PlumbConfiguration

/// A `plumb` subcommand: its shape on the command line and what it does.
public struct Command: Sendable {
    public var spec: CommandSpec
    /// Nested subcommands (`plumb bench fusion`); a group with subcommands has no `run` of its own.
    public var subcommands: [Command]
    public var run: (@Sendable (ParsedArguments, CommandContext) throws -> Void)?

    public init(_ spec: CommandSpec, run: @escaping @Sendable (ParsedArguments, CommandContext) throws -> Void) {
        self.spec = spec; self.subcommands = []; self.run = run
    }

    public init(group spec: CommandSpec, subcommands: [Command]) {
        self.spec = spec; self.subcommands = subcommands; self.run = nil
    }
}

/// Exit statuses (sysexits.h for usage).
public enum ExitCode {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 64
}

/// The `plumb` tool: dispatches to a subcommand and turns errors into one-line messages.
public enum PlumbTool {
    public static let version = "0.1.0"

    public static let spec = CommandSpec(
        name: "",
        abstract: "Keep a Linux board aware of which way is down.",
        discussion: "Reads an MPU-6050 or LSM6DS IMU over /dev/i2c-N, fuses it into gravity and orientation, and drives\na framebuffer, a kiosk screen or LEDs. Every command that reads a sensor takes --simulate.",
        options: [.flag("version", help: "Show the version.")])

    /// Runs `plumb` with `arguments` (without the program name) and returns the exit status.
    public static func main(_ arguments: [String], context: CommandContext) -> Int32 {
        let status = dispatch(arguments, group: Command(group: spec, subcommands: commands), prefix: "plumb", context: context)
        context.out.flush()
        context.err.flush()
        return status
    }

    static func dispatch(_ arguments: [String], group: Command, prefix: String, context: CommandContext) -> Int32 {
        let here = group.spec.name.isEmpty ? prefix : "\(prefix) \(group.spec.name)"
        guard let first = arguments.first else {
            if group.spec.name.isEmpty || group.run == nil {
                context.err.write(helpText(group.spec, prefix: prefix, subcommands: group.subcommands.map(\.spec)))
                return ExitCode.usage
            }
            return runLeaf(group, [], prefix: prefix, context: context)
        }
        if first == "-h" || first == "--help" || first == "help" {
            if first == "help", arguments.count > 1 {
                return dispatch(Array(arguments.dropFirst()) + ["--help"], group: group, prefix: prefix, context: context)
            }
            context.out.write(helpText(group.spec, prefix: prefix, subcommands: group.subcommands.map(\.spec)))
            return ExitCode.success
        }
        if group.spec.name.isEmpty, first == "--version" {
            context.out.line(version)
            return ExitCode.success
        }
        guard let sub = group.subcommands.first(where: { $0.spec.name == first }) else {
            let names = group.subcommands.map(\.spec.name)
            var message = "Error: Unknown subcommand '\(first)'."
            if let best = nearest(first, in: names) { message += " Did you mean '\(best)'?" }
            context.err.line(message)
            context.err.line("Usage: \(here) <subcommand>  (one of: \(names.joined(separator: ", ")))")
            context.err.line("  See '\(here) --help' for more information.")
            return ExitCode.usage
        }
        let rest = Array(arguments.dropFirst())
        if !sub.subcommands.isEmpty { return dispatch(rest, group: sub, prefix: here, context: context) }
        return runLeaf(sub, rest, prefix: here, context: context)
    }

    static func runLeaf(_ command: Command, _ arguments: [String], prefix: String, context: CommandContext) -> Int32 {
        if arguments.contains("-h") || arguments.contains("--help") {
            context.out.write(helpText(command.spec, prefix: prefix))
            return ExitCode.success
        }
        do {
            let parsed = try parse(arguments, spec: command.spec)
            try command.run?(parsed, context)
            return ExitCode.success
        } catch let error as CLIError {
            return report(error, command: command, prefix: prefix, context: context)
        } catch let error as OutputWriteError {
            // A command that put back what it took (`plumb led`: the LEDs off) before it ended
            // says so; the process ends as any other write failure ends it (SIGPIPE for EPIPE).
            error.endProcess(command: "\(prefix) \(command.spec.name)", err: context.err)
        } catch {
            context.err.line("Error: \(error)")
            return ExitCode.failure
        }
    }

    static func report(_ error: CLIError, command: Command, prefix: String, context: CommandContext) -> Int32 {
        switch error {
        case .usage(let message):
            context.err.line("Error: \(message)")
            context.err.line("Usage: \(usageLine(command.spec, prefix: prefix))")
            context.err.line("  See '\(prefix) \(command.spec.name) --help' for more information.")
            return ExitCode.usage
        case .failure(let message, let fix):
            context.err.line("Error: \(message)")
            if let fix { context.err.line("Fix: \(fix)") }
            return ExitCode.failure
        }
    }
}
