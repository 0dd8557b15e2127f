import Testing
import PlumbHAL
import PlumbDrivers
@testable import PlumbSimulation

/// A minimal register chip for exercising the bus: 0x0F is a read-only ID, 0x20 a read-to-clear
/// status, 0x30 a FIFO data register that does not increment and counts up on every read.
final class TestChip: RegisterTarget {
    static let map = RegisterMap(name: "TEST", registers: [
        RegisterDescription("ID", 0x0F, .readOnly, reset: 0x42, summary: "identity"),
        RegisterDescription("CTRL", 0x10, .readWrite, reset: 0x04, summary: "control",
                            fields: [.bit("RESET", 0, selfClearing: true), FieldDescription("MODE", mask: 0b0110, meanings: [0: "off", 2: "on"])]),
        RegisterDescription("STATUS", 0x20, .readToClear, reset: 0, summary: "status"),
        RegisterDescription("FLAGS", 0x21, .writeOneToClear, reset: 0xFF, summary: "flags"),
        RegisterDescription("FIFO", 0x30, .readOnly, summary: "fifo"),
    ])
    var registers = RegisterFile(map: TestChip.map)
    var registerPointer: UInt8 = 0
    var fifoCounter: UInt8 = 0
    var advancedTo: UInt64 = 0
    var period: UInt64 = 1_000_000
    weak var line: SimulatedInterruptLine?

    func readRegister(_ address: UInt8) -> UInt8 {
        if address == 0x30 { fifoCounter &+= 1; return fifoCounter }
        return registers.hostRead(address)
    }
    func writeRegister(_ address: UInt8, _ value: UInt8) { registers.hostWrite(address, value) }
    func pointer(after address: UInt8) -> UInt8 { address == 0x30 ? 0x30 : address &+ 1 }

    func advance(to nanoseconds: UInt64) {
        while let next = nextEventNanoseconds(after: advancedTo), next <= nanoseconds {
            advancedTo = next
            line?.raise(at: next, kind: .rising)
            line?.raise(at: next + 50_000, kind: .falling)
        }
        advancedTo = max(advancedTo, nanoseconds)
    }
    func nextEventNanoseconds(after nanoseconds: UInt64) -> UInt64? { (nanoseconds / period + 1) * period }
}

@Suite struct RegisterFileTests {
    @Test func accessRulesFollowTheMap() {
        var file = RegisterFile(map: TestChip.map)
        #expect(file[0x0F] == 0x42)
        #expect(file["CTRL"] == 0x04)
        #expect(file.hostWrite(0x0F, 0x00) == false)
        #expect(file[0x0F] == 0x42)
        file[0x20] = 0x11
        #expect(file.hostRead(0x20) == 0x11)
        #expect(file.hostRead(0x20) == 0x00)
        file.hostWrite(0x21, 0x0F)
        #expect(file[0x21] == 0xF0)
        file.hostWrite(0x55, 0x77) // undescribed: plain storage
        #expect(file.hostRead(0x55) == 0x77)
        #expect(file.field("CTRL", "MODE") == 2)
        file.powerOnReset()
        #expect(file[0x55] == 0 && file[0x21] == 0xFF)
    }

    @Test func mapDecodesFieldsWithMeanings() {
        let fields = TestChip.map.decode(0x10, value: 0b0101)
        #expect(fields.map(\.name) == ["RESET", "MODE"])
        #expect(fields[1].value == 2 && fields[1].meaning == "on")
        #expect(TestChip.map["CTRL"]?.selfClearingMask == 0x01)
        #expect(TestChip.map.field("CTRL", "MODE") == RegisterField(address: 0x10, mask: 0b0110))
    }
}

@Suite struct EmulatedBusTests {
    func makeBus() -> (EmulatedI2CBus, TestChip, VirtualClock) {
        let clock = VirtualClock()
        let bus = EmulatedI2CBus(clock: clock, bitsPerSecond: nil)
        let chip = TestChip()
        bus.attach(chip, at: I2CAddress(0x6A))
        return (bus, chip, clock)
    }

