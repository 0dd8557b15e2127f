import Foundation
import PlumbHAL
import PlumbDrivers
import PlumbConfiguration
import PlumbOrientation
import PlumbSimulation
import PlumbMQTT

/// The readers of files the user writes: plumb.json, board files, the MQTT configuration, the
/// calibration JSON, the JSON parser under them, an MQTT URL; and recordings (CSV) as
/// ``IMURecording`` and as a replayed motion, which is then evaluated and played through an
/// emulated chip and its driver for a moment, as `plumb watch --simulate --replay` does.
public enum ParserHarness {
    public static func configuration(_ input: FuzzInput) {
        let which = input.byte()
        let bytes = Array(input.rest())
        let text = String(decoding: bytes, as: UTF8.self)
        switch which % 6 {
        case 0: _ = try? PlumbConfiguration.Configuration.decode(text, file: "plumb.json", knownBoards: which & 0x80 != 0 ? ["rpi4", "rpi5"] : nil)
        case 1: _ = try? Board.decode(text, file: "board.json")
        case 2: _ = try? MQTTOutput.decode(text, file: "mqtt.json")
        case 3: calibration(bytes)
        case 4: _ = try? JSONParser.parse(text)
        default: _ = try? MQTTEndpoint.parse(text)
        }
    }

    /// A calibration file as `Calibration.read(_:file:)` (PlumbCLI, which this package does not
    /// link) takes it: its shape, then the mounting and the ranges of what it holds.
    static func calibration(_ bytes: [UInt8]) {
        guard let contents = try? CalibrationFile.decode(Data(bytes), file: "calibration.json"),
              let mounting = try? Mounting(matrix: contents.mountingRows) else { return }
        let calibration = Calibration(gyroscopeBias: contents.gyroscopeBias, accelerometerOffset: contents.accelerometerOffset,
                                      accelerometerScale: contents.accelerometerScale, mounting: mounting,
                                      part: contents.part, temperature: contents.temperature)
        _ = calibration.implausibleValue
        _ = try? calibration.jsonData()
    }

    public static func recording(_ input: FuzzInput) {
        let which = input.byte()
        let bytes = Array(input.rest())
        if which & 1 == 0 {
            guard let recording = try? IMURecording.parse(csv: bytes, name: "recording.csv") else { return }
            _ = recording.sampleRate
            // As `plumb watch --replay` and `plumb run` with a recording: through fusion and the classifier.
            var pipeline = PipelineHarness(choice: which >> 1)
            pipeline.feed(recording.samples)
            return
        }
        guard let profile = try? MotionProfile.replay(csv: String(decoding: bytes, as: UTF8.self), name: "recording.csv") else { return }
        for t in [-1.0, 0, 0.001, 0.5, 1e9, profile.duration ?? 0] {
            _ = profile.state(at: t)
        }
        guard which & 2 != 0 else { return }
        // Played through a chip: its quantisation and FIFO, and the driver on top.
        let model = SimulatedChips.all[Int(which >> 2) % SimulatedChips.all.count]
        let sensor = SimulatedSensor(model: model, profile: profile, seed: 1)
        sensor.bus.bitsPerSecond = nil
        let imu: any IMU
        if model.key.hasPrefix("lsm") {
            imu = LSM6DS(bus: sensor.bus, address: model.address, clock: sensor.clock)
        } else {
            guard let d = try? MPU6050(bus: sensor.bus, address: model.address, clock: sensor.clock) else { return }
            imu = d
        }
        let stream = IMUStream(imu: imu, line: sensor.line, clock: sensor.clock)
        guard (try? stream.start(IMUConfiguration(outputDataRate: 104, fifoWatermark: 8))) != nil else { return }
        var samples: [IMUSample] = []
        for _ in 0..<6 { _ = stream.step(into: &samples) }
        var pipeline = PipelineHarness(choice: which >> 5)
        pipeline.feed(samples)
    }
}
