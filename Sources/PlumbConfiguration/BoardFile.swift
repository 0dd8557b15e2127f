import Foundation
import PlumbHAL

extension Board {
    static let keys = ["id", "name", "models", "i2c", "interrupt", "display", "leds", "imu", "notes"]

    /// Decodes one board file (see boards/README.md for the fields).
    public static func decode(_ text: String, file: String) throws(ConfigurationError) -> Board {
        try decode(try parseJSON(text, file: file), file: file)
    }

    /// Decodes a board file's JSON tree.
    static func decode(_ root: JSONNode, file: String) throws(ConfigurationError) -> Board {
        let r = try ObjectReader(root, path: "", file: file, allowed: keys)
        guard let id = try r.nonEmptyString("id") else { throw r.error("id", "missing; every board file needs an \"id\"") }
        guard id.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "-" }) else {
            throw r.error("id", "\"\(id)\" may hold only lowercase letters, digits and '-'")
        }
        guard let name = try r.nonEmptyString("name") else { throw r.error("name", "missing; every board file needs a \"name\"") }
        let models = try stringArray(r, "models") ?? []
        guard let i2c = try r.object("i2c", allowed: ["bus"]), let bus = try i2c.path("bus") else {
            throw r.error("i2c", "missing; give {\"bus\": \"/dev/i2c-1\"}")
        }
        var interrupt: InterruptLocation?
        if let irq = try r.object("interrupt", allowed: ["chip", "line"]) {
            interrupt = try decodeInterrupt(irq)
        }
        var display: DisplayLocation?
        if let d = try r.object("display", allowed: ["framebuffer", "connector"]) {
            guard let fb = try d.path("framebuffer") else { throw d.error("framebuffer", "missing") }
            guard let connector = try d.nonEmptyString("connector") else { throw d.error("connector", "missing") }
            display = DisplayLocation(framebuffer: fb, connector: connector)
        }
        let leds = try stringArray(r, "leds") ?? []
        var address = I2CAddress(UInt8(0x68))
        if let imu = try r.object("imu", allowed: ["address"]) {
            address = try decodeAddress(imu, "address") ?? address
        }
        let notes = try stringArray(r, "notes") ?? []
        return Board(id: id, name: name, models: models, i2cBus: bus, interrupt: interrupt, display: display,
                     leds: leds, imuAddress: address, notes: notes)
    }

    static func decodeInterrupt(_ r: ObjectReader) throws(ConfigurationError) -> InterruptLocation {
        guard let chip = try r.nonEmptyString("chip") else {
            throw r.error("chip", "missing; give a chip label (\"pinctrl-rp1\") or a path (\"/dev/gpiochip0\")")
        }
        guard let lineNode = r.node("line") else { throw r.error("line", "missing; give a line name (\"GPIO17\") or an offset (17)") }
        let line: GPIOLineReference
        switch lineNode.value {
        case .string(let name) where !name.isEmpty: line = .name(name)
        case .number(let n, let text) where n == n.rounded() && n >= 0 && n < 1024: line = .offset(Int(n)); _ = text
        default:
            throw r.error("line", "expected a line name (\"GPIO17\") or an offset 0...1023, found \(lineNode.kindDescription)")
        }
        return InterruptLocation(chip: GPIOChipSelector(chip), line: line)
    }
}

/// An I2C address written as a string ("0x68") or a number (104).
func decodeAddress(_ r: ObjectReader, _ key: String) throws(ConfigurationError) -> I2CAddress? {
    guard let node = r.node(key) else { return nil }
    let allowed = "allowed 0x08...0x77, written as \"0x68\" or 104"
    /// The digits of `text` as `I2CAddress(parsing:)` reads them: without the whitespace around
    /// them (newlines too) and a leading "+", which `Int(_:)` accepts ("+68" is 68, 0x44).
    func bare(_ text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.hasPrefix("+") ? String(trimmed.dropFirst()) : trimmed
    }
    /// Digits that read as an IMU's address in hexadecimal, as `i2cdetect` prints it ("68", "6a"):
    /// the address meant, which the decimal (68 is 0x44, where no IMU answers) or the bare hex is not.
    func meantInHex(_ text: String) -> String? {
        let digits = bare(text).lowercased()
        guard digits.allSatisfy(\.isHexDigit), digits.allSatisfy(\.isASCII),
              let value = Int(digits, radix: 16), [0x68, 0x69, 0x6A, 0x6B].contains(value) else { return nil }
        return "0x" + digits
    }
    switch node.value {
    case .string(let text):
        if let meant = meantInHex(text), bare(text).allSatisfy(\.isNumber), let address = I2CAddress(parsing: text) {
            throw r.error(key, "\(text.debugDescription) is decimal (\(address)), where no IMU answers; i2cdetect shows addresses in hexadecimal: write \"\(meant)\"")
        }
        guard let address = I2CAddress(parsing: text) else {
            throw r.error(key, "\(text.debugDescription) is not a 7-bit I2C address; " + (meantInHex(text).map { "write \"\($0)\" for hexadecimal" } ?? allowed))
        }
        return address
    case .number(let n, let text):
        // Int(exactly:) rather than Int(_:), which traps on 1e300.
        guard let value = Int(exactly: n), let address = I2CAddress(value) else { throw r.error(key, "\(text) is not a 7-bit I2C address; \(allowed)") }
        // The value, not its text: 68.0 and 6.8e1 are 68 too (the text would read as no hex at all).
        if let meant = meantInHex(String(value)) {
            throw r.error(key, "\(text) is decimal (\(address)), where no IMU answers; i2cdetect shows addresses in hexadecimal: write \"\(meant)\"")
        }
        return address
    default:
        throw r.error(key, "expected an I2C address, found \(node.kindDescription); \(allowed)")
    }
}

