import Foundation
import PlumbDisplay
import PlumbDrivers
import PlumbFusion
import PlumbOrientation
import PlumbSimulation
import PlumbHAL
import PlumbLinux

/// `plumb level`: keeps a picture level on a framebuffer, in a PNG snapshot or in the terminal.
enum Level {
    static let spec = CommandSpec(
        name: "level",
        abstract: "Keep a picture level as the board turns (framebuffer, PNG snapshot or terminal preview).",
        discussion: """
            The picture turns back by the angle the board turns, as the seed app's \
            atan2(gravity.x, gravity.y) − π. With no --image it shows a test pattern. \
            --angle fixes the angle (the picture turned DEG clockwise); --simulate reads the \
            simulated IMU through fusion. Without either it reads the board's IMU, found and run as \
            'plumb run' would with the configuration (--config; the board, the IMU, calibration, \
            mounting, filter, orientation tunings and orientation.lowEnergy; --bus and --address over \
            it), paced by the wall clock, and outputs.level gives the picture and the framebuffer that \
            --image and --fb leave out. Ctrl-C, SIGTERM or a hangup (SIGHUP) stops it (the board's IMU, \
            --simulate or --angle) and puts the console or the terminal back. The terminal preview is \
            paced to --rate by the wall clock, also when standard output is a file or a pipe.
            """,
        options: [
            .option("image", value: "FILE", help: "A JPEG or PNG to show (default: outputs.level.image on the board's IMU, else the test pattern)."),
            .option("fb", value: "DEV", help: "Framebuffer: a path, a number or a name such as \"RPi-Sense FB\" (default: outputs.level's or the board's on the board's IMU, else /dev/fb0)."),
            .option("png", value: "FILE", help: "Write the last frame to a PNG file instead of a framebuffer."),
            .flag("terminal", help: "Draw a live preview in the terminal (Unicode half blocks, 24-bit colour)."),
            .option("size", value: "WxH", help: "Picture size for --png (default 800x480) or cells for --terminal (default: the terminal's)."),
            .option("angle", value: "DEG", help: "Draw at this fixed angle, clockwise in degrees."),
            .flag("simulate", help: "Read gravity from the simulated IMU through fusion."),
            .option("profile", value: "NAME", help: "Simulated motion: rest, tour, rotation, shaking, tapping (default tour)."),
            .option("duration", value: "SECONDS", help: "Seconds to run: simulated (default: the profile's length, or 60), or wall-clock on the board's IMU (default: until interrupted)."),
            .option("filter", value: "NAME", help: "Fusion filter for --simulate: plumb (default), madgwick, complementary (the board's IMU uses the configuration's)."),
            .option("scale", value: "MODE", help: "fit (letterbox, default) or fill (crop)."),
            .option("background", value: "COLOR", help: "Colour around the picture, #rrggbb (default #000000)."),
            .option("frames", value: "N", help: "Stop after N frame times (default: 1 for --png and a fixed angle, else run until interrupted)."),
            .option("rate", value: "HZ", help: "Frames per second to pace to (default 60; 15 in the terminal)."),
            .option("threshold", value: "DEG", help: "Redraw only when the angle moves more than this (default 0.25)."),
        ] + LiveSensor.options)

