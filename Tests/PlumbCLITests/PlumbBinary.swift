import Foundation

/// The built `plumb` next to this test bundle (scripts/test builds everything before testing), for
/// the tests that run it as a process of its own (signals, pipes, exit statuses).
let plumbBinary: String = {
    let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var dir = runner.deletingLastPathComponent()
    if dir.lastPathComponent == "MacOS" || dir.lastPathComponent == "Contents" { dir = dir.deletingLastPathComponent() }
    return dir.appendingPathComponent("plumb").path
}()
