/// How an emulated sensor departs from the truth: noise, bias and scale error, from datasheet
/// figures. Saturation is not here: the emulator clips at the full-scale range currently in its
/// registers when it quantises.
///
/// A measured value is `(1 + scaleError) · truth + bias + noise`, where the noise is white with
/// standard deviation `noiseDensity · √bandwidth` at the chip's current low-pass bandwidth.
public struct SensorErrorModel: Sendable, Equatable {
    /// Gyroscope rate-noise spectral density, rad/s/√Hz.
    public var gyroscopeNoiseDensity: Double
    /// Accelerometer noise spectral density, (m/s²)/√Hz.
    public var accelerometerNoiseDensity: Double
    /// Gyroscope zero-rate offset, rad/s per axis.
    public var gyroscopeBias: SIMD3<Double>
    /// Accelerometer zero-g offset, m/s² per axis.
    public var accelerometerBias: SIMD3<Double>
    /// Gyroscope sensitivity error, a fraction per axis (0.01 = 1 % high).
    public var gyroscopeScaleError: SIMD3<Double>
    /// Accelerometer sensitivity error, a fraction per axis.
    public var accelerometerScaleError: SIMD3<Double>

    public init(gyroscopeNoiseDensity: Double = 0, accelerometerNoiseDensity: Double = 0,
                gyroscopeBias: SIMD3<Double> = .zero, accelerometerBias: SIMD3<Double> = .zero,
                gyroscopeScaleError: SIMD3<Double> = .zero, accelerometerScaleError: SIMD3<Double> = .zero) {
        self.gyroscopeNoiseDensity = gyroscopeNoiseDensity
        self.accelerometerNoiseDensity = accelerometerNoiseDensity
        self.gyroscopeBias = gyroscopeBias
        self.accelerometerBias = accelerometerBias
        self.gyroscopeScaleError = gyroscopeScaleError
        self.accelerometerScaleError = accelerometerScaleError
    }

    /// A perfect sensor (quantisation and clipping still apply).
    public static let ideal = SensorErrorModel()

    /// Datasheet figures for a part: noise densities and the initial tolerances that bias and
    /// scale errors are drawn from.
    public struct Figures: Sendable, Equatable {
        /// °/s/√Hz.
        public var gyroscopeNoiseDensityDegrees: Double
        /// µg/√Hz.
        public var accelerometerNoiseDensityMicroG: Double
        /// Initial zero-rate output tolerance, ±°/s.
        public var gyroscopeZeroRateTolerance: Double
        /// Initial zero-g tolerance, ±mg for x, y and z.
        public var accelerometerZeroGTolerance: SIMD3<Double>
        /// Sensitivity tolerance, ± fraction.
        public var scaleTolerance: Double

        public init(gyroscopeNoiseDensityDegrees: Double, accelerometerNoiseDensityMicroG: Double,
                    gyroscopeZeroRateTolerance: Double, accelerometerZeroGTolerance: SIMD3<Double>, scaleTolerance: Double) {
            self.gyroscopeNoiseDensityDegrees = gyroscopeNoiseDensityDegrees
            self.accelerometerNoiseDensityMicroG = accelerometerNoiseDensityMicroG
            self.gyroscopeZeroRateTolerance = gyroscopeZeroRateTolerance
            self.accelerometerZeroGTolerance = accelerometerZeroGTolerance
            self.scaleTolerance = scaleTolerance
        }

