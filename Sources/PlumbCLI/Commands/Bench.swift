/// `plumb bench`: measurements in a release build, each against a reference in the same run.
enum Bench {
    static let command = Command(group: CommandSpec(name: "bench", abstract: "Measure Plumb's speed and bus use (build with -c release)."),
                                 subcommands: [
                                     BenchDrivers.command,
                                 ])
}
