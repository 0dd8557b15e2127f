// The MPU-6050 driver over the real kernel path: LinuxI2CBus on i2c-stub (SMBus-only, 32-byte
// I2C-block reads) with an MPU-6050 register image at 0x68, and the data-ready pin on gpio-sim.
//
// i2c-stub is a plain register file: DEVICE_RESET never clears and FIFO_R_W does not pop. So the
// check writes the image the chip would present at one instant: FIFO_COUNT says one 12-byte record
// is waiting, and 0x74...0x7f hold it, which is exactly what one 12-byte block read from 0x74
// returns (0x75 keeps WHO_AM_I = 0x68, which doubles as the record's ACCEL_X low byte).
import PlumbHAL
import PlumbLinux
import PlumbDrivers

extension VMChecks {
    static let mpu6050: [VMCheck] = [
        VMCheck(name: "mpu6050.identify-and-bounded-reset") { env in
            let bus = try LinuxI2CBus(bus: env.i2cBus)
            let a = env.stubAddresses[0]
            try bus.writeRegister(0x75, 0x68, address: a)
            try bus.writeRegister(0x6B, 0x40, address: a)
            let imu = try MPU6050(bus: bus, address: a, clock: env.clock)
            let id = try imu.identify()
            try require(id.partKey == "mpu6050" && id.whoAmI == 0x68, "identified \(id.part) (\(id.partKey)) from 0x\(hexByte(id.whoAmI))")
            // DEVICE_RESET never clears in a register file: the poll must give up after 10 reads.
            let before = bus.statistics.transfers
            do {
                try imu.reset()
                throw CheckFailure("reset returned although DEVICE_RESET stayed set")
            } catch let error as IMUError {
                guard case .timeout(let what) = error else { throw CheckFailure("reset failed with \(error), expected a timeout") }
                let transfers = bus.statistics.transfers - before
                // PWR_MGMT_1 = 0x80, then 10 polls of PWR_MGMT_1 (one byte-data read each).
                try require(transfers == 11, "\(transfers) transfers, expected 11")
                return "\(id.part) at \(a); reset gave up: \(what)"
            }
        },

        VMCheck(name: "mpu6050.configure-and-drain-on-edge") { env in
            let bus = try LinuxI2CBus(bus: env.i2cBus)
            let a = env.stubAddresses[0]
            // Power-on image (Register Map rev 4.2: PWR_MGMT_1 = 0x40, WHO_AM_I = 0x68, the rest 0).
            try bus.write([0x19] + [UInt8](repeating: 0, count: 31), to: a)
            try bus.write([0x68, 0x00, 0x00, 0x00, 0x40, 0x00], to: a)
            try bus.write([0x72, 0x00, 0x00, 0x00, 0x68], to: a)
            let imu = try MPU6050(bus: bus, address: a, clock: env.clock)
            _ = try imu.identify()
            let effective = try imu.apply(IMUConfiguration(outputDataRate: 100, accelerometerRange: 4, gyroscopeRange: 500, fifoWatermark: 1))
            try imu.startStreaming()
            // The registers as the driver left them (constants from the register map).
            let config = try bus.readRegisters(0x19, count: 4, address: a)
            try require(config == [0x09, 0x03, 0x08, 0x08], "SMPLRT_DIV..ACCEL_CONFIG = \(config.map(hexByte)), expected 0x09 0x03 0x08 0x08")
            let pin = try bus.readRegisters(0x37, count: 2, address: a)
            try require(pin == [0x20, 0x01], "INT_PIN_CFG, INT_ENABLE = \(pin.map(hexByte)), expected 0x20 0x01 (LATCH_INT_EN; INT_RD_CLEAR only on the MPU-9150)")
            try require(try bus.readRegister(0x23, address: a) == 0x78, "FIFO_EN is not accel + gyro")
            let power = try bus.readRegisters(0x6A, count: 2, address: a)
            try require(power == [0x40, 0x01], "USER_CTRL, PWR_MGMT_1 = \(power.map(hexByte)), expected 0x40 0x01")

            // One sample in the FIFO, then the data-ready pin rises.
            let record: [UInt8] = [0x00, 0x68, 0x01, 0x00, 0x20, 0x00,   // accel (104, 256, 8192): z = 1 g at ±4 g
                                   0x00, 0x64, 0xFF, 0x38, 0x01, 0x2C]   // gyro (100, -200, 300)
            try bus.write([0x74] + record, to: a)
            try bus.write([0x72, 0x00, 0x0C], to: a)
            try bus.writeRegister(0x3A, 0x01, address: a)
            try bus.write([0x41, 0x00, 0x00], to: a)                        // TEMP_OUT 0 = 36.53 °C
            let line = try GPIODInterruptLine(GPIOLineSelector(chip: env.gpioLabel, line: .name("DRDY")), edges: .rising)
            try env.pull(env.drdyOffset, up: false)
            _ = try line.readQueuedEdges()
            try env.pull(env.drdyOffset, up: true)
            guard let edge = try line.waitForEdge(timeoutNanoseconds: 1_000_000_000) else {
                try env.pull(env.drdyOffset, up: false)
                throw CheckFailure("no data-ready edge within 1 s")
            }
            try env.pull(env.drdyOffset, up: false)
            let before = bus.statistics.transfers
            var samples: [IMUSample] = []
            let result = try imu.drain(into: &samples, edges: [edge])
            let transfers = bus.statistics.transfers - before
            try require(result.sampleCount == 1 && samples.count == 1 && result.gaps.isEmpty,
                        "drained \(samples.count) samples, gaps \(result.gaps); expected one")
            // INT_STATUS, FIFO_COUNT, TEMP_OUT (first drain), and the record in one 12-byte block read.
            try require(transfers == 4, "drain took \(transfers) transfers, expected 4")
            let s = samples[0]
            let rate = 100 / 65.5 * Double.pi / 180
            try require(abs(s.acceleration.z - 9.80665) < 1e-9 && abs(s.angularRate.x - rate) < 1e-9
                        && abs((s.temperature ?? 0) - 36.53) < 1e-9,
                        "sample \(s.angularRate) rad/s, \(s.acceleration) m/s², \(String(describing: s.temperature)) °C")
            try require(effective.outputDataRate == 100, "effective rate \(effective.outputDataRate)")
            return "1 sample from 4 SMBus transfers after the edge at \(edge.timestampNanoseconds) ns; acc z \(s.acceleration.z) m/s²"
        },
    ]
}
