import Foundation
import Synchronization
import Testing

/// Synchronization.Mutex taken by several threads at once, so that its slow paths (spin, kernel
/// hand-off, failed try-lock) run.
///
/// In a normal build this checks that the counts stay exact. Under ThreadSanitizer
/// (scripts/test.d/65-tsan) it is also the regression test for CPlumbLinux/plumb_tsan_mutex.c:
/// without that file, TSan reports the contended counter below as a data race (the stdlib's
/// slow paths are not instrumented), and so would every Mutex in Plumb that two threads contend.
@Suite("Synchronization.Mutex under contention")
struct ContendedMutexTests {
    private final class Shared: Sendable {
        let state = Mutex((count: 0, tries: 0, trail: [Int]()))
    }

    @Test("three threads taking one Mutex by turns (lock and try-lock) lose no update")
    func contendedCounterStaysExact() {
        let shared = Shared()
        let rounds = 50_000
        let done = DispatchSemaphore(value: 0)
        for worker in 0..<2 {
            Thread {
                for i in 0..<rounds {
                    shared.state.withLock { s in
                        s.count += 1
                        if i % 1_000 == 0 { s.trail.append(worker) }
                    }
                }
                done.signal()
            }.start()
        }
        let trying = Thread {
            var taken = 0
            for _ in 0..<rounds {
                if shared.state.withLockIfAvailable({ s in s.count += 1 }) != nil { taken += 1 }
            }
            shared.state.withLock { $0.tries = taken }
            done.signal()
        }
        trying.start()
        for _ in 0..<3 { done.wait() }
        let (count, tries, trail) = shared.state.withLock { ($0.count, $0.tries, $0.trail) }
        #expect(count == 2 * rounds + tries)
        #expect(trail.count == 2 * rounds / 1_000)
        #expect(trail.filter { $0 == 0 }.count == rounds / 1_000)
    }
}
