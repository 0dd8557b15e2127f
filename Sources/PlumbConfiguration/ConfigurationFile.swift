import PlumbHAL

extension Configuration {
    /// Decodes and validates a configuration file's text.
    ///
    /// - Parameters:
    ///   - text: the JSON text.
    ///   - file: the file name used in errors.
    ///   - knownBoards: the board ids that exist; `nil` skips that check (no boards directory).
    /// - Throws: the first ``ConfigurationError`` found, naming the line, the key path and what is allowed.
    public static func decode(_ text: String, file: String, knownBoards: [String]? = nil) throws(ConfigurationError) -> Configuration {
        try decode(try parseJSON(text, file: file), file: file, knownBoards: knownBoards)
    }

    /// Decodes and validates a configuration file's JSON tree.
    static func decode(_ root: JSONNode, file: String, knownBoards: [String]?) throws(ConfigurationError) -> Configuration {
        let r = try ObjectReader(root, path: "", file: file,
                                 allowed: ["board", "imu", "mounting", "calibration", "filter", "orientation", "outputs", "logLevel"])
        var c = Configuration()
        if let board = try r.nonEmptyString("board") {
            if board != "auto", let known = knownBoards, !known.contains(board) {
                var message = "\"\(board)\" is not a known board; allowed values: auto, \(known.joined(separator: ", "))"
                if let near = nearest(board, in: known) { message += ". Did you mean '\(near)'?" }
                throw r.error("board", message)
            }
            c.board = board
        }
        if let imu = try r.object("imu", allowed: ["bus", "address", "part", "rate", "accelerometerRange", "gyroscopeRange", "interrupt", "fifoCompression"]) {
            c.imu = try decodeIMU(imu)
        }
        if let m = try r.object("mounting", allowed: ["x", "y", "z"]) {
            c.mounting = try decodeMounting(m)
        }
        c.calibrationFile = try r.path("calibration")
        if let f = try r.object("filter", allowed: ["kind", "beta", "timeConstant"]) {
            if let kind = try f.choice("kind", FilterSettings.Kind.allCases.map(\.rawValue)) { c.filter.kind = FilterSettings.Kind(rawValue: kind)! }
            c.filter.beta = try f.number("beta", in: 0...2, unit: "rad/s")
            c.filter.timeConstant = try f.number("timeConstant", in: 0.01...60, unit: "s")
            if c.filter.beta != nil, c.filter.kind != .madgwick {
                throw f.error("beta", "applies only to \"kind\": \"madgwick\"; the \(c.filter.kind.rawValue) filter takes timeConstant")
            }
            if c.filter.timeConstant != nil, c.filter.kind == .madgwick {
                throw f.error("timeConstant", "applies only to \"kind\": \"plumb\" or \"complementary\"; the madgwick filter takes beta")
            }
        }
        if let o = try r.object("orientation", allowed: OrientationSettings.keys) {
            c.orientation = try decodeOrientation(o)
        }
        if let o = try r.object("outputs", allowed: ["level", "kiosk", "leds", "dbus", "mqtt"]) {
            c.outputs = try decodeOutputs(o)
        }
        if let level = try r.choice("logLevel", LogLevel.allCases.map(\.rawValue)) { c.logLevel = LogLevel(rawValue: level)! }
        return c
    }

    /// Reads and decodes the file at `path`.
    public static func load(path: String, knownBoards: [String]? = nil) throws(ConfigurationError) -> Configuration {
        try decode(try readConfigurationText(path), file: path, knownBoards: knownBoards)
    }

