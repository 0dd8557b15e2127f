import Synchronization
import CPlumbLinux

/// Records, fails or answers PlumbLinux's system calls in a debug build, so tests can drive the
/// I2C path selection, retries and error mapping without a kernel (swift-system's
/// `ENABLE_MOCKING` pattern).
///
/// Install a driver for the duration of a closure with ``withMocking(_:body:)``; every call made
/// in that task goes to `handler` first, which returns ``Reply/passThrough`` to make the real
/// call. Release builds never consult the driver.
///
/// ```swift
/// let driver = MockingDriver { call in
///     if case .i2cFunctionality = call { return .value(0x0c7f_0000) }   // i2c-stub's mask
///     if case .open = call { return .value(3) }
///     return .value(0)
/// }
/// try driver.withMocking { ... }
/// print(driver.calls)
/// ```
final class MockingDriver: Sendable {
    /// One call, with the arguments that matter to a test.
    enum Call: Equatable, Sendable {
        case open(path: String, flags: Int32)
        case close(fd: Int32)
        case readFile(path: String)
        case readLink(path: String)
        case listDirectory(path: String)
        case i2cFunctionality(fd: Int32)
        case i2cSetAddress(fd: Int32, address: UInt8, force: Bool)
        case i2cReadWrite(fd: Int32, messages: [Message])
        case smbusReadByte(fd: Int32)
        case smbusWriteByte(fd: Int32, value: UInt8)
        case smbusReadByteData(fd: Int32, register: UInt8)
        case smbusWriteByteData(fd: Int32, register: UInt8, value: UInt8)
        case smbusReadI2CBlock(fd: Int32, register: UInt8, length: Int)
        case smbusWriteI2CBlock(fd: Int32, register: UInt8, bytes: [UInt8])
        case sleep(nanoseconds: UInt64)
        case gpioWait(timeoutNanoseconds: Int64)
        case gpioRead(max: Int32)
        case gpioGetValue
        case gpioSetValue(Bool)
        case framebufferVariableInfo(fd: Int32)
        case framebufferSetVariableInfo(fd: Int32, width: Int, height: Int, virtualHeight: Int, bitsPerPixel: Int)
        case framebufferFixedInfo(fd: Int32)
        case framebufferPan(fd: Int32, yOffset: Int)
        case mapShared(fd: Int32, length: Int)
        case socket(family: Int32)
        case lockByte(fd: Int32, offset: Int)
        /// Answer `.value(1)` (held by another description), `.value(0)` (free) or `.fail(errno:)`.
        case testByte(fd: Int32, offset: Int)
        /// Answer `.value(inode)` (device 0) or `.fail(errno:)`.
        case fileIdentity(fd: Int32)
    }

    /// One `struct i2c_msg` of an I2C_RDWR call: for a write, the bytes sent.
    struct Message: Equatable, Sendable {
        var address: UInt8
        var isRead: Bool
        var length: Int
        var bytes: [UInt8]
    }

    /// What the mocked call does.
    enum Reply: Sendable {
        /// Make the real call.
        case passThrough
        /// Fail with this errno.
        case fail(errno: Int32)
        /// Succeed returning this value (an fd, a count, a byte, a functionality mask).
        case value(Int)
        /// Succeed, filling the read buffer with these bytes (SMBus block reads).
        case bytes([UInt8])
        /// Succeed, filling each read message of an I2C_RDWR call in turn.
        case reads([[UInt8]])
        /// Succeed with this text (readFile, readLink).
        case text(String)
        /// Succeed with these names (listDirectory).
        case names([String])
        /// Succeed, filling the `fb_var_screeninfo` (FBIOGET_VSCREENINFO, FBIOPUT_VSCREENINFO).
        case variableScreenInfo(fb_var_screeninfo)
        /// Succeed, filling the `fb_fix_screeninfo` (FBIOGET_FSCREENINFO).
        case fixedScreenInfo(fb_fix_screeninfo)

        /// The C-style result: the value, or a negative errno.
        var result: Int32 {
            switch self {
            case .fail(let e): return -e
            case .value(let v): return Int32(truncatingIfNeeded: v)
            case .bytes(let b): return Int32(b.count)
            case .reads(let r): return Int32(r.count)
            case .passThrough, .text, .names, .variableScreenInfo, .fixedScreenInfo: return 0
            }
        }
    }

    @TaskLocal static var current: MockingDriver?

    private let handler: @Sendable (Call) -> Reply
    private let recorded = Mutex<[Call]>([])

    init(_ handler: @escaping @Sendable (Call) -> Reply) {
        self.handler = handler
    }

    /// Every call seen so far, in order.
    var calls: [Call] { recorded.withLock { $0 } }

    func handle(_ call: Call) -> Reply {
        recorded.withLock { $0.append(call) }
        return handler(call)
    }

    /// Runs `body` with this driver answering the calls made in the current task.
    func withMocking<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        let result: Result<R, E> = Self.$current.withValue(self) {
            do throws(E) { return .success(try body()) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
