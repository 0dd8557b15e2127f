import Foundation
import Glibc
import Testing
import PlumbHAL
@testable import PlumbLinux

/// The claim that keeps two plumb processes off one chip: an OFD lock on the byte of the
/// adapter's node at the chip's address. A regular file stands in for /dev/i2c-N (record locks
/// work alike on both; `scripts/vm-test` checks a real i2c-dev node).
@Suite struct I2CDeviceClaimTests {
    /// A scratch file, removed at the end.
    final class Node {
        let path: String
        init() throws {
            path = NSTemporaryDirectory() + "plumb-claim-\(UUID().uuidString)"
            #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        }
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// An OFD lock taken on a description of our own, as another process's claim would be:
    /// OFD locks of two descriptions conflict whether or not they are in one process.
    /// Returns the fd (close it to let go), or the negative errno of the attempt.
    private func foreignLock(_ path: String, _ address: UInt8) -> Int32 {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        #expect(fd >= 0)
        let r = Sys.lockByte(fd, offset: Int(address))
        if r != 0 { close(fd); return r }
        return fd
    }

    @Test func anotherHolderIsRefusedWithTheChipNamed() throws {
        let node = try Node()
        let other = foreignLock(node.path, 0x68)
        #expect(other >= 0)
        defer { close(other) }
        #expect(throws: I2CDeviceInUse(path: node.path, address: I2CAddress(0x68))) {
            _ = try I2CDeviceClaim.acquire(path: node.path, address: I2CAddress(0x68))
        }
        do {
            _ = try I2CDeviceClaim.acquire(path: node.path, address: I2CAddress(0x68))
        } catch {
            #expect(error.description == "the chip at 0x68 on \(node.path) is in use by another plumb process")
        }
        // Another chip on the same bus is its own.
        let next = try I2CDeviceClaim.acquire(path: node.path, address: I2CAddress(0x69))
        #expect(next.isHeld)
    }

    @Test func aClaimKeepsOthersOffUntilItsLastShareGoes() throws {
        let node = try Node()
        var first: I2CDeviceClaim? = try I2CDeviceClaim.acquire(path: node.path, address: I2CAddress(0x6A))
        // This process again (a reload, the wait for the chip): shared, not refused.
        var second: I2CDeviceClaim? = try I2CDeviceClaim.acquire(path: node.path, address: I2CAddress(0x6A))
        #expect(first?.isHeld == true && second?.isHeld == true)
        #expect(foreignLock(node.path, 0x6A) == -EAGAIN || foreignLock(node.path, 0x6A) == -EACCES)
        first = nil
        #expect(foreignLock(node.path, 0x6A) < 0, "one share still holds it")
        second = nil
        // Closed, the description can live on for a moment in a child another test is spawning
        // (posix_spawn copies the descriptor table; the copy goes at its exec, CLOEXEC): the lock
        // goes with the last reference. Seen once in a loaded CI run (EAGAIN right after the close).
        var fd = foreignLock(node.path, 0x6A)
        for _ in 0..<500 where fd < 0 {
            usleep(10_000)
            fd = foreignLock(node.path, 0x6A)
        }
        #expect(fd >= 0, "the last share let it go")
        if fd >= 0 { close(fd) }
        _ = (first, second)
    }

    /// python3 holding the OFD lock on byte 0x68 of `path` (as another plumb's claim of 0x68 would),
    /// until its standard input closes; it prints "held" once it has it.
    static func pythonHoldingTheLock(on path: String) throws -> (Process, input: Pipe, output: Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", """
            import fcntl, os, struct, sys
            fd = os.open(sys.argv[1], os.O_RDWR)
            fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, 0x68, 1, 0))
            print("held", flush=True)
            sys.stdin.read()
            """, path]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        return (process, input, output)
    }

    /// Another process for real: python3 holds the lock on the file, then plumb's claim is refused,
    /// and taken once python3 has ended.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs /usr/bin/python3"))
    func aLockHeldByAnotherProcessRefusesTheClaim() throws {
        let node = try Node()
        let (process, input, output) = try Self.pythonHoldingTheLock(on: node.path)
        let said = String(decoding: output.fileHandleForReading.availableDataOrLine(), as: UTF8.self)
        #expect(said == "held\n")
        #expect(throws: I2CDeviceInUse.self) { _ = try I2CDeviceClaim.acquire(path: node.path, address: I2CAddress(0x68)) }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try I2CDeviceClaim.acquire(path: node.path, address: I2CAddress(0x68)).isHeld)
    }

    /// `plumb probe`'s look: another process's claim is told (python3 holds it, as in the test
    /// above), without a claim taken by the look: the chip is free once the holder ends.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "needs /usr/bin/python3"))
    func anotherProcessesClaimIsToldWithoutTakingOne() throws {
        let node = try Node()
        #expect(I2CDeviceClaim.isClaimedElsewhere(path: node.path, address: I2CAddress(0x68)) == false)
        let (process, input, output) = try Self.pythonHoldingTheLock(on: node.path)
        #expect(String(decoding: output.fileHandleForReading.availableDataOrLine(), as: UTF8.self) == "held\n")
        #expect(I2CDeviceClaim.isClaimedElsewhere(path: node.path, address: I2CAddress(0x68)) == true)
        #expect(I2CDeviceClaim.isClaimedElsewhere(path: node.path, address: I2CAddress(0x69)) == false, "another chip on the bus")
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(I2CDeviceClaim.isClaimedElsewhere(path: node.path, address: I2CAddress(0x68)) == false)
        // The looks took nothing: another description takes the lock, and this process's own
        // claim is not another's.
        let fd = foreignLock(node.path, 0x68)
        #expect(fd >= 0)
        if fd >= 0 { close(fd) }
        let own = try I2CDeviceClaim.acquire(path: node.path, address: I2CAddress(0x68))
        #expect(own.isHeld && I2CDeviceClaim.isClaimedElsewhere(path: node.path, address: I2CAddress(0x68)) == false)
        #expect(I2CDeviceClaim.isClaimedElsewhere(path: "/nonexistent/i2c-9", address: I2CAddress(0x68)) == nil)
    }

    /// A node the claim cannot open again holds nothing and refuses nothing.
    @Test func aNodeThatCannotBeOpenedHoldsNothing() throws {
        let claim = try I2CDeviceClaim.acquire(path: "/nonexistent/i2c-9", address: I2CAddress(0x68))
        #expect(!claim.isHeld)
    }
}

private extension FileHandle {
    /// Bytes up to and including the first newline (or the end).
    func availableDataOrLine() -> Data {
        var data = Data()
        while true {
            let byte = readData(ofLength: 1)
            if byte.isEmpty { return data }
            data.append(byte)
            if byte.first == 0x0A { return data }
        }
    }
}