    static func decodeIMU(_ r: ObjectReader) throws(ConfigurationError) -> IMUSettings {
        var s = IMUSettings()
        // The bus as 'plumb read --bus 1' or i2cdetect's "i2c-1" names it: say the path meant.
        if let node = r.node("bus") {
            var number: String?
            switch node.value {
            // The value, not its text: 1.0 is /dev/i2c-1, not /dev/i2c-1.0.
            case .number(let n, _): if let value = Int(exactly: n), value >= 0 { number = String(value) }
            case .string(let text):
                let digits = text.hasPrefix("i2c-") ? String(text.dropFirst(4)) : text
                if !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) { number = digits }
            default: break
            }
            if let number { throw r.error("bus", "\(describe(node)) is not a device path; write \"/dev/i2c-\(number)\"") }
        }
        s.bus = try r.path("bus")
        if let bus = s.bus, !bus.hasPrefix("/dev/i2c-") {
            throw r.error("bus", "\"\(bus)\" is not an I2C device; allowed: /dev/i2c-N (list them with i2cdetect -l)")
        }
        s.address = try decodeAddress(r, "address")
        if let part = try r.choice("part", ["auto"] + IMUSettings.parts) { s.part = part }
        if let rate = try r.number("rate", in: IMUSettings.rateRange, unit: "Hz") { s.rate = rate }
        if let range = try r.number("accelerometerRange", oneOf: IMUSettings.accelerometerRanges, unit: "g") { s.accelerometerRange = range }
        if let range = try r.number("gyroscopeRange", oneOf: IMUSettings.gyroscopeRanges, unit: "°/s") { s.gyroscopeRange = range }
        if let compression = try r.bool("fifoCompression") { s.fifoCompression = compression }
        if let node = r.node("interrupt") {
            switch node.value {
            case .string("board"): s.interrupt = .board
            case .string("poll"): s.interrupt = .poll
            case .object:
                let irq = try ObjectReader(node, path: r.childPath("interrupt"), file: r.file, allowed: ["chip", "line"])
                s.interrupt = .line(try Board.decodeInterrupt(irq))
            default:
                throw r.error("interrupt", "expected \"board\", \"poll\" or {\"chip\": ..., \"line\": ...}, found \(describe(node))")
            }
        }
        return s
    }

    static func decodeMounting(_ r: ObjectReader) throws(ConfigurationError) -> Mounting {
        let allowed = SignedAxis.allCases.map(\.rawValue)
        func axis(_ key: String, _ fallback: SignedAxis) throws(ConfigurationError) -> SignedAxis {
            guard let text = try r.choice(key, allowed) else { return fallback }
            return SignedAxis(rawValue: text)!
        }
        let m = Mounting(x: try axis("x", .plusX), y: try axis("y", .plusY), z: try axis("z", .plusZ))
        let axes = [("x", m.x), ("y", m.y), ("z", m.z)]
        for i in 0..<3 {
            for j in (i + 1)..<3 where axes[i].1.index == axes[j].1.index {
                throw r.error(axes[j].0, "\"\(axes[j].1.rawValue)\" uses the same sensor axis as mounting.\(axes[i].0) (\"\(axes[i].1.rawValue)\"); x, y and z must each name a different sensor axis")
            }
        }
        if m.determinant < 0 {
            throw ConfigurationError(file: r.file, position: r.node.position, keyPath: r.path,
                                     message: "x \(m.x.rawValue), y \(m.y.rawValue), z \(m.z.rawValue) is a mirror image, not a rotation; flip the sign of one axis (for example z \(flipped(m.z).rawValue))")
        }
        return m
    }

    static func decodeOrientation(_ r: ObjectReader) throws(ConfigurationError) -> OrientationSettings {
        var s = OrientationSettings()
        if let preset = try r.choice("preset", OrientationSettings.Preset.allCases.map(\.rawValue)) {
            s.preset = OrientationSettings.Preset(rawValue: preset)!
        }
        s.settleTime = try r.number("settleTime", in: 0...10, unit: "s")
        s.hysteresis = try r.number("hysteresis", in: 0...44, unit: "degrees")
        s.maxRotationRate = try r.number("maxRotationRate", in: 0...10_000, unit: "degrees per second")
        // The ranges of `plumb watch --max-wait`, `--dwell-margin` and `--dwell-max-rate`.
        s.maxWait = try r.number("maxWait", in: 0...60, unit: "s")
        s.dwellMargin = try r.number("dwellMargin", in: 0...44, unit: "degrees")
        s.dwellMaxRotationRate = try r.number("dwellMaxRotationRate", in: 0...10_000, unit: "degrees per second")
        // Without a time cap in either energy mode they would do nothing: say so rather than ignore them.
        if !(s.maxWait.map { $0 > 0 } ?? s.preset.hasTimeCap),
           let key = s.dwellMargin != nil ? "dwellMargin" : s.dwellMaxRotationRate != nil ? "dwellMaxRotationRate" : nil {
            throw r.error(key, s.maxWait == 0
                ? "acts only with a time cap, and \"maxWait\": 0 turns it off; set maxWait to the seconds to wait, or remove \(key)"
                : "acts only with a time cap, and the \(s.preset.rawValue) preset has none; add \"maxWait\": SECONDS (or use \"preset\": \"steady\", whose low-energy mode waits at most 0.6 s)")
        }
        if let e = try r.choice("lowEnergy", OrientationSettings.LowEnergy.allCases.map(\.rawValue)) {
            s.lowEnergy = OrientationSettings.LowEnergy(rawValue: e)!
        }
        if let node = r.node("interfaceOrientations") {
            let allowed = InterfaceOrientationName.allCases.map(\.rawValue)
            let path = r.childPath("interfaceOrientations")
            guard case .array(let elements) = node.value else {
                throw r.error("interfaceOrientations", "expected an array of: \(allowed.joined(separator: ", ")); found \(node.kindDescription)")
            }
            guard !elements.isEmpty else {
                throw r.error("interfaceOrientations", "must name at least one of: \(allowed.joined(separator: ", "))")
            }
            var result: [InterfaceOrientationName] = []
            for (i, element) in elements.enumerated() {
                guard case .string(let text) = element.value, let name = InterfaceOrientationName(rawValue: text) else {
                    var message = "\(describe(element)) is not one of: \(allowed.joined(separator: ", "))"
                    if case .string(let text) = element.value, let near = nearest(text, in: allowed) { message += ". Did you mean '\(near)'?" }
                    throw r.error(at: element, path: "\(path)[\(i)]", message)
                }
                guard !result.contains(name) else { throw r.error(at: element, path: "\(path)[\(i)]", "\"\(text)\" is listed twice") }
                result.append(name)
            }
            s.interfaceOrientations = result
        }
        return s
    }

    static func decodeOutputs(_ r: ObjectReader) throws(ConfigurationError) -> OutputSettings {
        var s = OutputSettings()
        if let l = try r.object("level", allowed: ["enabled", "image", "framebuffer"]), try l.bool("enabled") ?? true {
            guard let image = try l.path("image") else {
                throw ConfigurationError(file: l.file, position: l.node.position, keyPath: l.childPath("image"),
                                         message: "missing; required when outputs.level is enabled (a PNG or JPEG file)")
            }
            let fb = try l.path("framebuffer")
            if let fb, !fb.hasPrefix("/dev/fb") { throw l.error("framebuffer", "\"\(fb)\" is not a framebuffer; allowed: /dev/fbN") }
            s.level = LevelOutput(image: image, framebuffer: fb)
        }
        if let k = try r.object("kiosk", allowed: ["enabled", "method", "output", "command", "holdOff"]), try k.bool("enabled") ?? true {
            var kiosk = KioskOutput()
            if let m = try k.choice("method", KioskOutput.Method.allCases.map(\.rawValue)) { kiosk.method = KioskOutput.Method(rawValue: m)! }
            kiosk.output = try k.nonEmptyString("output")
            kiosk.command = try k.nonEmptyString("command")
            if let holdOff = try k.number("holdOff", in: 0...60, unit: "s") { kiosk.holdOff = holdOff }
            if kiosk.method == .command, kiosk.command == nil {
                throw ConfigurationError(file: k.file, position: k.node.position, keyPath: k.childPath("command"),
                                         message: "missing; required when outputs.kiosk.method is \"command\"")
            }
            if kiosk.method != .command, kiosk.command != nil {
                throw k.error("command", "applies only to \"method\": \"command\"; the \(kiosk.method.rawValue) method takes output")
            }
            s.kiosk = kiosk
        }
        if let e = try r.object("leds", allowed: ["enabled", "map"]), try e.bool("enabled") ?? true {
            let allowed = DeviceOrientationName.allCases.map(\.rawValue)
            guard let m = try e.object("map", allowed: allowed) else {
                throw ConfigurationError(file: e.file, position: e.node.position, keyPath: e.childPath("map"),
                                         message: "missing; required when outputs.leds is enabled, e.g. {\"portrait\": \"ACT\"}")
            }
            var map: [DeviceOrientationName: String] = [:]
            for key in m.keys {
                guard let led = try m.nonEmptyString(key) else { continue }
                guard !led.contains("/") else { throw m.error(key, "\"\(led)\" must be an LED name under /sys/class/leds, not a path") }
                map[DeviceOrientationName(rawValue: key)!] = led
            }
            guard !map.isEmpty else {
                throw ConfigurationError(file: m.file, position: m.node.position, keyPath: m.path,
                                         message: "must map at least one of: \(allowed.joined(separator: ", ")) to an LED name")
            }
            s.leds = LEDOutput(map: map)
        }
        if let d = try r.object("dbus", allowed: ["enabled", "bus"]), try d.bool("enabled") ?? true {
            var dbus = DBusOutput()
            if let bus = try d.nonEmptyString("bus"), bus != "system" {
                // D-Bus Specification, "Server Addresses": TRANSPORT:KEY=VALUE[,KEY=VALUE]...
                let parts = bus.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, DBusOutput.transports.contains(String(parts[0])),
                      parts[1].split(separator: ",").allSatisfy({ $0.contains("=") && !$0.hasPrefix("=") }) else {
                    throw d.error("bus", "\"\(bus)\" is not a D-Bus address; write \"system\" or TRANSPORT:KEY=VALUE, e.g. \"unix:path=/run/plumb/bus\"")
                }
                dbus.bus = bus
            }
            s.dbus = dbus
        }
        if let m = try r.object("mqtt", allowed: MQTTOutput.keys), try m.bool("enabled") ?? true {
            s.mqtt = try decodeMQTT(m, requireURL: true)
        }
        return s
    }

    /// What is wrong with a broker URL's `host[:port]` or `[IPv6]:port`, or nil: the rules of the
    /// daemon's own parse (PlumbMQTT's `MQTTEndpoint.parse`, which this module cannot import; the
    /// two are compared in `MQTTURLAgreementTests`). Checked only there, a port of 99999 or a URL
    /// with no host passed `plumb config check` and then stopped `plumb run`'s output with no file
    /// or line named.
    static func brokerAuthorityProblem(_ authority: String) -> String? {
        var host = Substring(authority)
        var port: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return "has an unclosed [ in the host" }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") { port = after.dropFirst() } else if !after.isEmpty { return "has text after the address" }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            port = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        if let port, !(Int32(port).map { (1...65535).contains($0) } ?? false) { return "has port '\(port)'; a port is 1...65535" }
        if host.isEmpty { return "names no host" }
        return nil
    }

    static func decodeMQTT(_ m: ObjectReader, requireURL: Bool) throws(ConfigurationError) -> MQTTOutput {
        var o = MQTTOutput()
        if let url = try m.nonEmptyString("url") {
            guard url.hasPrefix("mqtt://") || url.hasPrefix("mqtts://") else {
                throw m.error("url", "\"\(url)\" is not a broker URL; allowed: mqtt://host[:port] or mqtts://host[:port]")
            }
            let authority = url.split(separator: "/").dropFirst().first ?? ""
            guard !authority.contains("@") else {
                throw m.error("url", "must not hold credentials; give them as username and password")
            }
            guard !authority.isEmpty else { throw m.error("url", "\"\(url)\" names no host") }
            if let problem = brokerAuthorityProblem(String(authority)) { throw m.error("url", "\"\(url)\" \(problem)") }
            o.url = url
        } else if requireURL {
            throw ConfigurationError(file: m.file, position: m.node.position, keyPath: m.childPath("url"),
                                     message: "missing; required when \(m.path.isEmpty ? "MQTT" : m.path) is enabled (mqtt://host:1883 or mqtts://host:8883)")
        }
        if let prefix = try m.nonEmptyString("prefix") {
            guard !prefix.contains("+"), !prefix.contains("#"), !prefix.hasPrefix("/"), !prefix.hasSuffix("/") else {
                throw m.error("prefix", "\"\(prefix)\" must not contain + or # nor start or end with /")
            }
            o.prefix = prefix
        }
        if let qos = try m.number("qos", oneOf: [0, 1, 2], unit: "QoS") { o.qos = Int(qos) }
        o.clientID = try m.nonEmptyString("clientId")
        o.username = try m.nonEmptyString("username")
        o.password = try m.string("password")
        if o.password != nil, o.username == nil {
            throw m.error("password", "needs a username beside it")
        }
        o.caFile = try m.path("caFile")
        o.certFile = try m.path("certFile")
        o.keyFile = try m.path("keyFile")
        if o.certFile != nil, o.keyFile == nil {
            throw ConfigurationError(file: m.file, position: m.node.position, keyPath: m.childPath("keyFile"),
                                     message: "missing; a client certificate (certFile) needs its key")
        }
        if o.keyFile != nil, o.certFile == nil { throw m.error("keyFile", "applies only with certFile") }
        if let url = o.url, url.hasPrefix("mqtts://"), o.caFile == nil {
            throw ConfigurationError(file: m.file, position: m.node.position, keyPath: m.childPath("caFile"),
                                     message: "missing; required for mqtts:// (the CA certificate that signed the broker's)")
        }
        if let k = try m.number("keepAlive", in: 5...3600, unit: "s") {
            guard k == k.rounded() else { throw m.error("keepAlive", "must be a whole number of seconds") }
            o.keepAlive = Int(k)
        }
        if let q = try m.number("queueSize", in: 1...100_000, unit: "changes") {
            guard q == q.rounded() else { throw m.error("queueSize", "must be a whole number") }
            o.queueSize = Int(q)
        }
        if let g = try m.number("gravityRate", in: 0...100, unit: "Hz") { o.gravityRate = g }
        if let h = try m.bool("homeAssistant") { o.homeAssistant = h }
        if let d = try m.nonEmptyString("discoveryPrefix") { o.discoveryPrefix = d }
        if let r = try m.number("reconnectMinimum", in: 0.01...3600, unit: "s") { o.reconnectMinimum = r }
        if let r = try m.number("reconnectMaximum", in: 0.01...3600, unit: "s") { o.reconnectMaximum = r }
        if o.reconnectMaximum < o.reconnectMinimum {
            throw m.error("reconnectMaximum", "must be at least reconnectMinimum (\(format(o.reconnectMinimum)) s)")
        }
        return o
    }
}

