/// `plumb version`: the tool's version and the libraries it was built against.
enum Version {
    static let command = Command(CommandSpec(name: "version", abstract: "Show the version of plumb.")) { _, context in
        context.out.line("plumb \(PlumbTool.version)")
    }
}