/// An array of non-empty strings.
func stringArray(_ r: ObjectReader, _ key: String) throws(ConfigurationError) -> [String]? {
    guard let node = r.node(key) else { return nil }
    guard case .array(let elements) = node.value else { throw r.error(key, "expected an array of strings, found \(node.kindDescription)") }
    var result: [String] = []
    for (i, element) in elements.enumerated() {
        guard case .string(let text) = element.value, !text.isEmpty else {
            throw r.error(at: element, path: "\(r.childPath(key))[\(i)]", "expected a non-empty string, found \(element.kindDescription)")
        }
        result.append(text)
    }
    return result
}

extension BoardCatalog {
    /// Loads every `*.json` in `directory`.
    ///
    /// - Throws: ``ConfigurationError`` for an unreadable directory or file, a bad file, or two
    ///   files with the same id.
    public static func load(directory: String) throws(ConfigurationError) -> BoardCatalog {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw ConfigurationError(file: directory, position: nil, keyPath: "", message: "is a file, not a boards directory")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
        } catch {
            throw ConfigurationError(file: directory, position: nil, keyPath: "",
                                     message: "cannot list the boards directory (\(error.localizedDescription))")
        }
        var boards: [Board] = []
        var seen: [String: String] = [:]
        for name in names {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            let root = try parseJSON(try readConfigurationText(path), file: path)
            let board = try Board.decode(root, file: path)
            if let other = seen[board.id] {
                // At the id's line and column, as the file's other errors are (it named the file alone).
                throw ConfigurationPositions(file: path, root: root).error("id", "\"\(board.id)\" is already used by \(other)")
            }
            seen[board.id] = path
            boards.append(board)
        }
        guard !boards.isEmpty else {
            throw ConfigurationError(file: directory, position: nil, keyPath: "", message: "holds no board files (*.json)")
        }
        return BoardCatalog(boards: boards)
    }
}

/// Reads a UTF-8 text file, with an error that names it.
func readConfigurationText(_ path: String) throws(ConfigurationError) -> String {
    let data: Data
    do { data = try InputFile.read(path) } catch {
        throw ConfigurationError(file: path, position: nil, keyPath: "", message: "cannot read the file (\(error.reason))")
    }
    guard let text = String(data: data, encoding: .utf8) else {
        let (position, byte) = firstInvalidUTF8([UInt8](data))
        throw ConfigurationError(file: path, position: position, keyPath: "",
                                 message: "is not UTF-8 text (byte 0x\(String(byte, radix: 16, uppercase: true)) here); save the file as UTF-8")
    }
    return text
}

/// Where the first byte that is not part of valid UTF-8 is (line and column, as ``JSONParser``
/// counts them), and the byte.
func firstInvalidUTF8(_ bytes: [UInt8]) -> (JSONPosition, UInt8) {
    var line = 1, column = 1, index = 0
    var decoder = UTF8()
    var iterator = bytes.makeIterator()
    while true {
        switch decoder.decode(&iterator) {
        case .scalarValue(let scalar):
            index += scalar.utf8.count
            if scalar == "\n" { line += 1; column = 1 } else { column += 1 }
        case .emptyInput:
            return (JSONPosition(line: line, column: column), 0)
        case .error:
            return (JSONPosition(line: line, column: column), bytes[min(index, bytes.count - 1)])
        }
    }
}
