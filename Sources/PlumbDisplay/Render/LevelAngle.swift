import Foundation

/// The angle that keeps a picture level, from gravity.
///
/// The seed app sets its image's transform to `atan2(gravity.x, gravity.y) − π` on every motion
/// update. Gravity is in the device frame: x to the right of the screen, y up the screen, z out
/// of it (Core Motion's convention). Upright, gravity is (0, −1, 0) and the angle is 0; turned
/// clockwise by θ, the angle is −θ, so the picture turns back by θ and stays level.
public enum LevelAngle {
    /// The level angle in radians for gravity (x, y) in the device frame, in (−π, π].
    public static func from(gravityX x: Double, gravityY y: Double) -> Double {
        normalized(atan2(x, y) - .pi)
    }

    /// `angle` wrapped into (−π, π].
    public static func normalized(_ angle: Double) -> Double {
        var a = angle.truncatingRemainder(dividingBy: 2 * .pi)
        if a <= -.pi { a += 2 * .pi }
        if a > .pi { a -= 2 * .pi }
        return a
    }

    /// a − b the short way round the circle, in (−π, π].
    public static func difference(_ a: Double, _ b: Double) -> Double {
        normalized(a - b)
    }
}
