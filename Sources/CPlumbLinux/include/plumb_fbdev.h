#ifndef PLUMB_FBDEV_H
#define PLUMB_FBDEV_H
// The fbdev and virtual-terminal interfaces PlumbLinux's Framebuffer uses, and a small
// signal-safe cleanup list that puts the console back when the process is interrupted. The list
// has no lock: any thread may add, remove, run or clear at any time, also while a signal handler
// runs it (C11 atomics; see plumb_cleanup.c).
//
// Ioctl numbers and structs come from linux-libc-dev's <linux/fb.h> (FBIOGET_VSCREENINFO 0x4600,
// FBIOPUT_VSCREENINFO 0x4601, FBIOGET_FSCREENINFO 0x4602, FBIOPAN_DISPLAY 0x4606) and
// <linux/kd.h> (KDGETMODE 0x4B3B, KDSETMODE 0x4B3A, KD_TEXT 0, KD_GRAPHICS 1).

#include <linux/fb.h>
#include <linux/kd.h>
#include <stddef.h>

/// Adds "ioctl(fd, KDSETMODE, mode)" to the actions run on cleanup. Returns 0, or -1 when the
/// list (8 entries) is full.
int plumb_cleanup_add_kd_mode(int fd, int mode);

/// Adds "write(fd, bytes, length)" (at most 32 bytes, such as a terminal's show-cursor sequence).
int plumb_cleanup_add_write(int fd, const void *bytes, size_t length);

/// Installs handlers for SIGINT, SIGTERM and SIGHUP that run the actions, then die of the same
/// signal with its default action (so the exit status still says which signal it was). A signal
/// that already has a handler (SignalMonitor's) or is ignored keeps it.
void plumb_cleanup_install_signal_handlers(void);

/// Adds "ioctl(fd, request, &copy_of_info)" for FBIOPUT_VSCREENINFO or FBIOPAN_DISPLAY: puts a
/// framebuffer's mode or panning back when a signal ends the process.
int plumb_cleanup_add_fb_info(int fd, unsigned long request, const struct fb_var_screeninfo *info);

/// Removes every action on `fd` (the owner closed it normally).
void plumb_cleanup_remove_fd(int fd);

/// Runs every action now (a normal exit) and empties the list. Safe to call more than once.
void plumb_cleanup_run(void);

/// Removes every action without running it.
void plumb_cleanup_clear(void);

/// How many actions on `fd` the list holds now, or all of them when `fd` is negative (for tests
/// and diagnostics; a snapshot).
int plumb_cleanup_count(int fd);



/// Installs a SIGUSR1 handler that counts the signals (for an orientation-lock toggle).
void plumb_usr1_install(void);
/// SIGUSR1 signals received since plumb_usr1_install.
long plumb_usr1_count(void);
#endif
