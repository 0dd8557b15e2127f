import Testing
import PlumbHAL

@Test func frequenciesAreShownInTheirUnit() {
    #expect(frequencyText(hertz: 100_000) == "100 kHz")
    #expect(frequencyText(hertz: 62_500) == "62.5 kHz")
    #expect(frequencyText(hertz: 1_000_000) == "1 MHz")
    #expect(frequencyText(hertz: 3_400_000) == "3.4 MHz")
    #expect(frequencyText(hertz: 50) == "50 Hz")
}
