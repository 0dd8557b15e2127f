import PlumbConfiguration

/// Plumb's own command-line parser: small, following swift-argument-parser's conventions
/// (`--name value` and `--name=value`, `-h`/`--help`, `--` ends options, kebab-case names,
/// "Error: …" then usage on bad input, exit 64).

/// One option or flag a command accepts.
public struct OptionSpec: Sendable {
    /// Long name without dashes ("rate").
    public var name: String
    /// A single-letter short name, if any.
    public var short: Character?
    /// The value's placeholder ("HZ"), or `nil` for a flag that takes no value.
    public var valueName: String?
    public var help: String
    /// May be given more than once.
    public var repeatable: Bool
    /// Must be given (`plumb fuse --input`): the usage line shows it without brackets, and
    /// ``parse(_:spec:)`` refuses arguments without it.
    public var required: Bool = false

    public static func option(_ name: String, short: Character? = nil, value: String, help: String, repeatable: Bool = false,
                              required: Bool = false) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: value, help: help, repeatable: repeatable, required: required)
    }
    public static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, help: help, repeatable: false)
    }
}

/// A positional argument.
public struct PositionalSpec: Sendable {
    public var name: String
    public var help: String
    public var optional: Bool
    /// Takes every remaining argument.
    public var variadic: Bool

    public init(_ name: String, help: String, optional: Bool = false, variadic: Bool = false) {
        self.name = name; self.help = help; self.optional = optional; self.variadic = variadic
    }
}

/// What a command looks like on the command line.
public struct CommandSpec: Sendable {
    public var name: String
    public var abstract: String
    public var discussion: String?
    public var options: [OptionSpec]
    public var positionals: [PositionalSpec]

    public init(name: String, abstract: String, discussion: String? = nil,
                options: [OptionSpec] = [], positionals: [PositionalSpec] = []) {
        self.name = name; self.abstract = abstract; self.discussion = discussion
        self.options = options; self.positionals = positionals
    }
}

/// The result of parsing: typed accessors throw usage errors that name the option.
public struct ParsedArguments: Sendable {
    public internal(set) var values: [String: [String]] = [:]
    public internal(set) var flags: Set<String> = []
    public internal(set) var positionals: [String] = []
    /// The options whose value came from a configuration file, not the command line (option name →
    /// the file's path), so that an error can name the file's key instead of the flag.
    var fromConfiguration: [String: String] = [:]
    /// Where each value of that file was written, for the line and column of a value the chip
    /// refuses (`plumb read --config`'s imu.rate); `nil` without a file.
    var configurationPositions: ConfigurationPositions?

    public func has(_ flag: String) -> Bool { flags.contains(flag) }

    public func string(_ name: String) -> String? { values[name]?.last }

    public func strings(_ name: String) -> [String] { values[name] ?? [] }

    public func int(_ name: String, in range: ClosedRange<Int>? = nil) throws(CLIError) -> Int? {
        guard let text = string(name) else { return nil }
        let parsed: Int? = text.lowercased().hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : Int(text)
        guard let value = parsed else {
            throw .usage("The value '\(text)' is invalid for '--\(name)': expected a whole number.")
        }
        if let range, !range.contains(value) {
            throw .usage("The value '\(text)' is invalid for '--\(name)': expected \(range.lowerBound)...\(range.upperBound).")
        }
        return value
    }

    public func double(_ name: String, in range: ClosedRange<Double>? = nil) throws(CLIError) -> Double? {
        guard let text = string(name) else { return nil }
        guard let value = Double(text), !value.isNaN else {
            throw .usage("The value '\(text)' is invalid for '--\(name)': expected a number.")
        }
        // 'inf' is out of any range the options have: said as the range ("expected a number" for
        // --rate inf or --speed inf left the range unsaid).
        if let range, !range.contains(value) || !value.isFinite {
            throw .usage("The value '\(text)' is invalid for '--\(name)': expected \(range.lowerBound)...\(range.upperBound).")
        }
        guard value.isFinite else { throw .usage("The value '\(text)' is invalid for '--\(name)': expected a finite number.") }
        return value
    }

    /// The value of `name`, a number that must be one of `allowed` (in `unit`).
    public func double(_ name: String, oneOf allowed: [Double], unit: String) throws(CLIError) -> Double? {
        guard let value = try double(name) else { return nil }
        guard allowed.contains(value) else {
            let list = allowed.map { $0 == $0.rounded() ? String(Int($0)) : String($0) }.joined(separator: ", ")
            throw .usage("The value '\(string(name) ?? "")' is invalid for '--\(name)': expected one of \(list) (\(unit)).")
        }
        return value
    }

    /// The value of `name`, which must be one of `choices`.
    public func choice(_ name: String, _ choices: [String]) throws(CLIError) -> String? {
        guard let text = string(name) else { return nil }
        guard choices.contains(text) else {
            throw .usage("The value '\(text)' is invalid for '--\(name)': expected one of \(choices.joined(separator: ", ")).")
        }
        return text
    }
}

/// A command-line failure: `.usage` exits 64 with the usage line, `.failure` exits 1.
public enum CLIError: Error, Sendable, Equatable {
    /// Bad arguments. The message is one line.
    case usage(String)
    /// The command could not do its job: the message (one line) and how to fix it.
    case failure(String, fix: String?)

    public static func failure(_ message: String) -> CLIError { .failure(message, fix: nil) }
}

