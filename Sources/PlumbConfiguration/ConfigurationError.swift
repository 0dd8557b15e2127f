/// A configuration or board file that cannot be used: where, which key, what is wrong, what is allowed.
///
/// The description is one line in the compiler's format, so editors can jump to it:
/// `/etc/plumb/plumb.json:7:13: imu.rate: 5000 is out of range; allowed 1...1666 (Hz)`.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file, or "<string>" when the text did not come from a file.
    public var file: String
    /// Where the offending value (or key) starts; `nil` when the file could not be read at all.
    public var position: JSONPosition?
    /// The key path ("imu.rate", "outputs.leds.map.portrait"), or "" for the document itself.
    public var keyPath: String
    /// What is wrong and what is allowed.
    public var message: String

    public init(file: String, position: JSONPosition?, keyPath: String, message: String) {
        self.file = file; self.position = position; self.keyPath = keyPath; self.message = message
    }

    public var description: String {
        var text = file
        if let position { text += ":\(position.line):\(position.column)" }
        text += ": "
        if !keyPath.isEmpty { text += keyPath + ": " }
        return text + message
    }
}

/// Reads one JSON object member by member, tracking the key path and refusing unknown and
/// duplicate keys (a misspelt key is the commonest mistake in a hand-written file).
struct ObjectReader {
    let file: String
    let path: String
    let node: JSONNode
    private var members: [String: JSONNode.Member] = [:]

    init(_ node: JSONNode, path: String, file: String, allowed: [String]) throws(ConfigurationError) {
        self.file = file
        self.path = path
        self.node = node
        guard case .object(let list) = node.value else {
            throw ConfigurationError(file: file, position: node.position, keyPath: path,
                                     message: "expected an object, found \(node.kindDescription)")
        }
        for member in list {
            let memberPath = Self.join(path, member.key)
            if let first = members[member.key] {
                throw ConfigurationError(file: file, position: member.keyPosition, keyPath: memberPath,
                                         message: "duplicate key (first given at line \(first.keyPosition.line))")
            }
            guard allowed.contains(member.key) else {
                var message = "unknown key; allowed keys: \(allowed.joined(separator: ", "))"
                if let near = nearest(member.key, in: allowed) { message += ". Did you mean '\(near)'?" }
                throw ConfigurationError(file: file, position: member.keyPosition, keyPath: memberPath, message: message)
            }
            members[member.key] = member
        }
    }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func childPath(_ key: String) -> String { Self.join(path, key) }

    /// The member's value, or `nil` when the key is absent or null.
    func node(_ key: String) -> JSONNode? {
        guard let member = members[key] else { return nil }
        if case .null = member.value.value { return nil }
        return member.value
    }

    var keys: [String] { Array(members.keys) }

    func error(_ key: String, _ message: String) -> ConfigurationError {
        let position = members[key]?.value.position ?? node.position
        return ConfigurationError(file: file, position: position, keyPath: childPath(key), message: message)
    }

    func error(at node: JSONNode, path: String, _ message: String) -> ConfigurationError {
        ConfigurationError(file: file, position: node.position, keyPath: path, message: message)
    }

    // MARK: Typed members

    func string(_ key: String) throws(ConfigurationError) -> String? {
        guard let value = node(key) else { return nil }
        guard case .string(let text) = value.value else {
            throw error(key, "expected a string, found \(value.kindDescription)")
        }
        return text
    }

    /// A non-empty string.
    func nonEmptyString(_ key: String) throws(ConfigurationError) -> String? {
        guard let text = try string(key) else { return nil }
        guard !text.isEmpty else { throw error(key, "must not be empty") }
        return text
    }

    /// An absolute path.
    func path(_ key: String) throws(ConfigurationError) -> String? {
        guard let text = try nonEmptyString(key) else { return nil }
        guard text.hasPrefix("/") else { throw error(key, "\"\(text)\" is not an absolute path; write it starting with /") }
        return text
    }

    func bool(_ key: String) throws(ConfigurationError) -> Bool? {
        guard let value = node(key) else { return nil }
        guard case .bool(let flag) = value.value else {
            throw error(key, "expected true or false, found \(value.kindDescription)")
        }
        return flag
    }

    func number(_ key: String, in range: ClosedRange<Double>, unit: String) throws(ConfigurationError) -> Double? {
        guard let value = node(key) else { return nil }
        guard case .number(let number, let text) = value.value else {
            throw error(key, "expected a number (\(unit)), found \(value.kindDescription)")
        }
        guard range.contains(number) else {
            throw error(key, "\(text) is out of range; allowed \(format(range.lowerBound))...\(format(range.upperBound)) (\(unit))")
        }
        return number
    }

    /// A number that must be one of `allowed`.
    func number(_ key: String, oneOf allowed: [Double], unit: String) throws(ConfigurationError) -> Double? {
        guard let value = node(key) else { return nil }
        guard case .number(let number, let text) = value.value else {
            throw error(key, "expected a number (\(unit)), found \(value.kindDescription)")
        }
        guard allowed.contains(number) else {
            throw error(key, "\(text) is not allowed; allowed values: \(allowed.map(format).joined(separator: ", ")) (\(unit))")
        }
        return number
    }

    func choice(_ key: String, _ allowed: [String]) throws(ConfigurationError) -> String? {
        guard let value = node(key) else { return nil }
        guard case .string(let text) = value.value else {
            throw error(key, "expected a string, one of: \(allowed.joined(separator: ", ")); found \(value.kindDescription)")
        }
        guard allowed.contains(text) else {
            var message = "\"\(text)\" is not one of: \(allowed.joined(separator: ", "))"
            if let near = nearest(text, in: allowed) { message += ". Did you mean '\(near)'?" }
            throw error(key, message)
        }
        return text
    }

    func object(_ key: String, allowed: [String]) throws(ConfigurationError) -> ObjectReader? {
        guard let value = node(key) else { return nil }
        return try ObjectReader(value, path: childPath(key), file: file, allowed: allowed)
    }
}

/// "100", "0.5", "1e-06" as written by a person.
func format(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}

/// The allowed word closest to `word` within two edits (ignoring case), for "Did you mean" hints;
/// the configuration's key errors and the command line's unknown options both use it.
public func nearest(_ word: String, in allowed: [String]) -> String? {
    let scored = allowed.map { ($0, editDistance($0.lowercased(), word.lowercased())) }.filter { $0.1 <= 2 }
    return scored.min { $0.1 < $1.1 }?.0
}

/// The Levenshtein distance between two strings: insertions, deletions and substitutions.
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}
