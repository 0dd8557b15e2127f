/// A tool's output read as the tool prints it: lines end at "\n", "\r\n" or a lone "\r",
/// fields are separated by blanks, and a line that starts with a blank is indented, all judged
/// on Unicode scalars. Swift's Characters would join a line end or blank with what follows it
/// ("\r\n", or " " and a combining mark, are one Character each), which a split on Characters
/// does not take for a separator (found by scripts/fuzz listings).
enum ListingText {
    /// The lines, empty ones kept.
    static func lines(_ text: String) -> [String] {
        text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).flatMap { line in
            (line.last == "\r" ? line.dropLast() : line).split(separator: "\r", omittingEmptySubsequences: false)
                .map { String(String.UnicodeScalarView($0)) }
        }
    }

    /// The fields of a line between spaces (empty ones left out).
    static func fields(_ line: String) -> [String] {
        line.unicodeScalars.split(separator: " ").map { String(String.UnicodeScalarView($0)) }
    }

    /// Whether the line starts with a space or a tab (a detail line, not an output's).
    static func isIndented(_ line: String) -> Bool {
        line.unicodeScalars.first == " " || line.unicodeScalars.first == "\t"
    }

    /// What follows `key` in an indented line ("  Transform: 90" → "90" for "Transform: "), or nil.
    static func value(after key: String, in line: String) -> String? {
        let text = line.unicodeScalars.drop { $0 == " " || $0 == "\t" }
        guard text.starts(with: key.unicodeScalars) else { return nil }
        return String(String.UnicodeScalarView(text.dropFirst(key.unicodeScalars.count)))
    }
}