    @Test func routesByAddressAndNacksEmptyAddresses() throws {
        let (bus, _, _) = makeBus()
        #expect(try bus.readRegister(0x0F, address: I2CAddress(0x6A)) == 0x42)
        #expect(throws: I2CError(errno: Errno.ENXIO, bus: "simulated bus", address: I2CAddress(0x6B))) {
            try bus.readRegister(0x0F, address: I2CAddress(0x6B))
        }
        #expect(bus.counters.transactions == 2)
        #expect(bus.counters.failures == 1)
    }

    @Test func autoIncrementsExceptOnTheFifoRegister() throws {
        let (bus, chip, _) = makeBus()
        try bus.write([0x10, 0x06, 0x33], to: I2CAddress(0x6A))
        #expect(chip.registers[0x10] == 0x06)
        #expect(chip.registers[0x11] == 0x33)
        #expect(try bus.readRegisters(0x30, count: 4, autoIncrement: false, address: I2CAddress(0x6A)) == [1, 2, 3, 4])
        #expect(bus.counters.bytesWritten == 3 + 1)
        #expect(bus.counters.bytesRead == 4)
    }

    @Test func smbusOnlyBusRefusesLongReadsAndTheHelperChunks() throws {
        let (bus, _, _) = makeBus()
        bus.maximumReadLength = 32
        var ops = [I2COperation.write([0x30]), .read(count: 40)]
        #expect(throws: I2CError.self) { try bus.transfer(&ops, address: I2CAddress(0x6A)) }
        let bytes = try bus.readRegisters(0x30, count: 40, autoIncrement: false, address: I2CAddress(0x6A))
        #expect(bytes == (1...40).map { UInt8($0) })
    }

    @Test func faultOnARegisterHitsOnlyTransfersTouchingIt() throws {
        let (bus, _, _) = makeBus()
        bus.faults = [FaultRule(.register(0x20), effect: .errno(Errno.EREMOTEIO), count: 2)]
        #expect(try bus.readRegister(0x0F, address: I2CAddress(0x6A)) == 0x42)
        // A burst from 0x1E runs across 0x20.
        #expect(throws: I2CError(errno: Errno.EREMOTEIO, bus: "simulated bus", address: I2CAddress(0x6A))) {
            try bus.readRegisters(0x1E, count: 4, address: I2CAddress(0x6A))
        }
        #expect(throws: I2CError.self) { try bus.readRegister(0x20, address: I2CAddress(0x6A)) }
        // The count is spent.
        #expect(try bus.readRegister(0x20, address: I2CAddress(0x6A)) == 0)
    }

    @Test func rateFaultsAreSeededAndNearTheRate() throws {
        func failures(seed: UInt64) -> Int {
            let clock = VirtualClock()
            let bus = EmulatedI2CBus(clock: clock, bitsPerSecond: nil, seed: seed)
            bus.attach(TestChip(), at: I2CAddress(0x6A))
            bus.faults = [FaultRule(.rate(0.01), effect: .errno(Errno.EIO))]
            var n = 0
            for _ in 0..<20_000 {
                do { _ = try bus.readRegister(0x0F, address: I2CAddress(0x6A)) } catch { n += 1 }
            }
            return n
        }
        let a = failures(seed: 5)
        #expect(a == failures(seed: 5))
        #expect((150...250).contains(a))
    }

    @Test func stuckLowOrHighBusReadsOneValueAndLosesWrites() throws {
        let (bus, chip, _) = makeBus()
        bus.faults = [.init(.always, effect: .reads(0x00), count: 2)]
        #expect(try bus.readRegisters(0x0F, count: 3, address: I2CAddress(0x6A)) == [0, 0, 0])
        try bus.writeRegister(0x10, 0x06, address: I2CAddress(0x6A))
        #expect(chip.registers[0x10] == 0x04)
        bus.faults = [.init(.always, effect: .reads(0xFF), count: 1)]
        #expect(try bus.readRegister(0x0F, address: I2CAddress(0x6A)) == 0xFF)
        #expect(try bus.readRegister(0x0F, address: I2CAddress(0x6A)) == 0x42)
        #expect(bus.counters.failures == 0)
    }

    @Test func shortReadReachesTheChipAndReturnsFewerBytes() throws {
        let (bus, chip, _) = makeBus()
        bus.faults = [.init(.readOf(0x30), effect: .shortRead(2), count: 1)]
        var ops = [I2COperation.write([0x30]), .read(count: 5)]
        try bus.transfer(&ops, address: I2CAddress(0x6A))
        #expect(ops[1].bytes == [1, 2])
        #expect(chip.fifoCounter == 5) // the chip popped all five
    }

    @Test func stuckBusTimesOutAndCostsVirtualTime() {
        let (bus, _, clock) = makeBus()
        bus.faults = [FaultRule(.always, effect: .stuck, count: 1)]
        #expect(throws: I2CError(errno: Errno.ETIMEDOUT, bus: "simulated bus", address: I2CAddress(0x6A))) {
            try bus.readRegister(0x0F, address: I2CAddress(0x6A))
        }
        #expect(clock.nowNanoseconds == 25_000_000)
    }

    @Test func transfersCostBusTimeAt400kHz() throws {
        let clock = VirtualClock()
        let bus = EmulatedI2CBus(clock: clock)
        bus.attach(TestChip(), at: I2CAddress(0x6A))
        _ = try bus.readRegisters(0x30, count: 14, autoIncrement: false, address: I2CAddress(0x6A))
        // START + addr(W) + reg + rSTART + addr(R) + 14 bytes + STOP: 2 + 2·10 + 15·9 = 157 bits.
        #expect(clock.nowNanoseconds == 392_500)
    }
}

