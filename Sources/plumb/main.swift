import Foundation
import PlumbCLI

let context = CommandContext(
    out: .standardOutput(),
    err: .standardError(),
    environment: ProcessInfo.processInfo.environment,
    outputIsTerminal: isatty(1) != 0)
exit(PlumbTool.main(Array(CommandLine.arguments.dropFirst()), context: context))
