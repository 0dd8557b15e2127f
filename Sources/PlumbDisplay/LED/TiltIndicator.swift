import Foundation

import PlumbHAL

/// Which LEDs to light for a gravity reading: one per face, or four as a tilt arrow.
public enum TiltIndicator {
    /// The six faces in the order LEDs are given: +x, −x, +y, −y, +z, −z up.
    public static let faceNames = ["+x", "-x", "+y", "-y", "+z", "-z"]
    /// The four arrow LEDs in the order they are given: up, right, down, left (screen directions).
    public static let arrowNames = ["up", "right", "down", "left"]

    /// The index (into ``faceNames``) of the face pointing up: the axis most opposite gravity.
    public static func upFace(_ g: GravityReading) -> Int {
        let components = [-g.x, g.x, -g.y, g.y, -g.z, g.z]
        return components.indices.max { components[$0] < components[$1] } ?? 4
    }

    /// For the tilt arrow: which of the four LEDs (up, right, down, left) to light so the arrow
    /// points to the side of the board that is high, or none when it is within `levelDegrees`
    /// of flat. The board's x is right and y is up (for a board lying flat, "up" is the edge
    /// away from the viewer).
    public static func arrow(_ g: GravityReading, levelDegrees: Double = 3) -> [Bool] {
        let horizontal = (g.x * g.x + g.y * g.y).squareRoot()
        let norm = (g.x * g.x + g.y * g.y + g.z * g.z).squareRoot()
        guard norm > 0, horizontal / norm > sin(levelDegrees * .pi / 180) else { return [false, false, false, false] }
        // The high side is opposite gravity's part in the board's plane.
        let hx = -g.x, hy = -g.y
        let threshold = horizontal * 0.38  // about 22.5°: between two directions both light
        return [hy > threshold, hx > threshold, -hy > threshold, -hx > threshold]
    }

    /// Lights `outputs` for `g`: six (or fewer) as faces, four as an arrow.
    public static func show(_ g: GravityReading, on outputs: [any DigitalOutput], mode: LEDMode) throws(GPIOError) {
        switch mode {
        case .faces:
            let up = upFace(g)
            for (i, output) in outputs.enumerated() { try output.set(i == up) }
        case .arrow:
            let lit = arrow(g)
            for (i, output) in outputs.enumerated() { try output.set(i < 4 && lit[i]) }
        }
    }
}

/// How LEDs show the tilt.
public enum LEDMode: String, Sendable, CaseIterable {
    /// One LED per face; the face pointing up is lit.
    case faces
    /// Four LEDs (up, right, down, left) form an arrow to the high side.
    case arrow
}