        /// MPU-6050 / MPU-6000 / MPU-9150 generation.
        ///
        /// Datasheet: MPU-6000/MPU-6050 Product Specification PS-MPU-6000A-00 rev 3.4,
        /// §6.1 Gyroscope Specifications (Rate Noise Spectral Density 0.005 °/s/√Hz at 10 Hz;
        /// Initial ZRO Tolerance ±20 °/s at 25 °C; Sensitivity Scale Factor Tolerance ±3 %) and
        /// §6.2 Accelerometer Specifications (Power Spectral Density 400 µg/√Hz at 10 Hz,
        /// AFS_SEL = 0, ODR 1 kHz; zero-g Initial Calibration Tolerance ±50 mg X and Y, ±80 mg Z;
        /// sensitivity Initial Calibration Tolerance ±3 %).
        public static let mpu6050 = Figures(gyroscopeNoiseDensityDegrees: 0.005, accelerometerNoiseDensityMicroG: 400,
                                            gyroscopeZeroRateTolerance: 20, accelerometerZeroGTolerance: SIMD3(50, 50, 80),
                                            scaleTolerance: 0.03)
        /// MPU-6500 generation (MPU-6500, MPU-9250, MPU-9255, MPU-6515); the simulator also uses it
        /// for the ICM-20602/20608/20689 rows, whose own tables were not opened (the ICM-20602
        /// datasheet DS-000176 rev 1.0 front page quotes 4 mdps/√Hz, 100 µg/√Hz and ±1 % gyroscope
        /// sensitivity, lower than these; its offset tolerances were not found).
        ///
        /// Datasheet: MPU-9250 Product Specification PS-MPU-9250A-01 rev 1.0 (the MPU-6500 die plus
        /// a magnetometer), §3.1 Table 1 (Rate Noise Spectral Density 0.01 °/s/√Hz; Initial ZRO
        /// Tolerance ±5 °/s; Sensitivity Scale Factor Tolerance ±3 %) and §3.2 Table 2 (Noise Power
        /// Spectral Density 300 µg/√Hz, low-noise mode; Zero-G Initial Calibration Tolerance ±60 mg
        /// X and Y, ±80 mg Z, component level; sensitivity Initial Tolerance ±3 %). The MPU-6500
        /// Product Specification PS-MPU-6500A-01 could not be opened at its tables to compare.
        public static let mpu6500 = Figures(gyroscopeNoiseDensityDegrees: 0.01, accelerometerNoiseDensityMicroG: 300,
                                            gyroscopeZeroRateTolerance: 5, accelerometerZeroGTolerance: SIMD3(60, 60, 80),
                                            scaleTolerance: 0.03)
    }

    /// A model for one simulated part: the datasheet's noise densities, and bias and scale errors
    /// drawn (seeded) from a normal distribution whose 3σ is `fraction` of the datasheet tolerance.
    ///
    /// - Parameter fraction: how much of the tolerance to use; 1 gives parts as bad as the
    ///   datasheet allows at 3σ, 0 gives noise only. Default 0.25 (a representative part, a
    ///   modelling choice, not a datasheet figure).
    public static func part(_ figures: Figures, fraction: Double = 0.25, seed: UInt64 = 7) -> SensorErrorModel {
        var random = SeededRandom(seed: seed)
        func draw(_ limit: Double) -> Double {
            max(-limit, min(limit, random.gaussian() * limit / 3)) * fraction
        }
        let g = MotionProfile.standardGravity
        let degrees = Double.pi / 180
        let zro = figures.gyroscopeZeroRateTolerance * degrees
        let zeroG = figures.accelerometerZeroGTolerance * (g / 1000)
        return SensorErrorModel(
            gyroscopeNoiseDensity: figures.gyroscopeNoiseDensityDegrees * degrees,
            accelerometerNoiseDensity: figures.accelerometerNoiseDensityMicroG * 1e-6 * g,
            gyroscopeBias: SIMD3(draw(zro), draw(zro), draw(zro)),
            accelerometerBias: SIMD3(draw(zeroG.x), draw(zeroG.y), draw(zeroG.z)),
            gyroscopeScaleError: SIMD3(draw(figures.scaleTolerance), draw(figures.scaleTolerance), draw(figures.scaleTolerance)),
            accelerometerScaleError: SIMD3(draw(figures.scaleTolerance), draw(figures.scaleTolerance), draw(figures.scaleTolerance)))
    }

    /// Noise only, from the datasheet densities (no bias, no scale error).
    public static func noiseOnly(_ figures: Figures) -> SensorErrorModel { part(figures, fraction: 0) }

    /// The standard deviation of one gyroscope sample at `bandwidth` Hz, rad/s.
    public func gyroscopeNoise(bandwidth: Double) -> Double { gyroscopeNoiseDensity * bandwidth.squareRoot() }

    /// The standard deviation of one accelerometer sample at `bandwidth` Hz, m/s².
    public func accelerometerNoise(bandwidth: Double) -> Double { accelerometerNoiseDensity * bandwidth.squareRoot() }

    /// What the sensor measures for `state`, before quantisation.
    ///
    /// - Returns: angular rate (rad/s) and specific force (m/s²).
    public func measure(_ state: MotionState, bandwidth: Double, random: inout SeededRandom)
        -> (angularRate: SIMD3<Double>, specificForce: SIMD3<Double>) {
        let gs = gyroscopeNoise(bandwidth: bandwidth), as_ = accelerometerNoise(bandwidth: bandwidth)
        var gn = SIMD3<Double>.zero, an = SIMD3<Double>.zero
        if gs > 0 { gn = SIMD3(random.gaussian(), random.gaussian(), random.gaussian()) * gs }
        if as_ > 0 { an = SIMD3(random.gaussian(), random.gaussian(), random.gaussian()) * as_ }
        return ((1 + gyroscopeScaleError) * state.angularRate + gyroscopeBias + gn,
                (1 + accelerometerScaleError) * state.specificForce + accelerometerBias + an)
    }
}
