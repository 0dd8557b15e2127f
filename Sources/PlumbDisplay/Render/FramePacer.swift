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

    /// - Parameter rate: frames per second. Default 60. Held to ``slowestRate``…``fastestRate``:
    ///   0 or less is the slowest (a frame a day), `.infinity` the fastest (frames 1 ns apart, as
    ///   fast as the caller draws them); not a number is the default.
    public init(clock: any MonotonicClock, rate: Double = 60) {
        self.clock = clock
        interval = UInt64((1e9 / Self.held(rate: rate)).rounded())
    }

    /// The slowest rate (Hz): a frame a day.
    public static let slowestRate = 1.0 / 86_400
    /// The fastest rate (Hz): frames 1 ns apart, the shortest interval counted.
    public static let fastestRate = 1e9

    /// `rate` held to ``slowestRate``…``fastestRate``; 60 when it is not a number. A rate of 0 or
    /// less, or one that is not a number, stopped the process (the precondition, or the
    /// conversion of its interval); an infinite one made the interval 0, by which
    /// ``waitForNextFrame()`` divides.
    static func held(rate: Double) -> Double {
        rate.isNaN ? 60 : min(max(rate, slowestRate), fastestRate)
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
