import PlumbDisplay
import PlumbDBus
import PlumbOrientation

/// What other programs hand Plumb as text: the output listings of `wlr-randr` and `xrandr --query`
/// (which rotation an output shows, which outputs exist) and their error text (the diagnosis of a
/// failed turn); and what the D-Bus side parses in Swift: the reply to power-profiles-daemon's
/// `ActiveProfile` Get (value, error name, error message as the C side's NUL-terminated buffers),
/// the claims iio-sensor-proxy clients make and drop by their bus names, the
/// `AccelerometerOrientation` strings, and a `plumb dbus --script`.
///
/// The first byte picks the parser; the rest is the text (an output name on the first line for
/// the listings). Beyond "no trap", each checks what its caller relies on, and the answers the
/// unit tests expect for the tools' real output (the committed seeds, fuzz/corpus/listings).
public enum ListingHarness {
    public static func run(_ input: FuzzInput) {
        switch input.byte() % 6 {
        case 0: listing(input, kind: .wlrRandr)
        case 1: listing(input, kind: .xrandr)
        case 2: diagnosis(input)
        case 3: powerProfiles(input)
        case 4: claims(input)
        default: script(input)
        }
    }

    static func text(_ bytes: some Collection<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    /// An output name (the first line), then a listing.
    static func listing(_ input: FuzzInput, kind: KioskBackend.Kind) {
        let all = input.rest()
        let newline = all.firstIndex(of: 0x0A) ?? all.endIndex
        let name = text(all[..<newline])
        let listing = text(all[min(newline + 1, all.endIndex)...])
        let backend = KioskBackend(kind: kind, output: name.isEmpty ? nil : name)
        let shown = backend.shownRotation(inListing: listing)
        let program = kind == .xrandr ? "xrandr" : "wlr-randr"
        let names = RotationToolDiagnosis.outputNames(program: program, listing: listing)
        for n in names {
            // On scalars: the tools print bytes (a Character can hide a blank or a line end).
            check(!n.isEmpty && !n.unicodeScalars.contains { $0 == " " || $0 == "\n" || $0 == "\r" } && n.unicodeScalars.first != "\t",
                  "\(program) output name \(debug(n))")
        }
        if let shown {
            check(!shown.unicodeScalars.contains { $0 == "\n" || $0 == "\r" }, "\(program) shows \(debug(shown)) on \(backend.outputName)")
            // The output is one the listing names (a wlr-randr head line, an xrandr connected line).
            check(names.contains(backend.outputName), "\(backend.outputName) shows \(shown) but the listing names \(names)")
            if kind == .xrandr { check(["normal", "left", "inverted", "right"].contains(shown), "xrandr rotation \(debug(shown))") }
        }
        for orientation in [InterfaceOrientation.portrait, .landscapeLeft, .portraitUpsideDown, .landscapeRight] {
            _ = backend.shownWord(for: orientation)
        }
        // The unit tests' listings (KioskVerifyTests): wlr-randr 0.2.0 and xrandr 1.5 layouts.
        if kind == .wlrRandr, listing == ListingSeeds.wlrRandr(transform: "90") {
            if name == "HDMI-A-1" { check(shown == "90", "wlr-randr's HDMI-A-1 transform 90 read as \(shown ?? "nil")") }
            if name == "DSI-1" { check(shown == "normal", "wlr-randr's DSI-1 read as \(shown ?? "nil")") }
            if name == "HDMI-A-2" { check(shown == nil, "a missing head read as \(shown ?? "nil")") }
            check(names == ["DSI-1", "HDMI-A-1"], "wlr-randr heads \(names)")
        }
        if kind == .xrandr, listing == ListingSeeds.xrandrQuery {
            let expected: [String: String?] = ["HDMI-1": "left", "HDMI-2": "normal", "HDMI-3": nil, "DSI-1": nil]
            if let want = expected[name] { check(shown == want, "xrandr's \(name) read as \(shown ?? "nil"), not \(want ?? "nil")") }
            check(names == ["HDMI-1", "HDMI-2", "HDMI-3"], "xrandr connected outputs \(names)")
        }
    }

    /// A tool's output after a failed turn.
    static func diagnosis(_ input: FuzzInput) {
        let flags = input.byte()
        let program = flags & 1 == 0 ? "wlr-randr" : "xrandr"
        let status = Int32(Int8(bitPattern: input.byte()))
        let said = text(input.rest())
        let outputs = flags & 2 == 0 ? nil : RotationToolDiagnosis.outputNames(program: program, listing: said)
        let output: String? = flags & 4 == 0 ? "HDMI-A-1" : outputs?.first
        let d = RotationToolDiagnosis.diagnose(program: program, output: output, text: said, status: status,
                                               shown: "\(program) --output \(output ?? "?")", outputs: outputs,
                                               environment: flags & 8 == 0 ? [:] : ["WAYLAND_DISPLAY": "wayland-1", "DISPLAY": ":0"])
        check(!d.message.isEmpty, "an empty diagnosis of \(debug(said))")
        let despite = RotationToolDiagnosis.failedDespiteSuccess(program: program, text: said)
        check(!despite || program == "xrandr", "\(program) failed despite success")
        if program == "xrandr", said == "warning: output HDMI-1 not found; ignoring\n" {
            check(despite, "xrandr's 'not found; ignoring' passed for a turn")
        }
    }

    /// The reply to the `ActiveProfile` Get: the result, then the three buffers (64, 128 and 256
    /// bytes, as the reader passes them) filled from the input.
    static func powerProfiles(_ input: FuzzInput) {
        let r: Int32
        switch input.byte() % 4 {
        case 0: r = 0
        case 1: r = -Int32(input.byte())
        default: r = Int32(bitPattern: input.uint32())
        }
        func buffer(_ size: Int) -> [CChar] {
            let n = Int(input.byte())
            var b = [CChar](repeating: 0, count: size)
            for (i, byte) in input.take(min(n, size)).enumerated() { b[i] = CChar(bitPattern: byte) }
            return b
        }
        let value = buffer(64), errorName = buffer(128), message = buffer(256)
        let outcome = PowerProfilesReader.interpret(result: r, value: value, errorName: errorName, message: message,
                                                    service: .upower, bus: "the system bus")
        switch outcome {
        case .answer(let answer):
            check(r >= 0, "result \(r) answered \(answer)")
            guard case .profile(let profile) = answer else { fuzzFailure("a reply answered \(answer)") }
            check(!profile.utf8.contains(0) && profile.utf8.count <= 64 * 3, "profile \(debug(profile)) from a 64-byte buffer")
            let bytes = value.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            if bytes == Array("power-saver".utf8) { check(profile == "power-saver", "power-saver read as \(profile)") }
        case .tryNext, .dropConnection:
            check(r < 0, "result \(r) read as \(outcome)")
        case .fail(let error):
            check(r < 0, "result \(r) failed: \(error)")
            check(!error.description.isEmpty, "an empty error")
        }
        let name = text(errorName.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
        if r < 0, name == "org.freedesktop.DBus.Error.ServiceUnknown" { check(outcome == .tryNext, "ServiceUnknown gave \(outcome)") }
        if r < 0, name == "org.freedesktop.DBus.Error.AccessDenied" {
            guard case .fail(let e) = outcome, e.kind == .denied else { fuzzFailure("AccessDenied gave \(outcome)") }
        }
    }

    /// Claims and releases by bus names, and clients leaving the bus, against a plain model of
    /// who holds what (iio-sensor-proxy's one entry per sender).
    static func claims(_ input: FuzzInput) {
        // A few bus names, from the input (the bus hands over any string).
        let pool = (0..<4).map { _ in text(input.take(Int(input.byte() % 8))) }
        var claims = SensorClaims()
        var model: [ProxySensor: Set<String>] = [:]
        while !input.isEmpty {
            let op = input.byte()
            let sensor = ProxySensor.allCases[Int(op >> 2) % ProxySensor.allCases.count]
            let client = pool[Int(op >> 4) % pool.count]
            switch op & 3 {
            case 0, 1:
                let first = claims.claim(sensor, by: client)
                check(first == (model[sensor] ?? []).isEmpty, "claim of \(sensor) by \(debug(client)) said first \(first)")
                model[sensor, default: []].insert(client)
            case 2:
                let last = claims.release(sensor, by: client)
                let held = model[sensor]?.contains(client) ?? false
                model[sensor]?.remove(client)
                check(last == (held && (model[sensor] ?? []).isEmpty), "release of \(sensor) by \(debug(client)) said last \(last)")
            default:
                let emptied = claims.removeClient(client)
                var expected: [ProxySensor] = []
                for s in ProxySensor.allCases where model[s]?.remove(client) != nil && (model[s] ?? []).isEmpty { expected.append(s) }
                check(emptied == expected, "\(debug(client)) left: \(emptied) emptied, not \(expected)")
            }
            for s in ProxySensor.allCases {
                check(claims.clients(of: s) == (model[s] ?? []), "\(s) held by \(claims.clients(of: s)), not \(model[s] ?? [])")
                check(claims.isClaimed(s) == !(model[s] ?? []).isEmpty, "\(s) claimed \(claims.isClaimed(s))")
            }
        }
    }

    /// A `plumb dbus --script`, and the orientation strings the property carries.
    static func script(_ input: FuzzInput) {
        let source = text(input.rest())
        if let orientation = AccelerometerOrientation(rawValue: source) {
            check([0, 90, 180, 270].contains(orientation.compositorRotationDegrees), "\(orientation) turns \(orientation.compositorRotationDegrees)°")
            check(orientation.rawValue == source, "\(debug(source)) read as \(orientation.rawValue)")
        }
        do throws(ScriptedOrientationSource.ParseError) {
            let steps = try ScriptedOrientationSource.parse(source)
            check(steps.count == source.split(separator: ",", omittingEmptySubsequences: false).count, "\(steps.count) steps in \(debug(source))")
            for step in steps {
                check(step.duration.isFinite && step.duration >= 0 && step.duration <= ScriptedOrientationSource.maximumStepSeconds,
                      "a step of \(step.duration) s in \(debug(source))")
            }
            if source == ListingSeeds.script {
                check(steps == [.init(.normal, for: 2), .init(.leftUp, for: 1.5), .init(.bottomUp, for: 2)], "\(source) read as \(steps)")
            }
        } catch {
            check(!error.description.isEmpty, "an empty parse error")
        }
    }

    static func debug(_ s: some StringProtocol) -> String { String(reflecting: String(s)) }

    static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fuzzFailure(message()) }
    }
}