/// Parses `arguments` (without the command's own name) against `spec`.
///
/// `-h`/`--help` is handled by the caller before parsing; here it is an ordinary unknown option.
public func parse(_ arguments: [String], spec: CommandSpec) throws(CLIError) -> ParsedArguments {
    var result = ParsedArguments()
    var index = 0
    var onlyPositionals = false
    func lookup(long: String) -> OptionSpec? { spec.options.first { $0.name == long } }
    func lookup(short: Character) -> OptionSpec? { spec.options.first { $0.short == short } }

    while index < arguments.count {
        let argument = arguments[index]
        index += 1
        if onlyPositionals || argument == "-" || !argument.hasPrefix("-") || isNegativeNumber(argument) {
            result.positionals.append(argument)
            continue
        }
        if argument == "--" { onlyPositionals = true; continue }

        var name: String
        var inlineValue: String?
        let option: OptionSpec
        if argument.hasPrefix("--") {
            name = String(argument.dropFirst(2))
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let found = lookup(long: name) else {
                throw .usage("Unknown option '--\(name)'.\(suggestion(for: name, in: spec))")
            }
            option = found
        } else {
            let letters = Array(argument.dropFirst())
            guard letters.count == 1, let found = lookup(short: letters[0]) else {
                throw .usage("Unknown option '\(argument)'.")
            }
            option = found
            name = found.name
        }

        if option.valueName == nil {
            if inlineValue != nil { throw .usage("The flag '--\(name)' does not take a value.") }
            result.flags.insert(option.name)
            continue
        }
        let value: String
        if let inlineValue {
            value = inlineValue
        } else {
            guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                throw .usage("Missing value for '--\(option.name) <\(option.valueName!)>'.")
            }
            value = arguments[index]
            index += 1
        }
        if !option.repeatable, result.values[option.name] != nil {
            throw .usage("The option '--\(option.name)' was given more than once.")
        }
        result.values[option.name, default: []].append(value)
    }

    for option in spec.options where option.required && result.values[option.name] == nil {
        throw .usage("Missing '--\(option.name) <\(option.valueName ?? "")>'.")
    }
    let required = spec.positionals.filter { !$0.optional }.count
    let variadic = spec.positionals.contains { $0.variadic }
    if result.positionals.count < required {
        let missing = spec.positionals[result.positionals.count]
        throw .usage("Missing expected argument '<\(missing.name)>'.")
    }
    if !variadic, result.positionals.count > spec.positionals.count {
        throw .usage("Unexpected argument '\(result.positionals[spec.positionals.count])'.")
    }
    return result
}

private func isNegativeNumber(_ s: String) -> Bool {
    s.count > 1 && s.hasPrefix("-") && Double(s) != nil
}

private func suggestion(for name: String, in spec: CommandSpec) -> String {
    guard let best = nearest(name, in: spec.options.map(\.name)) else { return "" }
    return " Did you mean '--\(best)'?"
}

/// The usage line: "plumb read [--rate <HZ>] [--count <N>] <file>".
public func usageLine(_ spec: CommandSpec, prefix: String) -> String {
    var parts = [commandPath(prefix, spec.name)]
    for o in spec.options {
        let core = o.valueName.map { "--\(o.name) <\($0)>" } ?? "--\(o.name)"
        parts.append(o.required ? core : "[\(core)]")
    }
    for p in spec.positionals {
        let core = "<\(p.name)>" + (p.variadic ? " ..." : "")
        parts.append(p.optional ? "[\(core)]" : core)
    }
    return parts.joined(separator: " ")
}

/// `prefix` and `name` joined by one space, leaving out an empty part (the root command has no name).
func commandPath(_ prefix: String, _ name: String) -> String {
    [prefix, name].filter { !$0.isEmpty }.joined(separator: " ")
}

/// The full `--help` text.
public func helpText(_ spec: CommandSpec, prefix: String, subcommands: [CommandSpec] = []) -> String {
    var lines: [String] = ["OVERVIEW: \(spec.abstract)"]
    if let discussion = spec.discussion { lines += ["", discussion] }
    lines += ["", "USAGE: " + (subcommands.isEmpty ? usageLine(spec, prefix: prefix) : commandPath(prefix, spec.name) + " <subcommand>")]
    if !spec.positionals.isEmpty {
        lines += ["", "ARGUMENTS:"]
        for p in spec.positionals { lines.append(row("<\(p.name)>", p.help)) }
    }
    lines += ["", "OPTIONS:"]
    for o in spec.options {
        var left = o.short.map { "-\($0), " } ?? ""
        left += "--\(o.name)"
        if let v = o.valueName { left += " <\(v)>" }
        lines.append(row(left, o.help))
    }
    lines.append(row("-h, --help", "Show help information."))
    if !subcommands.isEmpty {
        lines += ["", "SUBCOMMANDS:"]
        for s in subcommands { lines.append(row(s.name, s.abstract)) }
        lines += ["", "  See '\(commandPath(prefix, spec.name)) <subcommand> --help' for detailed help."]
    }
    return lines.joined(separator: "\n") + "\n"
}

private func row(_ left: String, _ right: String) -> String {
    let pad = 26
    let l = "  " + left
    if l.count >= pad { return l + "\n" + String(repeating: " ", count: pad) + right }
    return l + String(repeating: " ", count: pad - l.count) + right
}

extension String {
    func trimmingCharacters() -> String {
        var s = Substring(self)
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
