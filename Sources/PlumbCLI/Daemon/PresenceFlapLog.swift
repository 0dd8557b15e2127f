import PlumbHAL

/// Coalesces the log lines of a chip that comes and goes: the first loss and the first return
/// are logged in full, then the losses and returns that follow are only counted, with one summary
/// a minute while they keep coming.
///
/// A chip that makes and breaks contact (a loose connector, a long cable) while `plumb run`
/// pauses its sensor (the display blanked, no D-Bus claim) is tried every second while it does
/// not answer, set up when it does, and paused again; each round logged what it saw — the chip
/// answers, the part found, HasAccelerometer true again, it does not answer so it is paused
/// without its stop, the sensor stopped, HasAccelerometer false — several lines a second into
/// the journal (on a Raspberry Pi, its SD card) for as long as the contact flapped. The first
/// loss and return still say what happened, with the fix; the summary says how often it kept
/// happening, whether the chip answers now, and the fix again. Time is the source's clock, so
/// simulations run in virtual time. Stream gaps are ``GapLog``'s.
struct PresenceFlapLog {
    /// A change of the chip's presence.
    enum Change: Equatable { case lost, back }

    /// How long changes are held before their summary, and how long without a change ends the
    /// holding (the next change is then logged in full), in nanoseconds. Default 60 s.
    var window: UInt64 = 60 * Nanoseconds.perSecond
    /// Changes logged in full since the log was last idle: the first loss and return, at most 2.
    private var told = 0
    /// When the last change logged in full came.
    private var lastTold: UInt64 = 0
    /// When the current window of held changes began; `nil` while changes are logged in full.
    private var windowStart: UInt64?
    /// Losses and returns held in the current window.
    private var heldLosses = 0
    private var heldReturns = 0
    /// The last change recorded: whether the chip answers now, for the summary.
    private(set) var last: Change?

    /// The changes held in a window that has passed, for its summary line.
    struct Summary: Equatable {
        var losses: Int
        var returns: Int
        /// The window's length, in whole seconds.
        var seconds: Int
        /// The last change: whether the chip answers now.
        var last: Change
    }

    /// Records a change at `now`; returns whether its lines are logged in full (`false`: they
    /// are held, counted in the next summary).
    mutating func record(_ change: Change, now: UInt64) -> Bool {
        last = change
        if windowStart == nil {
            // A window without a change after the last one told: this one starts afresh.
            if told > 0, now &- lastTold >= window { told = 0 }
            if told < 2 {
                told += 1
                lastTold = now
                return true
            }
            windowStart = now
        }
        switch change {
        case .lost: heldLosses += 1
        case .back: heldReturns += 1
        }
        return false
    }

    /// Whether the lines that only follow the chip's presence are held now.
    var isHolding: Bool { windowStart != nil }

    /// The summary of the changes held, once their window has passed (`now` ≥ its end), or at
    /// once when `force` (the session stops); `nil` when there is nothing to say. While changes
    /// keep coming that is one summary a window; a window that held none ends the holding, and
    /// the next change is logged in full again.
    mutating func flush(now: UInt64, force: Bool = false) -> Summary? {
        guard let start = windowStart, force || now &- start >= window else { return nil }
        defer { heldLosses = 0; heldReturns = 0 }
        guard heldLosses + heldReturns > 0, let last else {
            windowStart = nil
            told = 0
            return nil
        }
        windowStart = force ? nil : now
        if force { told = 0 }
        return Summary(losses: heldLosses, returns: heldReturns, seconds: Int((Double(now &- start) / 1e9).rounded()), last: last)
    }
}