/// Real examples of the tools' output, for the seed corpus (fuzz-seeds) and the harness's known answers.
public enum ListingSeeds {
    /// wlr-randr 0.2.0's listing (print_state in wlr-randr's main.c: a line per head starting
    /// with its name, details indented), as KioskVerifyTests has it.
    public static func wlrRandr(transform: String) -> String {
        """
        DSI-1 "Raspberry Pi 7inch"
          Enabled: yes
          Modes:
            800x480 px, 60.000000 Hz (preferred, current)
          Position: 0,0
          Transform: normal
          Scale: 1.000000
        HDMI-A-1 "Iiyama North America PL2492H 1234 (HDMI-A-1)"
          Physical size: 530x300 mm
          Enabled: yes
          Modes:
            1920x1080 px, 60.000000 Hz (preferred, current)
            1280x720 px, 60.000000 Hz
          Position: 800,0
          Transform: \(transform)
          Scale: 1.000000

        """
    }

    /// xrandr 1.5's `--query` (xrandr.c: an output's summary line, geometry and the rotation word
    /// only while it is on), as KioskVerifyTests has it.
    public static let xrandrQuery = """
        Screen 0: minimum 320 x 200, current 1080 x 1920, maximum 7680 x 7680
        HDMI-1 connected primary 1080x1920+0+0 left (normal left inverted right x axis y axis) 527mm x 296mm
           1920x1080     60.00*+  50.00
        HDMI-2 connected 1920x1080+1080+0 (normal left inverted right x axis y axis) 527mm x 296mm
        HDMI-3 connected (normal left inverted right x axis y axis)
        DSI-1 disconnected (normal left inverted right x axis y axis)
        """

    /// `plumb dbus --script`'s example (ScriptedOrientationSource.parse).
    public static let script = "normal:2,left-up:1.5,bottom-up:2"
}
