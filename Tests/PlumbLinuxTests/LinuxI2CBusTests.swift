import Testing
import Foundation
import PlumbHAL
@testable import PlumbLinux

private let imu = I2CAddress(UInt8(0x68))
private let fd = FakeKernel.fd

@Suite struct LinuxI2CBusPathSelectionTests {
    @Test func plainI2CAdapterUsesOneCombinedTransfer() throws {
        let kernel = FakeKernel(functionality: FakeKernel.i2cFunctionality)
        let bytes = try kernel.run { () throws(I2CError) -> [UInt8] in
            let bus = try LinuxI2CBus(path: "/dev/i2c-1", clock: VirtualClock())
            #expect(bus.mode == .i2c)
            #expect(bus.maximumReadLength == 8192)
            return try bus.writeRead([0x3B], count: 14, address: imu)
        }
        #expect(bytes == Array(0x3B..<0x49).map(UInt8.init))
        #expect(kernel.dataCalls == [.i2cReadWrite(fd: fd, messages: [
            .init(address: 0x68, isRead: false, length: 1, bytes: [0x3B]),
            .init(address: 0x68, isRead: true, length: 14, bytes: []),
        ])])
    }

    @Test func smbusAdapterReadsSingleRegistersWithByteData() throws {
        let kernel = FakeKernel(functionality: FakeKernel.stubFunctionality)
        let value = try kernel.run { () throws(I2CError) -> UInt8 in
            let bus = try LinuxI2CBus(path: "/dev/i2c-0", clock: VirtualClock())
            #expect(bus.mode == .smbusBlock)
            #expect(bus.maximumReadLength == 32)
            return try bus.readRegister(0x75, address: imu)
        }
        #expect(value == 0x75)
        #expect(kernel.dataCalls == [.smbusReadByteData(fd: fd, register: 0x75)])
    }

    @Test func smbusAdapterSplitsLongReadsIntoI2CBlocksOf32() throws {
        let kernel = FakeKernel(functionality: FakeKernel.stubFunctionality)
        let bytes = try kernel.run { () throws(I2CError) -> [UInt8] in
            let bus = try LinuxI2CBus(path: "/dev/i2c-0", clock: VirtualClock())
            return try bus.readRegisters(0x10, count: 40, address: imu)
        }
        #expect(bytes == Array(0x10..<0x38).map(UInt8.init))
        #expect(kernel.dataCalls == [
            .smbusReadI2CBlock(fd: fd, register: 0x10, length: 32),
            .smbusReadI2CBlock(fd: fd, register: 0x30, length: 8),
        ])
    }

    @Test func smbusAdapterWritesWithByteDataAndI2CBlock() throws {
        let kernel = FakeKernel(functionality: FakeKernel.stubFunctionality)
        try kernel.run { () throws(I2CError) in
            let bus = try LinuxI2CBus(path: "/dev/i2c-0", clock: VirtualClock())
            try bus.writeRegister(0x6B, 0x80, address: imu)
            try bus.write([0x20, 1, 2, 3], to: imu)
        }
        #expect(kernel.dataCalls == [
            .smbusWriteByteData(fd: fd, register: 0x6B, value: 0x80),
            .smbusWriteI2CBlock(fd: fd, register: 0x20, bytes: [1, 2, 3]),
        ])
        #expect(kernel.registers(0x68)[0x6B] == 0x80)
        #expect(Array(kernel.registers(0x68)[0x20...0x22]) == [1, 2, 3])
    }

    @Test func withoutI2CBlockSupportReadsFallBackToByteData() throws {
        // i2c-stub with functionality & ~0x0c000000 (no I2C-block reads or writes).
        let kernel = FakeKernel(functionality: FakeKernel.stubFunctionality & ~0x0c00_0000)
        let (bytes, fifo) = try kernel.run { () throws(I2CError) -> ([UInt8], [UInt8]) in
            let bus = try LinuxI2CBus(path: "/dev/i2c-0", clock: VirtualClock())
            #expect(bus.mode == .smbusByteData)
            #expect(bus.maximumReadLength == 1)
            return (try bus.readRegisters(0x3B, count: 3, address: imu),
                    try bus.readRegisters(0x74, count: 2, autoIncrement: false, address: imu))
        }
        #expect(bytes == [0x3B, 0x3C, 0x3D])
        #expect(fifo == [0x74, 0x74])
        #expect(kernel.dataCalls == [
            .smbusReadByteData(fd: fd, register: 0x3B), .smbusReadByteData(fd: fd, register: 0x3C),
            .smbusReadByteData(fd: fd, register: 0x3D),
            .smbusReadByteData(fd: fd, register: 0x74), .smbusReadByteData(fd: fd, register: 0x74),
        ])
    }

    @Test func byteDataOnlyAdapterRefusesMultiByteTransfersClearly() throws {
        let kernel = FakeKernel(functionality: FakeKernel.stubFunctionality & ~0x0c00_0000)
        let error = kernel.run { () -> I2CError? in
            do throws(I2CError) {
                let bus = try LinuxI2CBus(path: "/dev/i2c-0", clock: VirtualClock())
                _ = try bus.writeRead([0x3B], count: 14, address: imu)
                return nil
            } catch { return error }
        }
        #expect(error?.kind == .unsupported)
        #expect(error?.description == "/dev/i2c-0 only speaks SMBus (byte-data); a transfer of write 1 byte + read 14 bytes at 0x68 has no SMBus equivalent; read one register at a time (readRegisters does)")
        #expect(kernel.dataCalls.isEmpty)
    }

    @Test func smbusAdapterRefusesCombinedShapesWithoutAnSMBusForm() throws {
        let kernel = FakeKernel(functionality: FakeKernel.stubFunctionality)
        let error = kernel.run { () -> I2CError? in
            do throws(I2CError) {
                let bus = try LinuxI2CBus(path: "/dev/i2c-0", clock: VirtualClock())
                _ = try bus.writeRead([0x3B, 0x01], count: 2, address: imu)
                return nil
            } catch { return error }
        }
        #expect(error?.kind == .unsupported)
        #expect(error?.description.contains("write 2 bytes + read 2 bytes at 0x68 has no SMBus equivalent") == true)
    }

    @Test func adapterWithNeitherI2CNorSMBusRegisterAccessIsRefusedAtOpen() {
        let kernel = FakeKernel(functionality: 0x0001_0000) // SMBus quick only
        let error = kernel.run { () -> I2CError? in
            do throws(I2CError) { _ = try LinuxI2CBus(path: "/dev/i2c-3", clock: VirtualClock()); return nil } catch { return error }
        }
        #expect(error?.kind == .unsupported)
        #expect(error?.description == "/dev/i2c-3 supports neither I2C transfers nor SMBus register reads (functionality 0x00010000); use another bus")
        #expect(kernel.calls.contains(.close(fd: fd)))
    }

    @Test func selectsTheAddressOnlyWhenItChanges() throws {
        let kernel = FakeKernel(functionality: FakeKernel.stubFunctionality, present: [0x68, 0x6A])
        try kernel.run { () throws(I2CError) in
            let bus = try LinuxI2CBus(path: "/dev/i2c-0", clock: VirtualClock())
            _ = try bus.readRegister(0x75, address: imu)
            _ = try bus.readRegister(0x75, address: imu)
            _ = try bus.readRegister(0x0F, address: I2CAddress(UInt8(0x6A)))
        }
        let selects = kernel.calls.filter { if case .i2cSetAddress = $0 { return true } else { return false } }
        #expect(selects == [.i2cSetAddress(fd: fd, address: 0x68, force: false), .i2cSetAddress(fd: fd, address: 0x6A, force: false)])
    }
}

