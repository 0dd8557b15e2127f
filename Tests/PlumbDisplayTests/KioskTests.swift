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

/// Fails while `down` is set, as wlr-randr does while the compositor is not up; records the tries.
final class DownRunner: RotationActionRunner {
    struct Unreachable: Error {}
    var down = true
    var tries: [RotationAction] = []
    func perform(_ action: RotationAction) throws {
        tries.append(action)
        if down { throw Unreachable() }
    }
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
    /// A screen handed over at its rotation (plumb run's reload): observing it turns nothing, not
    /// even the first time; another orientation turns after the hold-off as usual.
    @Test func aScreenHandedOverAtItsRotationIsNotTurnedToItAgain() throws {
        let runner = RecordingRunner()
        let kiosk = KioskController(backend: KioskBackend(kind: .xrandr), runner: runner, shown: .landscapeLeft)
        #expect(kiosk.applied == .landscapeLeft)
        kiosk.observe(.landscapeLeft, at: 0)
        #expect(try kiosk.tick(at: 5000 * ms) == nil)
        #expect(runner.actions.isEmpty)
        kiosk.observe(.portrait, at: 6000 * ms)
        #expect(try kiosk.tick(at: 7000 * ms) == .portrait)
        #expect(runner.actions.map(\.description) == ["xrandr --output HDMI-1 --rotate normal"])
    }

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

    /// Without a retry a failed turn is dropped: the screen stays until the orientation changes.
    @Test func withoutRetryAFailedTurnIsDropped() throws {
        let runner = DownRunner()
        let kiosk = KioskController(backend: KioskBackend(kind: .wlrRandr), settings: .init(holdOff: 500 * ms), runner: runner)
        kiosk.observe(.landscapeLeft, at: 0)
        #expect(throws: DownRunner.Unreachable.self) { try kiosk.tick(at: 500 * ms) }
        #expect(kiosk.pending == nil)
        runner.down = false
        #expect(try kiosk.tick(at: 60_000 * ms) == nil)
        #expect(runner.tries.count == 1)
        #expect(kiosk.failuresInARow == 1)
    }

    /// The compositor comes up late: the turn is tried again after 1, 2, then 4 s (the maximum)
    /// and works once the compositor is there; a newer orientation is the one tried.
    @Test func aFailedTurnIsTriedAgainWithGrowingPauses() throws {
        let runner = DownRunner()
        let retry = KioskController.Retry(first: 1000 * ms, maximum: 4000 * ms)
        let kiosk = KioskController(backend: KioskBackend(kind: .wlrRandr), settings: .init(holdOff: 500 * ms, retry: retry), runner: runner)
        kiosk.observe(.landscapeLeft, at: 0)
        #expect(throws: DownRunner.Unreachable.self) { try kiosk.tick(at: 500 * ms) }
        #expect(kiosk.retryAt == 1500 * ms)
        #expect(kiosk.nextDeadline == 1500 * ms)
        #expect(try kiosk.tick(at: 1499 * ms) == nil)   // no try before the pause is over
        #expect(runner.tries.count == 1)
        #expect(throws: DownRunner.Unreachable.self) { try kiosk.tick(at: 1500 * ms) }
        #expect(kiosk.retryAt == 3500 * ms)
        #expect(throws: DownRunner.Unreachable.self) { try kiosk.tick(at: 3500 * ms) }
        #expect(kiosk.retryAt == 7500 * ms)
        #expect(kiosk.failuresInARow == 3)
        #expect(kiosk.failingSince == 500 * ms)
        kiosk.observe(.portraitUpsideDown, at: 5000 * ms)   // moved meanwhile: its hold-off ends before the pause
        #expect(kiosk.nextDeadline == 7500 * ms)
        #expect(try kiosk.tick(at: 6000 * ms) == nil)
        runner.down = false
        #expect(try kiosk.tick(at: 7500 * ms) == .portraitUpsideDown)
        #expect(runner.tries.map(\.description) == ["wlr-randr --output HDMI-A-1 --on --transform 90", "wlr-randr --output HDMI-A-1 --on --transform 90",
                                                    "wlr-randr --output HDMI-A-1 --on --transform 90", "wlr-randr --output HDMI-A-1 --on --transform 180"])
        #expect(kiosk.applied == .portraitUpsideDown)
        #expect(kiosk.failuresInARow == 0 && kiosk.failingSince == nil && kiosk.retryAt == nil)
        // The next turn is not held back by the old pauses.
        kiosk.observe(.portrait, at: 8000 * ms)
        #expect(try kiosk.tick(at: 8500 * ms) == .portrait)
    }

    @Test func retryPausesDoubleUpToTheMaximum() {
        let retry = KioskController.Retry(first: 1000 * ms, maximum: 10_000 * ms)
        #expect((1...7).map { retry.pause(afterFailures: $0) / ms } == [1000, 2000, 4000, 8000, 10_000, 10_000, 10_000])
        let huge = KioskController.Retry(first: UInt64.max / 3, maximum: UInt64.max)
        #expect(huge.pause(afterFailures: 10) == UInt64.max)
    }
}
