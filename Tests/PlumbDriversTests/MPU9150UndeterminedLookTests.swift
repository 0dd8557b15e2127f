import Testing
import PlumbHAL
@testable import PlumbDrivers
import PlumbSimulation

/// A look for the MPU-9150's AK8975 that could not tell (the auxiliary I2C master left on by
/// another program, a bus that failed once) is made again after the chip's DEVICE_RESET, which
/// clears USER_CTRL: otherwise a real MPU-9150 ran as an MPU-6050, without INT_RD_CLEAR, for the
/// driver's whole life (re-initialisations reused the cached "could not tell").
@Suite struct MPU9150UndeterminedLookTests {
    let mpu: I2CAddress = I2CAddress(0x68)
    let latched = IMUConfiguration(outputDataRate: 100, interrupt: InterruptPinConfiguration(mode: .latched))

    @Test func anAuxiliaryMasterLeftOnIsLookedPastAfterTheReset() throws {
        let rig = MPURig("mpu9150")
        try rig.bus.writeRegister(0x6A, 0x20, address: mpu) // USER_CTRL.I2C_MST_EN, as RTIMULib's MPU-9150 driver leaves it
        #expect(try rig.driver.identify().partKey == "mpu6050") // before the reset it cannot tell
        _ = try rig.start(latched)
        #expect(rig.driver.identity?.partKey == "mpu9150")
        #expect(rig.driver.identity?.warnings == [])
        #expect(try rig.bus.readRegister(0x37, address: mpu) == 0x30) // LATCH_INT_EN | INT_RD_CLEAR, bypass off
        #expect(rig.chip.magnetometer?.identityReads == 1)
        // A re-initialisation (identify, reset) looks again at its identify, and not after the reset.
        rig.chip.powerOnReset()
        _ = try rig.start(latched)
        #expect(rig.driver.identity?.partKey == "mpu9150")
        #expect(rig.chip.magnetometer?.identityReads == 2)
    }

    @Test func aLookThatFailedOnceIsMadeAgainAfterTheReset() throws {
        let rig = MPURig("mpu9150")
        // One bus timeout at 0x0C (after the bus's own retries there would be more; one is enough here).
        rig.bus.faults = [FaultRule(.address(I2CAddress(0x0C)), effect: .stuck, count: 1)]
        let first = try rig.driver.identify()
        #expect(first.partKey == "mpu6050")
        #expect(first.warnings.count == 1)
        _ = try rig.start(latched)
        #expect(rig.driver.identity?.partKey == "mpu9150")
        #expect(try rig.bus.readRegister(0x37, address: mpu) == 0x30)
    }

    @Test func anMPU6050WhoseLookFailedStaysAnMPU6050() throws {
        let rig = MPURig("mpu6050")
        try rig.bus.writeRegister(0x6A, 0x20, address: mpu)
        _ = try rig.driver.identify()
        _ = try rig.start(latched)
        #expect(rig.driver.identity?.partKey == "mpu6050")
        #expect(rig.driver.identity?.warnings == [])
        #expect(try rig.bus.readRegister(0x37, address: mpu) == 0x20)
    }

    @Test func aNamedPartIsNotLookedForAfterTheReset() throws {
        let rig = MPURig("mpu9150", part: "mpu6050")
        _ = try rig.start(latched)
        #expect(rig.driver.identity?.partKey == "mpu6050")
        #expect(rig.chip.magnetometer?.identityReads == 0)
    }
}

/// A chip of the user's own at 0x0C on the host bus (not behind the MPU) is only asked whether it
/// is there, with a one-byte read: the look for the MPU-9150's AK8975 writes nothing to it (a
/// register-pointer write is a command to some chips; i2cdetect probes with reads for that reason).
@Suite struct CompanionLookLeavesOtherChipsAloneTests {
    /// A chip that acknowledges and records what it is sent.
    final class Recorder: I2CTarget {
        var writes: [[UInt8]] = []
        var reads = 0
        func advance(to nanoseconds: UInt64) {}
        func handle(_ operations: inout [I2COperation]) throws(I2CError) {
            for i in operations.indices {
                switch operations[i].direction {
                case .write: writes.append(operations[i].bytes)
                case .read:
                    reads += 1
                    for j in operations[i].bytes.indices { operations[i].bytes[j] = 0x5A }
                }
            }
        }
    }

    @Test(arguments: ["mpu6050", "mpu9150"])
    func theOccupiedCheckOnlyReads(key: String) throws {
        let rig = MPURig(key)
        let other = Recorder()
        rig.bus.attach(other, at: I2CAddress(0x0C))
        let id = try rig.driver.identify()
        #expect(id.partKey == "mpu6050")
        #expect(id.warnings.isEmpty)
        #expect(other.writes.isEmpty)
        #expect(other.reads == 1)
        #expect(try rig.bus.readRegister(0x37, address: I2CAddress(0x68)) == 0x00)
    }