@Suite struct LinuxI2CBusErrorTests {
    @Test(arguments: [Errno.ENXIO, Errno.ENODEV])
    func emptyAddressSaysNothingAnswersWithoutRetrying(errno: Int32) {
        let kernel = FakeKernel(functionality: FakeKernel.stubFunctionality, present: [])
        kernel.configure { $0.absentErrno = errno }
        let clock = VirtualClock()
        let (error, stats) = kernel.run { () -> (I2CError?, LinuxI2CBus.Statistics?) in
            guard let bus = try? LinuxI2CBus(path: "/dev/i2c-1", clock: clock) else { return (nil, nil) }
            do throws(I2CError) { _ = try bus.readRegister(0x75, address: imu); return (nil, bus.statistics) } catch { return (error, bus.statistics) }
        }
        #expect(error?.errno == errno)
        #expect(error?.kind == .noAcknowledge)
        #expect(error?.description == "nothing answers at 0x68 on /dev/i2c-1")
        #expect(stats == LinuxI2CBus.Statistics(transfers: 1, retries: 0, recovered: 0, failures: 1))
        #expect(clock.nowNanoseconds == 0)
    }

    @Test(arguments: [Errno.EIO, Errno.EREMOTEIO, Errno.ETIMEDOUT, Errno.EAGAIN])
    func transientErrorsAreRetriedWithBackoff(errno: Int32) throws {
        let kernel = FakeKernel(functionality: FakeKernel.stubFunctionality)
        kernel.configure { $0.failures = [errno, errno] }
        let clock = VirtualClock()
        let (value, stats) = try kernel.run { () throws(I2CError) -> (UInt8, LinuxI2CBus.Statistics) in
            let bus = try LinuxI2CBus(path: "/dev/i2c-1", clock: clock)
            return (try bus.readRegister(0x75, address: imu), bus.statistics)
        }
        #expect(value == 0x75)
        #expect(stats == LinuxI2CBus.Statistics(transfers: 1, retries: 2, recovered: 1, failures: 0))
        #expect(clock.nowNanoseconds == 3_000_000) // 1 ms, then 2 ms
        #expect(kernel.dataCalls.count == 3)
    }

