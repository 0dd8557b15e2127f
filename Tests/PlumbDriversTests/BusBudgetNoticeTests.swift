import Testing
import PlumbHAL
import PlumbSimulation
@testable import PlumbDrivers

/// The stream's bus budget notice: once, when the stream needs more than the safe share of a
/// known clock; never when the clock is unknown or the stream fits.
@Suite("IMUStream bus budget notice")
struct BusBudgetNoticeTests {
    static let piFix = "set dtparam=i2c_arm_baudrate=400000 in /boot/firmware/config.txt and reboot"

    /// A stream on the emulated MPU-6050 with the given clock told, started at `rate` Hz.
    func started(rate: Double, watermark: Int, clock: IMUStream.BusClock?, busHertz: Double = 400_000) throws -> (IMUStream, SimulatedSensor) {
        let sensor = SimulatedSensor(model: try #require(SimulatedChips.model("mpu6050")))
        sensor.bus.bitsPerSecond = busHertz
        let imu = try MPU6050(bus: sensor.bus, address: sensor.model.address, clock: sensor.clock)
        let stream = IMUStream(imu: imu, line: sensor.line, clock: sensor.clock)
        stream.busClock = clock
        try stream.start(IMUConfiguration(outputDataRate: rate, fifoWatermark: watermark))
        return (stream, sensor)
    }

    func piClock(_ hertz: Double) -> IMUStream.BusClock {
        IMUStream.BusClock(hertz: hertz, source: "device tree", rateSetting: "imu.rate", raiseInstruction: Self.piFix)
    }

    @Test func oneKilohertzOnAHundredKilohertzBusIsToldOnce() throws {
        let (stream, sensor) = try started(rate: 1000, watermark: 100, clock: piClock(100_000), busHertz: 100_000)
        // The MPU-6050 keeps its watermark within half the FIFO: 42 records. 23.8 drains a second of
        // 40 + 49 + (31 + 9 × 504) and TEMP_OUT: 110 906 bit times, 111 %; at 400 kHz 28 %. At the
        // same 23.8 wake-ups a second, 500 Hz needs 57 % and 333 Hz (14 a drain) 38 994, 39 %.
        let notices = stream.takeNotices().map(\.message)
        #expect(notices == ["simulated bus runs at 100 kHz (device tree) and the MPU-6050 at 1000 Hz needs 111 % of it "
            + "(111 kbit/s, a FIFO read every 42 samples); above 50 % the FIFO can overflow (gaps in the stream): "
            + Self.piFix + " (then 28 %), or set imu.rate to 333 or lower"])
        // Streaming on, and starting again (as the low-energy mode does), says nothing more.
        var samples: [IMUSample] = []
        for _ in 0..<20 { _ = stream.step(into: &samples) }
        try stream.start(IMUConfiguration(outputDataRate: 1000, fifoWatermark: 100))
        #expect(stream.takeNotices().filter { $0.message.contains("of it") }.isEmpty)
        _ = sensor
    }

    @Test func nothingWhenTheClockIsUnknownOrTheStreamFits() throws {
        let (unknown, _) = try started(rate: 1000, watermark: 100, clock: nil, busHertz: 100_000)
        #expect(unknown.takeNotices().isEmpty)
        let (fits, _) = try started(rate: 1000, watermark: 100, clock: piClock(400_000))
        #expect(fits.takeNotices().isEmpty)
        // 100 Hz, the default, on the Pi's default 100 kHz: 10 drains of 10 samples, 12 %.
        let (slowRate, _) = try started(rate: 100, watermark: 10, clock: piClock(100_000), busHertz: 100_000)
        #expect(slowRate.takeNotices().isEmpty)
    }

    @Test func withoutARaiseInstructionOnlyTheRateIsSuggested() throws {
        // A bus already at 400 kHz, a stream too big for it: no clock to raise to.
        let clock = IMUStream.BusClock(hertz: 150_000, source: "device tree", rateSetting: "--rate")
        let (stream, _) = try started(rate: 1000, watermark: 16, clock: clock)
        let message = try #require(stream.takeNotices().first?.message)
        #expect(message.hasSuffix("above 50 % the FIFO can overflow (gaps in the stream): set --rate to 500 or lower"))
        #expect(message.contains("needs 77 % of it (116 kbit/s, a FIFO read every 16 samples)"))
    }

    @Test func rateText() {
        #expect(IMUStream.rateText(1000.0 / 3) == "333")
        #expect(IMUStream.rateText(12.5) == "12.5")
        #expect(IMUStream.rateText(52) == "52")
        #expect(IMUStream.rateText(1000.0 / 256) == "3.9")
    }
}