    @Test func anAK8975BehindTheBypassIsStillFound() throws {
        let rig = MPURig("mpu9150")
        #expect(try rig.driver.identify().partKey == "mpu9150")
        #expect(rig.chip.magnetometer?.identityReads == 1)
    }

    @Test func probeWritesNothingTo0x0CEither() throws {
        let rig = MPURig("mpu6050")
        let other = Recorder()
        rig.bus.attach(other, at: I2CAddress(0x0C))
        let found = try IMUFamilies.probe(rig.bus, refiningWith: rig.clock)
        #expect(found.first(where: { $0.address == I2CAddress(0x68) })?.partKey == "mpu6050")
        #expect(other.writes.isEmpty)
    }
}

/// `plumb probe` used to read identity registers only; the MPU-9150 look writes INT_PIN_CFG. A
/// user runs it to see what is on the bus, possibly while plumbd streams from the chip: a chip
/// in use (INT_ENABLE set or USER_CTRL.FIFO_EN on) is then only read, and named with a warning.
@Suite struct ProbeLeavesAStreamingChipAloneTests {
    let mpu: I2CAddress = I2CAddress(0x68)

    /// Transfers that wrote a register of the chip at 0x68 (a write with data after the pointer).
    static func writes(_ trace: [I2CEvent]?, to address: I2CAddress) -> [[UInt8]] {
        (trace ?? []).filter { $0.address == address && $0.operations.count == 1 && $0.operations[0].direction == .write
                                && $0.operations[0].bytes.count > 1 }.map { $0.operations[0].bytes }
    }

    @Test func aStreamingMPU9150IsOnlyRead() throws {
        let rig = MPURig("mpu9150")
        _ = try rig.start(IMUConfiguration(outputDataRate: 100, interrupt: InterruptPinConfiguration(mode: .latched)))
        let reads = rig.chip.magnetometer?.identityReads ?? -1
        rig.bus.trace = []
        let found = try IMUFamilies.probe(rig.bus, refiningWith: rig.clock)
        let finding = try #require(found.first { $0.address == mpu })
        #expect(Self.writes(rig.bus.trace, to: mpu) == [])
        #expect(rig.chip.magnetometer?.identityReads == reads)
        #expect(finding.partKey == "mpu6050")
        #expect(finding.warnings.count == 1)
        #expect(finding.warnings.first?.contains("the chip is in use") == true)
    }

    @Test func anIdleMPU9150IsStillNamed() throws {
        let rig = MPURig("mpu9150")
        _ = try rig.start(IMUConfiguration(outputDataRate: 100))
        try rig.driver.stopStreaming()
        let found = try IMUFamilies.probe(rig.bus, refiningWith: rig.clock)
        #expect(found.first { $0.address == mpu }?.partKey == "mpu9150")
        #expect(found.first { $0.address == mpu }?.warnings == [])
    }

    @Test func theDriverItselfStillLooksOnAChipLeftStreaming() throws {
        // A previous run that crashed left the FIFO and interrupts on: the driver's own identify
        // is not held back (it resets the chip next anyway).
        let rig = MPURig("mpu9150")
        _ = try rig.start(IMUConfiguration(outputDataRate: 100))
        let again = try MPU6050(bus: rig.bus, address: mpu, clock: rig.clock)
        #expect(try again.identify().partKey == "mpu9150")
    }
}

/// The stream says when the part was named again at the reset, so a warning printed from the
/// identity before the start ("driving it as MPU-6050") is corrected where the user reads notices.
@Suite struct IdentityChangedAtResetNoticeTests {
    @Test func theStreamNoticesTheMPU9150FoundAfterTheReset() throws {
        let rig = MPURig("mpu9150")
        try rig.bus.writeRegister(0x6A, 0x20, address: I2CAddress(0x68)) // I2C_MST_EN left on
        #expect(try rig.driver.identify().warnings.count == 1)
        let stream = IMUStream(imu: rig.driver, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: 100))
        #expect(stream.notices.contains { $0.message.contains("named MPU-6050 before its reset, MPU-9150 after it") })
    }

    @Test func noNoticeWhenNothingChanged() throws {
        let rig = MPURig("mpu9150")
        let stream = IMUStream(imu: rig.driver, line: rig.line, clock: rig.clock)
        try stream.start(IMUConfiguration(outputDataRate: 100))
        #expect(!stream.notices.contains { $0.message.contains("before its reset") })
    }
}
