// See plumb_lock.h. F_OFD_GETLK is 36 and F_OFD_SETLK 37 in <bits/fcntl-linux.h>, visible with _GNU_SOURCE.
#define _GNU_SOURCE
#include "plumb_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

/// A write lock on the one byte at `offset`, as both commands below take it.
static struct flock byte_lock(long offset) {
    struct flock lock;
    memset(&lock, 0, sizeof lock);   // l_pid must be 0 for the OFD commands
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = offset;
    lock.l_len = 1;
    return lock;
}

int plumb_ofd_lock_byte(int fd, long offset) {
    struct flock lock = byte_lock(offset);
    return fcntl(fd, F_OFD_SETLK, &lock) == 0 ? 0 : -errno;
}

int plumb_ofd_test_byte(int fd, long offset) {
    struct flock lock = byte_lock(offset);
    if (fcntl(fd, F_OFD_GETLK, &lock) != 0) return -errno;
    return lock.l_type == F_UNLCK ? 0 : 1;
}
