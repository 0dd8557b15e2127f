@testable import PlumbCLI

/// Runs `plumb` in-process with `arguments` (as after the program name) and captured output; the
/// environment is only `environment`.
func runPlumb(_ arguments: [String], environment: [String: String] = [:]) -> (status: Int32, out: String, err: String) {
    let context = CommandContext.capturing(environment: environment)
    let status = PlumbTool.main(arguments, context: context)
    return (status, context.out.captured, context.err.captured)
}
