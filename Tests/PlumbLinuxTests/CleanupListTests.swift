import CPlumbLinux
import Foundation
import Glibc
import Synchronization
import Testing

/// The signal-safe cleanup list (CPlumbLinux/plumb_cleanup.c) used from several threads at once,
/// and run from a signal handler in the middle of updates. Write actions on pipes stand in for
/// the console ioctls: what the list runs arrives in the pipe, so each action can be counted.
extension CleanupTests {
    /// Four threads each add one lasting action, then add and remove another action of their own
    /// 100000 times (checking after each step that it is there, then gone), then leave one: exactly
    /// those eight remain and run once. (The unlocked list failed this under ThreadSanitizer's
    /// scheduling: adds refused as "full", actions missing or back after removal, a lasting one
    /// lost; in a plain build its windows were too narrow to hit here.)
    @Test func concurrentAddAndRemoveKeepExactlyTheSurvivors() throws {
        plumb_cleanup_clear()
        let threads = 4
        let lasting = try (0..<threads).map { _ in try Pipe() }
        let churned = try (0..<threads).map { _ in try Pipe() }
        let failedAdds = Atomic<Int>(0)
        let wrongCounts = Atomic<Int>(0)
        let ready = Atomic<Int>(0)
        let group = DispatchGroup()
        for t in 0..<threads {
            let (keep, churn) = (lasting[t].write, churned[t].write)
            group.enter()
            Thread {
                if add(keep, Array("P\(t);".utf8)) != 0 { failedAdds.add(1, ordering: .relaxed) }
                // Start together, so the updates overlap.
                ready.add(1, ordering: .relaxed)
                while ready.load(ordering: .relaxed) < threads { sched_yield() }
                for _ in 0..<100_000 {
                    if add(churn, [0x78]) != 0 { failedAdds.add(1, ordering: .relaxed) }
                    if plumb_cleanup_count(churn) != 1 { wrongCounts.add(1, ordering: .relaxed) }
                    plumb_cleanup_remove_fd(churn)
                    if plumb_cleanup_count(churn) != 0 { wrongCounts.add(1, ordering: .relaxed) }
                }
                if add(churn, Array("T\(t);".utf8)) != 0 { failedAdds.add(1, ordering: .relaxed) }
                group.leave()
            }.start()
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(failedAdds.load(ordering: .relaxed) == 0, "the list (8 slots) never held more than 8")
        #expect(wrongCounts.load(ordering: .relaxed) == 0, "an action was lost right after its add, or outlived its removal")
        #expect(plumb_cleanup_count(-1) == Int32(2 * threads))
        plumb_cleanup_run()
        #expect(plumb_cleanup_count(-1) == 0)
        for t in 0..<threads {
            #expect(lasting[t].drain() == Array("P\(t);".utf8), "thread \(t)'s lasting action")
            #expect(churned[t].drain() == Array("T\(t);".utf8), "thread \(t)'s last action")
        }
    }

    /// One thread adds 1000 numbered actions while another runs the list over and over (as the
    /// signal handler would, concurrently with the owner): every action runs exactly once. (The
    /// unlocked list lost about a third of them, in 2 of 4 runs.)
    @Test func runningWhileAnotherThreadAddsRunsEachActionOnce() throws {
        plumb_cleanup_clear()
        let pipe = try Pipe()
        let total = 1000
        let adding = Atomic<Bool>(true)
        let done = DispatchSemaphore(value: 0)
        Thread {
            for i in 0..<total {
                // The list holds 8: wait for the runner when it is full.
                while add(pipe.write, Self.bytes(i)) != 0 { sched_yield() }
            }
            adding.store(false, ordering: .releasing)
            done.signal()
        }.start()
        while adding.load(ordering: .acquiring) { plumb_cleanup_run() }
        #expect(done.wait(timeout: .now() + 60) == .success)
        plumb_cleanup_run()
        let written = pipe.drain()
        #expect(written.count == total * 4)
        let numbers = stride(from: 0, to: written.count - 3, by: 4).map { Self.number(written, at: $0) }
        #expect(Set(numbers) == Set(0..<total) && numbers.count == total, "each action ran exactly once")
    }

    /// SIGUSR2 delivered to a thread in the middle of its adds and removes runs the list from the
    /// handler, as the fatal-signal handler does (which cannot be called here: it ends the
    /// process). Each action runs at most once, in order, and the list is empty and usable after.
    @Test func signalHandlerRunsTheListInTheMiddleOfUpdates() throws {
        plumb_cleanup_clear()
        let pipe = try Pipe()
        var previous = sigaction()
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in plumb_cleanup_run() }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        #expect(sigaction(SIGUSR2, &action, &previous) == 0)
        defer { sigaction(SIGUSR2, &previous, nil) }

        // The worker adds and removes until 1000 signals have hit it: each signal writes at most
        // one 4-byte action, so the pipe's buffer never fills and a write in the handler never fails.
        let wanted = 1000
        let worker = Mutex<pthread_t?>(nil)
        let sent = Atomic<Int>(0)
        let running = Atomic<Bool>(true)
        let done = DispatchSemaphore(value: 0)
        let failedAdds = Atomic<Int>(0)
        let total = Atomic<Int>(0)
        Thread {
            worker.withLock { $0 = pthread_self() }
            var i = 0
            let end = Date().addingTimeInterval(20)
            while sent.load(ordering: .relaxed) < wanted, i & 0xFFF != 0 || Date() < end {
                if add(pipe.write, Self.bytes(i)) != 0 { failedAdds.add(1, ordering: .relaxed) }
                plumb_cleanup_remove_fd(pipe.write)
                i += 1
            }
            total.store(i, ordering: .relaxed)
            running.store(false, ordering: .releasing)
            done.signal()
        }.start()
        while running.load(ordering: .acquiring) {
            if let thread = worker.withLock({ $0 }), running.load(ordering: .acquiring) {
                if pthread_kill(thread, SIGUSR2) == 0 { sent.add(1, ordering: .relaxed) }
            }
            sched_yield()
        }
        let signals = sent.load(ordering: .relaxed)
        let added = total.load(ordering: .relaxed)
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(failedAdds.load(ordering: .relaxed) == 0)
        #expect(plumb_cleanup_count(-1) == 0)
        let written = pipe.drain()
        let numbers = stride(from: 0, to: written.count - 3, by: 4).map { Self.number(written, at: $0) }
        #expect(written.count % 4 == 0)
        #expect(numbers == numbers.sorted() && Set(numbers).count == numbers.count, "each ran at most once, oldest first")
        // Still usable: an action added now runs.
        #expect(numbers.allSatisfy { $0 < added })
        #expect(add(pipe.write, Self.bytes(added)) == 0)
        plumb_cleanup_run()
        #expect(pipe.drain() == Self.bytes(added))
        #expect(signals >= wanted, "the worker ended before \(wanted) signals (\(signals), \(added) updates)")
    }

    private func add(_ fd: Int32, _ bytes: [UInt8]) -> Int32 {
        bytes.withUnsafeBytes { plumb_cleanup_add_write(fd, $0.baseAddress, $0.count) }
    }

    private static func bytes(_ i: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(i).littleEndian) { Array($0) } }
    private static func number(_ bytes: [UInt8], at offset: Int) -> Int {
        Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
    }
}

/// A non-blocking pipe, closed when released.
private final class Pipe: Sendable {
    let read: Int32
    let write: Int32
    init() throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        read = fds[0]
        write = fds[1]
        // Non-blocking both ways: a write from the signal handler never waits, a drain never hangs.
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    }
    deinit { close(read); close(write) }
    /// Everything written so far.
    func drain() -> [UInt8] {
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = Glibc.read(read, &buffer, buffer.count)
            guard n > 0 else { return all }
            all += buffer[0..<n]
        }
    }
}
