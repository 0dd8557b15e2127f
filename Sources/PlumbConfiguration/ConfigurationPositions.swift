/// Where each value of a configuration file was written, by key path (`imu.rate`,
/// `orientation.interfaceOrientations[1]`), so that a check made after the file is decoded names
/// the line and column as the decoder's own errors do.
///
/// Such a check needs what this module does not know: `plumb config check` asks the driver of the
/// part `imu.part` names whether it runs `imu.rate` (the MPU-6050 family's FIFO stops at 1000 Hz,
/// the file allows 1666), and said so with the file's name alone.
public struct ConfigurationPositions: Sendable, Equatable {
    /// The file, as the caller named it.
    public let file: String
    private let values: [String: JSONPosition]

    /// The positions of every value under `root`, which was read from `file`.
    init(file: String, root: JSONNode) {
        var values: [String: JSONPosition] = [:]
        func walk(_ node: JSONNode, _ path: String) {
            values[path] = node.position
            switch node.value {
            case .object(let members):
                // The first of a key given twice, as the decoder refuses the second.
                for member in members where values[ObjectReader.join(path, member.key)] == nil {
                    walk(member.value, ObjectReader.join(path, member.key))
                }
            case .array(let elements):
                for (i, element) in elements.enumerated() { walk(element, "\(path)[\(i)]") }
            default:
                break
            }
        }
        walk(root, "")
        self.file = file
        self.values = values
    }

    /// Where the value at `keyPath` starts; for a key the file leaves out, where the nearest
    /// object around it that the file writes starts; `nil` only for a path outside the document.
    public func position(of keyPath: String) -> JSONPosition? {
        var path = Substring(keyPath)
        while true {
            if let position = values[String(path)] { return position }
            guard !path.isEmpty else { return nil }
            path = path[..<(path.lastIndex(where: { $0 == "." || $0 == "[" }) ?? path.startIndex)]
        }
    }

    /// The error `message` about the value at `keyPath`, at its line and column.
    public func error(_ keyPath: String, _ message: String) -> ConfigurationError {
        ConfigurationError(file: file, position: position(of: keyPath), keyPath: keyPath, message: message)
    }
}

extension Configuration {
    /// ``decode(_:file:knownBoards:)``, with where each value was written.
    public static func decodeWithPositions(_ text: String, file: String, knownBoards: [String]? = nil)
        throws(ConfigurationError) -> (configuration: Configuration, positions: ConfigurationPositions) {
        let root = try parseJSON(text, file: file)
        return (try decode(root, file: file, knownBoards: knownBoards), ConfigurationPositions(file: file, root: root))
    }

    /// ``load(path:knownBoards:)``, with where each value was written.
    public static func loadWithPositions(path: String, knownBoards: [String]? = nil)
        throws(ConfigurationError) -> (configuration: Configuration, positions: ConfigurationPositions) {
        try decodeWithPositions(try readConfigurationText(path), file: path, knownBoards: knownBoards)
    }
}
