import Foundation
import PlumbHAL
import PlumbDrivers
import PlumbLinux
import PlumbSimulation

/// `plumb bench drivers`: what the MPU-6050 driver puts on the bus per sample, how often it
/// wakes, and how fast it decodes, against the 12-byte payload and the per-sample 14-byte burst
/// most Raspberry Pi libraries do, measured in the same run on the emulated bus.
enum BenchDrivers {
    static let spec = CommandSpec(
        name: "drivers",
        abstract: "Bus bytes, transactions and wakeups per sample, and decode time, for the MPU-6050 and LSM6DSO drivers.",
        discussion: """
        Runs the emulated MPU-6050 at 1 kHz (400 kHz bus) for --seconds of virtual time per scenario and counts
        every byte on the wire (address bytes included). References in the same run: the 12-byte payload
        (accel + gyro), a 14-byte burst from ACCEL_XOUT_H per data-ready edge, and byte-by-byte reads.
        Then the LSM6DSO at 833 Hz the same way, against a 12-byte burst from OUTX_L_G per data-ready edge.
        Decode time is wall-clock on this machine: build with 'swift build -c release'.
        """,
        options: [
            .option("seconds", value: "S", help: "Virtual seconds per scenario. Default 20."),
            .option("records", value: "N", help: "Records decoded for the timing. Default 2000000."),
        ])

    struct Row {
        var name: String
        var samples: Int
        var bytes: Int
        var transactions: Int
        var wakeups: Int
        var gaps: Int
        var seconds: Double
        var bytesPerSample: Double { Double(bytes) / Double(max(samples, 1)) }
        var transactionsPerSample: Double { Double(transactions) / Double(max(samples, 1)) }
        var wakeupsPerSecond: Double { Double(wakeups) / seconds }
    }

    static let payload = 12.0
    static let rate = 1000.0

    static let command = Command(spec) { args, context in
        let seconds = try args.double("seconds", in: 1...3600) ?? 20
        let records = try args.int("records", in: 1000...100_000_000) ?? 2_000_000
        #if DEBUG
        context.err.line("plumb bench: warning: this is a debug build; decode times mean little (swift build -c release)")
        #endif
        var rows: [Row] = []
        for wm in [1, 16, 32] { rows.append(try fifoStream(watermark: wm, seconds: seconds)) }
        rows.append(try burstPerSample(seconds: seconds, byteByByte: false))
        rows.append(try burstPerSample(seconds: seconds, byteByByte: true))

        context.out.line("MPU-6050 at \(Int(rate)) Hz, emulated 400 kHz bus, \(Int(seconds)) s virtual per scenario")
        context.out.line(pad("scenario", 44) + pad("bytes/sample", 14) + pad("x payload", 11) + pad("transfers/sample", 18) + pad("wakeups/s", 11) + "gaps")
        for r in rows {
            context.out.line(pad(r.name, 44) + pad(String(format: "%.2f", r.bytesPerSample), 14)
                             + pad(String(format: "%.2f", r.bytesPerSample / payload), 11)
                             + pad(String(format: "%.3f", r.transactionsPerSample), 18)
                             + pad(String(format: "%.1f", r.wakeupsPerSecond), 11) + "\(r.gaps)")
        }
        context.out.line(pad("payload minimum (accel + gyro)", 44) + pad("12.00", 14) + pad("1.00", 11))
        let wm16 = rows[1]
        // The emulated oscillator runs 0.8 % fast, as real parts do: ODR is what the chip delivers.
        let odr = Double(wm16.samples) / wm16.seconds
        let bytesOK = wm16.bytesPerSample <= 1.2 * payload
        let wakeOK = wm16.wakeupsPerSecond <= odr / 16 * 1.001
        context.out.line("target at watermark 16: ≤ \(String(format: "%.1f", 1.2 * payload)) bytes/sample: \(bytesOK ? "met" : "MISSED") (\(String(format: "%.2f", wm16.bytesPerSample))); ≤ ODR/16 = \(String(format: "%.1f", odr / 16)) wakeups/s: \(wakeOK ? "met" : "MISSED") (\(String(format: "%.1f", wm16.wakeupsPerSecond)))")

        let (ours, naive, checksum) = try decodeTiming(records: records)
        if !checksum.isFinite { context.err.line("plumb bench: decoded values were not finite") } // keeps the work observable
        context.out.line("decode: \(String(format: "%.1f", ours)) ns/sample (FIFODecoder); reference \(String(format: "%.1f", naive)) ns/sample (array slices per record); ratio \(String(format: "%.2f", ours / naive))")
        context.out.line("")
        for line in try LSM6DSOBench.report(seconds: seconds) { context.out.line(line) }
    }


    static func makeSensor() -> SimulatedSensor {
        SimulatedSensor(model: SimulatedChips.model("mpu6050")!, profile: .slowRotation(), seed: 3)
    }

