import Foundation
import Testing
@testable import PlumbCLI
import PlumbConfiguration
import PlumbDrivers
import PlumbHAL
import PlumbLinux
import PlumbSimulation

/// The bus clock on its way to the user: read from a sysfs tree, handed to the live source's
/// stream, and said once in the daemon's log (or on standard error for `plumb watch`).
@Suite("Bus clock in the commands")
struct BusClockCommandTests {
    /// A sysfs with /dev/i2c-1's adapter, its device-tree node holding `cell` (no node when `nil`).
    final class Sysfs {
        let root = NSTemporaryDirectory() + "plumb-cli-i2cclock-\(UUID().uuidString)"
        init(cell: [UInt8]?) throws {
            let device = root + "/bus/i2c/devices/i2c-1"
            try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
            guard let cell else { return }
            try FileManager.default.createDirectory(atPath: device + "/of_node", withIntermediateDirectories: true)
            try Data(cell).write(to: URL(fileURLWithPath: device + "/of_node/clock-frequency"))
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    static let hundredKilohertz: [UInt8] = [0x00, 0x01, 0x86, 0xA0]
    static let pi4 = "Raspberry Pi 4 Model B Rev 1.4"

    /// The emulated MPU-6050 behind the daemon's live source.
    func source() throws -> StreamSampleSource {
        let sensor = PlumbSimulation.SimulatedSensor(model: try #require(SimulatedChips.model("mpu6050")), seed: 1)
        let imu = try DaemonFactory.makeIMU(bus: sensor.bus, address: I2CAddress(0x68), clock: sensor.clock, part: nil)
        return StreamSampleSource(name: "emulated MPU-6050", imu: imu, line: sensor.line, clock: sensor.clock)
    }

    /// What `plumb run` asks of the sensor for `imu.rate`.
    func configuration(rate: Double) -> IMUConfiguration {
        var c = Configuration()
        c.imu.rate = rate
        return DaemonFactory.imuConfiguration(c)
    }

    @Test func raisingTheClockIsSaidAsTheBoardDoesIt() {
        #expect(BusClockSupport.raiseInstruction(busPath: "/dev/i2c-1", model: Self.pi4)
            == "set dtparam=i2c_arm_baudrate=400000 in /boot/firmware/config.txt and reboot")
        // The Pi 3's and Zero 2 W's I2C clock follows the VPU core clock.
        #expect(BusClockSupport.raiseInstruction(busPath: "/dev/i2c-1", model: "Raspberry Pi 3 Model B Plus Rev 1.3")
            == "set dtparam=i2c_arm_baudrate=400000 with core_freq=250 in /boot/firmware/config.txt and reboot")
        #expect(BusClockSupport.raiseInstruction(busPath: "/dev/i2c-1", model: "Raspberry Pi Zero 2 W Rev 1.0").contains("core_freq=250"))
        // Another bus of a Pi, or another board: the device-tree property itself.
        #expect(BusClockSupport.raiseInstruction(busPath: "/dev/i2c-3", model: Self.pi4)
            == "set clock-frequency = <400000> in the device-tree node of /dev/i2c-3 (an overlay) and reboot")
        #expect(BusClockSupport.raiseInstruction(busPath: "/dev/i2c-1", model: nil).hasPrefix("set clock-frequency"))
    }

