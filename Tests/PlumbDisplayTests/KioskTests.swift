import PlumbHAL
import PlumbOrientation
import Testing
@testable import PlumbDisplay

/// Records actions instead of running them.
final class RecordingRunner: RotationActionRunner {
    var actions: [RotationAction] = []
    func perform(_ action: RotationAction) throws { actions.append(action) }
}

final class SwitchLock: OrientationLock {
    var isLocked = false
}

private let ms = Nanoseconds.perMillisecond

@Suite struct KioskBackendTests {
    @Test func everyBackendMapsEveryOrientation() {
        let wlr = KioskBackend(kind: .wlrRandr, output: "DSI-1")
        let x = KioskBackend(kind: .xrandr)
        var fbcon = KioskBackend(kind: .fbcon)
        fbcon.fbconDirectory = "/tmp/fbcon"
        let expected: [(InterfaceOrientation, String, String, String)] = [
            (.portrait, "normal", "normal", "0"),
            (.landscapeLeft, "90", "left", "3"),
            (.portraitUpsideDown, "180", "inverted", "2"),
            (.landscapeRight, "270", "right", "1"),
        ]
        for (o, transform, rotate, fb) in expected {
            #expect(wlr.action(for: o) == .run(program: "wlr-randr", arguments: ["--output", "DSI-1", "--on", "--transform", transform], environment: [:]))
            #expect(x.action(for: o) == .run(program: "xrandr", arguments: ["--output", "HDMI-1", "--rotate", rotate], environment: [:]))
            #expect(fbcon.action(for: o) == .write(path: "/tmp/fbcon/rotate_all", contents: fb))
        }
    }

    @Test func reversedQuarterTurnsSwapNinetyAndTwoSeventy() {
        var wlr = KioskBackend(kind: .wlrRandr)
        wlr.quarterTurnsReversed = true
        #expect(wlr.action(for: .landscapeLeft).description == "wlr-randr --output HDMI-A-1 --on --transform 270")
        #expect(wlr.action(for: .portraitUpsideDown).description == "wlr-randr --output HDMI-A-1 --on --transform 180")
    }

    @Test func commandBackendPutsTheOrientationInTheEnvironment() {
        let backend = KioskBackend(kind: .command, command: "rotate.sh")
        #expect(backend.action(for: .landscapeRight) == .shell(command: "rotate.sh", environment: [
            "PLUMB_INTERFACE_ORIENTATION": "landscapeRight", "PLUMB_ROTATION_DEGREES": "270",
            "PLUMB_WLR_TRANSFORM": "270", "PLUMB_XRANDR_ROTATION": "right", "PLUMB_FBCON_ROTATE": "1",
        ]))
    }
}

@Suite struct KioskControllerTests {
    /// A timeline in virtual time: a turn that settles, a knock shorter than the hold-off, a turn back.
    @Test func turnsOnlyAfterTheHoldOff() throws {
        let runner = RecordingRunner()
        let kiosk = KioskController(backend: KioskBackend(kind: .xrandr), runner: runner)
        kiosk.observe(.portrait, at: 0)
        #expect(try kiosk.tick(at: 999 * ms) == nil)
        #expect(try kiosk.tick(at: 1000 * ms) == .portrait)
        kiosk.observe(.landscapeLeft, at: 5000 * ms)
        #expect(kiosk.nextDeadline == 6000 * ms)
        kiosk.observe(.portrait, at: 5600 * ms)  // back before the hold-off: nothing happens
        #expect(kiosk.pending == nil)
        #expect(try kiosk.tick(at: 7000 * ms) == nil)
        kiosk.observe(.landscapeLeft, at: 8000 * ms)
        kiosk.observe(.portraitUpsideDown, at: 8500 * ms)  // the hold-off restarts for the new one
        #expect(try kiosk.tick(at: 9000 * ms) == nil)
        #expect(try kiosk.tick(at: 9500 * ms) == .portraitUpsideDown)
        #expect(runner.actions.map(\.description) == ["xrandr --output HDMI-1 --rotate normal", "xrandr --output HDMI-1 --rotate inverted"])
        #expect(kiosk.events == [.rotated(.portrait, action: "xrandr --output HDMI-1 --rotate normal", atNanoseconds: 1000 * ms),
                                 .rotated(.portraitUpsideDown, action: "xrandr --output HDMI-1 --rotate inverted", atNanoseconds: 9500 * ms)])
    }

    @Test func lockHoldsTheScreenAndReleasingItTurnsAtOnce() throws {
        let runner = RecordingRunner(), lock = SwitchLock()
        let kiosk = KioskController(backend: KioskBackend(kind: .wlrRandr), settings: .init(holdOff: 500 * ms), runner: runner, lock: lock)
        kiosk.observe(.portrait, at: 0)
        try kiosk.tick(at: 500 * ms)
        lock.isLocked = true
        kiosk.observe(.landscapeRight, at: 1000 * ms)
        #expect(try kiosk.tick(at: 1500 * ms) == nil)
        #expect(try kiosk.tick(at: 4000 * ms) == nil)
        #expect(kiosk.events.last == .heldByLock(.landscapeRight, atNanoseconds: 1500 * ms))
        lock.isLocked = false
        #expect(try kiosk.tick(at: 4100 * ms) == .landscapeRight)
        #expect(runner.actions.count == 2)
    }

    @Test func orientationsOutsideTheAllowedSetAreIgnored() throws {
        let runner = RecordingRunner()
        let kiosk = KioskController(backend: KioskBackend(kind: .fbcon), settings: .init(holdOff: 0, allowed: [.portrait, .landscapeLeft]),
                                    runner: runner)
        kiosk.observe(.portrait, at: 0)
        try kiosk.tick(at: 0)
        kiosk.observe(.portraitUpsideDown, at: 10 * ms)
        #expect(try kiosk.tick(at: 5000 * ms) == nil)
        kiosk.observe(.landscapeLeft, at: 6000 * ms)
        #expect(try kiosk.tick(at: 6000 * ms) == .landscapeLeft)
        #expect(kiosk.events[1] == .ignoredNotAllowed(.portraitUpsideDown, atNanoseconds: 10 * ms))
        #expect(runner.actions == [.write(path: "/sys/class/graphics/fbcon/rotate_all", contents: "0"),
                                   .write(path: "/sys/class/graphics/fbcon/rotate_all", contents: "3")])
    }
}
