import PlumbHAL

/// A board Plumb knows: where its IMU bus, data-ready line, display and LEDs are.
///
/// Boards are data, one JSON file each under `boards/` (installed to `share/plumb/boards`), so a
/// user can add a board without rebuilding. ``BoardCatalog`` loads them; ``BoardCatalog/detect(model:)``
/// picks one from the device-tree model string (`/proc/device-tree/model`, read by PlumbLinux).
public struct Board: Sendable, Equatable {
    /// Short name used by `--board` and the configuration ("rpi4").
    public var id: String
    /// Human name ("Raspberry Pi 4 Model B").
    public var name: String
    /// Device-tree model prefixes this board answers to ("Raspberry Pi 4 Model B"); empty for the generic board.
    public var models: [String]
    /// The I2C character device of the header bus ("/dev/i2c-1").
    public var i2cBus: String
    /// The data-ready line, or `nil` when the board has no default and the driver polls.
    public var interrupt: InterruptLocation?
    /// The display, if the board has one by default.
    public var display: DisplayLocation?
    /// LED class device names under /sys/class/leds ("ACT", "PWR").
    public var leds: [String]
    /// The IMU address to try first (0x68 for the MPU-6050 family with AD0 low).
    public var imuAddress: I2CAddress
    /// Things worth knowing about this board (printed by `plumb boards`).
    public var notes: [String]

    public init(id: String, name: String, models: [String], i2cBus: String, interrupt: InterruptLocation?,
                display: DisplayLocation?, leds: [String], imuAddress: I2CAddress, notes: [String] = []) {
        self.id = id; self.name = name; self.models = models; self.i2cBus = i2cBus; self.interrupt = interrupt
        self.display = display; self.leds = leds; self.imuAddress = imuAddress; self.notes = notes
    }
}

/// Which GPIO chip: by label (stable across kernels) or by device path.
///
/// The Raspberry Pi 5's header chip was `gpiochip4` until raspberrypi/linux PR #6144 (kernel
/// 6.6.45+) and `gpiochip0` after it; its label, `pinctrl-rp1`, did not change.
public enum GPIOChipSelector: Sendable, Equatable, CustomStringConvertible {
    /// The chip's label as `gpiodetect` prints it in brackets ("pinctrl-rp1").
    case label(String)
    /// A character device ("/dev/gpiochip0").
    case path(String)
    /// A character device by its name under /dev ("gpiochip0") or its number ("0"), as
    /// `gpiodetect` lists chips; PlumbLinux's lookup tries /dev/NAME (for a number also
    /// /dev/gpiochipN) before the chips' labels.
    case device(String)

    /// Parses the JSON form: a string starting with "/dev/" is a path, "gpiochipN" or a number a
    /// device, anything else a label.
    public init(_ text: String) {
        if text.hasPrefix("/dev/") {
            self = .path(text)
        } else if GPIOChipSelector.isDeviceNumber(text) || (text.hasPrefix("gpiochip") && GPIOChipSelector.isDeviceNumber(String(text.dropFirst(8)))) {
            self = .device(text)
        } else {
            self = .label(text)
        }
    }

    private static func isDeviceNumber(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The chip as the user gave it; a label says so ("label pinctrl-rp1"), a bare number is "chip 0".
    public var description: String {
        switch self {
        case .label(let label): "label \(label)"
        case .path(let path): path
        case .device(let name): name.first?.isNumber == true ? "chip \(name)" : name
        }
    }

    /// The label, path or device name as libgpiod's chip lookup takes it.
    public var text: String {
        switch self {
        case .label(let label): label
        case .path(let path): path
        case .device(let name): name
        }
    }
}

/// Which line on a chip: by name ("GPIO17", as the Pi's device tree names header lines) or offset.
public enum GPIOLineReference: Sendable, Equatable, CustomStringConvertible {
    case name(String)
    case offset(Int)

    public var description: String {
        switch self {
        case .name(let name): name
        case .offset(let offset): "line \(offset)"
        }
    }
}

/// A GPIO line used as the IMU's data-ready input.
public struct InterruptLocation: Sendable, Equatable, CustomStringConvertible {
    public var chip: GPIOChipSelector
    public var line: GPIOLineReference

