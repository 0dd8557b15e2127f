import PlumbHAL
import PlumbOrientation
import Testing
@testable import PlumbDisplay

/// Turns succeed; listings answer with what a compositor shows, which the test sets (or `nil`:
/// the listing fails, as wlr-randr does while the compositor is away).
final class ScreenRunner: RotationActionRunner {
    var actions: [RotationAction] = []
    var listings = 0
    var listing: String?
    struct Away: Error {}
    func perform(_ action: RotationAction) throws { actions.append(action) }
    func capture(_ action: RotationAction) throws -> String? {
        listings += 1
        guard let listing else { throw Away() }
        return listing
    }

    /// `runner` whose turns number `failingAt` (1, 2, ...) fail as while the compositor is away.
    final class Failing: RotationActionRunner {
        let runner: ScreenRunner
        let failingAt: Set<Int>
        private var turns = 0
        init(_ runner: ScreenRunner, failingAt: Set<Int>) { self.runner = runner; self.failingAt = failingAt }
        func perform(_ action: RotationAction) throws {
            turns += 1
            if failingAt.contains(turns) { throw Away() }
            try runner.perform(action)
        }
        func capture(_ action: RotationAction) throws -> String? { try runner.capture(action) }
    }
}

@Suite("Kiosk: a lost turn is made again")
struct KioskVerifyTests {
    static let s = Nanoseconds.perSecond

