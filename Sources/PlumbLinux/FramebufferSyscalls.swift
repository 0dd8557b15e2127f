// The system calls the framebuffer and console code makes: fbdev and VT ioctls, mmap, ftruncate.
// Kept apart from Syscalls.swift (the I2C and GPIO wrappers) so the two could be written in
// parallel; same conventions: a failure returns a negative errno.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlumbLinux

enum FBSys {
    /// `ioctl(fd, FBIOGET_VSCREENINFO, &info)`.
    static func variableInfo(_ fd: Int32, _ info: inout fb_var_screeninfo) -> Int32 {
        let r = ioctl(fd, UInt(FBIOGET_VSCREENINFO), &info)
        return r < 0 ? -errno : r
    }

    /// `ioctl(fd, FBIOPUT_VSCREENINFO, &info)`: the driver may adjust `info` to what it accepted.
    static func setVariableInfo(_ fd: Int32, _ info: inout fb_var_screeninfo) -> Int32 {
        let r = ioctl(fd, UInt(FBIOPUT_VSCREENINFO), &info)
        return r < 0 ? -errno : r
    }

    /// `ioctl(fd, FBIOGET_FSCREENINFO, &info)`.
    static func fixedInfo(_ fd: Int32, _ info: inout fb_fix_screeninfo) -> Int32 {
        let r = ioctl(fd, UInt(FBIOGET_FSCREENINFO), &info)
        return r < 0 ? -errno : r
    }

    /// `ioctl(fd, FBIOPAN_DISPLAY, &info)`: shows the page at info.xoffset/yoffset.
    static func pan(_ fd: Int32, _ info: inout fb_var_screeninfo) -> Int32 {
        let r = ioctl(fd, UInt(FBIOPAN_DISPLAY), &info)
        return r < 0 ? -errno : r
    }

    /// `ioctl(fd, KDGETMODE, &mode)`: KD_TEXT or KD_GRAPHICS, or a negative errno (ENOTTY: not a VT).
    static func consoleMode(_ fd: Int32) -> Int32 {
        var mode: CInt = 0
        let r = ioctl(fd, UInt(KDGETMODE), &mode)
        return r < 0 ? -errno : mode
    }

    /// `ioctl(fd, KDSETMODE, mode)`.
    static func setConsoleMode(_ fd: Int32, _ mode: Int32) -> Int32 {
        let r = ioctl(fd, UInt(KDSETMODE), CInt(mode))
        return r < 0 ? -errno : r
    }

    /// `mmap(NULL, length, PROT_READ|PROT_WRITE, MAP_SHARED, fd, 0)`, or nil with `error` set.
    static func mapShared(_ fd: Int32, length: Int, error: inout Int32) -> UnsafeMutableRawPointer? {
        let p = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let p, p != MAP_FAILED else { error = errno; return nil }
        return p
    }

    static func unmap(_ p: UnsafeMutableRawPointer, length: Int) {
        _ = munmap(p, length)
    }

    /// open(2) with O_CLOEXEC; a negative errno on failure.
    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) -> Int32 {
        let fd = path.withCString { Glibc.open($0, flags | O_CLOEXEC, mode) }
        return fd < 0 ? -errno : fd
    }

    static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    /// ftruncate(2); a negative errno on failure.
    static func truncate(_ fd: Int32, length: Int) -> Int32 {
        ftruncate(fd, off_t(length)) < 0 ? -errno : 0
    }

    /// The message for an errno ("Permission denied").
    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
