// The LSM6DS driver over the real kernel path: LinuxI2CBus on i2c-stub (SMBus I2C-block reads,
// 32 bytes at most) with an LSM6DSO register image at 0x6a, and the watermark pin on gpio-sim.
//
// i2c-stub is a plain 256-byte register file: bits never clear themselves and reading
// FIFO_DATA_OUT_TAG does not pop a word. So the image is written by the check, the way the chip
// would present it at one instant: the FIFO status says four words are waiting, and 0x78...0x93
// hold those four 7-byte words, which is exactly what one 28-byte block read from 0x78 returns.
import PlumbHAL
import PlumbLinux
import PlumbDrivers

extension VMChecks {
    static let lsm6ds: [VMCheck] = [
        VMCheck(name: "lsm6ds.identify-and-bounded-reset") { env in
            let bus = try LinuxI2CBus(bus: env.i2cBus)
            let a = env.stubAddresses[1]
            try bus.writeRegister(0x0F, 0x6C, address: a)
            try bus.writeRegister(0x12, 0x04, address: a)
            let imu = LSM6DS(bus: bus, address: a, clock: env.clock)
            let id = try imu.identify()
            try require(id.partKey == "lsm6dso" && id.whoAmI == 0x6C, "identified \(id.part) (\(id.partKey)) from 0x\(hexByte(id.whoAmI))")
            // SW_RESET never clears in a register file: the poll must give up after its 50 reads.
            imu.pollAttempts = 50
            let before = bus.statistics.transfers
            do {
                try imu.reset()
                throw CheckFailure("reset returned although SW_RESET stayed set")
            } catch let error as IMUError {
                guard case .timeout(let what) = error else { throw CheckFailure("reset failed with \(error), expected a timeout") }
                let reads = bus.statistics.transfers - before
                // main-bank write (FUNC_CFG_ACCESS = 0), bypass write, SW_RESET write, then 50 polls
                // of CTRL3_C (one byte-data read each).
                try require(reads == 53, "\(reads) transfers, expected 53")
                return "\(id.part) at \(a); reset gave up: \(what)"
            }
        },

        VMCheck(name: "lsm6ds.configure-and-drain-on-edge") { env in
            let bus = try LinuxI2CBus(bus: env.i2cBus)
            let a = env.stubAddresses[1]
            // Power-on image: WHO_AM_I, CTRL3_C, CTRL9_XL, INTERNAL_FREQ_FINE, the timer, an empty FIFO.
            try bus.writeRegister(0x0F, 0x6C, address: a)
            try bus.writeRegister(0x12, 0x04, address: a)
            try bus.writeRegister(0x18, 0xE0, address: a)
            try bus.writeRegister(0x63, 0x00, address: a)
            try bus.write([0x3A, 0x00, 0x00], to: a)
            try bus.write([0x40, 0x00, 0x00, 0x00, 0x00], to: a)
            let imu = LSM6DS(bus: bus, address: a, clock: env.clock)
            // i2c-stub is a register file, not a FIFO: its FIFO_STATUS still shows the four words
            // after they were read, so a catch-up read (due when the drain takes longer than a
            // sample period, as it can under TCG) would read them twice.
            imu.catchesUp = false
            _ = try imu.identify()
            let effective = try imu.apply(IMUConfiguration(outputDataRate: 104, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 1))
            try imu.startStreaming()
            // The registers as the driver left them (constants from the LSM6DSO datasheet).
            let control = try bus.readRegisters(0x10, count: 3, address: a)
            try require(control == [0x48, 0x44, 0x44], "CTRL1_XL..CTRL3_C = \(control.map(hexByte)), expected 0x48 0x44 0x44")
            let fifo = try bus.readRegisters(0x07, count: 4, address: a)
            // FIFO_CTRL2 0x46: FIFO_COMPR_RT_EN | UNCOPTR_RATE 3 (compression, an uncompressed word per 32).
            try require(fifo == [0x03, 0x46, 0x44, 0xD6], "FIFO_CTRL1..4 = \(fifo.map(hexByte)), expected 0x03 0x46 0x44 0xd6")
            // i2c-stub has no register banks: EMB_FUNC_EN_B (embedded bank 0x05) lands at 0x05, and
            // FUNC_CFG_ACCESS must be back at 0 (the main bank).
            try require(try bus.readRegister(0x05, address: a) == 0x08, "EMB_FUNC_EN_B.FIFO_COMPR_EN not set")
            try require(try bus.readRegister(0x01, address: a) == 0x00, "FUNC_CFG_ACCESS left in the embedded bank")
            try require(try bus.readRegister(0x0D, address: a) == 0x08, "INT1_CTRL does not route the FIFO threshold")
            try require(try bus.readRegister(0x19, address: a) == 0x20, "CTRL10_C.TIMESTAMP_EN not set")

            // FIFO_COMPR_INIT was requested (EMB_FUNC_INIT_B, embedded 0x67; it stays set in the stub).
            try require(try bus.readRegister(0x67, address: a) & 0x08 != 0, "EMB_FUNC_INIT_B.FIFO_COMPR_INIT not requested")

            // The chip at the watermark: four words waiting, then the pin rises. Tag bytes carry
            // TAG_PARITY (bit 0: an even number of ones), as the chip writes them.
            let words: [UInt8] = [
                0x21, 0xE8, 0x03, 0x00, 0x00, 0x00, 0x00,      // slot 0 timestamp 1000
                0x09, 0x64, 0x00, 0x38, 0xFF, 0x2C, 0x01,      // slot 0 gyroscope (100, -200, 300)
                0x11, 0xE8, 0x03, 0xD0, 0x07, 0x05, 0x20,      // slot 0 accelerometer (1000, 2000, 8197)
                0x0A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,      // slot 1 gyroscope (its accelerometer is not in yet)
            ]
            try bus.write([0x78] + Array(words[0..<28]), to: a)
            try bus.write([0x3A, 0x04, 0x80], to: a)
            let line = try GPIODInterruptLine(GPIOLineSelector(chip: env.gpioLabel, line: .name("DRDY")), edges: .rising)
            try env.pull(env.drdyOffset, up: false)
            _ = try line.readQueuedEdges()
            try env.pull(env.drdyOffset, up: true)
            return try restoring({ try env.pull(env.drdyOffset, up: false) }) {
                guard let edge = try line.waitForEdge(timeoutNanoseconds: 1_000_000_000) else {
                    throw CheckFailure("no watermark edge within 1 s")
                }
                let before = bus.statistics.transfers
                var samples: [IMUSample] = []
                let result = try imu.drain(into: &samples, edges: [edge])
                let transfers = bus.statistics.transfers - before
                try require(result.sampleCount == 1 && samples.count == 1 && result.gaps.isEmpty,
                            "drained \(samples.count) samples, gaps \(result.gaps); expected one sample (the second slot is incomplete)")
                // FIFO_STATUS1/2 in one block read, the four words in one 28-byte block read.
                try require(transfers == 2, "drain took \(transfers) transfers, expected 2")
                let s = samples[0]
                let rate = 100 * 17.5e-3 * Double.pi / 180
                let z = 8197 * 0.122e-3 * 9.80665
                try require(abs(s.angularRate.x - rate) < 1e-9 && abs(s.acceleration.z - z) < 1e-9,
                            "sample \(s.angularRate) rad/s, \(s.acceleration) m/s²")
                try require(effective.outputDataRate == 104, "effective rate \(effective.outputDataRate)")
                return "1 sample from 2 SMBus transfers after the edge at \(edge.timestampNanoseconds) ns; gyro x \(s.angularRate.x) rad/s"
            }
        },
    ]
}
