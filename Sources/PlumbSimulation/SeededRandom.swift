import Foundation

/// A small seeded generator (SplitMix64), so every simulated run is reproducible.
///
/// Not for cryptography. SplitMix64 is Steele, Lea and Flood's generator (OOPSLA 2014), the
/// seeding function of Java's `SplittableRandom`.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    private var spare: Double?

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { p > 0 && unit() < p }

    /// A standard normal value (Box–Muller; each pair of uniforms gives two).
    public mutating func gaussian() -> Double {
        if let s = spare { spare = nil; return s }
        let u1 = max(unit(), 0x1p-60)
        let u2 = unit()
        let r = (-2 * log(u1)).squareRoot()
        spare = r * sin(2 * Double.pi * u2)
        return r * cos(2 * Double.pi * u2)
    }
}
