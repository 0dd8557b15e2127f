import Foundation
import PlumbDisplay
import PlumbFusion
import PlumbHAL
import PlumbLinux

/// `plumb led`: shows the tilt on LEDs: sysfs LEDs, GPIO lines or the Sense HAT's matrix.
enum LED {
    static let spec = CommandSpec(
        name: "led",
        abstract: "Show which way is up on LEDs: sysfs LEDs, GPIO lines or the Sense HAT's 8x8 matrix.",
        discussion: """
            --mode faces lights one LED per face (up to six: +x, -x, +y, -y, +z, -z up); --mode arrow \
            uses four (up, right, down, left) as an arrow to the high side. The Sense HAT shows an arrow \
            that keeps pointing up (--mode arrow) or a bubble level (--mode bubble). Without --simulate or \
            --angle it reads the board's IMU, found and run as 'plumb run' would with the configuration \
            (--config; the board, the IMU, calibration, mounting, filter, orientation tunings and \
            orientation.lowEnergy; --bus and --address over it), paced by the wall clock. Ctrl-C, \
            SIGTERM or a hangup (SIGHUP) stops it, as the end does: the LEDs are turned off and sysfs \
            LEDs get their triggers back (ACT blinks for the SD card again), the Sense HAT matrix is left \
            dark (only --angle's still picture stays at its end). \
            A reader that goes away (plumb led | head -1) stops it the same way, then it ends as a filter \
            does (SIGPIPE) with a line on standard error. An LED is written only when it turns on or off.
            """,
        options: [
            .option("backend", value: "NAME", help: "sysfs (default), gpio or sensehat."),
            .option("mode", value: "MODE", help: "faces or arrow (sysfs, gpio; default faces); arrow or bubble (sensehat; default arrow)."),
            .option("leds", value: "LIST", help: "sysfs LED names in order, comma-separated (such as ACT,PWR)."),
            .option("sysfs-root", value: "DIR", help: "The LED class directory (default /sys/class/leds)."),
            .option("lines", value: "LIST", help: "GPIO lines in order, comma-separated: names (GPIO5) or, with --chip, offsets."),
            .option("chip", value: "CHIP", help: "The GPIO chip for --lines (gpiochip0, a number or a label)."),
            .flag("active-low", help: "The GPIO LEDs light at the low level."),
            .option("fb", value: "DEV", help: "The Sense HAT framebuffer: a path, a number or a name (default: the one named \"RPi-Sense FB\")."),
            .option("fb-file", value: "PATH", help: "A plain 128-byte file standing in for the Sense HAT framebuffer."),
            .option("angle", value: "DEG", help: "A fixed tilt: the board turned DEG clockwise in its screen plane."),
            .flag("simulate", help: "Read gravity from the simulated IMU through fusion."),
            .option("profile", value: "NAME", help: "Simulated motion: rest, tour, rotation, shaking, tapping (default tour)."),
            .option("duration", value: "SECONDS", help: "Seconds to run: simulated (default: the profile's length, or 60), or wall-clock on the board's IMU (default: until interrupted)."),
            .option("rate", value: "HZ", help: "Updates per second (default 10)."),
            .option("frames", value: "N", help: "Stop after N updates (default: 1 with --angle, else until the source ends)."),
            .flag("no-pacing", help: "Do not wait between updates (simulations and tests)."),
        ] + LiveSensor.options)