    /// I2C_RDWR reporting fewer messages than it was given: the reads after the last message done
    /// hold nothing from the chip. A bus error (retried), never stale bytes returned as data.
    @Test func aPartialTransferIsABusErrorNotStaleData() throws {
        let kernel = FakeKernel(functionality: FakeKernel.i2cFunctionality)
        kernel.configure { $0.transferredMessages = [1] }
        let clock = VirtualClock()
        let (bytes, stats) = try kernel.run { () throws(I2CError) -> ([UInt8], LinuxI2CBus.Statistics) in
            let bus = try LinuxI2CBus(path: "/dev/i2c-1", clock: clock)
            return (try bus.writeRead([0x3B], count: 14, address: imu), bus.statistics)
        }
        #expect(bytes == Array(0x3B..<0x49).map(UInt8.init))
        #expect(stats == LinuxI2CBus.Statistics(transfers: 1, retries: 1, recovered: 1, failures: 0))
    }

    @Test func retriesAreBoundedAndTheErrorSaysHowManyTries() {
        let kernel = FakeKernel(functionality: FakeKernel.stubFunctionality)
        kernel.configure { $0.failures = Array(repeating: Errno.EREMOTEIO, count: 10) }
        let clock = VirtualClock()
        let (error, stats) = kernel.run { () -> (I2CError?, LinuxI2CBus.Statistics?) in
            let options = LinuxI2CBus.Options(retry: .init(attempts: 4, initialBackoffNanoseconds: 500_000, backoffMultiplier: 3))
            guard let bus = try? LinuxI2CBus(path: "/dev/i2c-1", options: options, clock: clock) else { return (nil, nil) }
            do throws(I2CError) { _ = try bus.readRegister(0x75, address: imu); return (nil, bus.statistics) } catch { return (error, bus.statistics) }
        }
        #expect(error?.errno == Errno.EREMOTEIO)
        #expect(error?.description == "remote I/O error (no acknowledge: nothing at the address, or a NACK or bus fault during the transfer) at 0x68 on /dev/i2c-1 (errno 121), after 4 tries")
        #expect(stats == LinuxI2CBus.Statistics(transfers: 1, retries: 3, recovered: 0, failures: 1))
        #expect(clock.nowNanoseconds == 500_000 + 1_500_000 + 4_500_000)
        #expect(kernel.dataCalls.count == 4)
    }

    @Test func noRetryPolicyTriesOnce() {
        let kernel = FakeKernel(functionality: FakeKernel.stubFunctionality)
        kernel.configure { $0.failures = [Errno.EIO] }
        let error = kernel.run { () -> I2CError? in
            guard let bus = try? LinuxI2CBus(path: "/dev/i2c-1", options: .init(retry: .none), clock: VirtualClock()) else { return nil }
            do throws(I2CError) { _ = try bus.readRegister(0x75, address: imu); return nil } catch { return error }
        }
        #expect(error?.description == "bus error at 0x68 on /dev/i2c-1 (errno 5)")
        #expect(kernel.dataCalls.count == 1)
    }

