import PlumbHAL
import PlumbDrivers

/// An emulated IMU chip: an ``I2CTarget`` with a physical side (motion, temperature), a
/// data-ready pin and chip-level faults. `MPU6050Emulator` and the LSM6DS emulator conform.
public protocol EmulatedIMU: I2CTarget {
    /// The pin the chip drives (held weakly; the line holds the chip).
    var interruptLine: SimulatedInterruptLine? { get set }
    /// The motion applied to the chip.
    var profile: MotionProfile { get set }
    /// Virtual time at which the profile's time 0 falls.
    var profileStart: UInt64 { get set }
    /// Die temperature, °C.
    var temperature: Double { get set }
    /// Virtual times of power-on resets to suffer (brown-outs mid-stream).
    var scheduledResets: [UInt64] { get set }
    /// A brown-out now: every register to its power-on value.
    func powerOnReset()
    /// Where the chip logs each instant it writes into its FIFO, when set (``FIFOTruth``).
    var fifoTruth: FIFOTruthLog? { get set }
}

extension MPU6050Emulator: EmulatedIMU {}

/// One row of the simulator's chip table: what `--simulate --chip NAME` builds.
///
/// To add a chip, append a row to ``SimulatedChips/all`` (the LSM6DS rows live next to their
/// emulator).
public struct SimulatedChipModel: Sendable {
    /// The lowercase part name: "mpu6050".
    public var key: String
    /// As the vendor writes it: "MPU-6050".
    public var part: String
    /// Where the chip answers on the simulated bus.
    public var address: I2CAddress
    /// Builds the chip with a noise seed.
    public var make: @Sendable (_ seed: UInt64) -> any EmulatedIMU

    public init(key: String, part: String, address: I2CAddress, make: @escaping @Sendable (_ seed: UInt64) -> any EmulatedIMU) {
        self.key = key; self.part = part; self.address = address; self.make = make
    }
}

/// The table of chips the simulator can build.
public enum SimulatedChips {
    /// Every MPU-family row of the driver's variant table, at 0x68: a typical part (datasheet
    /// noise, bias and scale error drawn at a quarter of the datasheet tolerance), with an
    /// oscillator 0.8 % fast.
    public static let mpu: [SimulatedChipModel] = MPU6050.variants.map { v in
        SimulatedChipModel(key: v.key, part: v.part, address: I2CAddress(0x68)) { seed in
            let figures: SensorErrorModel.Figures = v.generation == .mpu6050 ? .mpu6050 : .mpu6500
            let chip = MPU6050Emulator(variant: v, errorModel: .part(figures, seed: seed), seed: seed)
            chip.clockError = 0.008
            chip.temperature = 27.5
            return chip
        }
    }

    /// Every chip, in `--chip` order. Other families append their rows here.
    public static var all: [SimulatedChipModel] { mpu + lsm6ds }

    /// The row for `key`, or `nil`.
    public static func model(_ key: String) -> SimulatedChipModel? {
        all.first { $0.key == key.lowercased() }
    }
}

/// A complete simulated sensor: virtual clock, emulated bus, the chip on it and its data-ready
/// line, wired together. `plumb … --simulate` and the tests run the real driver against this.
public final class SimulatedSensor {
    public let clock: VirtualClock
    public let bus: EmulatedI2CBus
    public let line: SimulatedInterruptLine
    public let chip: any EmulatedIMU
    public let model: SimulatedChipModel

    /// - Parameters:
    ///   - model: the chip (``SimulatedChips/model(_:)``).
    ///   - profile: the motion. Default rest.
    ///   - seed: seeds the noise, the bus faults and the line faults.
    ///   - startNanoseconds: where virtual time starts. Default 1 s (so no timestamp is 0).
    ///
    /// A transfer to an empty address fails with EREMOTEIO (``EmulatedI2CBus/nothingAnswersErrno``),
    /// as on a Raspberry Pi, the board Plumb's users run (`i2c-bcm2835`; `i2c-designware` on the
    /// Pi 5): so `--simulate`, the demo and the tests built on this take the path a Pi takes, where
    /// an empty address and a passing fault look alike. A test of the other path sets
    /// `bus.nothingAnswersErrno` to ENXIO, what most PC adapters give (i2c-stub: ENODEV;
    /// `scripts/vm-test` runs that path against the kernel).
    public init(model: SimulatedChipModel, profile: MotionProfile = .rest(), seed: UInt64 = 1,
                startNanoseconds: UInt64 = Nanoseconds.perSecond) {
        self.model = model
        clock = VirtualClock(startNanoseconds: startNanoseconds)
        bus = EmulatedI2CBus(path: "simulated bus", clock: clock, seed: seed &+ 100)
        bus.nothingAnswersErrno = Errno.EREMOTEIO
        // Byte by byte, as on the wire: the chip samples on during a FIFO burst (its pins move,
        // its FIFO grows, a brown-out can land inside it), which the drivers must cope with.
        bus.timesEachByte = true
        line = SimulatedInterruptLine(name: "simulated INT line", clock: clock, seed: seed &+ 200)
        let chip = model.make(seed)
        chip.profile = profile
        chip.profileStart = startNanoseconds
        chip.interruptLine = line
        chip.advance(to: startNanoseconds)
        self.chip = chip
        line.source = chip
        bus.attach(chip, at: model.address)
    }

    /// The profile's time for a virtual timestamp, seconds.
    public func profileTime(_ nanoseconds: UInt64) -> Double {
        Double(Int64(bitPattern: nanoseconds &- chip.profileStart)) / 1e9
    }
}
