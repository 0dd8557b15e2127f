import Foundation

/// A calibration file as `plumb calibrate --output` writes it, read the way the configuration is:
/// every error names the file, line and column, the key, and what is allowed.
///
/// Foundation's `JSONDecoder`, which read these files before, gave a syntax error no position
/// ("not valid JSON") and passed its own wording through ("temperature: expected double",
/// "Expected vector with exactly 3 elements."); a misspelt key came out as the right key
/// missing. Here a syntax error has its line and column (``JSONParser``), a wrong type says
/// "expected a number" or "expected 3 numbers", and an unknown key is refused with the nearest
/// known one (``nearest(_:in:)``), as in plumb.json.
///
/// Only the shape is checked here: three numbers per vector, three rows of three, a part key of
/// ``IMUSettings/parts``. Whether the values are plausible for a sensor and whether the rows form
/// a rotation are the drivers' `Calibration` and `Mounting` to judge; their errors are placed with
/// ``error(_:_:)`` at the key's value.
///
/// ```json
/// {"accelerometerOffset": [0.002, 0.004, -0.084], "accelerometerScale": [1.004, 1.003, 1.002],
///  "gyroscopeBias": [-0.0008, -0.031, -0.0066], "mounting": {"rows": [[1,0,0],[0,1,0],[0,0,1]]},
///  "part": "mpu6050", "temperature": 27.5}
/// ```
public struct CalibrationFile: Sendable, Equatable {
    /// Every key a calibration file may hold; the first four are required.
    public static let keys = ["gyroscopeBias", "accelerometerOffset", "accelerometerScale", "mounting", "part", "temperature"]
    /// The keys every calibration file holds.
    static let requiredKeys = Array(keys.prefix(4))

    /// The file, for messages.
    public var file: String
    /// Gyroscope zero-rate bias, rad/s.
    public var gyroscopeBias: SIMD3<Double>
    /// Accelerometer zero-g offset, m/s².
    public var accelerometerOffset: SIMD3<Double>
    /// Accelerometer scale factors (1 = none).
    public var accelerometerScale: SIMD3<Double>
    /// `mounting.rows`: three rows of three numbers, not yet checked to be a rotation.
    public var mountingRows: [[Double]]
    /// The part key the calibration was made on (one of ``IMUSettings/parts``), or `nil` when the
    /// file does not say (a file written by hand).
    public var part: String?
    /// Mean die temperature during calibration, °C, or `nil`.
    public var temperature: Double?
    /// Where each key's value starts ("gyroscopeBias", "mounting.rows", "part").
    private var positions: [String: JSONPosition]

    /// An error about the value of `key` ("gyroscopeBias", "mounting.rows"), at its line and column.
    public func error(_ key: String, _ message: String) -> ConfigurationError {
        ConfigurationError(file: file, position: positions[key], keyPath: key, message: message)
    }

    /// Where the value of `key` starts, or `nil` for a key the file leaves out.
    public func position(of key: String) -> JSONPosition? { positions[key] }

    /// Reads a calibration file's bytes.
    ///
    /// - Parameter file: names the file in errors.
    /// - Throws: the first ``ConfigurationError`` found: bytes that are not UTF-8, a syntax error,
    ///   an unknown or duplicate key (with the nearest known one), a missing key, a value of the
    ///   wrong type or count, or an unknown part.
    public static func decode(_ data: Data, file: String) throws(ConfigurationError) -> CalibrationFile {
        guard let text = String(data: data, encoding: .utf8) else {
            let (position, byte) = firstInvalidUTF8([UInt8](data))
            throw ConfigurationError(file: file, position: position, keyPath: "",
                                     message: "is not UTF-8 text (byte 0x\(String(byte, radix: 16, uppercase: true)) here); it is no calibration 'plumb calibrate' saved")
        }
        return try decode(text, file: file)
    }