    static let command = Command(spec) { args, context in try run(args, context) }

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws {
        let outputs = [args.string("fb") != nil, args.string("png") != nil, args.has("terminal")].filter { $0 }.count
        guard outputs <= 1 else { throw CLIError.usage("Give only one of '--fb', '--png' and '--terminal'.") }
        if args.string("png") == "" { throw CLIError.usage("'--png' needs a file name, such as --png level.png.") }
        if args.string("angle") != nil && args.has("simulate") {
            throw CLIError.usage("Give either '--angle' or '--simulate', not both.")
        }
        var options = LevelRenderer.Options()
        options.scaleMode = try args.choice("scale", ScaleMode.allCases.map(\.rawValue)).flatMap(ScaleMode.init(rawValue:)) ?? .fit
        if let text = args.string("background") {
            guard let colour = RGBA(hex: text) else {
                throw CLIError.usage("The value '\(text)' is invalid for '--background': expected #rrggbb.")
            }
            options.background = colour
        }
        if let threshold = try args.double("threshold", in: 0...180) { options.redrawThreshold = threshold * .pi / 180 }
        let fixedAngle = try args.double("angle", in: -3600...3600)
        let size = try args.string("size").map(BenchRender.parseSize)

        let rate = try args.double("rate", in: 0.1...1000) ?? (args.has("terminal") ? 15 : 60)
        // The board's IMU unless --simulate or --angle: its configuration (not the sensor yet).
        var found: LiveSensor.Found?
        if !args.has("simulate"), fixedAngle == nil {
            if args.string("profile") != nil || args.string("filter") != nil {
                throw CLIError.usage("'--profile' and '--filter' need '--simulate'.")
            }
            found = try LiveSensor.find(args, context: context, alternatives: "--simulate or --angle DEG")
        }
        let picture = self.picture(args, live: found)
        // The picture first: a bad file fails before the sensor is touched.
        let image = try loadImage(picture.image, fromConfiguration: args.string("image") == nil ? found?.setup.path : nil)
        var source: any GravitySource
        if let found {
            source = try LiveSensor.gravity(found, context: context, command: "level", frameRate: rate,
                                            duration: try args.double("duration", in: 0...1e7))
        } else if let angle = fixedAngle {
            if args.string("profile") != nil || args.string("filter") != nil {
                throw CLIError.usage("'--profile' and '--filter' need '--simulate'.")
            }
            try LiveSensor.rejectOptions(args, besides: "angle")
            if args.string("duration") != nil { throw CLIError.usage("'--duration' needs '--simulate' or the board's IMU, not '--angle'.") }
            // The picture is drawn turned by `angle` clockwise: the gravity of a device turned back by as much.
            source = FixedGravity(.turned(by: -angle * .pi / 180), name: "fixed \(angle)°")
        } else {
            try LiveSensor.rejectOptions(args, besides: "simulate")
            let algorithm = FusionAlgorithm(rawValue: try args.choice("filter", FusionAlgorithm.allCases.map(\.rawValue)) ?? "") ?? .default
            source = try SimulatedGravity(profile: args.string("profile") ?? "tour", duration: try args.double("duration", in: 0...1e6),
                                          frameRate: rate, algorithm: algorithm)
        }
        let isFixed = fixedAngle != nil
        let live = source as? LiveGravity
        let isLive = live != nil
        // The simulator and --angle stop on SIGINT, SIGTERM and SIGHUP as the board's IMU does
        // (LiveSensor.gravity): the console and the terminal are put back as at the end.
        let stoppable = !isLive && context.catchesSignals
        if stoppable { source = StoppableGravity(source, shouldStop: try LiveSensor.stopOnSignals()) }
        // The board's IMU is stopped however the session ends (a failed frame included).
        defer {
            if let live {
                do { try live.finish() } catch { context.err.line("plumb level: \(error)") }
            }
        }

        if let path = args.string("png") {
            let (width, height) = size ?? (800, 480)
            let display = OffscreenDisplay(width: width, height: height)
            let session = LevelSession(renderer: LevelRenderer(image: image ?? TestPattern.image(width: width, height: height),
                                                               screenWidth: width, screenHeight: height, options: options),
                                       display: display, source: source, pacer: FramePacer(clock: isLive ? SystemClock() : VirtualClock(), rate: rate))
            try session.run(frames: try args.int("frames", in: 1...10_000_000) ?? (isFixed || isLive ? 1 : nil))
            do {
                try ImageFile.savePNG(display.buffer.surface.snapshot(), to: path)
            } catch {
                throw CLIError.failure(error.description, fix: "Choose a writable path for --png.")
            }
            context.out.line("wrote \(path): \(width)x\(height), angle \(degrees(session.angle ?? 0))° (\(source.name))")
            return
        }

        if args.has("terminal") {
            let cells = size ?? TerminalSize.of(fd: 1).map { ($0.columns, max(1, $0.rows - 1)) } ?? (80, 24)
            // A cell is a few bytes of escape codes per frame: 1000×1000 is already megabytes a frame.
            guard cells.0 <= 1000, cells.1 <= 1000 else {
                throw CLIError.usage("The value '\(cells.0)x\(cells.1)' is too large for '--size' with '--terminal': at most 1000x1000 cells.")
            }
            let preview = TerminalPreview(columns: cells.0, rows: cells.1) { text in
                context.out.write(text)
                context.out.flush()
            }
            let renderer = LevelRenderer(image: image ?? TestPattern.image(width: preview.pixelWidth, height: preview.pixelHeight),
                                         screenWidth: preview.pixelWidth, screenHeight: preview.pixelHeight, options: options)
            let frames = try args.int("frames", in: 1...10_000_000) ?? (isFixed ? 1 : nil)
            // Paced to --rate by the wall clock even when standard output is a file or a pipe: in
            // virtual time a long --duration wrote megabytes a second at a full core.
            let session = LevelSession(renderer: renderer, display: preview, source: source, pacer: FramePacer(clock: SystemClock(), rate: rate))
            if context.outputIsTerminal {
                context.out.write(TerminalPreview.begin)
                TerminalCleanup.onExit(write: Array(TerminalPreview.end.utf8))
            }
            if isLive || stoppable { try LiveSensor.reclaimSignals() }
            defer {
                if context.outputIsTerminal { TerminalCleanup.runNow() } else { context.out.line() }
            }
            try session.run(frames: frames)
            return
        }

        let device = try framebufferPath(picture.framebuffer)
        let framebuffer: Framebuffer
        do {
            framebuffer = try Framebuffer(device: device)
        } catch {
            throw CLIError.failure(error.message, fix: error.fix ?? "Use --terminal or --png FILE on a machine without a framebuffer.")
        }
        let display = try FramebufferDisplay(framebuffer)
        let g = framebuffer.geometry
        let renderer = LevelRenderer(image: image ?? TestPattern.image(width: g.width, height: g.height),
                                     screenWidth: g.width, screenHeight: g.height, options: options)
        let console = ConsoleGuard()
        defer { console.restore(); framebuffer.close() }
        if isLive || stoppable { try LiveSensor.reclaimSignals() }
        if case .unchanged(let reason) = console.state, !reason.isEmpty {
            context.err.line("note: the text console stays as it is (\(reason))")
        }
        context.err.line("\(device) \"\(g.name)\": \(g.width)x\(g.height) \(display.format), \(framebuffer.updateMode.rawValue); \(source.name). Ctrl-C stops.")
        context.err.flush()
        let session = LevelSession(renderer: renderer, display: display, source: source, pacer: FramePacer(clock: SystemClock(), rate: rate))
        try session.run(frames: try args.int("frames", in: 1...10_000_000))
    }