    /// wlr-randr 0.2.0's listing of an enabled head (the layout of wlr-randr's print_state).
    static func wlrListing(_ transform: String, name: String = "HDMI-A-1") -> String {
        """
        DSI-1 "Raspberry Pi 7inch"
          Enabled: yes
          Modes:
            800x480 px, 60.000000 Hz (preferred, current)
          Position: 0,0
          Transform: normal
          Scale: 1.000000
        \(name) "Iiyama North America PL2492H 1234 (HDMI-A-1)"
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

    @Test func theListingsSayWhatTheOutputShows() {
        let wlr = KioskBackend(kind: .wlrRandr, output: "HDMI-A-1")
        #expect(wlr.shownRotation(inListing: Self.wlrListing("90")) == "90")
        #expect(wlr.shownRotation(inListing: Self.wlrListing("normal")) == "normal")
        // Another head's transform is not this one's; a missing head or a disabled one does not say.
        #expect(KioskBackend(kind: .wlrRandr, output: "DSI-1").shownRotation(inListing: Self.wlrListing("270")) == "normal")
        #expect(KioskBackend(kind: .wlrRandr, output: "HDMI-A-2").shownRotation(inListing: Self.wlrListing("90")) == nil)
        #expect(wlr.shownRotation(inListing: "HEADLESS-1 \"Headless output 1\"\n  Enabled: no\n  Modes:\n    0x0 px\n") == nil)
        #expect(wlr.shownRotation(inListing: "HDMI-A-1 \"Monitor\"\n  Enabled: no\n  Modes:\n    1920x1080 px\nDSI-1 \"x\"\n  Transform: 90\n") == nil)

        let x = KioskBackend(kind: .xrandr, output: "HDMI-1")
        let query = """
            Screen 0: minimum 320 x 200, current 1080 x 1920, maximum 7680 x 7680
            HDMI-1 connected primary 1080x1920+0+0 left (normal left inverted right x axis y axis) 527mm x 296mm
               1920x1080     60.00*+  50.00
            HDMI-2 connected 1920x1080+1080+0 (normal left inverted right x axis y axis) 527mm x 296mm
            HDMI-3 connected (normal left inverted right x axis y axis)
            DSI-1 disconnected (normal left inverted right x axis y axis)
            """
        #expect(x.shownRotation(inListing: query) == "left")
        #expect(KioskBackend(kind: .xrandr, output: "HDMI-2").shownRotation(inListing: query) == "normal")
        #expect(KioskBackend(kind: .xrandr, output: "HDMI-3").shownRotation(inListing: query) == nil) // off
        #expect(KioskBackend(kind: .xrandr, output: "DSI-1").shownRotation(inListing: query) == nil)
        #expect(KioskBackend(kind: .xrandr, output: "HDMI-1").shownRotation(inListing: query.replacingLeft("inverted")) == "inverted")
        #expect(KioskBackend(kind: .fbcon).listingAction == nil)
        #expect(x.shownWord(for: .landscapeLeft) == "left")
        #expect(wlr.shownWord(for: .landscapeRight) == "270")
    }

    /// xrandr 1.5's listing of Xorg 21.1's modesetting driver on vkms, as scripts/service-vm-test
    /// captured it with the screen turned right (the size turns with it; the modes stay the
    /// connector's), and upright again.
    @Test func aRealXorgListingSaysWhatTheOutputShows() {
        let right = """
            Screen 0: minimum 320 x 200, current 768 x 1024, maximum 8192 x 8192
            Virtual-1 connected primary 768x1024+0+0 right (normal left inverted right x axis y axis) 0mm x 0mm
               1024x768      60.00*+
               4096x2160     60.00    59.94
               2560x1600     59.99    59.97
            """
        let upright = """
            Screen 0: minimum 320 x 200, current 1024 x 768, maximum 8192 x 8192
            Virtual-1 connected primary 1024x768+0+0 (normal left inverted right x axis y axis) 0mm x 0mm
               1024x768      60.00*+
               4096x2160     60.00    59.94
            """
        let x = KioskBackend(kind: .xrandr, output: "Virtual-1")
        #expect(x.shownRotation(inListing: right) == "right")
        #expect(x.shownRotation(inListing: upright) == "normal")
        #expect(x.shownRotation(inListing: right) == x.shownWord(for: .landscapeRight))
        #expect(RotationToolDiagnosis.outputNames(program: "xrandr", listing: right) == ["Virtual-1"])
    }

    @Test func aCompositorThatComesBackUprightIsTurnedAgain() throws {
        let runner = ScreenRunner()
        let backend = KioskBackend(kind: .wlrRandr, output: "HDMI-A-1")
        let kiosk = KioskController(backend: backend, settings: .init(holdOff: Self.s, verifyInterval: 5 * Self.s), runner: runner)
        kiosk.observe(.landscapeLeft, at: 0)
        try kiosk.tick(at: Self.s)
        #expect(runner.actions.count == 1)
        runner.listing = Self.wlrListing("90")
        // Read back every 5 s; it shows what was turned: nothing to do.
        for t in stride(from: 2 * Self.s, through: 20 * Self.s, by: Int(Self.s / 2)) { try kiosk.tick(at: t) }
        #expect(runner.listings == 4)
        #expect(runner.actions.count == 1)
        // The compositor restarts: away for a while (no finding), then back upright.
        runner.listing = nil
        for t in stride(from: 21 * Self.s, through: 30 * Self.s, by: Int(Self.s / 2)) { try kiosk.tick(at: t) }
        #expect(runner.actions.count == 1)
        runner.listing = Self.wlrListing("normal")
        for t in stride(from: 31 * Self.s, through: 36 * Self.s, by: Int(Self.s / 2)) { try kiosk.tick(at: t) }
        #expect(runner.actions == [backend.action(for: .landscapeLeft), backend.action(for: .landscapeLeft)])
        #expect(kiosk.events.contains(.drifted(.landscapeLeft, shown: "normal", atNanoseconds: 32 * Self.s))) // read back at 2, 7, ... 32 s
        #expect(kiosk.applied == .landscapeLeft)
    }

    /// A turn that failed and was then given up (the board went back to the orientation the
    /// screen shows) does not stop the read-back: once its retry's pause is over, the screen is
    /// read back again, and a turn lost meanwhile is made again.
    @Test func aFailedTurnGivenUpDoesNotStopTheReadBack() throws {
        let runner = ScreenRunner()
        let backend = KioskBackend(kind: .wlrRandr, output: "HDMI-A-1")
        let kiosk = KioskController(backend: backend, settings: .init(holdOff: Self.s, retry: .init(first: Self.s, maximum: 10 * Self.s),
                                                                      verifyInterval: 5 * Self.s), runner: ScreenRunner.Failing(runner, failingAt: [2]))
        runner.listing = Self.wlrListing("90")
        kiosk.observe(.landscapeLeft, at: 0)
        try kiosk.tick(at: Self.s)
        #expect(kiosk.applied == .landscapeLeft)
        // The turn to upside down fails; the board goes back before it is tried again.
        kiosk.observe(.portraitUpsideDown, at: 2 * Self.s)
        #expect(throws: ScreenRunner.Away.self) { try kiosk.tick(at: 3 * Self.s) }
        kiosk.observe(.landscapeLeft, at: 3500 * Nanoseconds.perMillisecond)
        #expect(kiosk.pending == nil)
        let before = runner.listings
        runner.listing = Self.wlrListing("normal")
        for t in stride(from: 4 * Self.s, through: 20 * Self.s, by: Int(Self.s / 2)) {
            try kiosk.tick(at: t)
            if runner.actions.count == 2 { runner.listing = Self.wlrListing("90") }  // turned again: shown
        }
        #expect(runner.listings > before)
        #expect(kiosk.events.contains { if case .drifted(.landscapeLeft, "normal", _) = $0 { return true } else { return false } })
        #expect(runner.actions == [backend.action(for: .landscapeLeft), backend.action(for: .landscapeLeft)])
        #expect(kiosk.applied == .landscapeLeft && kiosk.failuresInARow == 0)
    }

    @Test func noReadBackWhileATurnIsPendingLockedOrOff() throws {
        let runner = ScreenRunner()
        runner.listing = Self.wlrListing("normal")
        let lock = SwitchLock()
        let backend = KioskBackend(kind: .wlrRandr, output: "HDMI-A-1")
        // Off (the default): never read back.
        let plain = KioskController(backend: backend, settings: .init(holdOff: Self.s), runner: runner)
        plain.observe(.landscapeLeft, at: 0)
        for t in stride(from: Self.s, through: 30 * Self.s, by: Int(Self.s)) { try plain.tick(at: t) }
        #expect(runner.listings == 0)
        // Before the first turn, and while locked: nothing is read back.
        let kiosk = KioskController(backend: backend, settings: .init(holdOff: Self.s, verifyInterval: 5 * Self.s), runner: runner, lock: lock)
        for t in stride(from: 0, through: 10 * Self.s, by: Int(Self.s)) { try kiosk.tick(at: t) }
        #expect(runner.listings == 0)
        kiosk.observe(.landscapeRight, at: 10 * Self.s)
        try kiosk.tick(at: 11 * Self.s)
        lock.isLocked = true
        for t in stride(from: 12 * Self.s, through: 30 * Self.s, by: Int(Self.s)) { try kiosk.tick(at: t) }
        #expect(runner.actions.count == 2) // plain's and kiosk's first turns
        #expect(!kiosk.events.contains { if case .drifted = $0 { return true } else { return false } })
    }
}

private extension String {
    func replacingLeft(_ word: String) -> String {
        var lines = split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let i = lines.firstIndex(where: { $0.hasPrefix("HDMI-1 ") }) {
            lines[i] = lines[i].split(separator: " ").map { $0 == "left" ? Substring(word) : $0 }.joined(separator: " ")
        }
        return lines.joined(separator: "\n")
    }
}
