import Testing
@testable import PlumbCLI

let readSpec = CommandSpec(
    name: "read", abstract: "Read samples.",
    options: [.option("rate", value: "HZ", help: "Output data rate."),
              .option("count", short: "n", value: "N", help: "Samples to read."),
              .option("format", value: "FORMAT", help: "csv or jsonl."),
              .option("fault", value: "SPEC", help: "A fault.", repeatable: true),
              .flag("simulate", help: "Use the emulator.")],
    positionals: [PositionalSpec("file", help: "A file.", optional: true)])

@Suite struct ParserTests {
    @Test func parsesOptionsFlagsAndPositionals() throws {
        let p = try parse(["--rate", "100", "-n", "5", "--simulate", "--format=csv", "out.csv"], spec: readSpec)
        #expect(try p.int("rate") == 100)
        #expect(try p.int("count") == 5)
        #expect(p.has("simulate"))
        #expect(p.string("format") == "csv")
        #expect(p.positionals == ["out.csv"])
    }

    @Test func repeatableOptionsCollect() throws {
        let p = try parse(["--fault", "a", "--fault", "b"], spec: readSpec)
        #expect(p.strings("fault") == ["a", "b"])
    }

    @Test func doubleDashEndsOptions() throws {
        let p = try parse(["--", "--rate"], spec: readSpec)
        #expect(p.positionals == ["--rate"])
    }

    @Test func negativeNumbersArePositionals() throws {
        let p = try parse(["-5"], spec: readSpec)
        #expect(p.positionals == ["-5"])
    }

    @Test func unknownOptionSuggestsTheNearestName() {
        #expect(throws: CLIError.usage("Unknown option '--rat'. Did you mean '--rate'?")) {
            try parse(["--rat", "5"], spec: readSpec)
        }
    }

    @Test func missingValueIsAUsageError() {
        #expect(throws: CLIError.usage("Missing value for '--rate <HZ>'.")) { try parse(["--rate"], spec: readSpec) }
    }

    @Test func repeatedSingleOptionIsAUsageError() {
        #expect(throws: CLIError.usage("The option '--rate' was given more than once.")) {
            try parse(["--rate", "1", "--rate", "2"], spec: readSpec)
        }
    }

    @Test func flagWithValueIsAUsageError() {
        #expect(throws: CLIError.usage("The flag '--simulate' does not take a value.")) { try parse(["--simulate=yes"], spec: readSpec) }
    }

    @Test func extraPositionalIsAUsageError() {
        #expect(throws: CLIError.usage("Unexpected argument 'b'.")) { try parse(["a", "b"], spec: readSpec) }
    }

    @Test func typedAccessorsNameTheOption() throws {
        let p = try parse(["--rate", "fast"], spec: readSpec)
        #expect(throws: CLIError.usage("The value 'fast' is invalid for '--rate': expected a whole number.")) { try p.int("rate") }
        let q = try parse(["--rate", "5000"], spec: readSpec)
        #expect(throws: CLIError.usage("The value '5000' is invalid for '--rate': expected 1...1000.")) { try q.int("rate", in: 1...1000) }
        let r = try parse(["--format", "xml"], spec: readSpec)
        #expect(throws: CLIError.usage("The value 'xml' is invalid for '--format': expected one of csv, jsonl.")) {
            try r.choice("format", ["csv", "jsonl"])
        }
    }

    @Test func usageLineListsEverything() {
        #expect(usageLine(readSpec, prefix: "plumb") ==
                "plumb read [--rate <HZ>] [--count <N>] [--format <FORMAT>] [--fault <SPEC>] [--simulate] [<file>]")
    }

    /// A required option (`plumb fuse --input`) shows without brackets and is refused when left
    /// out; every option used to show as optional.
    @Test func aRequiredOptionIsShownAndCheckedAsRequired() throws {
        let spec = CommandSpec(name: "fuse", abstract: "Fuse.",
                               options: [.option("input", short: "i", value: "FILE", help: "In.", required: true),
                                         .option("output", value: "FILE", help: "Out.")])
        #expect(usageLine(spec, prefix: "plumb") == "plumb fuse --input <FILE> [--output <FILE>]")
        #expect(throws: CLIError.usage("Missing '--input <FILE>'.")) { try parse(["--output", "x"], spec: spec) }
        #expect(try parse(["-i", "-"], spec: spec).string("input") == "-")
    }
}

@Suite struct ToolTests {
    func run(_ args: [String]) -> (status: Int32, out: String, err: String) { runPlumb(args) }

    @Test func versionFlag() {
        let r = run(["--version"])
        #expect(r.status == 0)
        #expect(r.out == "\(PlumbTool.version)\n")
    }

    @Test func unknownSubcommandExits64() {
        let r = run(["verison"])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("Error: Unknown subcommand 'verison'. Did you mean 'version'?\n"))
    }

    @Test func noArgumentsShowsHelpOnStderrAndExits64() {
        let r = run([])
        #expect(r.status == 64)
        #expect(r.err.hasPrefix("OVERVIEW: Keep a Linux board aware of which way is down."))
    }

    @Test func helpListsEverySubcommand() {
        let r = run(["--help"])
        #expect(r.status == 0)
        for command in PlumbTool.commands { #expect(r.out.contains("  \(command.spec.name)")) }
    }

    @Test func rootHelpSpellsTheCommandWithOneSpace() {
        let r = run(["--help"])
        #expect(r.out.contains("USAGE: plumb <subcommand>\n"))
        #expect(r.out.contains("See 'plumb <subcommand> --help'"))
        #expect(!r.out.contains("plumb  "))
        let bench = run(["bench", "--help"])
        #expect(bench.out.contains("USAGE: plumb bench <subcommand>\n"))
    }

    @Test func everySubcommandHasHelp() {
        func visit(_ command: Command, _ path: [String]) {
            let r = run(path + [command.spec.name, "--help"])
            #expect(r.status == 0, "\(path + [command.spec.name]) --help")
            #expect(r.out.hasPrefix("OVERVIEW: \(command.spec.abstract)"))
            for sub in command.subcommands { visit(sub, path + [command.spec.name]) }
        }
        for command in PlumbTool.commands { visit(command, []) }
    }

    @Test func versionSubcommandHelpIsExact() {
        let r = run(["version", "--help"])
        #expect(r.out == """
            OVERVIEW: Show the version of plumb.

            USAGE: plumb version

            OPTIONS:
              -h, --help              Show help information.

            """)
        #expect(r.err == "")
    }
}