@Suite struct SimulatedLineTests {
    func make() -> (SimulatedInterruptLine, TestChip, VirtualClock) {
        let clock = VirtualClock()
        let line = SimulatedInterruptLine(clock: clock)
        let chip = TestChip()
        chip.line = line
        line.source = chip
        return (line, chip, clock)
    }

    @Test func waitJumpsToTheNextEdge() throws {
        let (line, chip, clock) = make(); _ = chip
        let edge = try line.waitForEdge(timeoutNanoseconds: 10_000_000)
        #expect(edge == EdgeEvent(timestampNanoseconds: 1_000_000, kind: .rising))
        #expect(clock.nowNanoseconds == 1_000_000)
        #expect(try line.waitForEdge(timeoutNanoseconds: 10_000_000)?.timestampNanoseconds == 2_000_000)
        #expect(line.counters.wakeups == 2)
    }

    @Test func timeoutAdvancesToTheDeadline() throws {
        let (line, chip, clock) = make()
        chip.period = 50_000_000
        #expect(try line.waitForEdge(timeoutNanoseconds: 10_000_000) == nil)
        #expect(clock.nowNanoseconds == 10_000_000)
        #expect(line.counters.timeouts == 1)
    }

    @Test func edgesThatHappenedWhileBusyAreQueued() throws {
        let (line, chip, clock) = make(); _ = chip
        clock.advance(by: 3_500_000)
        #expect(try line.readQueuedEdges().map(\.timestampNanoseconds) == [1_000_000, 2_000_000, 3_000_000])
    }

    @Test func silentWindowLosesEveryEdge() throws {
        let (line, chip, _) = make(); _ = chip
        line.silentWindows = [0...5_500_000]
        #expect(try line.waitForEdge(timeoutNanoseconds: 100_000_000)?.timestampNanoseconds == 6_000_000)
        #expect(line.counters.edgesLost == 5)
    }

    @Test func stormEdgesArriveOnTheirOwnInTimeOrder() throws {
        let (line, chip, clock) = make()
        chip.period = 10_000_000
        line.edges = .both
        line.storms = [.init(window: 1_000_000...1_300_000, periodNanoseconds: 200_000)]
        // The first wait jumps to the storm's first edge, not to the chip's first sample.
        #expect(try line.waitForEdge(timeoutNanoseconds: 50_000_000) == EdgeEvent(timestampNanoseconds: 1_000_000, kind: .rising))
        clock.advance(to: 10_100_000)
        let rest = try line.readQueuedEdges()
        #expect(rest.map(\.timestampNanoseconds) == [1_100_000, 1_200_000, 1_300_000, 10_000_000, 10_050_000])
        #expect(rest.map(\.kind) == [.falling, .rising, .falling, .rising, .falling])
    }

    /// The chip raises its pulse's falling edge 50 µs ahead; storm edges raised later fall before
    /// it. Every edge must be handed over in time order across calls, and none before its time.
    @Test func stormEdgesAndAheadOfTimeChipEdgesAreHandedOverInTimeOrder() throws {
        let (line, chip, clock) = make()
        chip.period = 10_000_000
        line.edges = .both
        line.storms = [.init(window: 10_010_000...10_090_000, periodNanoseconds: 40_000)]
        var delivered: [EdgeEvent] = []
        var early: [EdgeEvent] = []
        func take(_ edges: [EdgeEvent]) {
            early += edges.filter { $0.timestampNanoseconds > clock.nowNanoseconds }
            delivered += edges
        }
        if let first = try line.waitForEdge(timeoutNanoseconds: 50_000_000) { take([first]) }
        take(try line.readQueuedEdges())
        while clock.nowNanoseconds < 10_200_000 {
            if let edge = try line.waitForEdge(timeoutNanoseconds: 200_000) { take([edge]) }
        }
        clock.advance(to: 10_300_000)
        take(try line.readQueuedEdges())
        #expect(early.isEmpty, "handed over before their time: \(early)")
        #expect(delivered.map(\.timestampNanoseconds) == [10_000_000, 10_010_000, 10_030_000, 10_050_000, 10_050_000, 10_070_000, 10_090_000])
        #expect(delivered.map(\.kind) == [.rising, .rising, .falling, .falling, .rising, .falling, .rising])
        #expect(line.isHigh, "the storm's last edge (10.09 ms) is the latest")
    }

    @Test func lostEdgeProbabilityDropsAboutThatShare() throws {
        let (line, chip, _) = make(); _ = chip
        line.lostEdgeProbability = 0.1
        for _ in 0..<1000 { _ = try line.waitForEdge(timeoutNanoseconds: 100_000_000) }
        let lost = line.counters.edgesLost
        #expect((70...140).contains(lost))
    }
}