    /// Reads a calibration file's text, as the bytes' `decode` does once they are UTF-8.
    public static func decode(_ text: String, file: String) throws(ConfigurationError) -> CalibrationFile {
        let root = try parseJSON(text, file: file)
        // One unknown key where one required key is missing is that key misspelt, however far
        // apart ("gyroBias" for gyroscopeBias): said so, rather than "missing" or no hint.
        if case .object(let members) = root.value {
            // Another JSON file named in its place (plumb.json itself): said as that, not as its first key.
            if !members.isEmpty, !members.contains(where: { keys.contains($0.key) }) {
                throw ConfigurationError(file: file, position: root.position, keyPath: "",
                                         message: "is not a Plumb calibration: it holds none of \(keys.joined(separator: ", "))")
            }
            let unknown = members.filter { !keys.contains($0.key) }
            let missing = requiredKeys.filter { key in !members.contains { $0.key == key } }
            if unknown.count == 1, missing.count == 1, nearest(unknown[0].key, in: keys) == nil {
                throw ConfigurationError(file: file, position: unknown[0].keyPosition, keyPath: unknown[0].key,
                                         message: "unknown key; allowed keys: \(keys.joined(separator: ", ")). Did you mean '\(missing[0])', which is missing?")
            }
        }
        let r = try ObjectReader(root, path: "", file: file, allowed: keys)
        var positions: [String: JSONPosition] = [:]

        func required(_ key: String) throws(ConfigurationError) -> JSONNode {
            guard let node = r.node(key) else {
                throw ConfigurationError(file: file, position: root.position, keyPath: key,
                                         message: "missing; a calibration holds gyroscopeBias, accelerometerOffset, accelerometerScale and mounting, as 'plumb calibrate' writes them")
            }
            positions[key] = node.position
            return node
        }
        /// Three numbers: "expected 3 numbers (rad/s), found a string", "… found 2".
        func numbers(_ node: JSONNode, path: String, unit: String) throws(ConfigurationError) -> [Double] {
            let expected = "expected 3 numbers" + (unit.isEmpty ? "" : " (\(unit))")
            guard case .array(let elements) = node.value else {
                throw r.error(at: node, path: path, "\(expected), found \(node.kindDescription)")
            }
            guard elements.count == 3 else { throw r.error(at: node, path: path, "\(expected), found \(elements.count)") }
            var values: [Double] = []
            for (i, element) in elements.enumerated() {
                guard case .number(let value, _) = element.value else {
                    throw r.error(at: element, path: "\(path)[\(i)]", "expected a number, found \(element.kindDescription)")
                }
                values.append(value)
            }
            return values
        }
        func vector(_ key: String, unit: String) throws(ConfigurationError) -> SIMD3<Double> {
            let v = try numbers(try required(key), path: key, unit: unit)
            return SIMD3(v[0], v[1], v[2])
        }

        let gyroscopeBias = try vector("gyroscopeBias", unit: "rad/s")
        let accelerometerOffset = try vector("accelerometerOffset", unit: "m/s²")
        let accelerometerScale = try vector("accelerometerScale", unit: "")
        _ = try required("mounting")
        guard let mounting = try r.object("mounting", allowed: ["rows"]) else { preconditionFailure("required above") }
        guard let rowsNode = mounting.node("rows") else {
            throw r.error("mounting", "rows is missing; the mounting is {\"rows\": [[1,0,0],[0,1,0],[0,0,1]]} or another rotation")
        }
        positions["mounting.rows"] = rowsNode.position
        guard case .array(let rowNodes) = rowsNode.value, rowNodes.count == 3 else {
            let found = if case .array(let rows) = rowsNode.value { "\(rows.count) rows" } else { rowsNode.kindDescription }
            throw r.error(at: rowsNode, path: "mounting.rows", "expected 3 rows of 3 numbers, found \(found)")
        }
        var rows: [[Double]] = []
        for (i, row) in rowNodes.enumerated() { rows.append(try numbers(row, path: "mounting.rows[\(i)]", unit: "")) }

        if let node = r.node("part") { positions["part"] = node.position }
        // A part no driver knows would fit no chip: refused here, with the nearest known key.
        let part = try r.choice("part", IMUSettings.parts)
        if let node = r.node("temperature") { positions["temperature"] = node.position }
        let temperature = try r.number("temperature", in: -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude, unit: "°C")
        return CalibrationFile(file: file, gyroscopeBias: gyroscopeBias, accelerometerOffset: accelerometerOffset,
                               accelerometerScale: accelerometerScale, mountingRows: rows, part: part, temperature: temperature,
                               positions: positions)
    }
}
