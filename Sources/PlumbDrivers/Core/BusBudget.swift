import PlumbHAL

/// One combined I2C transfer by its size: the bytes written (the register pointer, then any data)
/// and the bytes read after a repeated START.
public struct I2CTransferShape: Sendable, Equatable {
    /// Bytes written, register pointer included.
    public var written: Int
    /// Bytes read.
    public var read: Int

    public init(written: Int, read: Int) { self.written = written; self.read = read }

    /// A register read: the pointer written, `count` bytes read.
    public static func registerRead(_ count: Int) -> I2CTransferShape { I2CTransferShape(written: 1, read: count) }

    /// Bit times the transfer holds the bus: every byte is 8 data bits and an acknowledge, 9 SCL
    /// clocks, address bytes included (NXP UM10204 rev 7, §3.1.5–3.1.6 and Figure 10); each
    /// message adds about one bit time for its START or repeated START, and the transfer one for
    /// its STOP and one for the first START's set-up (§3.1.4: the conditions have their own hold
    /// and set-up times, each about a clock period in Standard and Fast mode). The same count
    /// `EmulatedI2CBus` charges: 2 + 10 per message + 9 per data byte.
    public var bits: Int {
        let messages = (written > 0 ? 1 : 0) + (read > 0 ? 1 : 0)
        return 2 + 10 * messages + 9 * (written + read)
    }
}

/// What a stream puts on the bus in steady state, as the driver reads it: computed from the
/// configuration without touching the bus (``IMU/streamTraffic(for:)``).
///
/// The reader (``IMUStream``) wakes once per FIFO watermark, so each drain carries about
/// ``samplesPerDrain`` samples plus the driver's per-drain register reads; a few reads happen on
/// their own schedule (a temperature register once a second, a status read every so many drains).
public struct StreamTraffic: Sendable, Equatable {
    /// A transfer made so many times a second, whatever the drains do.
    public struct Periodic: Sendable, Equatable {
        public var shape: I2CTransferShape
        /// Times per second.
        public var perSecond: Double
        public init(_ shape: I2CTransferShape, perSecond: Double) { self.shape = shape; self.perSecond = perSecond }
    }

    /// The part ("MPU-6050", "LSM6DSO").
    public var part: String
    /// The output data rate the chip will run, hertz.
    public var outputDataRate: Double
    /// Samples per drain: the watermark the driver will program.
    public var samplesPerDrain: Int
    /// FIFO bytes per sample, timestamp words and the like included (an average when they come
    /// every so many samples); for a compressing FIFO, the uncompressed size, an upper bound.
    public var bytesPerSample: Double
    /// FIFO bytes a second that come on their own schedule (a batched temperature word).
    public var extraFIFOBytesPerSecond: Double
    /// The FIFO data read is split into whole units of this many bytes when the adapter limits the
    /// read length (1 for a byte FIFO, 7 for a tagged word, 6 for a pattern data set).
    public var fifoReadUnit: Int
    /// The register reads of every drain besides the FIFO data (status, count).
    public var perDrain: [I2CTransferShape]
    /// Transfers on their own schedule.
    public var periodic: [Periodic]

    public init(part: String, outputDataRate: Double, samplesPerDrain: Int, bytesPerSample: Double,
                extraFIFOBytesPerSecond: Double = 0, fifoReadUnit: Int, perDrain: [I2CTransferShape], periodic: [Periodic] = []) {
        self.part = part; self.outputDataRate = outputDataRate; self.samplesPerDrain = max(1, samplesPerDrain)
        self.bytesPerSample = bytesPerSample; self.extraFIFOBytesPerSecond = extraFIFOBytesPerSecond
        self.fifoReadUnit = max(1, fifoReadUnit); self.perDrain = perDrain; self.periodic = periodic
    }

    /// Drains a second.
    public var drainsPerSecond: Double { outputDataRate / Double(samplesPerDrain) }

    /// Bit times a second the stream holds the bus.
    ///
    /// - Parameter maximumReadLength: the longest read the adapter does in one transfer (32 for
    ///   an SMBus-only adapter), or `nil`: a FIFO burst longer than that is split into whole
    ///   ``fifoReadUnit``s, each a transfer of its own.
    public func bitsPerSecond(maximumReadLength: Int? = nil) -> Double {
        let fifoBytesPerDrain = bytesPerSample * Double(samplesPerDrain) + extraFIFOBytesPerSecond / drainsPerSecond
        var chunks = 1.0
        if let limit = maximumReadLength {
            let chunk = max(fifoReadUnit, limit / fifoReadUnit * fifoReadUnit)
            chunks = (fifoBytesPerDrain / Double(chunk)).rounded(.up)
        }
        // Each chunk is a FIFO register read: its framing (START, STOP, two messages, the register
        // pointer) is a one-byte read's less that byte; the data bytes are counted once, below.
        let dataOverhead = Double(I2CTransferShape.registerRead(1).bits - 9)
        let perDrainBits = Double(perDrain.reduce(0) { $0 + $1.bits }) + chunks * dataOverhead + 9 * fifoBytesPerDrain
        let periodicBits = periodic.reduce(0.0) { $0 + Double($1.shape.bits) * $1.perSecond }
        return drainsPerSecond * perDrainBits + periodicBits
    }

