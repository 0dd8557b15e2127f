/// A frequency as people write it: "100 kHz", "62.5 kHz", "1 MHz", "50 Hz" (one decimal at most).
public func frequencyText(hertz: Double) -> String {
    func trimmed(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
    if hertz >= 1_000_000 { return trimmed(hertz / 1_000_000) + " MHz" }
    return hertz >= 1000 ? trimmed(hertz / 1000) + " kHz" : trimmed(hertz) + " Hz"
}
