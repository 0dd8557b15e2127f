import PlumbHAL
import PlumbDrivers
import PlumbSimulation

/// A simulated MPU chip with its driver, for tests.
struct MPURig {
    let sensor: SimulatedSensor
    let driver: MPU6050
    var chip: MPU6050Emulator { sensor.chip as! MPU6050Emulator }
    var bus: EmulatedI2CBus { sensor.bus }
    var clock: VirtualClock { sensor.clock }
    var line: SimulatedInterruptLine { sensor.line }

    init(_ key: String, profile: MotionProfile = .rest(), errorModel: SensorErrorModel? = .ideal, seed: UInt64 = 1,
         instantBus: Bool = false, part: String? = nil, configure: @escaping @Sendable (MPU6050Emulator) -> Void = { _ in }) {
        let v = MPU6050.variant(named: key)!
        let model = SimulatedChipModel(key: v.key, part: v.part, address: I2CAddress(0x68)) { seed in
            let chip = MPU6050Emulator(variant: v, errorModel: errorModel, seed: seed)
            configure(chip)
            chip.powerOnReset()
            return chip
        }
        sensor = SimulatedSensor(model: model, profile: profile, seed: seed)
        if instantBus { sensor.bus.bitsPerSecond = nil }
        driver = try! MPU6050(bus: sensor.bus, address: I2CAddress(0x68), clock: sensor.clock, part: part)
    }

    /// Identify, reset, apply, start.
    func start(_ config: IMUConfiguration = .default) throws -> IMUConfiguration {
        _ = try driver.identify()
        try driver.reset()
        let effective = try driver.apply(config)
        try driver.startStreaming()
        return effective
    }
}

/// A motion that never changes: the given rate (rad/s) and specific force (m/s²).
func constantMotion(rate: SIMD3<Double>, force: SIMD3<Double>) -> MotionProfile {
    MotionProfile(name: "constant") { _ in MotionState(angularRate: rate, specificForce: force, attitude: nil) }
}

func maxAbs(_ v: SIMD3<Double>) -> Double { max(abs(v.x), abs(v.y), abs(v.z)) }

/// Timing by the samples themselves: specific force x ramps 10 m/s² per second over 2 s, so each
/// sample's x tells when it was taken.
enum RampTiming {
    static let profile = MotionProfile(name: "ramp") { t in
        MotionState(angularRate: .zero, specificForce: SIMD3(10 * (t.truncatingRemainder(dividingBy: 2)) - 10, 0, 9.8), attitude: nil)
    }

    /// The largest difference, in seconds, between when each sample says it was taken and its
    /// timestamp on `sensor`'s profile clock (samples within 10 ms of the ramp's jump are skipped).
    static func worstError<S: Sequence>(_ samples: S, on sensor: SimulatedSensor) -> Double where S.Element == IMUSample {
        var worst = 0.0
        for s in samples {
            let phase = sensor.profileTime(s.timestampNanoseconds).truncatingRemainder(dividingBy: 2)
            guard phase > 0.01, phase < 1.99 else { continue }
            worst = max(worst, abs((s.acceleration.x + 10) / 10 - phase))
        }
        return worst
    }
}

extension IMUStream {
    /// Steps the stream for `seconds` of `clock`'s time, appending samples; returns the gaps.
    func run(seconds: Double, clock: VirtualClock, into samples: inout [IMUSample]) -> [StreamGap] {
        var gaps: [StreamGap] = []
        let end = clock.nowNanoseconds + UInt64(seconds * 1e9)
        while clock.nowNanoseconds < end { gaps += step(into: &samples) }
        return gaps
    }
}
