import Foundation
import PlumbDisplay
import PlumbHAL
import PlumbLinux
import PlumbOrientation
import Testing
@testable import PlumbCLI

/// `plumb led`, `level` and `kiosk` put back what they took, however they end (the resource
/// audit): sysfs LEDs get their triggers back (ACT showed no SD activity again until reboot), the
/// simulated and fixed-angle runs stop on SIGINT, SIGTERM and SIGHUP as the board's IMU does (they
/// died with status 143, LEDs lit), an LED is written only when it changes, and the terminal
/// preview is paced also into a file.
@Suite("LED, level and kiosk clean-up")
struct LEDCleanupTests {
    /// An LED class directory: each LED at brightness 0 with the SD card's trigger, as ACT is.
    func makeLEDs(_ names: [String]) throws -> String {
        let root = NSTemporaryDirectory() + "plumb-led-cleanup-" + UUID().uuidString
        for name in names {
            try FileManager.default.createDirectory(atPath: "\(root)/\(name)", withIntermediateDirectories: true)
            try "255\n".write(toFile: "\(root)/\(name)/max_brightness", atomically: true, encoding: .utf8)
            try "0\n".write(toFile: "\(root)/\(name)/brightness", atomically: true, encoding: .utf8)
            try "none [mmc0] timer\n".write(toFile: "\(root)/\(name)/trigger", atomically: true, encoding: .utf8)
        }
        return root
    }

