import PlumbHAL

/// Paces frames to a display's refresh: waits until the next frame time and skips frames it
/// missed instead of bursting to catch up.
///
/// fbdev does not report the refresh rate reliably (`pixclock` is 0 on many KMS-emulated
/// framebuffers), so the rate is given: 60 Hz by default.
public final class FramePacer {
    public let clock: any MonotonicClock
    /// Nanoseconds between frames.
    public let interval: UInt64
    private var next: UInt64?
    /// Frame times skipped because a frame took longer than the interval.
    public private(set) var missedFrames = 0

    /// - Parameter rate: frames per second (> 0).
    public init(clock: any MonotonicClock, rate: Double = 60) {
        precondition(rate > 0, "frame rate must be positive")
        self.clock = clock
        interval = UInt64((1e9 / rate).rounded())
    }

    /// Sleeps until the next frame time and returns it (nanoseconds on `clock`).
    @discardableResult
    public func waitForNextFrame() -> UInt64 {
        let now = clock.nowNanoseconds
        guard var due = next else {
            next = now + interval
            return now
        }
        if now > due {
            let behind = (now - due) / interval
            missedFrames += Int(behind)
            due += behind * interval
            if now > due { due += interval; missedFrames += 1 }
        }
        if due > now { clock.sleep(nanoseconds: due - now) }
        next = due + interval
        return due
    }
}
