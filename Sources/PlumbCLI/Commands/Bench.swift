/// `plumb bench`: speed and bus-use measurements, each against a reference run in the same process.
enum Bench {
    static let command = Command(
        group: CommandSpec(name: "bench", abstract: "Measure speed against a reference in the same run (use a release build)."),
        subcommands: [
            BenchDrivers.command,
            BenchRender.command,
            BenchFusion.command,
            BenchEnergy.command,
        ])
}
