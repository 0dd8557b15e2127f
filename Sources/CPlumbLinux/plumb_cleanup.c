// Cleanup actions that must also run when a signal ends the process. A signal handler may only
// call async-signal-safe functions (signal-safety(7)): ioctl, write, signal and raise are; so the
// actions are plain records in a fixed array, not closures.
//
// Concurrency: any thread may add or remove while another runs the list, and a signal may arrive
// in the middle of any of them, so there is no lock (a handler cannot wait for the thread it
// interrupted). Each slot has one atomic word, (sequence << 2) | status, and whoever moves a word
// from one status to the next with a compare-and-swap owns the record for that step:
//   FREE --add claims--> WRITING --add publishes--> READY --run/remove/clear takes--> TAKEN --> FREE
// Only the owner of a WRITING or TAKEN slot touches its record, so no record is ever read while
// it is written; a READY record is immutable. `fd` is atomic as well, because remove reads it
// before taking the slot (so it never holds a slot it does not remove); the sequence in the word
// makes that compare-and-swap fail if the slot was freed and filled again in between. The
// sequence also orders the actions: run takes the newest READY one first. A signal that arrives
// while a thread is between claiming and publishing an action does not run that action (it was
// not added yet); one that arrives while a thread runs an action it has taken does not run it
// twice (if that signal ends the process, the action it interrupted is not finished). C11 atomics on a lock-free `unsigned int` are async-signal-safe (C11 7.14.1.1 allows
// lock-free atomic objects in handlers).
#include "plumb_fbdev.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the cleanup list needs lock-free atomic ints (signal safety)");

enum { PLUMB_CLEANUP_MAX = 8, PLUMB_CLEANUP_BYTES = 32 };
enum { SLOT_FREE = 0, SLOT_WRITING = 1, SLOT_READY = 2, SLOT_TAKEN = 3, SLOT_STATUS = 3 };

typedef struct {
    int kind;  // 1 KDSETMODE, 2 write, 3 fbdev ioctl with a stored fb_var_screeninfo
    int mode;
    unsigned long request;
    struct fb_var_screeninfo info;
    size_t length;
    unsigned char bytes[PLUMB_CLEANUP_BYTES];
} plumb_cleanup_action;

typedef struct {
    atomic_uint word;  // (sequence << 2) | status
    atomic_int fd;
    plumb_cleanup_action action;
} plumb_cleanup_slot;

static plumb_cleanup_slot slots[PLUMB_CLEANUP_MAX];
// Sequence numbers for the order of additions (30 bits in the word: after 2^30 additions the
// order of the oldest actions may be wrong, never whether they run).
static atomic_uint next_sequence = 1;

static unsigned status_of(unsigned word) { return word & SLOT_STATUS; }
static unsigned with_status(unsigned word, unsigned status) { return (word & ~(unsigned)SLOT_STATUS) | status; }

static int add(int fd, const plumb_cleanup_action *action) {
    unsigned sequence = atomic_fetch_add(&next_sequence, 1);
    for (int i = 0; i < PLUMB_CLEANUP_MAX; i++) {
        plumb_cleanup_slot *slot = &slots[i];
        unsigned word = atomic_load(&slot->word);
        if (status_of(word) != SLOT_FREE) continue;
        unsigned claimed = (sequence << 2) | SLOT_WRITING;
        if (!atomic_compare_exchange_strong(&slot->word, &word, claimed)) continue;
        slot->action = *action;
        atomic_store_explicit(&slot->fd, fd, memory_order_relaxed);
        atomic_store_explicit(&slot->word, with_status(claimed, SLOT_READY), memory_order_release);
        return 0;
    }
    return -1;
}

int plumb_cleanup_add_kd_mode(int fd, int mode) {
    plumb_cleanup_action a = { .kind = 1, .mode = mode };
    return add(fd, &a);
}

int plumb_cleanup_add_write(int fd, const void *bytes, size_t length) {
    if (length > PLUMB_CLEANUP_BYTES) return -1;
    plumb_cleanup_action a = { .kind = 2, .length = length };
    memcpy(a.bytes, bytes, length);
    return add(fd, &a);
}

int plumb_cleanup_add_fb_info(int fd, unsigned long request, const struct fb_var_screeninfo *info) {
    plumb_cleanup_action a = { .kind = 3, .request = request, .info = *info };
    return add(fd, &a);
}