    /// The picture and framebuffer: --image and --fb when given, else on the board's IMU (`live`)
    /// `outputs.level`'s image and framebuffer (else the board's display), as `plumb run` shows them,
    /// else the test pattern on /dev/fb0.
    static func picture(_ args: ParsedArguments, live: LiveSensor.Found?) -> (image: String?, framebuffer: String) {
        let file = live?.setup.configuration.outputs.level
        let framebuffer = file.map { $0.framebuffer ?? live?.setup.board.board.display?.framebuffer ?? "/dev/fb0" } ?? "/dev/fb0"
        return (args.string("image") ?? file?.image, args.string("fb") ?? framebuffer)
    }

    /// Loads the picture; `fromConfiguration` names the configuration file when the path is its
    /// `outputs.level.image` (for the fix).
    static func loadImage(_ path: String?, fromConfiguration: String? = nil) throws(CLIError) -> RGBAImage? {
        guard let path else { return nil }
        do {
            return try ImageFile.load(path)
        } catch {
            throw .failure(error.description, fix: fromConfiguration.map { "Point outputs.level.image in \($0) at a JPEG or PNG file, or give --image FILE." }
                           ?? "Give a JPEG or PNG file, or leave out --image for the test pattern.")
        }
    }

    /// "/dev/fb1" as is, "1" as /dev/fb1, anything else as a framebuffer name in sysfs.
    static func framebufferPath(_ text: String) throws(CLIError) -> String {
        if text.hasPrefix("/") { return text }
        if let n = Int(text), n >= 0 { return "/dev/fb\(n)" }
        do {
            return try Framebuffer.find(named: text)
        } catch {
            throw .failure(error.message, fix: error.fix ?? "Give the device path, such as --fb /dev/fb1.")
        }
    }

