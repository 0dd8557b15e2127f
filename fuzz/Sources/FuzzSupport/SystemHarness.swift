import PlumbHAL
import PlumbLinux
import PlumbConfiguration
import PlumbDisplay

/// What Plumb reads from the running system, parsed apart from the reading (PlumbLinux keeps the
/// system calls; these are its pure parsers): the power monitor's sysfs files (power_supply,
/// thermal zones, platform_profile, power-profiles-daemon's state.ini, the Raspberry Pi firmware's
/// get_throttled, fbdev blank, DRM dpms), an I2C adapter's device-tree `clock-frequency` cell, the
/// device-tree `model` and the board detected from it, /proc/self/net/dev, the I2C_FUNCS mask, an
/// LED's `max_brightness` and `trigger`, and the framebuffer's screen info (the
/// FBIOGET_VSCREENINFO / FSCREENINFO fields) with the pixel format drawn from it.
///
/// The first byte picks the parser; the rest is the file's content (or the fields). Beyond "no
/// trap", each checks what its caller relies on, and the answers the unit tests expect for the
/// formats' real examples (the committed seeds, fuzz/corpus/system).
public enum SystemHarness {
    public static func run(_ input: FuzzInput) {
        switch input.byte() % 8 {
        case 0: power(input)
        case 1: clockFrequency(input)
        case 2: deviceTreeModel(input)
        case 3: netDev(input)
        case 4: functionality(input)
        case 5: led(input)
        case 6: framebuffer(input)
        default: adapterPath(input)
        }
    }