    @Test func theDaemonLogsTheClockAndOneNoticeWhenTheRateIsTooMuch() throws {
        let sysfs = try Sysfs(cell: Self.hundredKilohertz)
        let source = try source()
        source.useBusClock(BusClockSupport.read(busPath: "/dev/i2c-1", sysfsRoot: sysfs.root), maximumReadLength: nil,
                           rateSetting: "imu.rate", model: Self.pi4)
        _ = try source.start(configuration(rate: 1000))
        let events = source.takeEvents()
        #expect(events.first == DaemonEvent(level: .info, message: "I2C bus /dev/i2c-1: 100 kHz (device tree)"))
        let notices = events.filter { $0.level == .notice }.map(\.message)
        #expect(notices == ["simulated bus runs at 100 kHz (device tree) and the MPU-6050 at 1000 Hz needs 111 % of it "
            + "(111 kbit/s, a FIFO read every 42 samples); above 50 % the FIFO can overflow (gaps in the stream): "
            + "set dtparam=i2c_arm_baudrate=400000 in /boot/firmware/config.txt and reboot (then 28 %), or set imu.rate to 333 or lower"])
        // Stopped and started again (a reload, the low-energy mode): not again.
        try source.stop()
        _ = try source.start(configuration(rate: 1000))
        #expect(source.takeEvents().filter { $0.level == .notice }.isEmpty)
    }

    @Test func noNoticeWhenTheRateFitsOrTheClockIsUnknown() throws {
        let sysfs = try Sysfs(cell: Self.hundredKilohertz)
        let fits = try source()
        fits.useBusClock(BusClockSupport.read(busPath: "/dev/i2c-1", sysfsRoot: sysfs.root), maximumReadLength: nil,
                         rateSetting: "imu.rate", model: Self.pi4)
        // The default 100 Hz on the Pi's default 100 kHz: 12 %.
        _ = try fits.start(configuration(rate: 100))
        #expect(fits.takeEvents().filter { $0.level != .info }.isEmpty)

        let noNode = try Sysfs(cell: nil)
        let unknown = try source()
        unknown.useBusClock(BusClockSupport.read(busPath: "/dev/i2c-1", sysfsRoot: noNode.root), maximumReadLength: nil,
                            rateSetting: "imu.rate", model: Self.pi4)
        _ = try unknown.start(configuration(rate: 1000))
        let events = unknown.takeEvents()
        #expect(events.first == DaemonEvent(level: .info,
                                            message: "I2C bus /dev/i2c-1: unknown (i2c-1 has no device-tree node: an ACPI, PCI, USB or stub adapter)"))
        #expect(events.filter { $0.level != .info }.isEmpty)
    }

    @Test func aDamagedClockFileIsAWarningAndNoCheck() throws {
        let sysfs = try Sysfs(cell: [0x01, 0x86, 0xA0])
        let source = try source()
        source.useBusClock(BusClockSupport.read(busPath: "/dev/i2c-1", sysfsRoot: sysfs.root), maximumReadLength: nil,
                           rateSetting: "imu.rate", model: Self.pi4)
        _ = try source.start(configuration(rate: 1000))
        let file = sysfs.root + "/bus/i2c/devices/i2c-1/of_node/clock-frequency"
        #expect(source.takeEvents().filter { $0.level != .info } == [DaemonEvent(level: .warning,
            message: "the clock of /dev/i2c-1 is unknown, its load not checked: cannot read \(file): holds 3 bytes (01 86 a0), not one 4-byte big-endian cell in hertz")])
    }

    @Test func watchPrintsNoticesAndWarningsAsTheyHappen() throws {
        let sysfs = try Sysfs(cell: Self.hundredKilohertz)
        let context = CommandContext.capturing()
        let source = try source()
        source.eventSink = LiveSensor.printingSink(command: "watch", context: context)
        source.useBusClock(BusClockSupport.read(busPath: "/dev/i2c-1", sysfsRoot: sysfs.root), maximumReadLength: nil,
                           rateSetting: "imu.rate", model: Self.pi4)
        _ = try source.start(configuration(rate: 1000))
        // The notice, alone: the clock and the chip found are information, not printed.
        #expect(context.err.captured.hasPrefix("plumb watch: simulated bus runs at 100 kHz (device tree) and the MPU-6050 at 1000 Hz needs 111 %"))
        #expect(context.err.captured.filter { $0 == "\n" }.count == 1)
        #expect(source.takeEvents().isEmpty)
    }
}