    public init(chip: GPIOChipSelector, line: GPIOLineReference) { self.chip = chip; self.line = line }

    public var description: String { "\(line) on \(chip)" }
}

/// Where the picture goes.
public struct DisplayLocation: Sendable, Equatable {
    /// The fbdev node ("/dev/fb0"; KMS provides it through fbdev emulation).
    public var framebuffer: String
    /// The DRM connector name used by wlr-randr/xrandr and `video=` ("HDMI-A-1").
    public var connector: String

    public init(framebuffer: String, connector: String) { self.framebuffer = framebuffer; self.connector = connector }
}

/// The boards that were loaded, in id order, and detection over them.
public struct BoardCatalog: Sendable, Equatable {
    /// The fallback used when no board matches the model string.
    public static let genericID = "generic"

    public var boards: [Board]

    public init(boards: [Board]) { self.boards = boards.sorted { $0.id < $1.id } }

    public var ids: [String] { boards.map(\.id) }

    public func board(id: String) -> Board? { boards.first { $0.id == id } }

    /// The board whose model prefix matches `model` best, or `nil`.
    ///
    /// `model` is the device-tree model string ("Raspberry Pi 4 Model B Rev 1.4", NUL-terminated
    /// in the file). A prefix matches when the model starts with it and the next character is a
    /// space or the end, so "Raspberry Pi 4" does not claim "Raspberry Pi 400 Rev 1.0". The
    /// longest matching prefix wins.
    public func detect(model: String) -> Board? {
        let cleaned = Self.clean(model)
        var best: (board: Board, length: Int)?
        for board in boards {
            for prefix in board.models where Self.matches(cleaned, prefix: prefix) {
                if prefix.count > (best?.length ?? -1) { best = (board, prefix.count) }
            }
        }
        return best?.board
    }

    /// The board to use: the override if given (which must exist), else the detected one, else generic.
    ///
    /// - Parameters:
    ///   - override: `--board` or the configuration's `board` ("auto" and `nil` mean detect).
    ///   - model: the device-tree model string, or `nil` when the machine has none.
    public func resolve(override: String?, model: String?) throws(BoardSelectionError) -> BoardSelection {
        if let override, override != "auto" {
            guard let board = board(id: override) else { throw .unknownBoard(override, known: ids) }
            return BoardSelection(board: board, reason: .override)
        }
        if let model, let board = detect(model: model) {
            return BoardSelection(board: board, reason: .detected(model: Self.clean(model)))
        }
        guard let generic = board(id: Self.genericID) else { throw .noGenericBoard }
        return BoardSelection(board: generic, reason: model.map { .unrecognised(model: Self.clean($0)) } ?? .noDeviceTree)
    }

    static func clean(_ model: String) -> String {
        var text = Substring(model)
        while let last = text.last, last == "\0" || last.isWhitespace { text.removeLast() }
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        return String(text)
    }

    static func matches(_ model: String, prefix: String) -> Bool {
        guard !prefix.isEmpty, model.hasPrefix(prefix) else { return false }
        let rest = model.dropFirst(prefix.count)
        return rest.isEmpty || rest.first == " "
    }
}

/// Which board was chosen and why (for `plumb boards` and the daemon's first log line).
public struct BoardSelection: Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        case override
        case detected(model: String)
        case unrecognised(model: String)
        case noDeviceTree
    }
    public var board: Board
    public var reason: Reason

    public init(board: Board, reason: Reason) { self.board = board; self.reason = reason }

    public var explanation: String {
        switch reason {
        case .override: "\(board.id) (chosen by --board or the configuration)"
        case .detected(let model): "\(board.id) (detected from the device-tree model \"\(model)\")"
        case .unrecognised(let model): "\(board.id) (the device-tree model \"\(model)\" matches no board file)"
        case .noDeviceTree: "\(board.id) (this machine has no device-tree model)"
        }
    }
}

/// A board that cannot be chosen.
public enum BoardSelectionError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownBoard(String, known: [String])
    case noGenericBoard

    public var description: String {
        switch self {
        case .unknownBoard(let id, let known):
            "unknown board \"\(id)\"; known boards: \(known.joined(separator: ", "))"
        case .noGenericBoard:
            "no board matches and there is no \(BoardCatalog.genericID).json in the boards directory"
        }
    }
}