    func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "(unreadable)" }

    @Test func aNormalEndGivesTheTriggersBack() throws {
        let names = ["up", "right", "down", "left"]
        let root = try makeLEDs(names)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let r = runPlumb(["led", "--simulate", "--no-pacing", "--mode", "arrow", "--leds", names.joined(separator: ","),
                          "--sysfs-root", root, "--duration", "15"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains(" s  up\n"), "\(r.out)")
        for name in names {
            #expect(read("\(root)/\(name)/trigger") == "mmc0\n", "\(name)")
        }
    }

    /// The second LED is missing: the first, already taken over, is given back before the error.
    @Test func anLEDThatCannotBeOpenedGivesTheOthersBack() throws {
        let root = try makeLEDs(["ACT"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let r = runPlumb(["led", "--simulate", "--no-pacing", "--leds", "ACT,led1", "--sysfs-root", root])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("Error: no LED \"led1\" in \(root) (found: ACT)\n"), "\(r.err)")
        #expect(read("\(root)/ACT/trigger") == "mmc0\n")
    }

    final class CountingOutput: DigitalOutput {
        let name: String
        var writes: [Bool] = []
        init(_ name: String) { self.name = name }
        func set(_ active: Bool) throws(GPIOError) { writes.append(active) }
    }

    /// 50 frames at a fixed tilt: each LED is written when it first shows and when it goes off at
    /// the end, not 50 times.
    @Test func eachLEDIsWrittenOnlyWhenItChanges() throws {
        let outputs = ["up", "right", "down", "left"].map(CountingOutput.init)
        let context = CommandContext.capturing()
        try LED.drive(FixedGravity(.turned(by: 30 * .pi / 180)), outputs: outputs, mode: .arrow, frames: 50,
                      pacer: FramePacer(clock: VirtualClock(), rate: 10), context: context)
        let lit = TiltIndicator.arrow(.turned(by: 30 * .pi / 180))
        for (output, on) in zip(outputs, lit) {
            #expect(output.writes == (on ? [true, false] : [false]), "\(output.name)")
        }
    }

    /// The end of a simulation (`--duration`) leaves the Sense HAT matrix dark, as a signal and
    /// the board's IMU do and as the other backends' LEDs are turned off: it kept the last
    /// picture, lit until something else drew over it. --angle's still picture stays
    /// (KioskCommandTests' senseHATArrowGoesToTheFramebufferFile).
    @Test(arguments: ["arrow", "bubble"])
    func theSenseHATMatrixIsDarkAtTheEndOfASimulation(_ mode: String) throws {
        let path = NSTemporaryDirectory() + "plumb-sense-end-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = runPlumb(["led", "--backend", "sensehat", "--mode", mode, "--fb-file", path, "--simulate", "--no-pacing", "--duration", "5"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "\(path): 49 frames of the \(mode) (simulated MPU-6050 (tour) through the plumb filter)\n", "\(r.out)")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.count == 128 && data.allSatisfy { $0 == 0 }, "the matrix is left lit")
    }

    /// `plumb level --simulate --terminal > file`: paced to --rate (15 frames a second), not run
    /// in virtual time at a full core (2 s of simulation took milliseconds).
    @Test func theTerminalPreviewIsPacedIntoAFile() {
        let started = Date()
        let r = runPlumb(["level", "--simulate", "--terminal", "--size", "8x2", "--duration", "2"])
        #expect(r.status == 0, "\(r.err)")
        #expect(Date().timeIntervalSince(started) >= 1.5)
    }

    // MARK: a reader that went away

    /// `plumb led --simulate … | head -1`: the write after the reader went away fails (EPIPE:
    /// SIGPIPE is ignored while plumb watches its signals), and the run ends as SIGTERM ends it,
    /// the LEDs off and their triggers given back, then by SIGPIPE as every command whose reader
    /// went away (``OutputWriteError/endProcess(command:err:)``), with one line on standard error.
    /// The old code ended at the write, the +z LED lit and every trigger at none.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: plumbBinary), "needs the plumb binary (swift build)"))
    func aReaderThatWentAwayEndsTheRunAsSIGTERMDoes() throws {
        let names = ["x1", "x2", "y1", "y2", "z1", "z2"]
        let root = try makeLEDs(names)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: plumbBinary)
        process.arguments = ["led", "--simulate", "--leds", names.joined(separator: ","), "--sysfs-root", root, "--duration", "60"]
        process.environment = ["PATH": "/usr/bin:/bin"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        try out.fileHandleForReading.close()
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGPIPE,
                "\(process.terminationReason) \(process.terminationStatus)")
        #expect(said == "plumb led: cannot write to standard output: Broken pipe; stopped, the LEDs are off and their triggers given back.\n")
        for name in names {
            #expect(read("\(root)/\(name)/brightness") == "0\n", "\(name)")
            #expect(read("\(root)/\(name)/trigger") == "mmc0\n", "\(name)")
        }
    }

    /// The board's IMU (the emulated chip behind `plumb run`'s session) into a pipe whose reader
    /// went away: ``LED/drive(_:outputs:mode:frames:pacer:context:)`` throws the write failure
    /// after turning every LED off. In a process of its own: the old code ended the process at
    /// the write (by SIGPIPE), an LED lit.
    @Test func aReaderThatWentAwayTurnsTheLiveLEDsOff() async {
        await #expect(processExitsWith: .success) {
            let names = ["x1", "x2", "y1", "y2", "z1", "z2"]
            let root = try LEDCleanupTests().makeLEDs(names)
            defer { try? FileManager.default.removeItem(atPath: root) }
            let outputs: [any DigitalOutput] = try names.map { try SysfsLED($0, root: root) }
            let e = try Emulated(profile: "rest")
            let live = LiveGravity(source: e.source, found: e.found, clock: e.sensor.clock, duration: 5,
                                   powerMonitor: FixedPowerMonitor(PowerState()), shouldStop: { false })
            defer { try? live.finish() }
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw CLIError.failure("pipe: \(errno)") }
            close(ends[0])
            signal(SIGPIPE, SIG_IGN) // as SignalMonitor leaves it
            var context = CommandContext.capturing()
            context.out = .fileDescriptor(ends[1])
            do {
                try LED.drive(live, outputs: outputs, mode: .faces, frames: nil, pacer: FramePacer(clock: VirtualClock(), rate: 10), context: context)
                FileHandle.standardError.write(Data("the run ended without the write failure\n".utf8))
                exit(2)
            } catch let error as OutputWriteError {
                guard error == OutputWriteError(fileDescriptor: ends[1], errno: EPIPE) else {
                    FileHandle.standardError.write(Data("\(error)\n".utf8))
                    exit(3)
                }
            }
            let lit = names.filter { LEDCleanupTests().read("\(root)/\($0)/brightness") != "0\n" }
            if !lit.isEmpty {
                FileHandle.standardError.write(Data("still lit: \(lit)\n".utf8))
                exit(4)
            }
        }
    }

    // MARK: signals, with the built binary

    enum Run: String, CaseIterable, CustomTestStringConvertible {
        case ledSIGTERM, ledSIGINT, ledSIGHUP, senseHAT, level, kiosk
        var testDescription: String { rawValue }
    }

    /// Started, and signalled once it shows something: it ends with status 0 and puts back what
    /// it took (the old code died by the signal, status 143 for SIGTERM).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: plumbBinary), "needs the plumb binary (swift build)"),
          arguments: Run.allCases)
    func aSignalStopsTheSimulationCleanly(_ run: Run) throws {
        let names = ["up", "right", "down", "left"]
        let root = try makeLEDs(names)
        let file = NSTemporaryDirectory() + "plumb-led-cleanup-\(UUID().uuidString).out"
        defer {
            try? FileManager.default.removeItem(atPath: root)
            try? FileManager.default.removeItem(atPath: file)
        }
        _ = FileManager.default.createFile(atPath: file, contents: nil)
        let arguments: [String]
        let signal: Int32
        let ready: () -> Bool
        let lit = { names.contains { self.read("\(root)/\($0)/brightness") == "255\n" } }
        let written = { ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0) > 0 }
        switch run {
        case .ledSIGTERM, .ledSIGINT, .ledSIGHUP:
            arguments = ["led", "--simulate", "--mode", "arrow", "--leds", names.joined(separator: ","), "--sysfs-root", root, "--duration", "60"]
            signal = run == .ledSIGTERM ? SIGTERM : run == .ledSIGINT ? SIGINT : SIGHUP
            ready = lit
        case .senseHAT:
            arguments = ["led", "--backend", "sensehat", "--fb-file", root + "/fb", "--simulate", "--duration", "60"]
            signal = SIGTERM
            ready = { ((try? Data(contentsOf: URL(fileURLWithPath: root + "/fb"))) ?? Data()).contains { $0 != 0 } }
        case .level:
            // Standard output is the file: the old code ran unpaced to the end of the duration.
            arguments = ["level", "--simulate", "--terminal", "--size", "8x2", "--duration", "100000"]
            signal = SIGTERM
            ready = written
        case .kiosk:
            arguments = ["kiosk", "--simulate", "--speed", "1", "--dry-run", "--backend", "command", "--command", "true", "--duration", "600"]
            signal = SIGTERM
            ready = written
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: plumbBinary)
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin"]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Bounds, not timings: generous for a loaded machine. The kiosk's first turn is at 6.5 s.
        let deadline = Date().addingTimeInterval(30)
        while !ready(), process.isRunning, Date() < deadline { usleep(20_000) }
        try #require(process.isRunning && ready(), "it showed nothing")
        signalAndAwaitExit(process, signal)
        #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(process.terminationReason) \(process.terminationStatus)")
        switch run {
        case .ledSIGTERM, .ledSIGINT, .ledSIGHUP:
            for name in names {
                #expect(read("\(root)/\(name)/brightness") == "0\n", "\(name)")
                #expect(read("\(root)/\(name)/trigger") == "mmc0\n", "\(name)")
            }
        case .senseHAT:
            let data = try Data(contentsOf: URL(fileURLWithPath: root + "/fb"))
            #expect(data.count == 128 && data.allSatisfy { $0 == 0 }, "the matrix is left lit")
        case .level:
            #expect(read(file).hasSuffix("\n"))
        case .kiosk:
            #expect(read(file).contains("(dry run)"))
        }
    }
}
