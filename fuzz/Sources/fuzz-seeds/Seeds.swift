import Foundation
import PlumbHAL
import PlumbDrivers
import PlumbSimulation
import PlumbConfiguration
import FuzzSupport

/// Writes the seed corpora under fuzz/corpus/<target>/ (run by hand: `scripts/fuzz --seeds`):
/// stream-harness headers for every emulated part and a range of configurations; decoder-harness
/// inputs built from the FIFO bursts the emulators really give (MPU-6050 records, LSM6DSO tagged
/// words with and without compression, LSM6DSL pattern sets); the repo's board files and the
/// example configuration; a calibration; the head of the BROAD recording fixture.
@main struct Seeds {
    static func main() throws {
        let root = URL(fileURLWithPath: CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : ".")
        let corpus = root.appendingPathComponent("fuzz/corpus")
        func write(_ target: String, _ name: String, _ bytes: [UInt8]) throws {
            let dir = corpus.appendingPathComponent(target)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try Data(bytes).write(to: dir.appendingPathComponent(name))
        }

        // Stream harnesses: header, then pass-through control bytes (the chip's own data).
        for (target, models) in [("mpu6050", SimulatedChips.mpu), ("lsm6ds", SimulatedChips.lsm6ds)] {
            for (i, model) in models.enumerated() {
                // 104 Hz, ±16 g, ±2000 dps (c = 0xF3), watermark 16 (d = 0x04), slow rotation (flags = 0x01).
                let header: [UInt8] = [UInt8(i), 0xF3, 0x04, 0x01]
                try write(target, "\(model.key)-104hz", header + [UInt8](repeating: 0, count: 160))
            }
            // A fast rate with compression and a pulsed pin, and an accelerometer-only low rate.
            try write(target, "fast-pulsed", [UInt8(models.count - 1), 0xC6, 0x43, 0x06] + [UInt8](repeating: 0, count: 240))
            try write(target, "accel-only", [0, 0x01, 0x0C, 0x0A] + [UInt8](repeating: 0, count: 120))
        }

        // Decoder harness: real bursts from the emulators, in the harness's input format.
        try write("decoders", "mpu6050-records", mpuRecords())
        try write("decoders", "lsm6dso-tagged", taggedWords(compressed: false))
        try write("decoders", "lsm6dso-compressed", taggedWords(compressed: true))
        try write("decoders", "lsm6dsl-pattern", patternSets())

        // Files users write.
        let boards = root.appendingPathComponent("boards")
        for name in try FileManager.default.contentsOfDirectory(atPath: boards.path).sorted() where name.hasSuffix(".json") {
            try write("configuration", "board-\(name)", [1] + [UInt8](try Data(contentsOf: boards.appendingPathComponent(name))))
        }
        try write("configuration", "plumb-example.json", [0] + Array(Configuration.exampleText.utf8))
        try write("configuration", "mqtt.json", [2] + Array(#"{"url": "mqtts://broker.local:8883", "topic": "plumb/{node}", "retain": true}"#.utf8))
        let calibration = Calibration(gyroscopeBias: SIMD3(0.01, -0.02, 0.003), accelerometerOffset: SIMD3(0.1, 0, -0.05))
        try write("configuration", "calibration.json", [3] + [UInt8](try calibration.jsonData()))
        try write("configuration", "mqtt-url", [5] + Array("mqtt://[::1]:1883".utf8))

        let broad = root.appendingPathComponent("Tests/PlumbFusionTests/Fixtures/broad-08-first-60s.csv")
        let lines = String(decoding: try Data(contentsOf: broad), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let head = Array(lines.prefix(24).joined(separator: "\n").utf8) + [0x0A]
        try write("recording", "broad-head-recording", [0] + head)
        try write("recording", "broad-head-replay", [3] + head)
        try write("recording", "columns-t-gyr-acc", [0] + Array("t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n0.00,0.1,0,0,0,0,9.8\n0.01,0.1,0,0,0,0,9.8\n0.02,nan,0,0,0,0,9.8\n".utf8))
    }

    /// A bus that records what the chip answers at one register.
    final class Tap: I2CBus {
        let inner: EmulatedI2CBus
        let register: UInt8
        var bursts: [[UInt8]] = []
        init(_ inner: EmulatedI2CBus, register: UInt8) { self.inner = inner; self.register = register }
        var path: String { inner.path }
        func transfer(_ operations: inout [I2COperation], address: I2CAddress) throws(I2CError) {
            try inner.transfer(&operations, address: address)
            if operations.count == 2, operations[0].bytes.first == register { bursts.append(operations[1].bytes) }
        }
    }

    /// Bursts read from `register` while `driver` streams `seconds` of the slow rotation.
    static func bursts(_ key: String, register: UInt8, config: IMUConfiguration, compression: Bool = true) -> [[UInt8]] {
        let sensor = SimulatedSensor(model: SimulatedChips.model(key)!, profile: .slowRotation(), seed: 3)
        let tap = Tap(sensor.bus, register: register)
        let imu: any IMU
        if key.hasPrefix("lsm") {
            let d = LSM6DS(bus: tap, address: sensor.model.address, clock: sensor.clock)
            d.fifoCompression = compression
            imu = d
        } else {
            imu = try! MPU6050(bus: tap, address: sensor.model.address, clock: sensor.clock)
        }
        let stream = IMUStream(imu: imu, line: sensor.line, clock: sensor.clock)
        _ = try! stream.start(config)
        var samples: [IMUSample] = []
        for _ in 0..<12 { _ = stream.step(into: &samples) }
        return Array(tap.bursts.prefix(6))
    }

    /// The assembler header of the decoder harness: FREQ_FINE 0, origin 0, rate index, flags.
    static let assemblerHeader: [UInt8] = [0, 1, 0, 0, 0, 0, 3, 0]

    static func taggedWords(compressed: Bool) -> [UInt8] {
        let config = IMUConfiguration(outputDataRate: 833, fifoWatermark: 16)
        var out: [UInt8] = [compressed ? 1 : 0, 1] + assemblerHeader
        for burst in bursts("lsm6dso", register: 0x78, config: config, compression: compressed) {
            let words = burst.count / 7
            // Between drains: read time and window given; then the word count (no reset, no forget).
            out += [0x03, 0x10, 0x00, UInt8(min(words, 63))] + burst.prefix(min(words, 63) * 7)
        }
        return out
    }

    static func patternSets() -> [UInt8] {
        let config = IMUConfiguration(outputDataRate: 104, fifoWatermark: 8)
        // Gyroscope and accelerometer every instant, timestamps every instant (p = 0b00_001_001).
        var out: [UInt8] = [2, 0x09, 0] + assemblerHeader + [0, 0, 0]
        for burst in bursts("lsm6dsl", register: 0x3E, config: config) where burst.count > 2 {
            out += [0x03, 0x10, 0x00, 0xFF, 0x0F, 0] + [UInt8(min(burst.count, 255))] + burst.prefix(255)
        }
        return out
    }

    static func mpuRecords() -> [UInt8] {
        let config = IMUConfiguration(outputDataRate: 100, fifoWatermark: 1)
        var out: [UInt8] = [3, 0, 0x02]
        for burst in bursts("mpu6050", register: 0x74, config: config) {
            // One edge anchoring record 0 near 1 s, then the records.
            out += [1, 1, 0x00, 0xCA, 0x9A, 0x3B, 0x00, 0x00, 0x00, 0x00, 0, UInt8(burst.count / 12)] + burst
        }
        return out
    }
}

/// Not a fuzzer, but linked with libFuzzer like the harnesses (the same build flags), whose
/// driver needs this symbol.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { 0 }
