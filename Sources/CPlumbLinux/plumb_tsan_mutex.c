// ThreadSanitizer builds only (`swift build --sanitize=thread`): makes Synchronization.Mutex's
// contended lock hand-offs visible to TSan. Compiles to nothing in every other build.
//
// Why: on Linux, Mutex (swiftlang/swift stdlib/public/Synchronization/Mutex/LinuxImpl.swift) is a
// PI futex word (0 unlocked, TID locked, TID|FUTEX_WAITERS contended). Its fast paths, `_lock()` and
// `_unlock()`, are inlined into our code and compiled with TSan, so an uncontended hand-off is an
// acquire/release pair TSan sees. Its slow paths, `_lockSlow` (a spin of relaxed loads and a CAS,
// then FUTEX_LOCK_PI), `_tryLockSlow` and `_unlockSlow` (FUTEX_UNLOCK_PI), live in
// libswiftSynchronization.so, which is not instrumented, and under contention the kernel passes
// ownership straight to the waiter. TSan then sees no happens-before between two critical sections
// of the same Mutex and reports a "data race" between them: a false positive, seen first in
// ScriptedOrientationSource (stop() against the playing thread's isCurrent, both inside
// `state.withLock`), and reproduced with two threads incrementing one Mutex-held counter (a report
// in 4 of 4 runs, the count still right). A suppression cannot be narrow here: the reported frames
// are our withLock closures, not the lock, so it would hide real races on the same state.
//
// What: these definitions replace the three slow-path symbols (the executable's definition wins
// over the shared library's), keep the same futex protocol (the inlined fast paths depend on it,
// so it is ABI-frozen), and tell TSan about each hand-off with __tsan_acquire/__tsan_release on
// the futex word, the same address the fast paths' atomics use. With them the reproducer is clean
// (0 of 6 runs). Swift passes `self` (the handle's address, which is the word) in the swiftself
// register, which clang's swiftcall convention spells `swift_context`; `selfId` is the caller's TID.
// Checked against Swift 6.3.1's libswiftSynchronization.so (x86_64 disassembly: self in r13,
// FUTEX_LOCK_PI_PRIVATE, FUTEX_TRYLOCK_PI, FUTEX_UNLOCK_PI_PRIVATE). PlumbLinuxTests'
// ContendedMutexTests keep this honest: if a toolchain renames the symbols, its contended
// counter is reported again under TSan (scripts/test.d/65-tsan).
#if defined(__has_feature)
#  if __has_feature(thread_sanitizer) && defined(__linux__)
#    define PLUMB_TSAN_MUTEX 1
#  endif
#endif

#ifdef PLUMB_TSAN_MUTEX
#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

#define PLUMB_SWIFT_METHOD __attribute__((swiftcall, used, visibility("default")))
#define PLUMB_SWIFT_SELF __attribute__((swift_context))

PLUMB_SWIFT_METHOD void plumb_tsan_mutex_lock_slow(uint32_t self_id, PLUMB_SWIFT_SELF _Atomic uint32_t *word)
    __asm__("$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF");
PLUMB_SWIFT_METHOD bool plumb_tsan_mutex_try_lock_slow(PLUMB_SWIFT_SELF _Atomic uint32_t *word)
    __asm__("$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF");
PLUMB_SWIFT_METHOD void plumb_tsan_mutex_unlock_slow(PLUMB_SWIFT_SELF _Atomic uint32_t *word)
    __asm__("$s15Synchronization12_MutexHandleV11_unlockSlowyyF");

// Spins a while (as the stdlib does) with instrumented atomics, then lets the kernel hand the
// lock over and records that as an acquire.
PLUMB_SWIFT_METHOD void plumb_tsan_mutex_lock_slow(uint32_t self_id, PLUMB_SWIFT_SELF _Atomic uint32_t *word) {
    for (int tries = 1000; tries > 0; tries--) {
        uint32_t expected = 0;
        if (atomic_load_explicit(word, memory_order_relaxed) == 0 &&
            atomic_compare_exchange_strong_explicit(word, &expected, self_id, memory_order_acquire,
                                                    memory_order_relaxed))
            return;
    }
    for (;;) {
        if (syscall(SYS_futex, word, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0) == 0) {
            __tsan_acquire((void *)word);
            return;
        }
        // EINTR and EAGAIN (the owner is exiting) retry, as in the stdlib; anything else is the
        // stdlib's fatalError (a recursive lock, a corrupt word).
        if (errno != EINTR && errno != EAGAIN) abort();
    }
}

PLUMB_SWIFT_METHOD bool plumb_tsan_mutex_try_lock_slow(PLUMB_SWIFT_SELF _Atomic uint32_t *word) {
    if (syscall(SYS_futex, word, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0) != 0) return false;
    __tsan_acquire((void *)word);
    return true;
}

PLUMB_SWIFT_METHOD void plumb_tsan_mutex_unlock_slow(PLUMB_SWIFT_SELF _Atomic uint32_t *word) {
    __tsan_release((void *)word);
    for (;;) {
        if (syscall(SYS_futex, word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0) == 0) return;
        if (errno != EINTR) abort();  // the stdlib's fatalError: unlocked by a non-owner
    }
}
#endif