    static let command = Command(spec) { args, context in try run(args, context) }

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws {
        let backend = try args.choice("backend", ["sysfs", "gpio", "sensehat"]) ?? "sysfs"
        let rate = try args.double("rate", in: 0.1...1000) ?? 10
        let source: any GravitySource
        if args.has("simulate") {
            try LiveSensor.rejectOptions(args, besides: "simulate")
            source = try SimulatedGravity(profile: args.string("profile") ?? "tour", duration: try args.double("duration", in: 0...1e6),
                                          frameRate: rate, algorithm: .default)
        } else if let angle = try args.double("angle", in: -3600...3600) {
            try LiveSensor.rejectOptions(args, besides: "angle")
            source = FixedGravity(.turned(by: angle * .pi / 180), name: "turned \(angle)°")
        } else {
            if args.string("profile") != nil { throw CLIError.usage("'--profile' needs '--simulate'.") }
            if args.has("no-pacing") { throw CLIError.usage("'--no-pacing' is for '--simulate' and '--angle'; the board's IMU is paced by the wall clock.") }
            let duration = try args.double("duration", in: 0...1e7)
            let found = try LiveSensor.find(args, context: context, alternatives: "--simulate or --angle DEG")
            source = try LiveSensor.gravity(found, context: context, command: "led", frameRate: rate, duration: duration)
        }
        let isLive = source is LiveGravity
        // The simulator and --angle stop on SIGINT, SIGTERM and SIGHUP as the board's IMU does
        // (LiveSensor.gravity), and the LEDs are put back as at the end: killed, they stayed lit.
        let stoppable = !isLive && context.catchesSignals ? StoppableGravity(source, shouldStop: try LiveSensor.stopOnSignals()) : nil
        let frameSource: any GravitySource = stoppable ?? source
        // The board's IMU is stopped however the run ends.
        defer {
            if let live = source as? LiveGravity {
                do { try live.finish() } catch { context.err.line("plumb led: \(error)") }
            }
        }
        let frames = try args.int("frames", in: 1...10_000_000) ?? (args.has("simulate") || isLive ? nil : 1)
        let clock: any MonotonicClock = args.has("no-pacing") ? VirtualClock() : SystemClock()
        let pacer = FramePacer(clock: clock, rate: rate)

        if backend == "sensehat" {
            let mode = SenseHATMatrix.Mode(rawValue: try args.choice("mode", SenseHATMatrix.Mode.allCases.map(\.rawValue)) ?? "arrow") ?? .arrow
            let framebuffer = try openSenseHAT(args)
            defer { framebuffer.close() }
            let g = framebuffer.geometry
            guard g.width == 8, g.height == 8, g.bitsPerPixel == 16 else {
                throw CLIError.failure("\(framebuffer.path) is \(g.width)x\(g.height) at \(g.bitsPerPixel) bits, not the Sense HAT's 8x8 RGB565 matrix")
            }
            let display = try FramebufferDisplay(framebuffer)
            let matrix = SenseHATMatrix(mode: mode)
            // The matrix is left dark however the run ends (the simulation's or the board's
            // --duration, Ctrl-C, SIGTERM, SIGHUP, a failed read), as the other backends' LEDs are
            // turned off; only --angle's still picture stays, unless a signal stopped it.
            let keepsPicture = source is FixedGravity
            func darken() throws {
                guard !keepsPicture || stoppable?.wasStopped == true else { return }
                display.nextSurface().fill(.black)
                try display.present()
            }
            var count = 0
            do {
                while frames.map({ count < $0 }) ?? true {
                    guard let gravity = try frameSource.nextGravity() else { break }
                    matrix.draw(gravity, into: display.nextSurface())
                    try display.present()
                    count += 1
                    if frames.map({ count < $0 }) ?? true { pacer.waitForNextFrame() }
                }
            } catch {
                do { try darken() } catch let dark {
                    context.err.line("plumb led: could not turn the Sense HAT matrix off (\(framebuffer.path)): \(dark)")
                }
                throw error
            }
            try darken()
            context.out.line("\(framebuffer.path): \(count) frame\(count == 1 ? "" : "s") of the \(mode.rawValue) (\(source.name))")
            return
        }

        let mode = LEDMode(rawValue: try args.choice("mode", LEDMode.allCases.map(\.rawValue)) ?? "faces") ?? .faces
        guard let list = args.string(backend == "sysfs" ? "leds" : "lines") else {
            throw CLIError.usage(backend == "sysfs" ? "'--backend sysfs' needs '--leds NAMES'." : "'--backend gpio' needs '--lines LIST'.")
        }
        let items = list.split(separator: ",").map(String.init)
        // A usage error before any LED or line is opened: a missing LED would hide it.
        let needed = mode == .faces ? 6 : 4
        guard (1...needed).contains(items.count) else {
            throw CLIError.usage("--mode \(mode.rawValue) drives 1 to \(needed) LEDs; \(items.count) were given.")
        }
        let leds: OpenedLEDs
        do {
            leds = try open(items, backend: backend, args: args, err: context.err)
        } catch let error as GPIOError {
            let fix: String? = switch error.kind {
            case .permissionDenied where backend == "sysfs":
                "Install the udev rules that make the LED files group-writable ('sudo scripts/install'), or run with sudo."
            case .permissionDenied:
                "Add yourself to the gpio group: 'sudo usermod -aG gpio $USER', then log out and in again (or run with sudo)."
            case .lineNotFound where backend == "sysfs":
                "Give --leds names from 'ls /sys/class/leds' (a Raspberry Pi has ACT and PWR; older kernels call them led0 and led1)."
            case .chipNotFound:
                "Give --chip a chip 'gpiodetect' lists, by name (gpiochip0) or label (pinctrl-bcm2711, pinctrl-rp1 on a Pi 5)."
            case .lineNotFound:
                "Give --lines offsets or names that 'gpioinfo' shows for the chip."
            default: nil
            }
            throw CLIError.failure(error.message, fix: fix)
        }
        // After drive's own defer has turned them off, however it ends.
        defer { leds.giveBack(err: context.err) }
        do {
            try drive(frameSource, outputs: leds.outputs, mode: mode, frames: frames, pacer: pacer, context: context)
        } catch var error as OutputWriteError {
            // `plumb led | head -1`: ended as SIGTERM ends it (the defers above), then as any
            // command whose reader went away (``PlumbTool``: SIGPIPE), with a line saying so.
            error.cleanup = leds.taken.isEmpty ? "the LEDs are off" : "the LEDs are off and their triggers given back"
            throw error
        }
    }