    static func degrees(_ radians: Double) -> String { fixed(radians * 180 / .pi, 1) }
}

/// A framebuffer as a level display: frames go to its draw buffer, `present` flips or copies.
final class FramebufferDisplay: LevelDisplay {
    let framebuffer: Framebuffer
    let format: PixelFormat

    init(_ framebuffer: Framebuffer) throws(CLIError) {
        let g = framebuffer.geometry
        func channel(_ b: FramebufferBitfield) -> PixelFormat.Channel { .init(offset: b.offset, length: b.length) }
        let format = PixelFormat(bitsPerPixel: g.bitsPerPixel, red: channel(g.red), green: channel(g.green),
                                 blue: channel(g.blue), alpha: channel(g.alpha))
        if let reason = format.unsupportedReason {
            throw .failure("\(framebuffer.path) uses a pixel format plumb cannot draw: \(reason)",
                           fix: "Switch the framebuffer to 16 or 32 bits per pixel (fbset -depth 32, or the display overlay's settings).")
        }
        self.framebuffer = framebuffer
        self.format = format
    }

    func nextSurface() -> PixelSurface {
        let g = framebuffer.geometry
        return PixelSurface(base: framebuffer.drawBuffer, width: g.width, height: g.height, bytesPerRow: g.bytesPerRow, format: format)
    }

    func present() throws { try framebuffer.present() }
}

/// Gravity from the simulated IMU (the MPU-6050 driver against the register-level emulator
/// moving through a motion profile) through fusion (PlumbFusion's filter) and the orientation pipeline, one estimate per frame:
/// each ``nextGravity()`` moves sensor time on by one frame interval, so the motion plays at
/// real speed when frames are paced by the wall clock.
final class SimulatedGravity: GravitySource {
    let name: String
    private let source: IMUStreamSource
    private var pipeline: OrientationPipeline
    private let frameInterval: UInt64
    private var frameTime: UInt64 = 0
    private var sensorTime: UInt64 = 0
    private var samples: [IMUSample] = []
    private var started = false
    private var finished = false

    init(profile name: String, duration: Double?, frameRate: Double, algorithm: FusionAlgorithm) throws(CLIError) {
        guard let profile = MotionProfile.named(name) else {
            throw .usage("The value '\(name)' is invalid for '--profile': expected one of \(MotionProfile.builtInNames.joined(separator: ", ")).")
        }
        // The emulated MPU-6050 through its driver (orientation replaced the noise-only profile source).
        let simulated = try SimulatedIMU.source(chip: "mpu6050", profile: profile, duration: duration ?? profile.duration ?? 60)
        source = simulated.source
        frameTime = simulated.sensor.clock.nowNanoseconds
        sensorTime = frameTime
        pipeline = OrientationPipeline(fused: algorithm.makeGravityEstimator())
        frameInterval = UInt64((1e9 / frameRate).rounded())
        self.name = "\(source.name) through the \(algorithm.rawValue) filter"
        samples.reserveCapacity(64)
    }

    func nextGravity() throws -> GravityReading? {
        if !started {
            _ = try source.start(IMUConfiguration(outputDataRate: 100, fifoWatermark: 1))
            started = true
            // The emulator's clock starts where its power-up and configuration left it.
            samples.removeAll(keepingCapacity: true)
            while samples.isEmpty {
                if try source.read(into: &samples, timeoutNanoseconds: 100_000_000) == .finished { return nil }
            }
            frameTime = samples[0].timestampNanoseconds
            for sample in samples { _ = pipeline.process(sample); sensorTime = sample.timestampNanoseconds }
        } else {
            frameTime += frameInterval
        }
        while sensorTime <= frameTime && !finished {
            samples.removeAll(keepingCapacity: true)
            switch try source.read(into: &samples, timeoutNanoseconds: 100_000_000) {
            case .finished: finished = true
            case .samples, .timedOut: break
            }
            for sample in samples {
                _ = pipeline.process(sample)
                sensorTime = sample.timestampNanoseconds
            }
        }
        if finished && sensorTime < frameTime { return nil }
        let g = pipeline.gravity
        return GravityReading(x: g.x, y: g.y, z: g.z, timestampNanoseconds: sensorTime)
    }
}
