import Synchronization
import PlumbHAL
@testable import PlumbLinux

/// An i2c-dev "kernel" behind the mocking layer: a 256-byte register file per present address,
/// a functionality mask, and scripted failures. Registers auto-increment like most sensors.
final class FakeKernel: Sendable {
    struct State {
        var functionality: UInt
        var registers: [UInt8: [UInt8]] = [:]
        var selected: UInt8?
        /// Errnos returned by the next data calls, one per call, before they work again.
        var failures: [Int32] = []
        /// The errno for I2C_SLAVE (not I2C_SLAVE_FORCE), e.g. EBUSY.
        var slaveErrno: Int32?
        /// The errno for a data call to an absent address (ENXIO on real adapters, ENODEV on i2c-stub).
        var absentErrno: Int32 = Errno.ENXIO
        var openErrno: Int32?
        /// Message counts the next I2C_RDWR calls report instead of doing the transfer (fewer than
        /// asked: the adapter stopped part-way), one per call.
        var transferredMessages: [Int] = []
    }

    static let fd: Int32 = 7
    /// i2c-stub's mask (SMBus quick, byte, byte-data, word-data, I2C-block).
    static let stubFunctionality: UInt = 0x0c7f_0000
    static let i2cFunctionality: UInt = 0x0eff_0001

    final class Box: Sendable {
        let state: Mutex<State>
        init(_ s: State) { state = Mutex(s) }
    }

    let box: Box
    let driver: MockingDriver

    init(functionality: UInt, present: [UInt8] = [0x68]) {
        var s = State(functionality: functionality)
        for a in present { s.registers[a] = (0..<256).map { UInt8($0) } }
        let box = Box(s)
        self.box = box
        driver = MockingDriver { call in FakeKernel.reply(call, box) }
    }

    /// Changes the fake kernel's state (failures, errnos).
    func configure(_ change: (inout State) -> Void) {
        box.state.withLock { change(&$0) }
    }

    func run<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        try driver.withMocking(body)
    }

    var calls: [MockingDriver.Call] { driver.calls }

    /// The calls that moved data (not open, I2C_FUNCS, I2C_SLAVE, close, sleep).
    var dataCalls: [MockingDriver.Call] {
        calls.filter {
            switch $0 {
            case .open, .close, .i2cFunctionality, .i2cSetAddress, .sleep, .readLink: return false
            default: return true
            }
        }
    }

    func registers(_ address: UInt8) -> [UInt8] { box.state.withLock { $0.registers[address] ?? [] } }

    private static func reply(_ call: MockingDriver.Call, _ box: Box) -> MockingDriver.Reply {
        box.state.withLock { s -> MockingDriver.Reply in
            switch call {
            case .open:
                if let e = s.openErrno { return .fail(errno: e) }
                return .value(Int(fd))
            case .close, .sleep:
                return .value(0)
            case .i2cFunctionality:
                return .value(Int(s.functionality))
            case .i2cSetAddress(_, let address, let force):
                if !force, let e = s.slaveErrno { return .fail(errno: e) }
                s.selected = address
                return .value(0)
            case .readFile, .readLink, .listDirectory, .gpioWait, .gpioRead, .gpioGetValue, .gpioSetValue:
                return .passThrough
            default:
                break
            }
            if !s.failures.isEmpty { return .fail(errno: s.failures.removeFirst()) }
            switch call {
            case .i2cReadWrite(_, let messages):
                if !s.transferredMessages.isEmpty { return .value(s.transferredMessages.removeFirst()) }
                guard let address = messages.first?.address, var regs = s.registers[address] else { return .fail(errno: s.absentErrno) }
                var pointer = 0
                var reads: [[UInt8]] = []
                for m in messages {
                    if m.isRead {
                        reads.append((0..<m.length).map { regs[(pointer + $0) & 0xFF] })
                        pointer += m.length
                    } else if let first = m.bytes.first {
                        pointer = Int(first)
                        for (i, b) in m.bytes.dropFirst().enumerated() { regs[(pointer + i) & 0xFF] = b }
                    }
                }
                s.registers[address] = regs
                return .reads(reads)
            default:
                break
            }
            guard let address = s.selected, var regs = s.registers[address] else { return .fail(errno: s.absentErrno) }
            defer { s.registers[address] = regs }
            switch call {
            case .smbusReadByteData(_, let r): return .value(Int(regs[Int(r)]))
            case .smbusWriteByteData(_, let r, let v): regs[Int(r)] = v; return .value(0)
            case .smbusReadI2CBlock(_, let r, let n): return .bytes((0..<n).map { regs[(Int(r) + $0) & 0xFF] })
            case .smbusWriteI2CBlock(_, let r, let bytes):
                for (i, b) in bytes.enumerated() { regs[(Int(r) + i) & 0xFF] = b }
                return .value(0)
            case .smbusReadByte: return .value(Int(regs[0]))
            case .smbusWriteByte: return .value(0)
            default: return .fail(errno: Errno.EINVAL)
            }
        }
    }
}
