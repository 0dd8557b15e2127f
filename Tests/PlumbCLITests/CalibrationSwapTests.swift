import Foundation
import Testing
@testable import PlumbCLI
import PlumbDrivers
import PlumbHAL
import PlumbOrientation
import PlumbSimulation

/// A calibration was checked against the chip only when the sensor started; a chip swapped in
/// while the stream ran (identified again at the re-initialisation, ``IMUStream``) was corrected
/// with the first chip's biases and scales without a word.
@Suite struct CalibrationSwapTests {
    static func chip(_ key: String, whoAmI: UInt8) -> IMUIdentity {
        IMUIdentity(part: IMUFamilies.row(forPart: key)?.part ?? key, partKey: key, whoAmI: whoAmI, address: I2CAddress(0x68), bus: "/dev/i2c-1")
    }

    /// The watch checks each new chip, refuses another part every time it is asked, and takes the
    /// first part back.
    @Test func thePartWatchChecksEveryNewChip() throws {
        var watch = Calibration.PartWatch(Calibration(part: "mpu6050"), file: "cal.json")
        try watch.check(Self.chip("mpu6050", whoAmI: 0x68))
        try watch.check(Self.chip("mpu9150", whoAmI: 0x68)) // one detection cannot tell from it
        for _ in 0..<2 {
            #expect(throws: IMUError.self) { try watch.check(Self.chip("mpu6500", whoAmI: 0x70)) }
        }
        try watch.check(Self.chip("mpu6050", whoAmI: 0x68))
        var any = Calibration.PartWatch(Calibration(part: nil), file: "hand.json")
        try any.check(Self.chip("lsm6dso", whoAmI: 0x6C))
    }

    /// An MPU-6050 swapped for an MPU-6500 while `plumb run` (or a command on the board's IMU)
    /// streams with the MPU-6050's calibration: the read after the re-initialisation throws the
    /// error a start would, with none of the MPU-6500's samples; a start is refused while it stays,
    /// and works again once the MPU-6050 is back.
    @Test func aChipSwappedInWhileStreamingIsCheckedAgain() throws {
        let sensor = SimulatedSensor(model: try #require(SimulatedChips.model("mpu6050")), profile: .rest(), seed: 5)
        let imu = try DaemonFactory.makeIMU(bus: sensor.bus, address: I2CAddress(0x68), clock: sensor.clock, part: nil)
        let source = StreamSampleSource(name: "IMU at 0x68 on simulated bus", imu: imu, line: sensor.line, clock: sensor.clock)
        source.calibration = (Calibration(part: "mpu6050"), "/etc/plumb/calibration.json")
        let configuration = IMUConfiguration(outputDataRate: 100, fifoWatermark: 5)
        _ = try source.start(configuration)
        var samples: [IMUSample] = []
        func read(seconds: Double) throws(MotionSourceError) {
            let end = sensor.clock.nowNanoseconds + UInt64(seconds * 1e9)
            while sensor.clock.nowNanoseconds < end {
                samples.removeAll(keepingCapacity: true)
                _ = try source.read(into: &samples, timeoutNanoseconds: 100_000_000)
            }
        }
        try read(seconds: 1)
        #expect(!samples.isEmpty)

        func attach(_ variant: String) throws -> MPU6050Emulator {
            let other = MPU6050Emulator(variant: try #require(MPU6050.variant(named: variant)), profile: .rest())
            other.profileStart = sensor.chip.profileStart
            other.interruptLine = sensor.line
            other.advance(to: sensor.clock.nowNanoseconds)
            sensor.bus.attach(other, at: I2CAddress(0x68))
            sensor.line.source = other
            return other
        }
        _ = try attach("mpu6500")
        var refused: MotionSourceError?
        do { try read(seconds: 5) } catch { refused = error }
        let error = try #require(refused, "the MPU-6500's samples were read with the MPU-6050's calibration")
        #expect(samples.isEmpty)
        guard case .imu(.calibrationForAnotherPart(let file, let madeOn, let found)) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(file == "/etc/plumb/calibration.json" && madeOn == "mpu6050" && found.partKey == "mpu6500")
        #expect(SensorPipeline.startFix(error, configurationPath: "/etc/plumb/plumb.json")?.contains("point \"calibration\" in /etc/plumb/plumb.json") == true)
        #expect(throws: MotionSourceError.self) { _ = try source.start(configuration) }

        _ = try attach("mpu6050")
        _ = try source.start(configuration)
        try read(seconds: 1)
        #expect(!samples.isEmpty)
        try source.stop()
    }
}