    /// The FIFO payload alone, in bit times a second: the floor no batching can lower.
    public var payloadBitsPerSecond: Double {
        9 * (bytesPerSample * outputDataRate + extraFIFOBytesPerSecond)
    }
}

/// A stream's bus time against the bus clock.
///
/// The budget is the bus time the configured schedule needs. On ``EmulatedI2CBus`` (which
/// charges the same bit times to the virtual clock) it matches what the bus carried within 3 %,
/// and no stream overflowed its FIFO at 1.0 of the bus or below (BusBudgetEmulationTests;
/// `PLUMB_BUS_SWEEP=1` prints the sweep, 12 s a point, LSM6DS FIFOs uncompressed). Above it they
/// did: the MPU-6050 at 1 kHz, watermark 16, 2 overflows at 1.05 and 22 at 1.2; the LSM6DSO at
/// 833 Hz, watermark 16, 18 at 1.05; the LSM6DS3 at 833 Hz, whose 8 KB FIFO takes longer to fill,
/// 2 at 1.1. A reader that falls behind drains bigger batches, so a configuration dominated by
/// per-drain reads goes further: the MPU-6050 at 500 Hz read per sample had none at 1.2.
///
/// The emulated reader wakes on time, alone on a bus that runs at its nominal clock. A real one
/// does not: the kernel's driver adds interrupt and scheduling latency to every message, the
/// reader thread wakes late under load, other devices may share the bus, and the clock can run
/// slower than configured (the BCM2835's divider runs from the VPU core clock: 100 kHz
/// configured measured 62.5 kHz on a Pi 3 without `core_freq=250`, raspberrypi/firmware#1281,
/// which alone turns a share of 0.6 into 1.0). ``safeShare`` is therefore half the clock, with
/// room for all of that; at 400 kHz even the highest rate `imu.rate` allows stays well inside it
/// (the MPU-6050 at 1 kHz as `plumb run` drives it, 42 samples a read: 0.28).
public struct BusBudget: Sendable, Equatable {
    /// The share of the bus clock a stream may use before the user is told: 0.5 (see the type).
    public static let safeShare = 0.5

    public var traffic: StreamTraffic
    /// The bus clock, hertz (SCL cycles a second: one bit time each).
    public var busHertz: Double
    /// Bit times a second the stream needs.
    public var bitsPerSecond: Double

    /// - Parameter maximumReadLength: as for ``StreamTraffic/bitsPerSecond(maximumReadLength:)``.
    public init(traffic: StreamTraffic, busHertz: Double, maximumReadLength: Int? = nil) {
        precondition(busHertz > 0, "a bus clock is positive")
        self.traffic = traffic
        self.busHertz = busHertz
        self.bitsPerSecond = traffic.bitsPerSecond(maximumReadLength: maximumReadLength)
    }

    /// The share of the bus clock the stream holds (1 = all of it).
    public var share: Double { bitsPerSecond / busHertz }

    /// True when the stream needs at most ``safeShare`` of the bus.
    public var fits: Bool { share <= Self.safeShare }

    /// Rates tried for a suggestion, hertz: the MPU family's 1 kHz / n and the LSM6DS table, each
    /// mapped through the driver to the rate it really runs.
    static let candidateRates: [Double] = [1666, 1000, 833, 500, 416, 333, 250, 208, 200, 125, 104, 100, 52, 50, 26, 25, 12.5, 10, 5]

    /// The highest output data rate below `configuration`'s that fits `busHertz`, or `nil` when
    /// none does (or the driver cannot say).
    ///
    /// The watermark is scaled with the rate, so the reader wakes as often as it does now.
    public static func highestFittingRate(for imu: any IMU, configuration: IMUConfiguration, busHertz: Double,
                                          maximumReadLength: Int? = nil) -> Double? {
        guard let now = imu.streamTraffic(for: configuration) else { return nil }
        let wakeupsPerSecond = now.drainsPerSecond
        for rate in candidateRates where rate < now.outputDataRate {
            var c = configuration
            c.outputDataRate = rate
            c.fifoWatermark = max(1, Int((rate / wakeupsPerSecond).rounded()))
            guard let t = imu.streamTraffic(for: c), t.outputDataRate < now.outputDataRate else { continue }
            if BusBudget(traffic: t, busHertz: busHertz, maximumReadLength: maximumReadLength).fits { return t.outputDataRate }
        }
        return nil
    }
}
