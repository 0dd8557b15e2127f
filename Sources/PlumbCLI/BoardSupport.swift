import Foundation
import PlumbConfiguration
import PlumbLinux

/// Finding the boards directory and choosing a board, shared by every command that touches hardware.
enum BoardSupport {
    /// `--board ID`, for commands that open the IMU.
    static let boardOption = OptionSpec.option("board", value: "ID", help: "Use this board's bus and pins instead of detecting them (see 'plumb boards').")
    /// `--boards-dir DIR`.
    static let boardsDirectoryOption = OptionSpec.option("boards-dir", value: "DIR", help: "Read board files from DIR (default: $PLUMB_BOARDS_DIR, then the installed share/plumb/boards).")

    /// The directories tried, in order: `--boards-dir`, `$PLUMB_BOARDS_DIR`, `<prefix>/share/plumb/boards`
    /// next to the executable, then `boards/` in the source tree the executable was built in.
    static func candidateDirectories(_ args: ParsedArguments, context: CommandContext) -> [String] {
        if let dir = args.string("boards-dir") { return [dir] }
        var dirs: [String] = []
        if let env = context.environment["PLUMB_BOARDS_DIR"], !env.isEmpty { dirs.append(env) }
        let executable = URL(fileURLWithPath: Bundle.main.executablePath ?? CommandLine.arguments[0]).resolvingSymlinksInPath()
        let binDirectory = executable.deletingLastPathComponent()
        dirs.append(binDirectory.deletingLastPathComponent().appendingPathComponent("share/plumb/boards").path)
        var dir = binDirectory
        for _ in 0..<6 {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
                dirs.append(dir.appendingPathComponent("boards").path)
                break
            }
            dir = dir.deletingLastPathComponent()
        }
        return dirs
    }

    /// Loads the first boards directory that exists.
    static func catalog(_ args: ParsedArguments, context: CommandContext) throws(CLIError) -> BoardCatalog {
        let candidates = candidateDirectories(args, context: context)
        guard let directory = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw .failure("No boards directory found (looked in \(candidates.joined(separator: ", "))).",
                           fix: "Install plumb with scripts/install, or pass --boards-dir DIR or set PLUMB_BOARDS_DIR.")
        }
        do throws(ConfigurationError) { return try BoardCatalog.load(directory: directory) } catch {
            if error.file == directory {
                // The folder itself (no board file in it): there is no board file to correct.
                throw .failure(error.description, fix: "Point --boards-dir or PLUMB_BOARDS_DIR at a folder of board files, such as the boards/ folder of the plumb source, or leave both unset for the installed ones.")
            }
            throw .failure(error.description, fix: "Correct or remove the board file; 'plumb boards --help' describes the fields.")
        }
    }

    /// The device-tree model of this machine, or `nil` (x86, most VMs). `$PLUMB_DEVICE_TREE_MODEL` stands in for it in tests.
    static func machineModel(context: CommandContext) throws(CLIError) -> String? {
        if let model = context.environment["PLUMB_DEVICE_TREE_MODEL"] { return model.isEmpty ? nil : model }
        do throws(DeviceTreeError) { return try DeviceTreeModel.read() } catch {
            throw .failure(error.description, fix: "Pass --board ID to choose the board yourself.")
        }
    }

    /// The board for this run: `override` (or `--board`), else detected, else generic.
    static func select(_ args: ParsedArguments, override: String? = nil, catalog: BoardCatalog, context: CommandContext) throws(CLIError) -> BoardSelection {
        let wanted = args.string("board") ?? override
        let model = try machineModel(context: context)
        do throws(BoardSelectionError) { return try catalog.resolve(override: wanted, model: model) } catch {
            throw .failure(error.description.prefix(1).uppercased() + error.description.dropFirst() + ".",
                           fix: "Run 'plumb boards' to list them, or add a board file.")
        }
    }
}
