/// Draws frames in a terminal with Unicode upper half blocks (▀) in 24-bit colour: each
/// character cell shows two pixels, the upper one as the foreground colour and the lower one as
/// the background (ECMA-48 SGR 38;2;r;g;b and 48;2;r;g;b, "truecolor" in xterm and most terminals).
///
/// For machines with no framebuffer: the same renderer draws into a buffer of
/// `columns × 2·rows` pixels, and each frame is written as text from the top-left corner.
public final class TerminalPreview: LevelDisplay {
    public let columns: Int
    public let rows: Int
    private let buffer: PixelBuffer
    /// Called with each frame's text (the CLI writes it to standard output).
    private let emit: (String) -> Void
    private var scratch: [UInt8] = []

    /// - Parameters:
    ///   - columns, rows: the character cells to fill; the picture is `columns` × `2·rows` pixels.
    public init(columns: Int, rows: Int, emit: @escaping (String) -> Void) {
        precondition(columns > 0 && rows > 0, "the preview needs at least one cell")
        self.columns = columns
        self.rows = rows
        self.emit = emit
        buffer = PixelBuffer(width: columns, height: rows * 2, format: .xrgb8888)
        scratch.reserveCapacity(columns * rows * 40)
    }

    public var pixelWidth: Int { columns }
    public var pixelHeight: Int { rows * 2 }

    public func nextSurface() -> PixelSurface { buffer.surface }

    public func present() throws { emit(Self.text(for: buffer.surface, home: true)) }

    /// Escape sequence that hides the cursor and clears the screen, for the start of a live preview.
    public static let begin = "\u{1B}[?25l\u{1B}[2J"
    /// Escape sequence that resets colours and shows the cursor again.
    public static let end = "\u{1B}[0m\u{1B}[?25h\n"

    /// The text for one frame: optionally "cursor home", then each row of cells; a colour code is
    /// written only when it changes from the previous cell.
    public static func text(for surface: PixelSurface, home: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(surface.width * surface.height * 20)
        if home { out += Array("\u{1B}[H".utf8) }
        func number(_ v: UInt8) {
            if v >= 100 { out.append(48 + v / 100) }
            if v >= 10 { out.append(48 + v / 10 % 10) }
            out.append(48 + v % 10)
        }
        func colour(_ kind: UInt8, _ c: RGBA) {
            out += [0x1B, 0x5B, kind, 0x38, 0x3B, 0x32, 0x3B]  // ESC [ 3|4 8;2;
            number(c.r); out.append(0x3B); number(c.g); out.append(0x3B); number(c.b); out.append(0x6D)
        }
        for cellRow in 0..<(surface.height / 2) {
            var lastTop: RGBA?, lastBottom: RGBA?
            for x in 0..<surface.width {
                let top = surface[x, 2 * cellRow], bottom = surface[x, 2 * cellRow + 1]
                if top != lastTop { colour(0x33, top); lastTop = top }
                if bottom != lastBottom { colour(0x34, bottom); lastBottom = bottom }
                out += [0xE2, 0x96, 0x80]  // U+2580 UPPER HALF BLOCK
            }
            out += Array("\u{1B}[0m".utf8)
            if cellRow < surface.height / 2 - 1 { out.append(0x0A) }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
