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
        // The orientation keys the example leaves out (the single values and the time cap).
        try write("configuration", "plumb-orientation.json", [0] + Array(#"{"orientation": {"preset": "steady", "settleTime": 0.05, "hysteresis": 12, "maxRotationRate": 0, "maxWait": 0.8, "dwellMargin": 10, "dwellMaxRotationRate": 80, "lowEnergy": "on", "interfaceOrientations": ["portrait", "landscapeLeft"]}}"#.utf8))
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

        try systemSeeds(write)
        try listingSeeds(write)
    }

    /// What sysfs, procfs and the device tree hold on real machines, in the system harness's
    /// input format (a byte picking the parser, then the content).
    static func systemSeeds(_ write: (String, String, [UInt8]) throws -> Void) throws {
        func power(_ fields: [String]) -> [UInt8] { [0] + Array(fields.joined(separator: "\u{1E}").utf8) }
        // Fields: platform_profile (Documentation/ABI/testing/sysfs-platform_profile), the state file
        // power-profiles-daemon saves, a battery's capacity (sysfs-class-power, percent), a thermal
        // zone's temp (sysfs-class-thermal, millidegrees), the firmware's get_throttled (hexadecimal
        // without 0x, raspberrypi/linux#2397), fbdev blank (FB_BLANK_*), a DRM connector's dpms.
        try write("system", "power-saving-hot-throttled",
                  power(["low-power\n", "[State]\nDriver=placeholder\nProfile=power-saver\n", "20\n", "81250\n", "50005\n", "4\n", "Off\n"]))
        try write("system", "power-ordinary",
                  power(["balanced\n", "[State]\nDriver=intel_pstate\nProfile=balanced\n", "35\n", "48312\n", "50000\n", "", "On\n"]))
        try write("system", "power-cool-negative", power(["cool\n", "", "100\n", "-5000\n", "0x0\n", "0\n", "Standby\n"]))
        // clock-frequency: one big-endian <u32> (Devicetree Specification v0.4 §2.2.4), 100 and 400 kHz,
        // and a damaged three-byte property.
        try write("system", "clock-100khz", [1, 0x00, 0x01, 0x86, 0xA0])
        try write("system", "clock-400khz", [1, 0x00, 0x06, 0x1A, 0x80])
        try write("system", "clock-3-bytes", [1, 0x01, 0x86, 0xA0])
        // /proc/device-tree/model: the firmware's model string, NUL-terminated.
        for model in ["Raspberry Pi 4 Model B Rev 1.4", "Raspberry Pi 400 Rev 1.0", "Raspberry Pi 5 Model B Rev 1.0",
                      "Raspberry Pi Zero 2 W Rev 1.0", "Raspberry Pi 3 Model B Plus Rev 1.3", "Raspberry Pi Compute Module 4 Rev 1.0"] {
            try write("system", "model-" + model.split(separator: " ").dropFirst(2).prefix(3).joined(separator: "-").lowercased(),
                      [2] + Array(model.utf8) + [0])
        }
        // /proc/self/net/dev (proc(5)): a private namespace's lo only, and a board on Wi-Fi.
        try write("system", "netdev-lo-only", [3] + Array(SystemSeeds.netDevLoopbackOnly.utf8))
        try write("system", "netdev-wifi", [3] + Array(SystemSeeds.netDevWithWiFi.utf8))
        // I2C_FUNCS (little-endian here): i2c-stub's 0x0c7f0000, i2c-bcm2835's I2C | SMBUS_EMUL 0x0eff0009.
        try write("system", "funcs-i2c-stub", [4, 0x00, 0x00, 0x7F, 0x0C])
        try write("system", "funcs-bcm2835", [4, 0x09, 0x00, 0xFF, 0x0E])
        // An LED's max_brightness, then its trigger list (Documentation/ABI/testing/sysfs-class-led).
        try write("system", "led-act", [5] + Array("255\n\u{1E}none [mmc0] timer heartbeat\n".utf8))
        try write("system", "led-pwr", [5] + Array("1\n\u{1E}[none] kbd-scrolllock rfkill-any default-on input\n".utf8))
        // Screen info (every field as a 32-bit value: 0x02, then little-endian): xres, yres,
        // yres_virtual, bits_per_pixel, line_length, smem_len, then red, green, blue, transp
        // (offset, length), then the id. vfb at 800x480 XRGB8888 with two pages, and the Sense
        // HAT's 8x8 RGB565 "RPi-Sense FB".
        func screen(_ fields: [UInt32], _ name: String) -> [UInt8] {
            [6] + fields.flatMap { v in [2, UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] } + Array(name.utf8) + [0]
        }
        try write("system", "fb-vfb-800x480", screen([800, 480, 960, 32, 3200, 3200 * 960, 16, 8, 8, 8, 0, 8, 24, 0], "vfb"))
        try write("system", "fb-sense-hat", screen([8, 8, 8, 16, 16, 128, 11, 5, 5, 6, 0, 5, 0, 0], "RPi-Sense FB"))
        try write("system", "fb-no-mode", screen([0, 0, 0, 32, 0, 0, 16, 8, 8, 8, 0, 8, 0, 0], "vc4drmfb"))
        // i2c-dev paths, and a udev alias's target.
        try write("system", "adapter-dev", [7] + Array("/dev/i2c-1".utf8))
        try write("system", "adapter-link", [7] + Array("../../devices/platform/soc/fe804000.i2c/i2c-1".utf8))
    }

    /// Other programs' output and D-Bus replies, in the listing harness's input format.
    static func listingSeeds(_ write: (String, String, [UInt8]) throws -> Void) throws {
        // wlr-randr 0.2.0 and xrandr 1.5 listings (as KioskVerifyTests), with the output asked about.
        for name in ["HDMI-A-1", "DSI-1", "HDMI-A-2"] {
            try write("listings", "wlr-randr-\(name)", [0] + Array((name + "\n" + ListingSeeds.wlrRandr(transform: "90")).utf8))
        }
        try write("listings", "wlr-randr-headless-off",
                  [0] + Array("HEADLESS-1\nHEADLESS-1 \"Headless output 1\"\n  Enabled: no\n  Modes:\n    0x0 px\n".utf8))
        for name in ["HDMI-1", "HDMI-2", "HDMI-3", "DSI-1"] {
            try write("listings", "xrandr-\(name)", [1] + Array((name + "\n" + ListingSeeds.xrandrQuery).utf8))
        }
        // The tools' error text (RotationToolDiagnosisTests): flags (bit 0 xrandr, bit 1 list outputs), status, text.
        try write("listings", "diagnose-xrandr-not-found", [2, 0x01, 0] + Array("warning: output HDMI-1 not found; ignoring\n".utf8))
        try write("listings", "diagnose-wlr-unknown", [2, 0x02, 1] + Array("unknown output HDMI-A-1\n".utf8))
        try write("listings", "diagnose-wlr-no-display", [2, 0x08, 1] + Array("failed to connect to display\n".utf8))
        try write("listings", "diagnose-xrandr-no-display", [2, 0x01, 1] + Array("Can't open display \n".utf8))
        // ActiveProfile replies (power-profiles-daemon's README, D-Bus API): a profile, and error
        // replies by name (each buffer: a length byte, then the bytes).
        func reply(_ result: [UInt8], _ value: String, _ name: String, _ message: String) -> [UInt8] {
            var out: [UInt8] = [3] + result
            for part in [value, name, message] { out += [UInt8(part.utf8.count)] + Array(part.utf8) }
            return out
        }
        try write("listings", "ppd-power-saver", reply([0], "power-saver", "", ""))
        try write("listings", "ppd-balanced", reply([0], "balanced", "", ""))
        try write("listings", "ppd-service-unknown",
                  reply([1, 2], "", "org.freedesktop.DBus.Error.ServiceUnknown", "The name net.hadess.PowerProfiles was not provided by any .service files"))
        try write("listings", "ppd-access-denied", reply([1, 13], "", "org.freedesktop.DBus.Error.AccessDenied", "Rejected send message"))
        try write("listings", "ppd-not-a-string", reply([1, 74], "", "", ""))
        // Sensor claims: four bus names, then claim/release/leave operations.
        var claims: [UInt8] = [4]
        for name in [":1.42", ":1.7", ":1.100", ":1.42"] { claims += [UInt8(name.utf8.count)] + Array(name.utf8) }
        claims += [0x00, 0x10, 0x04, 0x02, 0x12, 0x23, 0x00, 0x03]
        try write("listings", "claims", claims)
        // plumb dbus --script, and an orientation string.
        try write("listings", "script", [5] + Array(ListingSeeds.script.utf8))
        try write("listings", "orientation-left-up", [5] + Array("left-up".utf8))
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