    @Test func busyAddressNamesTheKernelDriverFromSysfs() throws {
        let sysfs = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-sysfs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: sysfs) }
        try FileManager.default.createDirectory(atPath: "\(sysfs)/bus/i2c/drivers/mpu6050", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(sysfs)/bus/i2c/devices/1-0068", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(sysfs)/bus/i2c/devices/1-0068/driver",
                                                   withDestinationPath: "../../../../bus/i2c/drivers/mpu6050")
        let kernel = FakeKernel(functionality: FakeKernel.stubFunctionality)
        kernel.configure { $0.slaveErrno = Errno.EBUSY }
        let error = kernel.run { () -> I2CError? in
            guard let bus = try? LinuxI2CBus(path: "/dev/i2c-1", options: .init(sysfsRoot: sysfs), clock: VirtualClock()) else { return nil }
            do throws(I2CError) { _ = try bus.readRegister(0x75, address: imu); return nil } catch { return error }
        }
        #expect(error?.kind == .addressBusy)
        #expect(error?.description == "a kernel driver (mpu6050) owns 0x68 on /dev/i2c-1: unbind it with `echo 1-0068 > /sys/bus/i2c/drivers/mpu6050/unbind`, or open the bus with force: true (I2C_SLAVE_FORCE)")
        #expect(kernel.dataCalls.isEmpty)
    }

    @Test func busyAddressWithoutSysfsEntryStillExplains() {
        let kernel = FakeKernel(functionality: FakeKernel.stubFunctionality)
        kernel.configure { $0.slaveErrno = Errno.EBUSY }
        let error = kernel.run { () -> I2CError? in
            guard let bus = try? LinuxI2CBus(path: "/dev/i2c-1", options: .init(sysfsRoot: "/nonexistent-sysfs"), clock: VirtualClock()) else { return nil }
            do throws(I2CError) { _ = try bus.readRegister(0x75, address: imu); return nil } catch { return error }
        }
        #expect(error?.description == "a kernel driver owns 0x68 on /dev/i2c-1 (device 1-0068); unbind it, or open the bus with force: true (I2C_SLAVE_FORCE)")
    }

    @Test func forceUsesI2CSlaveForce() throws {
        let kernel = FakeKernel(functionality: FakeKernel.stubFunctionality)
        kernel.configure { $0.slaveErrno = Errno.EBUSY }
        let value = try kernel.run { () throws(I2CError) -> UInt8 in
            let bus = try LinuxI2CBus(path: "/dev/i2c-1", options: .init(force: true), clock: VirtualClock())
            return try bus.readRegister(0x75, address: imu)
        }
        #expect(value == 0x75)
        #expect(kernel.calls.contains(.i2cSetAddress(fd: fd, address: 0x68, force: true)))
    }

    @Test(arguments: [
        (Errno.ENOENT, "no /dev/i2c-1: enable I2C (dtparam=i2c_arm=on in config.txt) and load i2c-dev (`modprobe i2c-dev`)"),
        (Errno.EACCES, "permission denied on /dev/i2c-1: add the user to group i2c (`sudo usermod -aG i2c $USER`, then log in again) or run as root"),
    ])
    func openFailuresSayWhatToDo(errno: Int32, message: String) {
        let kernel = FakeKernel(functionality: FakeKernel.stubFunctionality)
        kernel.configure { $0.openErrno = errno }
        let error = kernel.run { () -> I2CError? in
            do throws(I2CError) { _ = try LinuxI2CBus(bus: 1, clock: VirtualClock()); return nil } catch { return error }
        }
        #expect(error?.kind == .cannotOpen)
        #expect(error?.description == message)
    }

    /// A path that is no I2C node at all gets no advice about enabling I2C on a Pi.
    @Test func aMissingPathThatIsNoI2CNodeIsNamedAsSuch() {
        let kernel = FakeKernel(functionality: FakeKernel.stubFunctionality)
        kernel.configure { $0.openErrno = Errno.ENOENT }
        let error = kernel.run { () -> I2CError? in
            do throws(I2CError) { _ = try LinuxI2CBus(path: "i2c1", clock: VirtualClock()); return nil } catch { return error }
        }
        #expect(error?.description == "no such device i2c1: an I2C bus is /dev/i2c-N ('plumb probe' or `i2cdetect -l` lists them)")
    }

    @Test func realOpenOfAMissingNodeFails() {
        // No mocking: the real open(2) of a path that cannot exist.
        #expect(throws: I2CError.self) { try LinuxI2CBus(path: "/nonexistent/i2c-99") }
    }

    @Test func retryPolicyBackoffGrowsGeometrically() {
        let p = LinuxI2CBus.RetryPolicy(attempts: 5, initialBackoffNanoseconds: 1_000, backoffMultiplier: 2)
        #expect((1...4).map(p.backoff(beforeRetry:)) == [1_000, 2_000, 4_000, 8_000])
    }
}