    /// The LEDs `open` opened, and the sysfs LEDs among them taken over (``SysfsLED/takeOver()``,
    /// as `plumb run`'s `outputs.leds` does) to be given back.
    struct OpenedLEDs {
        var outputs: [any DigitalOutput] = []
        var taken: [(led: SysfsLED, saved: SysfsLED.SavedState)] = []

        /// Gives each sysfs LED its trigger (or, with none, its brightness) back; a failure is
        /// told on standard error and the others are still given back.
        func giveBack(err: Output) {
            for (led, saved) in taken {
                do { try led.giveBack(saved) } catch {
                    err.line("plumb led: could not give \(led.name) its trigger back: \(error.message)")
                }
            }
        }
    }

    /// The LEDs `items` name: sysfs LED names (taken over: trigger none, the old one saved), or
    /// GPIO lines (offsets on `--chip`, else names). If one cannot be opened, the sysfs LEDs
    /// already taken are given back before the error is thrown.
    static func open(_ items: [String], backend: String, args: ParsedArguments, err: Output) throws -> OpenedLEDs {
        var opened = OpenedLEDs()
        if backend == "sysfs" {
            let root = args.string("sysfs-root") ?? "/sys/class/leds"
            do {
                for name in items {
                    let led = try SysfsLED(name, root: root, clearTrigger: false)
                    opened.taken.append((led, try led.takeOver()))
                    opened.outputs.append(led)
                }
            } catch {
                opened.giveBack(err: err)
                throw error
            }
        } else {
            let chip = args.string("chip")
            for item in items {
                let line: GPIOLineSelector.Line = chip != nil && UInt32(item) != nil ? .offset(UInt32(item)!) : .name(item)
                opened.outputs.append(try GPIODOutput(GPIOLineSelector(chip: chip, line: line), activeLow: args.has("active-low")))
            }
        }
        return opened
    }

    /// Shows each gravity reading on `outputs` until `frames` or the source ends (the board's IMU
    /// ends on SIGINT/SIGTERM/SIGHUP or --duration; the others on those signals through
    /// ``StoppableGravity``) or standard output cannot be written (``OutputWriteError``, thrown),
    /// printing each change; every LED is off afterwards. An LED is written
    /// only when it turns on or off (``ChangedOnlyOutput``, as `plumb run`'s `outputs.leds`): 4 LEDs
    /// at 10 Hz were 40 opens, writes and closes a second.
    static func drive(_ source: any GravitySource, outputs given: [any DigitalOutput], mode: LEDMode, frames: Int?,
                      pacer: FramePacer, context: CommandContext) throws {
        let outputs: [any DigitalOutput] = given.map(ChangedOnlyOutput.init)
        let names = mode == .faces ? TiltIndicator.faceNames : TiltIndicator.arrowNames
        var last: [Bool]?
        var count = 0
        defer {
            for output in outputs {
                do { try output.set(false) } catch { context.err.line("plumb led: could not turn an LED off: \(error.message)") }
            }
        }
        while frames.map({ count < $0 }) ?? true {
            guard let gravity = try source.nextGravity() else { break }
            do {
                try TiltIndicator.show(gravity, on: outputs, mode: mode)
            } catch {
                throw CLIError.failure(error.message)
            }
            let lit = mode == .faces ? names.indices.map { $0 == TiltIndicator.upFace(gravity) } : TiltIndicator.arrow(gravity)
            let shown = Array(lit.prefix(outputs.count))
            if shown != last {
                let on = zip(names, shown).filter(\.1).map(\.0)
                context.out.line("\(Kiosk.seconds(gravity.timestampNanoseconds)) s  \(on.isEmpty ? "(none)" : on.joined(separator: ","))")
                // A reader gone (EPIPE) or a full disk ends the run through the defer above.
                try context.out.send()
                last = shown
            }
            count += 1
            if frames.map({ count < $0 }) ?? true { pacer.waitForNextFrame() }
        }
    }

    static func openSenseHAT(_ args: ParsedArguments) throws(CLIError) -> Framebuffer {
        // A path, a number or a name, as 'plumb level --fb' takes it.
        let given = try args.string("fb").map(Level.framebufferPath)
        do {
            if let file = args.string("fb-file") {
                return try Framebuffer(file: file, geometry: FramebufferGeometry(
                    name: "RPi-Sense FB", width: 8, height: 8, bitsPerPixel: 16,
                    red: .init(offset: 11, length: 5), green: .init(offset: 5, length: 6), blue: .init(offset: 0, length: 5)))
            }
            let path: String
            if let given {
                path = given
            } else {
                path = try Framebuffer.find(named: "RPi-Sense FB")
            }
            return try Framebuffer(device: path, allowResize: false)
        } catch {
            throw .failure(error.message, fix: error.fix)
        }
    }
}
