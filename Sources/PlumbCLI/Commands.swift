/// Every `plumb` subcommand, in the order `plumb --help` lists them.
///
/// A command lives in its own file under Commands/ and adds one line here.
extension PlumbTool {
    public static let commands: [Command] = [
        Probe.command,
        Read.command,
        Calibrate.command,
        Regs.command,
        Fuse.command,
        Watch.command,
        Level.command,
        Kiosk.command,
        LED.command,
        DBus.command,
        Run.command,
        Boards.command,
        Config.command,
        Bench.command,
        Version.command,
    ]
}