extension MQTTOutput {
    /// Decodes a `--mqtt-config` file: one object with the keys of `outputs.mqtt`; `url` may be
    /// left out when the command line gives it.
    public static func decode(_ text: String, file: String) throws(ConfigurationError) -> MQTTOutput {
        let r = try ObjectReader(try parseJSON(text, file: file), path: "", file: file, allowed: keys)
        return try Configuration.decodeMQTT(r, requireURL: false)
    }

    /// Reads and decodes a `--mqtt-config` file.
    public static func load(path: String) throws(ConfigurationError) -> MQTTOutput {
        try decode(try readConfigurationText(path), file: path)
    }
}

/// The JSON tree of a configuration, board or MQTT settings file's text; a syntax error names
/// the line and column.
func parseJSON(_ text: String, file: String) throws(ConfigurationError) -> JSONNode {
    do { return try JSONParser.parse(text) } catch {
        throw ConfigurationError(file: file, position: error.position, keyPath: "", message: "syntax error: \(error.message)")
    }
}

private func flipped(_ axis: SignedAxis) -> SignedAxis {
    switch axis {
    case .plusX: .minusX; case .minusX: .plusX; case .plusY: .minusY
    case .minusY: .plusY; case .plusZ: .minusZ; case .minusZ: .plusZ
    }
}

/// `"text"` for strings, the kind otherwise.
private func describe(_ node: JSONNode) -> String {
    switch node.value {
    case .string(let text): "\"\(text)\""
    case .number(_, let text): text
    default: node.kindDescription
    }
}
