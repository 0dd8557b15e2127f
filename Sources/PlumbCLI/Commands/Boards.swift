import PlumbConfiguration

/// `plumb boards`: the boards Plumb knows and which one this machine is.
enum Boards {
    static let command = Command(CommandSpec(
        name: "boards",
        abstract: "List the supported boards and show which one this machine is.",
        discussion: "A board file names the I2C bus, the data-ready GPIO chip and line, the display and the LEDs.\nThe board is detected from the device-tree model (/proc/device-tree/model); --board overrides it.",
        options: [BoardSupport.boardOption, BoardSupport.boardsDirectoryOption,
                  .option("model", value: "TEXT", help: "Detect from this device-tree model string instead of this machine's.")])
    ) { args, context in
        let catalog = try BoardSupport.catalog(args, context: context)
        var environment = context
        if let model = args.string("model") { environment.environment["PLUMB_DEVICE_TREE_MODEL"] = model }
        let selection = try BoardSupport.select(args, catalog: catalog, context: environment)

        let rows: [[String]] = catalog.boards.map { b in
            [b.id + (b.id == selection.board.id ? " *" : ""), b.name, b.i2cBus,
             b.interrupt.map { "\($0)" } ?? "none (polls)",
             b.leds.isEmpty ? "-" : b.leds.joined(separator: ",")]
        }
        let header = ["ID", "NAME", "I2C", "DATA-READY", "LEDS"]
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in i == cells.count - 1 ? c : c + String(repeating: " ", count: widths[i] - c.count) }
                .joined(separator: "  ")
        }
        context.out.line(line(header))
        for row in rows { context.out.line(line(row)) }
        context.out.line()
        context.out.line("This machine: \(selection.explanation)")
        for note in selection.board.notes { context.out.line("  note: \(note)") }
    }
}
