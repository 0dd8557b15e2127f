#ifndef PLUMB_LOCK_H
#define PLUMB_LOCK_H
// Open-file-description record locks (fcntl(2) F_OFD_SETLK, Linux 3.15), which Swift's Glibc
// module does not export (they need _GNU_SOURCE). PlumbLinux's I2CDeviceClaim takes one byte of
// an I2C adapter's device node per chip address, so two processes cannot drive one chip at once.

/// Takes a write lock on the one byte at `offset` of the file open at `fd`, without waiting:
/// `fcntl(fd, F_OFD_SETLK, {F_WRLCK, SEEK_SET, offset, 1})`. The lock belongs to the open file
/// description: another description of the same file, in this process or another, conflicts with
/// it, and it goes when the last descriptor of this description is closed.
/// Returns 0, or a negative errno: -EAGAIN or -EACCES when another description holds a lock on it.
int plumb_ofd_lock_byte(int fd, long offset);

/// Whether another open file description holds a lock on the one byte at `offset` of the file
/// open at `fd`, without taking one: `fcntl(fd, F_OFD_GETLK, {F_WRLCK, SEEK_SET, offset, 1})`,
/// which leaves l_type F_UNLCK when a write lock could be taken. The kernel reports l_pid -1 for
/// an OFD lock (fcntl(2)), so the holder's process is not known.
/// Returns 1 when held by another description, 0 when free, or a negative errno.
int plumb_ofd_test_byte(int fd, long offset);

#endif