void plumb_cleanup_remove_fd(int fd) {
    for (int i = 0; i < PLUMB_CLEANUP_MAX; i++) {
        plumb_cleanup_slot *slot = &slots[i];
        unsigned word = atomic_load_explicit(&slot->word, memory_order_acquire);
        if (status_of(word) != SLOT_READY) continue;
        if (atomic_load_explicit(&slot->fd, memory_order_relaxed) != fd) continue;
        // Fails if the slot was taken, or freed and filled again, since `word` was read.
        if (atomic_compare_exchange_strong(&slot->word, &word, with_status(word, SLOT_TAKEN))) {
            atomic_store_explicit(&slot->word, with_status(word, SLOT_FREE), memory_order_release);
        }
    }
}

/// Takes the newest READY action (stores it in *out) and frees its slot; 0 when there is none.
static int take_newest(plumb_cleanup_action *out, int *fd) {
    for (;;) {
        int newest = -1;
        unsigned newest_word = 0;
        for (int i = 0; i < PLUMB_CLEANUP_MAX; i++) {
            unsigned word = atomic_load_explicit(&slots[i].word, memory_order_acquire);
            if (status_of(word) == SLOT_READY && (newest < 0 || (word >> 2) > (newest_word >> 2))) {
                newest = i;
                newest_word = word;
            }
        }
        if (newest < 0) return 0;
        plumb_cleanup_slot *slot = &slots[newest];
        if (!atomic_compare_exchange_strong(&slot->word, &newest_word, with_status(newest_word, SLOT_TAKEN))) continue;
        *out = slot->action;
        *fd = atomic_load_explicit(&slot->fd, memory_order_relaxed);
        atomic_store_explicit(&slot->word, with_status(newest_word, SLOT_FREE), memory_order_release);
        return 1;
    }
}

void plumb_cleanup_run(void) {
    // Newest first, like a stack of undo steps; each action runs once even if several threads
    // (or a signal handler and a thread) run the list at the same time.
    plumb_cleanup_action a;
    int fd;
    while (take_newest(&a, &fd)) {
        if (a.kind == 1) {
            (void)ioctl(fd, KDSETMODE, a.mode);
        } else if (a.kind == 3) {
            (void)ioctl(fd, a.request, &a.info);
        } else if (a.kind == 2) {
            ssize_t ignored = write(fd, a.bytes, a.length);
            (void)ignored;
        }
    }
}

void plumb_cleanup_clear(void) {
    plumb_cleanup_action a;
    int fd;
    while (take_newest(&a, &fd)) {}
}

int plumb_cleanup_count(int fd) {
    int count = 0;
    for (int i = 0; i < PLUMB_CLEANUP_MAX; i++) {
        unsigned word = atomic_load_explicit(&slots[i].word, memory_order_acquire);
        if (status_of(word) != SLOT_READY) continue;
        if (fd < 0 || atomic_load_explicit(&slots[i].fd, memory_order_relaxed) == fd) count++;
    }
    return count;
}

static void handle(int sig) {
    plumb_cleanup_run();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Only where the signal still has its default action: a handler the process installed (the
 * daemon's SignalMonitor, which turns SIGHUP into a reload and SIGTERM into an orderly stop) or an
 * ignored SIGHUP (nohup) is left as it is. Replacing the daemon's made `systemctl reload plumb`
 * kill a daemon drawing the level image (found by scripts/service-vm-test). */
static void install_if_default(int sig, const struct sigaction *sa) {
    struct sigaction current;
    if (sigaction(sig, NULL, &current) != 0) return;
    if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_DFL) sigaction(sig, sa, NULL);
}

void plumb_cleanup_install_signal_handlers(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handle;
    sigemptyset(&sa.sa_mask);
    install_if_default(SIGINT, &sa);
    install_if_default(SIGTERM, &sa);
    install_if_default(SIGHUP, &sa);
}

static volatile sig_atomic_t usr1_count = 0;

static void count_usr1(int sig) {
    (void)sig;
    usr1_count = usr1_count + 1;
}

void plumb_usr1_install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = count_usr1;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
}

long plumb_usr1_count(void) { return (long)usr1_count; }
