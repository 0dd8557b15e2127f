/// The picture `plumb level` shows when no image is given: sky above, ground below, a white
/// horizon, a circle at the centre, a grid, and an arrow pointing up, so a turn of a degree is
/// visible and up cannot be mistaken for down.
public enum TestPattern {
    public static func image(width: Int, height: Int) -> RGBAImage {
        let cx = Double(width) / 2, cy = Double(height) / 2
        let unit = Double(min(width, height))
        let grid = max(8, min(width, height) / 8)
        let line = max(1.0, unit / 160)
        return RGBAImage(width: width, height: height) { x, y in
            let px = Double(x) + 0.5, py = Double(y) + 0.5
            let dx = px - cx, dy = py - cy
            // Arrow: a triangle above the centre pointing up, with a stem.
            let arrowTop = cy - unit * 0.42, arrowBase = cy - unit * 0.22
            if py >= arrowTop, py <= arrowBase, abs(dx) <= (py - arrowTop) * 0.6 { return RGBA(230, 40, 40) }
            if py > arrowBase, py <= cy - unit * 0.08, abs(dx) <= unit * 0.035 { return RGBA(230, 40, 40) }
            if abs(dy) <= line * 1.5 { return .white }
            let r = (dx * dx + dy * dy).squareRoot()
            if abs(r - unit * 0.06) <= line { return .white }
            if x % grid == 0 || y % grid == 0 { return dy < 0 ? RGBA(120, 170, 220) : RGBA(110, 80, 50) }
            if dy < 0 {
                let t = UInt8(min(255, 120 + Int(-dy / cy * 100)))
                return RGBA(60, UInt8(min(255, Int(t) + 20)), 255)
            }
            return RGBA(150, 110, 70)
        }
    }
}
