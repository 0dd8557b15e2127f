/// A JSON document parsed with the line and column of every value, so configuration errors can
/// point at the place in the file (Foundation's `JSONDecoder` reports only a coding path).
///
/// Follows RFC 8259: objects, arrays, strings with escapes (including surrogate pairs), numbers,
/// `true`, `false`, `null`. Duplicate keys are kept in order so the reader can refuse them.

/// Where a value starts: 1-based line and column (the column counts characters, not bytes).
public struct JSONPosition: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public init(line: Int, column: Int) { self.line = line; self.column = column }
    public var description: String { "\(line):\(column)" }
}

/// One parsed value and where it starts.
public struct JSONNode: Sendable, Equatable {
    public indirect enum Value: Sendable, Equatable {
        case null
        case bool(Bool)
        /// A number and its text as written (so "0x68"-style mistakes and integers stay visible).
        case number(Double, text: String)
        case string(String)
        case array([JSONNode])
        case object([Member])
    }

    /// An object member: its key, where the key starts, and the value.
    public struct Member: Sendable, Equatable {
        public var key: String
        public var keyPosition: JSONPosition
        public var value: JSONNode
    }

    public var value: Value
    public var position: JSONPosition

    /// "an object", "a string", ... for messages.
    public var kindDescription: String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Malformed JSON: what was expected and where.
public struct JSONSyntaxError: Error, Sendable, Equatable {
    public var message: String
    public var position: JSONPosition
}

/// Parses UTF-8 JSON text into a tree of ``JSONNode``s.
public struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var column = 1
    /// Nesting limit, so a hostile file cannot exhaust the stack.
    private let maximumDepth = 64

    /// Parses `text`, which must hold exactly one JSON value (with optional whitespace around it).
    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONNode {
        var parser = JSONParser(bytes: Array(text.utf8))
        return try parser.document()
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var position: JSONPosition { JSONPosition(line: line, column: column) }

    private mutating func document() throws(JSONSyntaxError) -> JSONNode {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        skipWhitespace()
        guard index < bytes.count else { throw fail("the file is empty; expected a JSON object") }
        let root = try value(depth: 0)
        skipWhitespace()
        if index < bytes.count { throw fail("unexpected \(describeCurrent()) after the end of the document") }
        return root
    }

    private func fail(_ message: String) -> JSONSyntaxError { JSONSyntaxError(message: message, position: position) }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        let b = bytes[index]
        if b >= 0x20 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x\(String(b, radix: 16))"
    }

    private mutating func advance() {
        let b = bytes[index]
        index += 1
        if b == UInt8(ascii: "\n") { line += 1; column = 1 }
        else if b & 0xC0 != 0x80 { column += 1 }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): advance()
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(JSONSyntaxError) {
        guard index < bytes.count, bytes[index] == byte else { throw fail("expected \(what), found \(describeCurrent())") }
        advance()
    }

    private mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONNode {
        guard depth < maximumDepth else { throw fail("nesting deeper than \(maximumDepth) levels") }
        let start = position
        guard index < bytes.count else { throw fail("expected a value, found end of file") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return JSONNode(value: .object(try object(depth: depth)), position: start)
        case UInt8(ascii: "["): return JSONNode(value: .array(try array(depth: depth)), position: start)
        case UInt8(ascii: "\""): return JSONNode(value: .string(try string()), position: start)
        case UInt8(ascii: "t"): try literal("true"); return JSONNode(value: .bool(true), position: start)
        case UInt8(ascii: "f"): try literal("false"); return JSONNode(value: .bool(false), position: start)
        case UInt8(ascii: "n"): try literal("null"); return JSONNode(value: .null, position: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let (number, text) = try number()
            return JSONNode(value: .number(number, text: text), position: start)
        case UInt8(ascii: "'"): throw fail("strings must use double quotes, found '")
        default: throw fail("expected a value, found \(describeCurrent())")
        }
    }

    private mutating func literal(_ word: String) throws(JSONSyntaxError) {
        for b in word.utf8 {
            guard index < bytes.count, bytes[index] == b else { throw fail("expected '\(word)', found \(describeCurrent())") }
            advance()
        }
    }

    private mutating func object(depth: Int) throws(JSONSyntaxError) -> [JSONNode.Member] {
        advance() // {
        var members: [JSONNode.Member] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { advance(); return members }
        while true {
            skipWhitespace()
            let keyPosition = position
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { throw fail("trailing comma before '}'") }
                throw fail("expected a key in double quotes, found \(describeCurrent())")
            }
            let key = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':' after the key \"\(key)\"")
            skipWhitespace()
            let member = try value(depth: depth + 1)
            members.append(JSONNode.Member(key: key, keyPosition: keyPosition, value: member))
            skipWhitespace()
            guard index < bytes.count else { throw fail("expected ',' or '}', found end of file") }
            if bytes[index] == UInt8(ascii: ",") { advance(); continue }
            if bytes[index] == UInt8(ascii: "}") { advance(); return members }
            throw fail("expected ',' or '}' after the value of \"\(key)\", found \(describeCurrent())")
        }
    }

    private mutating func array(depth: Int) throws(JSONSyntaxError) -> [JSONNode] {
        advance() // [
        var elements: [JSONNode] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { advance(); return elements }
        while true {
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { throw fail("trailing comma before ']'") }
            elements.append(try value(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw fail("expected ',' or ']', found end of file") }
            if bytes[index] == UInt8(ascii: ",") { advance(); continue }
            if bytes[index] == UInt8(ascii: "]") { advance(); return elements }
            throw fail("expected ',' or ']' in an array, found \(describeCurrent())")
        }
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        advance() // opening quote
        var scalars = String.UnicodeScalarView()
        var run: [UInt8] = []
        func flush() {
            if !run.isEmpty { scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars); run.removeAll() }
        }
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") { advance(); flush(); return String(scalars) }
            if b < 0x20 { throw fail(b == UInt8(ascii: "\n") ? "unterminated string (newline inside quotes)" : "control character inside a string") }
            if b != UInt8(ascii: "\\") { run.append(b); advance(); continue }
            flush()
            advance()
            guard index < bytes.count else { throw fail("unterminated string") }
            let e = bytes[index]
            advance()
            switch e {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800...0xDBFF).contains(code) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw fail("a high surrogate \\u escape must be followed by a low surrogate")
                    }
                    advance(); advance()
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw fail("invalid low surrogate in \\u escape") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw fail("invalid \\u escape") }
                scalars.append(scalar)
            default:
                throw fail("invalid escape '\\\(Character(Unicode.Scalar(e)))' in a string")
            }
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = hexValue(bytes[index]) else { throw fail("expected 4 hexadecimal digits after \\u") }
            value = value << 4 | digit
            advance()
        }
        return value
    }

    private func hexValue(_ b: UInt8) -> UInt32? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(b - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private mutating func number() throws(JSONSyntaxError) -> (Double, String) {
        let start = index
        func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
        if bytes[index] == UInt8(ascii: "-") { advance() }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit, found \(describeCurrent())") }
        if bytes[index] == UInt8(ascii: "0"), index + 1 < bytes.count, isDigit(bytes[index + 1]) || bytes[index + 1] == UInt8(ascii: "x") {
            throw fail("numbers cannot have leading zeros or a 0x prefix; write hexadecimal values as strings (\"0x68\")")
        }
        while index < bytes.count, isDigit(bytes[index]) { advance() }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            advance()
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { advance() }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            advance()
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { advance() }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit in the exponent") }
            while index < bytes.count, isDigit(bytes[index]) { advance() }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw fail("the number \(text) is out of range") }
        return (value, text)
    }
}