    static func fifoStream(watermark: Int, seconds: Double) throws -> Row {
        let sensor = makeSensor()
        let driver = try MPU6050(bus: sensor.bus, clock: sensor.clock)
        let stream = IMUStream(imu: driver, line: sensor.line, clock: sensor.clock)
        try stream.start(IMUConfiguration(outputDataRate: rate, fifoWatermark: watermark))
        // Settle, then count.
        var samples: [IMUSample] = []
        samples.reserveCapacity(4096)
        let settle = sensor.clock.nowNanoseconds + 200_000_000
        while sensor.clock.nowNanoseconds < settle { samples.removeAll(keepingCapacity: true); _ = stream.step(into: &samples) }
        sensor.bus.resetCounters()
        let before = stream.statistics
        let start = sensor.clock.nowNanoseconds
        let end = start + UInt64(seconds * 1e9)
        var count = 0, gaps = 0
        while sensor.clock.nowNanoseconds < end {
            samples.removeAll(keepingCapacity: true)
            gaps += stream.step(into: &samples).count
            count += samples.count
        }
        let c = sensor.bus.counters
        return Row(name: "plumb FIFO stream, watermark \(watermark)", samples: count, bytes: c.bytes + c.addressBytes,
                   transactions: c.transactions, wakeups: stream.statistics.wakeups - before.wakeups, gaps: gaps,
                   seconds: Double(sensor.clock.nowNanoseconds - start) / 1e9)
    }

    /// The common Raspberry Pi pattern: on each data-ready edge read ACCEL_XOUT_H…GYRO_ZOUT_L,
    /// as one 14-byte burst or as 14 single-byte reads.
    static func burstPerSample(seconds: Double, byteByByte: Bool) throws -> Row {
        let sensor = makeSensor()
        let driver = try MPU6050(bus: sensor.bus, clock: sensor.clock)
        _ = try driver.identify()
        try driver.reset()
        try driver.apply(IMUConfiguration(outputDataRate: rate, fifoWatermark: 1))
        let address = I2CAddress(UInt8(0x68))
        try sensor.bus.writeRegister(MPU6050.Register.intEnable, MPU6050.Bits.dataReady, address: address)
        // A latched pin that the data read itself acknowledges (INT_RD_CLEAR): the driver sets
        // that bit on the MPU-9150 only, and without it nothing here would clear the pin.
        try sensor.bus.writeRegister(MPU6050.Register.intPinConfig, MPU6050.Bits.intLatch | MPU6050.Bits.intReadClear, address: address)
        sensor.bus.resetCounters()
        let start = sensor.clock.nowNanoseconds
        let end = start + UInt64(seconds * 1e9)
        var count = 0, wakeups = 0
        while sensor.clock.nowNanoseconds < end {
            wakeups += 1
            guard try sensor.line.waitForEdge(timeoutNanoseconds: 10_000_000) != nil else { continue }
            if byteByByte {
                for r in 0..<14 { _ = try sensor.bus.readRegister(MPU6050.Register.accelXOutH + UInt8(r), address: address) }
            } else {
                _ = try sensor.bus.readRegisters(MPU6050.Register.accelXOutH, count: 14, address: address)
            }
            count += 1
        }
        let produced = Int(Double(sensor.clock.nowNanoseconds - start) / 1e6)
        let c = sensor.bus.counters
        return Row(name: byteByByte ? "reference: 14 single-byte reads per sample" : "reference: 14-byte burst per sample",
                   samples: count, bytes: c.bytes + c.addressBytes, transactions: c.transactions, wakeups: wakeups,
                   gaps: max(0, produced - count), seconds: Double(sensor.clock.nowNanoseconds - start) / 1e9)
    }

    /// Wall-clock decode cost per record: the driver's decoder against a straightforward one
    /// that slices an array per record and builds arrays of doubles.
    static func decodeTiming(records: Int) throws -> (ours: Double, naive: Double, checksum: Double) {
        let settings = try MPU6050.settings(for: IMUConfiguration(outputDataRate: 1000), variant: MPU6050.variants[0])
        let decoder = MPU6050.FIFODecoder(settings: settings, variant: MPU6050.variants[0])
        let batch = 64
        var random = SeededRandom(seed: 9)
        let bytes = (0..<(batch * 12)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let clock = SystemClock()
        let sampleClock = SampleClock(nominalPeriodNanoseconds: 1e6)
        var samples: [IMUSample] = []
        samples.reserveCapacity(batch)
        var checksum = 0.0
        let rounds = max(1, records / batch)

        let t0 = clock.nowNanoseconds
        bytes.withUnsafeBufferPointer { buffer in
            var last: UInt64? = nil
            var temperature: Double? = nil
            for r in 0..<rounds {
                samples.removeAll(keepingCapacity: true)
                decoder.decode(buffer, records: batch, clock: sampleClock, firstIndex: r * batch, lastTime: &last, temperature: &temperature, into: &samples)
                checksum += samples[batch - 1].acceleration.x
            }
        }
        let t1 = clock.nowNanoseconds
        var naiveOut: [[Double]] = []
        for _ in 0..<rounds {
            naiveOut.removeAll(keepingCapacity: true)
            for i in 0..<batch {
                let record = Array(bytes[(i * 12)..<(i * 12 + 12)])
                var values: [Double] = []
                for j in 0..<6 {
                    let raw = Int16(bitPattern: UInt16(record[2 * j]) << 8 | UInt16(record[2 * j + 1]))
                    values.append(Double(raw) * (j < 3 ? 9.80665 / 8192 : .pi / 180 / 65.5))
                }
                naiveOut.append(values)
            }
            checksum += naiveOut[batch - 1][0]
        }
        let t2 = clock.nowNanoseconds
        let n = Double(rounds * batch)
        return (Double(t1 - t0) / n, Double(t2 - t1) / n, checksum)
    }
}
