import Testing
@testable import PlumbHAL

@Suite struct I2CAddressTests {
    @Test func acceptsSevenBitAddresses() {
        #expect(I2CAddress(0x68)?.rawValue == 0x68)
        #expect(I2CAddress(0x08) != nil)
        #expect(I2CAddress(0x77) != nil)
    }

    @Test func refusesReservedAndOutOfRange() {
        #expect(I2CAddress(0x07) == nil)
        #expect(I2CAddress(0x78) == nil)
        #expect(I2CAddress(0x80) == nil)
        #expect(I2CAddress(-1) == nil)
        #expect(I2CAddress(0x03, allowReserved: true)?.rawValue == 0x03)
    }

    @Test(arguments: [("0x68", 0x68), ("68h", 0x68), ("104", 0x68), ("0b1101010", 0x6A), (" 0x6A ", 0x6A)])
    func parses(text: String, value: Int) {
        #expect(I2CAddress(parsing: text)?.rawValue == UInt8(value))
    }

    @Test func parsingRejectsGarbage() {
        #expect(I2CAddress(parsing: "0xZZ") == nil)
        #expect(I2CAddress(parsing: "0x100") == nil)
        #expect(I2CAddress(parsing: "") == nil)
    }

    @Test func describesInHex() {
        #expect(I2CAddress(0x6A)!.description == "0x6a")
    }
}

@Suite struct I2CErrorTests {
    @Test func enxioSaysNothingAnswers() {
        let e = I2CError(errno: Errno.ENXIO, bus: "/dev/i2c-1", address: I2CAddress(0x68))
        #expect(e.kind == .noAcknowledge)
        #expect(e.description == "nothing answers at 0x68 on /dev/i2c-1")
        #expect(!e.isTransient)
    }

    @Test func remoteIOIsTransientBusError() {
        let e = I2CError(errno: Errno.EREMOTEIO, bus: "/dev/i2c-1", address: I2CAddress(0x68))
        #expect(e.kind == .bus)
        #expect(e.isTransient)
        #expect(e.description.contains("errno 121"))
        // On a Raspberry Pi it is also an address nobody acknowledged (i2c-bcm2835, i2c-designware):
        // the description says so, as a `plumb dbus` claim's failure notice shows it.
        #expect(e.description == "remote I/O error (no acknowledge: nothing at the address, or a NACK or bus fault during the transfer) at 0x68 on /dev/i2c-1 (errno 121)")
    }

    @Test(arguments: [(Errno.EAGAIN, I2CError.Kind.arbitrationLost), (Errno.ETIMEDOUT, .timeout),
                      (Errno.EBUSY, .addressBusy), (Errno.EOPNOTSUPP, .unsupported), (Errno.EIO, .bus),
                      (Errno.ENODEV, .noAcknowledge), (Errno.EACCES, .cannotOpen), (Int32(99), .other)])
    func mapsErrnoToKind(errno: Int32, kind: I2CError.Kind) {
        #expect(I2CError.kind(forErrno: errno) == kind)
    }
}

/// A bus that records transfers and answers reads from a register file, for the extension tests.
final class RecordingBus: I2CBus {
    var path: String { "recording" }
    var maximumReadLength: Int?
    var registers = [UInt8](repeating: 0, count: 256)
    var transfers: [[I2COperation]] = []

    init(maximumReadLength: Int? = nil) {
        self.maximumReadLength = maximumReadLength
        for i in 0..<256 { registers[i] = UInt8(i) }
    }

    func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
        var pointer = 0
        for i in operations.indices {
            switch operations[i].direction {
            case .write:
                pointer = Int(operations[i].bytes[0])
                for (k, b) in operations[i].bytes.dropFirst().enumerated() { registers[(pointer + k) & 0xFF] = b }
            case .read:
                if let max = maximumReadLength, operations[i].bytes.count > max {
                    throw I2CError(errno: Errno.EINVAL, bus: path, address: address)
                }
                for k in operations[i].bytes.indices { operations[i].bytes[k] = registers[(pointer + k) & 0xFF] }
            }
        }
        transfers.append(operations)
    }
}

@Suite struct I2CBusExtensionTests {
    @Test func registerReadIsOneCombinedTransfer() throws {
        let bus = RecordingBus()
        let value = try bus.readRegister(0x75, address: I2CAddress(0x68))
        #expect(value == 0x75)
        #expect(bus.transfers.count == 1)
        #expect(bus.transfers[0].map(\.direction) == [.write, .read])
    }

    @Test func longReadsAreSplitAtTheBusLimit() throws {
        let bus = RecordingBus(maximumReadLength: 32)
        let bytes = try bus.readRegisters(0x10, count: 70, address: I2CAddress(0x68))
        #expect(bytes == (0x10..<0x56).map { UInt8($0) })
        #expect(bus.transfers.count == 3)
        #expect(bus.transfers.map { $0[0].bytes[0] } == [0x10, 0x30, 0x50])
    }

    @Test func fifoReadsReaddressTheSameRegister() throws {
        let bus = RecordingBus(maximumReadLength: 32)
        _ = try bus.readRegisters(0x74, count: 40, autoIncrement: false, address: I2CAddress(0x68))
        #expect(bus.transfers.map { $0[0].bytes[0] } == [0x74, 0x74])
        #expect(bus.transfers.map { $0[1].bytes.count } == [32, 8])
    }

    @Test func writeRegister() throws {
        let bus = RecordingBus()
        try bus.writeRegister(0x6B, 0x80, address: I2CAddress(0x68))
        #expect(bus.registers[0x6B] == 0x80)
    }
}

@Suite struct VirtualClockTests {
    @Test func sleepingAdvancesVirtualTime() {
        let clock = VirtualClock(startNanoseconds: 5)
        clock.sleep(nanoseconds: 1_000)
        #expect(clock.nowNanoseconds == 1_005)
        clock.advance(to: 500)
        #expect(clock.nowNanoseconds == 1_005)
        clock.advance(to: 2_000)
        #expect(clock.nowSeconds == 2e-6)
    }
}