    static func text(_ bytes: some Collection<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The power monitor's files, separated by 0x1E: platform_profile, state.ini, capacity, temp,
    /// get_throttled, blank, dpms (each as read, before trimming).
    static func power(_ input: FuzzInput) {
        let fields = input.rest().split(separator: 0x1E, omittingEmptySubsequences: false).map { text($0) }
        let trimmed = fields.map(SysfsPowerMonitor.trimmed)
        for (raw, t) in zip(fields, trimmed) {
            check(SysfsPowerMonitor.trimmed(t) == t, "trimming \(debug(raw)) twice changes it")
            check(t.count <= raw.count, "trimming \(debug(raw)) lengthened it")
        }
        func f(_ i: Int) -> String { i < trimmed.count ? trimmed[i] : "" }

        check(SysfsPowerMonitor.isLowPower(platformProfile: f(0)) == (f(0) == "low-power"), "platform_profile \(debug(f(0)))")
        let saver = SysfsPowerMonitor.powerSaverLines(stateINI: f(1))
        check(saver >= 0 && saver <= f(1).split(whereSeparator: \.isNewline).count, "\(saver) power-saver lines in \(debug(f(1)))")
        if f(1) == "[State]\nDriver=placeholder\nProfile=power-saver" { check(saver == 1, "the daemon's state file gave \(saver) power-saver lines") }

        if let capacity = SysfsPowerMonitor.percentage(capacity: f(2)) {
            if f(2) == "20" { check(capacity == 20, "capacity 20 read as \(capacity)") }
        }
        if let celsius = SysfsPowerMonitor.celsius(millidegrees: f(3)) {
            check(celsius.isFinite && abs(celsius) <= Double(Int.max) / 1000 + 1, "temp \(debug(f(3))) gave \(celsius) °C")
            if f(3) == "81250" { check(celsius == 81.25, "temp 81250 read as \(celsius) °C") }
        }
        if let bits = SysfsPowerMonitor.throttledBits(f(4)) {
            // The reason prints it back in hexadecimal; that text parses to the same bits.
            let shown = "0x" + String(bits, radix: 16)
            check(SysfsPowerMonitor.throttledBits(shown) == bits, "get_throttled \(debug(f(4))) shown as \(shown)")
            if f(4) == "50005" { check(bits == 0x50005, "get_throttled 50005 read as \(shown)") }
            if f(4) == "50000" { check(bits & 0xF == 0, "get_throttled 50000 (past events only) counted as throttled now") }
        }
        if let level = SysfsPowerMonitor.blankLevel(f(5)) {
            if f(5) == "4" { check(level == 4, "blank 4 read as \(level)") }
        }
        if f(5).isEmpty { check(SysfsPowerMonitor.blankLevel(f(5)) == nil, "an empty blank file (older kernels) read as a level") }
        check(SysfsPowerMonitor.isOff(dpms: f(6)) == (f(6) != "On"), "dpms \(debug(f(6)))")
    }

    /// `clock-frequency`: one big-endian 32-bit cell, in hertz.
    static func clockFrequency(_ input: FuzzInput) {
        let bytes = Array(input.rest())
        let file = "/sys/bus/i2c/devices/i2c-1/of_node/clock-frequency"
        do throws(SysfsError) {
            let hertz = try I2CBusClock.hertz(clockFrequency: bytes, file: file)
            check(bytes.count == 4 && hertz > 0, "\(bytes) accepted as \(hertz) Hz")
            check(hertz == UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3]),
                  "\(bytes) read as \(hertz) Hz, not big-endian")
            let description = I2CBusClock(busPath: "/dev/i2c-1", hertz: hertz, file: file).description
            checkFrequencyText(description, hertz: hertz)
            if bytes == [0x00, 0x01, 0x86, 0xA0] { check(description == "100 kHz (device tree)", "100 kHz shown as \(description)") }
            if bytes == [0x00, 0x06, 0x1A, 0x80] { check(description == "400 kHz (device tree)", "400 kHz shown as \(description)") }
        } catch {
            check(error.path == file && error.errno == 0 && !error.message.isEmpty, "a parse error without the file: \(error)")
            check(bytes.count != 4 || bytes.allSatisfy { $0 == 0 }, "\(bytes) refused: \(error)")
        }
    }

    /// "100 kHz (device tree)": the number, in its unit, within rounding (one decimal) of `hertz`.
    static func checkFrequencyText(_ description: String, hertz: UInt32) {
        let words = description.split(separator: " ")
        let scale: Double
        switch words.count > 1 ? words[1] : "" {
        case "MHz": scale = 1e6
        case "kHz": scale = 1e3
        case "Hz": scale = 1
        default: fuzzFailure("\(hertz) Hz shown as \(description)")
        }
        guard let shown = Double(words[0]) else { fuzzFailure("\(hertz) Hz shown as \(description)") }
        check(abs(shown * scale - Double(hertz)) <= 0.05 * scale + 1e-9, "\(hertz) Hz shown as \(description)")
    }

    /// The boards in the repository's boards/ (scripts/fuzz runs from the repository's root).
    static let catalog: BoardCatalog = {
        do throws(ConfigurationError) {
            return try BoardCatalog.load(directory: "boards")
        } catch {
            fuzzFailure("cannot load boards/ (run from the repository's root, as scripts/fuzz does): \(error)")
        }
    }()

    /// /proc/device-tree/model, then the board detected from it.
    static func deviceTreeModel(_ input: FuzzInput) {
        let content = text(input.rest())
        let model = DeviceTreeModel.model(content)
        check(!model.hasSuffix("\0") && !model.hasSuffix("\n"), "model \(debug(model)) still ends in a NUL or newline")
        check(content.utf8.starts(with: model.utf8), "model \(debug(model)) is not the start of \(debug(content))")
        let board = catalog.detect(model: model)
        if let board {
            check(board.models.contains { model.drop { $0.isWhitespace }.hasPrefix($0) }, "\(board.id) detected from \(debug(model))")
        }
        do throws(BoardSelectionError) {
            let selection = try catalog.resolve(override: nil, model: model)
            check(selection.board.id == (board?.id ?? BoardCatalog.genericID), "resolve chose \(selection.board.id), detect \(board?.id ?? "none")")
        } catch {
            fuzzFailure("no board resolved for \(debug(model)): \(error)")
        }
        let known = ["Raspberry Pi 4 Model B Rev 1.4\0": "rpi4", "Raspberry Pi 400 Rev 1.0\0": "rpi400",
                     "Raspberry Pi 5 Model B Rev 1.0\0": "rpi5", "Raspberry Pi Zero 2 W Rev 1.0\0": "rpizero2w",
                     "Raspberry Pi 3 Model B Plus Rev 1.3\0": "rpi3"]
        if let expected = known[content] { check(board?.id == expected, "\(debug(content)) detected as \(board?.id ?? "none"), not \(expected)") }
    }

    /// /proc/self/net/dev, and a host name from its first line.
    static func netDev(_ input: FuzzInput) {
        let content = text(input.rest())
        let names = NetworkAccess.interfaceNames(procNetDev: content)
        for name in names {
            check(!name.isEmpty && !name.unicodeScalars.contains { [" ", "\t", ":", "\n", "\r"].contains($0) },
                  "interface name \(debug(name))")
        }
        if content == SystemSeeds.netDevLoopbackOnly { check(names == ["lo"], "a loopback-only namespace listed \(names)") }
        if content == SystemSeeds.netDevWithWiFi { check(names == ["lo", "wlan0"], "lo and wlan0 listed as \(names)") }
        let host = content.split(separator: "\n").first.map(String.init) ?? ""
        if NetworkAccess.isLoopback(host) {
            let h = host.lowercased()
            check(h.contains("localhost") || h == "::1" || h.hasPrefix("127."), "\(debug(host)) taken for loopback")
        }
    }

    /// The I2C_FUNCS mask.
    static func functionality(_ input: FuzzInput) {
        let f = I2CFunctionality(rawValue: input.uint32())
        let known = I2CFunctionality.names.reduce(UInt32(0)) { $0 | $1.0.rawValue }
        check(f.decoded.count == (f.rawValue & known).nonzeroBitCount, "\(f.hexString) decoded as \(f.decoded)")
        check(f.hexString.count == 10 && UInt32(f.hexString.dropFirst(2), radix: 16) == f.rawValue, "\(f.rawValue) shown as \(f.hexString)")
        check(f.description.hasPrefix(f.hexString), "\(f.description)")
        if f.rawValue == 0x0C7F_0000 { check(!f.contains(.i2c) && f.contains(.smbusReadI2CBlock), "i2c-stub's mask \(f)") }
    }

    /// An LED's max_brightness, then its trigger list.
    static func led(_ input: FuzzInput) {
        let parts = input.rest().split(separator: 0x1E, maxSplits: 1, omittingEmptySubsequences: false).map { text($0) }
        let limit = parts.first ?? "", triggers = parts.count > 1 ? parts[1] : ""
        if let max = SysfsLED.maxBrightness(in: limit) {
            check(max > 0, "max_brightness \(debug(limit)) read as \(max)")
            if limit == "255\n" { check(max == 255, "max_brightness 255 read as \(max)") }
        }
        let trimmed = SysfsPowerMonitor.trimmed(triggers)
        if let selected = SysfsLED.selectedTrigger(trimmed) {
            check(!selected.contains(Character("]")), "trigger \(debug(selected)) from \(debug(trimmed))")
        } else {
            check(!trimmed.contains("[") || !trimmed.drop { $0 != "[" }.contains("]"), "no trigger found in \(debug(trimmed))")
        }
        if trimmed == "none [mmc0] timer heartbeat" { check(SysfsLED.selectedTrigger(trimmed) == "mmc0", "the selected trigger of \(trimmed)") }
    }

    /// The screen info as fbdev hands it over (each field a __u32), made into the geometry the
    /// way `Framebuffer(device:)` does; then the pixel format the level view draws with.
    static func framebuffer(_ input: FuzzInput) {
        // Values near the edges are as likely as small ones: a byte picks the range.
        func field() -> UInt32 {
            switch input.byte() % 4 {
            case 0: return UInt32(input.byte())
            case 1: return UInt32(input.uint16())
            default: return input.uint32()
            }
        }
        let xres = field(), yres = field(), yresVirtual = field(), bitsPerPixel = field()
        let lineLength = field(), memory = field()
        let channels = (0..<4).map { _ in FramebufferBitfield(offset: Int(field()), length: Int(field())) }
        let name = text(input.rest().prefix(16).prefix { $0 != 0 })

        if Framebuffer.wantsTwoPages(height: yres, virtualHeight: yresVirtual, bytesPerRow: lineLength, memoryLength: memory) {
            // Framebuffer(device:) then asks the driver for a yres_virtual of 2 × yres, a __u32.
            check(yres <= UInt32.max / 2 && yresVirtual < 2 * yres, "asks for two pages of \(yres) rows (virtual \(yresVirtual))")
        }
        let g = FramebufferGeometry(name: name, width: Int(xres), height: Int(yres), virtualHeight: Int(yresVirtual),
                                    bitsPerPixel: Int(bitsPerPixel), bytesPerRow: Int(lineLength),
                                    red: channels[0], green: channels[1], blue: channels[2], alpha: channels[3],
                                    memoryLength: Int(memory))
        let problem = g.problem
        _ = g.summary
        let flips = g.canPageFlip
        if problem == nil {
            // What drawing relies on: a screen's rows inside the memory, each row holding `width` pixels.
            let screen = g.bytesPerRow.multipliedReportingOverflow(by: g.height)
            check(g.width > 0 && g.height > 0 && g.bitsPerPixel > 0 && g.virtualHeight >= g.height, "usable: \(g.summary)")
            check(!screen.overflow && screen.partialValue <= g.memoryLength, "usable, but one screen is more than the memory: \(g.summary)")
            let rowBits = g.width.multipliedReportingOverflow(by: g.bitsPerPixel)
            check(!rowBits.overflow && g.bytesPerRow * 8 >= rowBits.partialValue, "usable, but rows shorter than the width: \(g.summary)")
            if flips { check(2 * screen.partialValue <= g.memoryLength && g.virtualHeight >= 2 * g.height, "page flips past the memory: \(g.summary)") }
        }
        func channel(_ b: FramebufferBitfield) -> PixelFormat.Channel { .init(offset: b.offset, length: b.length) }
        let format = PixelFormat(bitsPerPixel: g.bitsPerPixel, red: channel(g.red), green: channel(g.green),
                                 blue: channel(g.blue), alpha: channel(g.alpha))
        _ = format.description
        if format.unsupportedReason == nil {
            // Each channel keeps the top bits of its colour.
            let color = RGBA(input.byte(), input.byte(), input.byte(), input.byte())
            let back = format.unpack(format.pack(color))
            for (a, b, c) in [(color.r, back.r, format.red), (color.g, back.g, format.green), (color.b, back.b, format.blue)] {
                let drop = UInt8(8 - c.length)
                check(a >> drop == b >> drop, "\(format): \(color) came back as \(back)")
            }
        }
    }

    /// An i2c-dev path (or a symlink's target) to its adapter's name.
    static func adapterPath(_ input: FuzzInput) {
        let path = text(input.rest())
        if let name = I2CBusClock.adapterName(path: path) {
            // The last component (a trailing "/" aside: open(2) refuses that path anyway).
            check(name.hasPrefix("i2c-") && name.count > 4 && path.split(separator: "/").last.map(String.init) == name,
                  "\(debug(path)) names adapter \(debug(name))")
        }
        if path == "/dev/i2c-1" { check(I2CBusClock.adapterName(path: path) == "i2c-1", "/dev/i2c-1 names no adapter") }
    }

    static func debug(_ s: some StringProtocol) -> String { String(reflecting: String(s)) }

    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fuzzFailure(message()) }
    }
}

/// Real examples of the formats, for the seed corpus (fuzz-seeds) and the harness's known answers.
public enum SystemSeeds {
    /// /proc/net/dev's two header lines (proc(5); the kernel's dev_seq_printf_stats layout), as
    /// the unit tests (NetworkAccessTests) have them.
    static let netDevHeader = """
        Inter-|   Receive                                                |  Transmit
         face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed

        """
    /// Inside a private network namespace (systemd's PrivateNetwork=yes): lo only.
    public static let netDevLoopbackOnly = netDevHeader
        + "    lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0\n"
    /// A board on Wi-Fi.
    public static let netDevWithWiFi = netDevLoopbackOnly
        + " wlan0: 2948559765   63770    0    0    0     0          0         0  2693004   39764    0    0    0     0       0          0\n"
}
