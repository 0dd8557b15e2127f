import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// The budget's numbers, worked by hand: 9 clocks a byte, 10 a message (address byte and its
/// START), 2 for the transfer's START and STOP.
@Suite("BusBudget")
struct BusBudgetTests {
    /// An identified driver for `chip` on the emulated bus.
    func identified(_ chip: String, compression: Bool = false) throws -> any IMU {
        let sensor = SimulatedSensor(model: try #require(SimulatedChips.model(chip)))
        let imu: any IMU
        if MPU6050.variant(named: chip) != nil {
            imu = try MPU6050(bus: sensor.bus, address: sensor.model.address, clock: sensor.clock)
        } else {
            let lsm = LSM6DS(bus: sensor.bus, address: sensor.model.address, clock: sensor.clock)
            lsm.fifoCompression = compression
            imu = lsm
        }
        _ = try imu.identify()
        return imu
    }

    @Test func transferShapes() {
        // INT_STATUS: START, 0x68+W, 0x3A, repeated START, 0x68+R, one byte, STOP.
        #expect(I2CTransferShape.registerRead(1).bits == 2 + 10 + 9 + 10 + 9)
        #expect(I2CTransferShape.registerRead(2).bits == 49)
        // A register write: one message of two bytes.
        #expect(I2CTransferShape(written: 2, read: 0).bits == 2 + 10 + 18)
    }

    @Test func mpu6050AtOneKilohertz() throws {
        let imu = try identified("mpu6050")
        let t = try #require(imu.streamTraffic(for: IMUConfiguration(outputDataRate: 1000, fifoWatermark: 16)))
        #expect(t.outputDataRate == 1000)
        #expect(t.bytesPerSample == 12)
        // 62.5 drains a second of INT_STATUS (40), FIFO_COUNT (49) and 192 bytes from FIFO_R_W
        // (2 + 20 + 9 × 193 = 1759): 1848 × 62.5 = 115 500, and TEMP_OUT (49) once a second.
        #expect(t.bitsPerSecond() == 115_549)
        // The payload alone: 12 000 bytes a second, 108 000 bit times.
        #expect(t.payloadBitsPerSecond == 108_000)
        // An SMBus-only adapter reads 32 bytes a transfer: 6 transfers, 5 × 31 bit times more a drain.
        #expect(t.bitsPerSecond(maximumReadLength: 32) == 115_549 + 62.5 * 5 * 31)

        let slow = BusBudget(traffic: t, busHertz: 100_000)
        #expect(abs(slow.share - 1.15549) < 1e-9)
        #expect(!slow.fits)
        #expect(BusBudget(traffic: t, busHertz: 400_000).fits)
    }

    @Test func accelerometerOnlyAndATemperatureInTheFIFO() throws {
        let mpu = try identified("mpu6050")
        let low = try #require(mpu.streamTraffic(for: IMUConfiguration(outputDataRate: 12.5, fifoWatermark: 7, gyroscopeEnabled: false)))
        // SMPLRT_DIV = round(1000 / 12.5) − 1 = 79: 12.5 Hz, 6-byte records.
        #expect(low.bytesPerSample == 6)
        // 12.5 / 7 drains of 40 + 49 + (2 + 20 + 9 × 43) = 498, and TEMP_OUT once a second.
        #expect(abs(low.bitsPerSecond() - (12.5 / 7 * 498 + 49)) < 1e-9)

        let icm = try identified("icm20602")
        let t = try #require(icm.streamTraffic(for: IMUConfiguration(outputDataRate: 1000, fifoWatermark: 16)))
        // The ICM-20602 carries the temperature in every record, so TEMP_OUT is never read.
        #expect(t.bytesPerSample == 14)
        #expect(t.periodic.isEmpty)
        let perDrain: Double = 40 + 49 + 2 + 20 + 9 * (1 + 16 * 14)
        #expect(t.bitsPerSecond() == 62.5 * perDrain)
    }

    @Test func lsm6dsoTaggedFIFO() throws {
        let imu = try identified("lsm6dso")
        let t = try #require(imu.streamTraffic(for: IMUConfiguration(outputDataRate: 833, fifoWatermark: 16)))
        // Two 7-byte words a sample and a timestamp word every 32: 14.21875 bytes.
        #expect(t.bytesPerSample == 7 * (2 + 1.0 / 32))
        // Watermark reads need no status read; one in 64 drains reads FIFO_STATUS1/2 (49).
        #expect(t.perDrain.isEmpty)
        let drains = 833.0 / 16
        let fifoBytes = 16 * 7 * (2 + 1.0 / 32) + 1.6 * 7 / drains
        let expected = drains * (31 + 9 * fifoBytes) + 49 * drains / 64
        #expect(abs(t.bitsPerSecond() - expected) < 1e-6)
        #expect(abs(t.bitsPerSecond() - 108_352.6) < 0.1)

        // Below an 8-word threshold every drain reads the status first.
        let small = try #require(imu.streamTraffic(for: IMUConfiguration(outputDataRate: 104, fifoWatermark: 2)))
        #expect(small.perDrain == [.registerRead(2)])
        // With compression the size is the uncompressed one: an upper bound.
        let compressed = try identified("lsm6dso", compression: true)
        #expect(compressed.streamTraffic(for: IMUConfiguration(outputDataRate: 833, fifoWatermark: 16))?.bytesPerSample == t.bytesPerSample)
    }

    @Test func lsm6ds3PatternFIFO() throws {
        let imu = try identified("lsm6ds3")
        let t = try #require(imu.streamTraffic(for: IMUConfiguration(outputDataRate: 833, fifoWatermark: 32)))
        // Two 6-byte sets a sample and a timestamp set every 8: 12.75 bytes; FIFO_STATUS1–4 (67)
        // every drain, OUT_TEMP (49) once a second.
        #expect(t.bytesPerSample == 12.75)
        let perDrain: Double = 67 + 31 + 9 * 408
        #expect(t.bitsPerSecond() == 833.0 / 32 * perDrain + 49)
    }

    @Test func theHighestRateThatFits() throws {
        let imu = try identified("mpu6050")
        let config = IMUConfiguration(outputDataRate: 1000, fifoWatermark: 16)
        // 500 Hz with watermark 8 needs 61 549 bit times (0.62 of 100 kHz); 333.3 Hz with 5 needs
        // 66.7 × (40 + 49 + 571) + 49 = 44 049 (0.44).
        let rate = try #require(BusBudget.highestFittingRate(for: imu, configuration: config, busHertz: 100_000))
        #expect(abs(rate - 1000.0 / 3) < 1e-9)
        // The search looks below the current rate only: at 400 kHz that is 500 Hz.
        #expect(BusBudget.highestFittingRate(for: imu, configuration: config, busHertz: 400_000) == 500)
        // A bus too slow for anything the chip runs.
        #expect(BusBudget.highestFittingRate(for: imu, configuration: config, busHertz: 500) == nil)
    }

    @Test func anUnidentifiedDriverCannotSay() throws {
        let sensor = SimulatedSensor(model: try #require(SimulatedChips.model("mpu6050")))
        let imu = try MPU6050(bus: sensor.bus, address: sensor.model.address, clock: sensor.clock)
        #expect(imu.streamTraffic(for: .default) == nil)
        // And a configuration the part refuses.
        _ = try imu.identify()
        #expect(imu.streamTraffic(for: IMUConfiguration(outputDataRate: 5000)) == nil)
    }
}
