import PlumbDisplay
import PlumbOrientation

/// What a SIGHUP reload carries from the stopped pipeline to the one built from the new
/// configuration: the outputs whose target stays, left as they are instead of being put back.
///
/// Stopping puts every output back as it was (the kiosk's screen upright). Across a reload that
/// leaves `outputs.kiosk` turning the same screen, doing so turned a landscape kiosk to portrait
/// and, with the new output waiting for an allowed face to settle, left it there while the board
/// lay flat. So the old pipeline hands the screen over (``DaemonPipeline/handOver(to:)``, before
/// its ``DaemonPipeline/shutdown()``, which then leaves it), and the new kiosk output takes it
/// (``KioskHandover/take(for:)``) and starts from its rotation.
///
/// What no pipeline took — the new configuration could not be built, nor the old one again — is
/// put back by ``restoreUntaken()``, as a stop would.
final class DaemonHandover {
    /// The kiosk's screen, when the new configuration turns the same one.
    var kiosk: KioskHandover?
    /// The stopped pipeline's chip was not answering (lost while it ran, or awaited since its
    /// start): the pipeline built next, or the previous one built again, waits for its chip as
    /// `plumb run --wait-for-sensor` does (``DaemonFactory/waitsForSensor``) instead of failing
    /// its start because nothing answers. Without it a reload while the chip was away failed
    /// both builds and ended the daemon ("cannot restart the previous configuration"), though
    /// the session had been riding the loss out. A chip that answered is not awaited: a new
    /// address or bus where nothing answers still fails the reload, and the previous
    /// configuration is started again.
    var awaitsSensor = false

    init(kiosk: KioskHandover? = nil) {
        self.kiosk = kiosk
    }

    /// Puts back what no new output took, as ``DaemonPipeline/shutdown()`` would have.
    func restoreUntaken() throws {
        try kiosk?.restoreUntaken()
    }
}

/// The kiosk's screen as the stopped output leaves it for the next: its backend (the same tool,
/// output and command turn it) and the rotation the old output turned it to.
final class KioskHandover {
    /// How the screen is turned; the new output takes the screen only with an equal backend.
    let backend: KioskBackend
    /// What the screen shows as far as the old output turned it; `nil` when it never did.
    let shown: InterfaceOrientation?
    /// Runs an action with the old output's runner, for ``restoreUntaken()``.
    private let perform: (RotationAction) throws -> Void
    /// Whether a new output took the screen (it then restores it itself).
    private(set) var isTaken = false

    init(backend: KioskBackend, shown: InterfaceOrientation?, runner: any RotationActionRunner) {
        self.backend = backend; self.shown = shown
        perform = { try runner.perform($0) }
    }

    /// The screen of an output whose worker has ended (``KioskWorker/end(within:)``): turned
    /// upright, if no new output takes it, through the worker's runner on the caller's thread.
    init(backend: KioskBackend, shown: InterfaceOrientation?, worker: KioskWorker) {
        self.backend = backend; self.shown = shown
        perform = { try worker.performAfterEnd($0) }
    }

    /// Takes the screen for a new output on `backend`: itself when the backend is the same and
    /// no output took it yet (at most once), else `nil` (the new output starts afresh).
    func take(for backend: KioskBackend) -> KioskHandover? {
        guard !isTaken, backend == self.backend else { return nil }
        isTaken = true
        return self
    }

    /// Gives the screen back after the output that took it was never run (its pipeline failed to
    /// build), so the next output on the same backend can take it. Returns false (and changes
    /// nothing) when it was not taken.
    @discardableResult
    func giveBack() -> Bool {
        guard isTaken else { return false }
        isTaken = false
        return true
    }

    /// Turns the screen upright unless a new output took it (or it is upright, or was never turned).
    func restoreUntaken() throws {
        guard !isTaken else { return }
        isTaken = true
        guard let shown, shown != .portrait else { return }
        try perform(backend.action(for: .portrait))
    }
}
