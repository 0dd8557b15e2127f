// The system calls the framebuffer and console code makes: fbdev and VT ioctls, mmap, ftruncate.
// Kept apart from Syscalls.swift (the I2C and GPIO wrappers) so the two could be written in
// parallel; same conventions: a failure returns a negative errno. Each call asks the mocking layer
// first (Sys.mocked, debug builds only), so tests can play a driver that reports a broken mode.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlumbLinux

enum FBSys {
    /// `ioctl(fd, FBIOGET_VSCREENINFO, &info)`.
    static func variableInfo(_ fd: Int32, _ info: inout fb_var_screeninfo) -> Int32 {
        if let reply = Sys.mocked(.framebufferVariableInfo(fd: fd)) {
            if case .variableScreenInfo(let answer) = reply { info = answer; return 0 }
            return reply.result
        }
        let r = ioctl(fd, UInt(FBIOGET_VSCREENINFO), &info)
        return r < 0 ? -errno : r
    }

    /// `ioctl(fd, FBIOPUT_VSCREENINFO, &info)`: the driver may adjust `info` to what it accepted.
    static func setVariableInfo(_ fd: Int32, _ info: inout fb_var_screeninfo) -> Int32 {
        if let reply = Sys.mocked(.framebufferSetVariableInfo(fd: fd, width: Int(info.xres), height: Int(info.yres),
                                                              virtualHeight: Int(info.yres_virtual), bitsPerPixel: Int(info.bits_per_pixel))) {
            if case .variableScreenInfo(let answer) = reply { info = answer; return 0 }
            return reply.result
        }
        let r = ioctl(fd, UInt(FBIOPUT_VSCREENINFO), &info)
        return r < 0 ? -errno : r
    }

    /// `ioctl(fd, FBIOGET_FSCREENINFO, &info)`.
    static func fixedInfo(_ fd: Int32, _ info: inout fb_fix_screeninfo) -> Int32 {
        if let reply = Sys.mocked(.framebufferFixedInfo(fd: fd)) {
            if case .fixedScreenInfo(let answer) = reply { info = answer; return 0 }
            return reply.result
        }
        let r = ioctl(fd, UInt(FBIOGET_FSCREENINFO), &info)
        return r < 0 ? -errno : r
    }

    /// `ioctl(fd, FBIOPAN_DISPLAY, &info)`: shows the page at info.xoffset/yoffset.
    static func pan(_ fd: Int32, _ info: inout fb_var_screeninfo) -> Int32 {
        if let reply = Sys.mocked(.framebufferPan(fd: fd, yOffset: Int(info.yoffset))) { return reply.result }
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
        // A test can fail the call; anything else maps for real.
        if let reply = Sys.mocked(.mapShared(fd: fd, length: length)), case .fail(let code) = reply { error = code; return nil }
        let p = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let p, p != MAP_FAILED else { error = errno; return nil }
        return p
    }

    static func unmap(_ p: UnsafeMutableRawPointer, length: Int) {
        _ = munmap(p, length)
    }

    /// open(2) with O_CLOEXEC; a negative errno on failure.
    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) -> Int32 {
        if let reply = Sys.mocked(.open(path: path, flags: flags)) { return reply.result }
        let fd = path.withCString { Glibc.open($0, flags | O_CLOEXEC, mode) }
        return fd < 0 ? -errno : fd
    }

    static func close(_ fd: Int32) {
        if Sys.mocked(.close(fd: fd)) != nil { return }
        _ = Glibc.close(fd)
    }

    /// ftruncate(2); a negative errno on failure.
    static func truncate(_ fd: Int32, length: Int) -> Int32 {
        ftruncate(fd, off_t(length)) < 0 ? -errno : 0
    }

    /// The message for an errno ("Permission denied").
    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }
}
