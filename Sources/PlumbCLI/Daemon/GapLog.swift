import PlumbDrivers
import PlumbHAL

/// Turns a source's stream gaps into log lines: the first gap at once, then at most one summary a
/// minute while they keep coming.
///
/// A FIFO that overflows on every drain (a rate the bus cannot carry, a reader starved of CPU)
/// or a bus that fails every few reads gives a gap per wake-up: 20 lines a second into the
/// journal on the Raspberry Pi's SD card, or over a terminal that `plumb watch` is printing
/// orientation changes to. The first gap says what happened; the summary says how often it kept
/// happening and how much was lost, per reason. Time is the stream's clock, so simulations run in
/// virtual time.
struct GapLog {
    /// How long after a logged line further gaps are only counted, in nanoseconds. Default 60 s.
    var window: UInt64 = 60 * Nanoseconds.perSecond
    /// When the last line was logged; `nil` when the next gap should be logged at once.
    private var windowStart: UInt64?
    /// Gaps counted since then, by reason, in the order first seen.
    private var held: [(reason: StreamGap.Reason, count: Int, lost: Int, lostKnown: Bool)] = []

    /// The line to log for `gap`, which the stream reported at `now` (stream clock): the gap
    /// itself when no line went out within ``window``; when gaps were held in the window that has
    /// just passed, their summary, this gap included; nothing while inside the window.
    mutating func record(_ gap: StreamGap, source: String, now: UInt64) -> String? {
        guard let start = windowStart else {
            windowStart = now
            return Self.line(gap, source: source)
        }
        hold(gap)
        guard now &- start >= window else { return nil }
        windowStart = now
        return summary(source: source, now: now, since: start)
    }

    /// The summary of the gaps held, once the window they fell in has passed (`now` ≥ its end),
    /// or at once when `force` (the stream stops); `nil` when there is nothing to say.
    /// While gaps keep coming, that is one summary a minute; once they stop, the next gap is
    /// logged at once again.
    mutating func flush(source: String, now: UInt64, force: Bool = false) -> String? {
        guard let start = windowStart, force || now &- start >= window else { return nil }
        let summary = self.summary(source: source, now: now, since: start)
        windowStart = (summary == nil || force) ? nil : now
        return summary
    }

    /// No gap logged within the window: nothing to flush, and a drain without gaps need not read
    /// the clock.
    var isIdle: Bool { windowStart == nil }

    /// One gap, as the stream reported it.
    static func line(_ gap: StreamGap, source: String) -> String {
        let lost = gap.lostSamples.map { ", \($0) samples lost" } ?? ""
        return "gap in the stream from \(source): \(gap.reason.rawValue)\(lost)"
    }

    private mutating func hold(_ gap: StreamGap) {
        if let i = held.firstIndex(where: { $0.reason == gap.reason }) {
            held[i].count += 1
            held[i].lost += gap.lostSamples ?? 0
            held[i].lostKnown = held[i].lostKnown && gap.lostSamples != nil
        } else {
            held.append((gap.reason, 1, gap.lostSamples ?? 0, gap.lostSamples != nil))
        }
    }

    private mutating func summary(source: String, now: UInt64, since start: UInt64) -> String? {
        guard !held.isEmpty else { return nil }
        defer { held.removeAll() }
        let total = held.reduce(0) { $0 + $1.count }
        let seconds = Int((Double(now &- start) / 1e9).rounded())
        let parts = held.map { entry in
            let lost = entry.lost > 0 ? ", \(entry.lostKnown ? "" : "at least ")\(entry.lost) samples lost" : ""
            return "\(entry.reason.rawValue) \(entry.count)×\(lost)"
        }
        return "gap in the stream from \(source): \(total) more in the last \(seconds) s (\(parts.joined(separator: "; ")))"
    }
}
