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

// Table formatting shared by the bench commands.

/// `s` padded with spaces to `n` columns, or followed by one space when it is already as wide.
func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
/// `s` right-aligned in `n` columns, or after one space when it is already as wide.
func padLeft(_ s: String, _ n: Int) -> String { s.count >= n ? " " + s : String(repeating: " ", count: n - s.count) + s }
/// `v` rounded to `places` decimals and written with exactly that many (no Foundation formatting).
func fixed(_ v: Double, _ places: Int) -> String {
    var p = 1.0
    for _ in 0..<places { p *= 10 }
    let r = (v * p).rounded() / p
    var s = String(r)
    if let dot = s.firstIndex(of: ".") {
        let decimals = s.distance(from: dot, to: s.endIndex) - 1
        if decimals < places { s += String(repeating: "0", count: places - decimals) }
    } else if places > 0 { s += "." + String(repeating: "0", count: places) }
    return s
}
