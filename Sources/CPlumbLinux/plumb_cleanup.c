// Cleanup actions that must also run when a signal ends the process. A signal handler may only
// call async-signal-safe functions (signal-safety(7)): ioctl, write, signal and raise are; so the
// actions are plain records in a fixed array, not closures.
#include "plumb_fbdev.h"

#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

enum { PLUMB_CLEANUP_MAX = 8, PLUMB_CLEANUP_BYTES = 32 };

typedef struct {
    int kind;  // 0 empty, 1 KDSETMODE, 2 write, 3 fbdev ioctl with a stored fb_var_screeninfo
    int fd;
    int mode;
    unsigned long request;
    struct fb_var_screeninfo info;
    size_t length;
    unsigned char bytes[PLUMB_CLEANUP_BYTES];
} plumb_cleanup_action;

static plumb_cleanup_action actions[PLUMB_CLEANUP_MAX];
static volatile sig_atomic_t action_count = 0;

static int add(plumb_cleanup_action action) {
    if (action_count >= PLUMB_CLEANUP_MAX) return -1;
    actions[action_count] = action;
    action_count = action_count + 1;
    return 0;
}

int plumb_cleanup_add_kd_mode(int fd, int mode) {
    plumb_cleanup_action a = { .kind = 1, .fd = fd, .mode = mode };
    return add(a);
}

int plumb_cleanup_add_write(int fd, const void *bytes, size_t length) {
    if (length > PLUMB_CLEANUP_BYTES) return -1;
    plumb_cleanup_action a = { .kind = 2, .fd = fd, .length = length };
    memcpy(a.bytes, bytes, length);
    return add(a);
}

int plumb_cleanup_add_fb_info(int fd, unsigned long request, const struct fb_var_screeninfo *info) {
    plumb_cleanup_action a = { .kind = 3, .fd = fd, .request = request, .info = *info };
    return add(a);
}

void plumb_cleanup_remove_fd(int fd) {
    int kept = 0;
    for (int i = 0; i < action_count; i++) {
        if (actions[i].fd != fd) actions[kept++] = actions[i];
    }
    action_count = kept;
}

void plumb_cleanup_run(void) {
    // Newest first, like a stack of undo steps.
    while (action_count > 0) {
        action_count = action_count - 1;
        plumb_cleanup_action *a = &actions[action_count];
        if (a->kind == 1) {
            (void)ioctl(a->fd, KDSETMODE, a->mode);
        } else if (a->kind == 3) {
            (void)ioctl(a->fd, a->request, &a->info);
        } else if (a->kind == 2) {
            ssize_t ignored = write(a->fd, a->bytes, a->length);
            (void)ignored;
        }
        a->kind = 0;
    }
}

void plumb_cleanup_clear(void) { action_count = 0; }

static void handle(int sig) {
    plumb_cleanup_run();
    signal(sig, SIG_DFL);
    raise(sig);
}

void plumb_cleanup_install_signal_handlers(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handle;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
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
