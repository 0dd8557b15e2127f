// LinuxI2CBus against the kernel's i2c-stub (an SMBus-only adapter, no I2C_RDWR: every check here
// exercises the SMBus mapping, the path a Raspberry Pi never takes but many SMBus hosts do).
import PlumbHAL
import PlumbLinux

extension VMChecks {
    static let i2c: [VMCheck] = [
        VMCheck(name: "i2c.adapter-listing") { env in
            let adapters = try I2CAdapter.list()
            guard let stub = adapters.first(where: { $0.number == env.i2cBus }) else {
                throw CheckFailure("adapter \(env.i2cBus) missing from the listing")
            }
            try require(stub.functionality?.rawValue == 0x0c7f_0000,
                        "i2c-stub functionality \(stub.functionality?.description ?? "nil"), expected 0x0c7f0000 (\(stub.unavailableReason ?? ""))")
            let bus = try LinuxI2CBus(bus: env.i2cBus)
            try require(bus.mode == .smbusBlock && bus.maximumReadLength == 32,
                        "mode \(bus.mode) max \(String(describing: bus.maximumReadLength)), expected smbusBlock / 32")
            return "i2c-\(stub.number) \"\(stub.name)\" \(stub.functionality!.hexString), mode smbusBlock"
        },

        VMCheck(name: "i2c.bus-clock-unknown-on-the-stub") { env in
            // i2c-stub is a platform-less adapter: no device-tree node, so no clock-frequency. The
            // real sysfs layout (/sys/bus/i2c/devices/i2c-N) must be found and say so, not fail.
            let clock = try I2CBusClock.read(busPath: "/dev/i2c-\(env.i2cBus)")
            try require(clock.hertz == nil && clock.unknownReason == "i2c-\(env.i2cBus) has no device-tree node: an ACPI, PCI, USB or stub adapter",
                        "i2c-stub's clock read as \(clock)")
            return "/dev/i2c-\(env.i2cBus): \(clock)"
        },

        VMCheck(name: "i2c.register-write-read") { env in
            let bus = try LinuxI2CBus(bus: env.i2cBus)
            let a = env.stubAddresses[0]
            try bus.writeRegister(0x6B, 0x41, address: a)               // write_byte_data
            let back = try bus.readRegister(0x6B, address: a)           // read_byte_data
            try require(back == 0x41, "register 0x6b read back \(hexByte(back)), wrote 0x41")
            try bus.write([0x20, 0xDE, 0xAD, 0xBE, 0xEF], to: a)          // write_i2c_block_data
            let bytes = try (0..<4).map { i throws(I2CError) in try bus.readRegister(0x20 + UInt8(i), address: a) }
            try require(bytes == [0xDE, 0xAD, 0xBE, 0xEF], "block write read back \(bytes.map(hexByte))")
            let block = try bus.readRegisters(0x20, count: 4, address: a)  // read_i2c_block_data
            try require(block == [0xDE, 0xAD, 0xBE, 0xEF], "block read \(block.map(hexByte))")
            return "byte-data and I2C-block writes read back at \(a)"
        },

        VMCheck(name: "i2c.addresses-are-independent") { env in
            let bus = try LinuxI2CBus(bus: env.i2cBus)
            let (a, b) = (env.stubAddresses[0], env.stubAddresses[1])
            try bus.writeRegister(0x0F, 0x6A, address: a)
            try bus.writeRegister(0x0F, 0x69, address: b)
            let ra = try bus.readRegister(0x0F, address: a)
            let rb = try bus.readRegister(0x0F, address: b)
            try require(ra == 0x6A && rb == 0x69, "0x0f at \(a) = \(hexByte(ra)) (want 0x6a), at \(b) = \(hexByte(rb)) (want 0x69)")
            return "\(a) and \(b) keep separate registers"
        },

        VMCheck(name: "i2c.block-read-over-32") { env in
            let bus = try LinuxI2CBus(bus: env.i2cBus)
            let a = env.stubAddresses[0]
            let pattern = (0..<80).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
            for start in stride(from: 0, to: pattern.count, by: 32) {
                let chunk = Array(pattern[start..<min(start + 32, pattern.count)])
                try bus.write([0x80 + UInt8(start)] + chunk, to: a)
            }
            let before = bus.statistics.transfers
            let read = try bus.readRegisters(0x80, count: 80, address: a)
            try require(read == pattern, "80-byte read differs at byte \(zip(read, pattern).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? -1)")
            let transfers = bus.statistics.transfers - before
            try require(transfers == 3, "80 bytes took \(transfers) transfers, expected 3 (32 + 32 + 16)")
            return "80 bytes at 0x80 in 3 I2C-block reads"
        },

        VMCheck(name: "i2c.byte-data-fallback") { env in
            let original = try readSysfs(VMEnvironment.stubFunctionalityPath)
            let seeded = try LinuxI2CBus(bus: env.i2cBus)
            let a = env.stubAddresses[0]
            let pattern: [UInt8] = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE]
            try seeded.write([0x3B] + pattern, to: a)
            // Remove I2C-block support (0x0c000000), as an adapter with byte-data only would have.
            try writeSysfs(VMEnvironment.stubFunctionalityPath, String(0x0c7f_0000 & ~0x0c00_0000))
            return try restoring({ try writeSysfs(VMEnvironment.stubFunctionalityPath, original) }) {
                let bus = try LinuxI2CBus(bus: env.i2cBus)
                try require(bus.mode == .smbusByteData && bus.maximumReadLength == 1,
                            "mode \(bus.mode), functionality \(bus.functionality.hexString): expected smbusByteData")
                let read = try bus.readRegisters(0x3B, count: 14, address: a)
                try require(read == pattern, "byte-data fallback read \(read.map(hexByte))")
                try require(bus.statistics.transfers == 14, "\(bus.statistics.transfers) transfers, expected 14 byte-data reads")
                do {
                    _ = try bus.writeRead([0x3B], count: 14, address: a)
                    throw CheckFailure("a 14-byte transfer on a byte-data-only adapter did not fail")
                } catch let error as I2CError {
                    try require(error.kind == .unsupported, "14-byte transfer failed with \(error.kind): \(error)")
                }
                return "functionality \(bus.functionality.hexString): 14 registers in 14 byte-data reads"
            }
        },

        VMCheck(name: "i2c.empty-address") { env in
            let bus = try LinuxI2CBus(bus: env.i2cBus)
            do {
                let v = try bus.readRegister(0x75, address: env.emptyAddress)
                throw CheckFailure("read \(hexByte(v)) from \(env.emptyAddress), where nothing should answer")
            } catch let error as I2CError {
                let expected = "nothing answers at \(env.emptyAddress) on /dev/i2c-\(env.i2cBus)"
                try require(error.kind == .noAcknowledge && [Errno.ENXIO, Errno.ENODEV].contains(error.errno),
                            "kind \(error.kind) errno \(error.errno), expected noAcknowledge with ENXIO/ENODEV")
                try require(error.description == expected, "message \"\(error.description)\", expected \"\(expected)\"")
                try require(bus.statistics.retries == 0, "\(bus.statistics.retries) retries on a missing device")
                return "errno \(error.errno): \"\(error.description)\""
            }
        },
    ]
}
