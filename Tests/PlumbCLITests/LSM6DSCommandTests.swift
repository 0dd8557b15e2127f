import Testing
import PlumbHAL
import PlumbDrivers
import PlumbSimulation
@testable import PlumbCLI

/// `plumb probe` and `plumb read` on the emulated LSM6DS parts, and the LSM6DSV refusal.
@Suite struct LSM6DSCommandTests {
    func run(_ args: [String]) -> (status: Int32, out: String, err: String) {
        let context = CommandContext.capturing()
        let status = PlumbTool.main(args, context: context)
        return (status, context.out.captured, context.err.captured)
    }

    @Test func probeFindsTheLSM6DSO() {
        let r = run(["probe", "--simulate", "--chip", "lsm6dso"])
        #expect(r.status == 0)
        #expect(r.out == """
            simulated bus  emulated LSM6DSO  [I2C]
              bus clock: 400 kHz (emulated)
              0x6a  WHO_AM_I 0x6c  LSM6DSO/LSM6DSOX/LSM6DSO32 (lsm6dso)
                    warning: WHO_AM_I 0x6c is also LSM6DSO32 (--part lsm6dso32); driving it as LSM6DSO

            """)
        #expect(r.err == "")
    }

    /// `plumb read --rate 5000` on an LSM6DSR streamed 1667 Hz without a word; now it is refused as
    /// the MPU-6050's 2000 Hz is, naming the chip, its rates and the options to change.
    @Test func readRefusesARateAboveTheLSM6DSsFastest() {
        let r = run(["read", "--simulate", "--chip", "lsm6dsr", "--rate", "5000", "--count", "1"])
        #expect(r.status == 1)
        #expect(r.out == "")
        #expect(r.err == """
            plumb read: LSM6DSR/ISM330DHCX (WHO_AM_I 0x6b) at 0x6a on simulated bus
            Error: output data rate 5000.0 Hz: the LSM6DSR runs at up to 1667 Hz (its rates are 12.5, 26, 52, 104, 208, 417, 833 and 1667 Hz; a rate between them runs at the next one up)
            Fix: Give --rate and --watermark within the chip's limits named above (with --config: imu.rate).

            """)
    }

    @Test(arguments: ["lsm6ds3", "lsm6ds3trc", "lsm6dsl", "lsm6dso", "lsm6dsox", "lsm6dsr", "ism330dhcx"])
    func readStreamsEveryIssueChip(chip: String) {
        let r = run(["read", "--simulate", "--chip", chip, "--count", "50", "--rate", "833"])
        #expect(r.status == 0, "\(chip): \(r.err)")
        let lines = r.out.split(separator: "\n")
        #expect(lines.first == "t_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,temp_c")
        #expect(lines.count == 51)
        // At rest, z up: about 9.8 m/s² on z, 28.5 °C.
        for line in lines.dropFirst() {
            let f = line.split(separator: ",").compactMap { Double($0) }
            #expect(f.count == 8)
            #expect(abs(f[6] - 9.8) < 0.5 && abs(f[7] - 28.5) < 0.1, "\(chip): \(line)")
        }
    }

    @Test func readWithThePartOverrideDrivesTheLSM6DSO32() {
        let r = run(["read", "--simulate", "--chip", "lsm6dso32", "--part", "lsm6dso32", "--count", "5", "--format", "jsonl"])
        #expect(r.status == 0)
        #expect(r.err == "plumb read: LSM6DSO32 (WHO_AM_I 0x6c) at 0x6a on simulated bus\n")
        #expect(r.out.split(separator: "\n").count == 5)
    }

    @Test func readCanTurnFIFOCompressionOff() throws {
        let spec = CommandSpec(name: "read", abstract: "", options: SensorOptions.specs)
        for (flags, compressing) in [([String](), true), (["--no-fifo-compression"], false)] {
            let args = try parse(["--simulate", "--chip", "lsm6dso"] + flags, spec: spec)
            let opened = try SensorOptions.open(args, context: CommandContext.capturing(environment: [:]))
            #expect((opened.imu as? LSM6DS)?.fifoCompression == compressing)
        }
        let r = run(["read", "--simulate", "--chip", "lsm6dso", "--rate", "833", "--count", "50", "--format", "jsonl", "--no-fifo-compression"])
        #expect(r.status == 0)
        #expect(r.out.split(separator: "\n").count == 50)
    }

    @Test func lsm6dsvIsRefusedWithTheReason() throws {
        final class DSV: RegisterTarget {
            var registerPointer: UInt8 = 0
            func readRegister(_ address: UInt8) -> UInt8 { address == 0x0F ? 0x70 : 0 }
            func writeRegister(_ address: UInt8, _ value: UInt8) {}
            func advance(to nanoseconds: UInt64) {}
        }
        let clock = VirtualClock()
        let bus = EmulatedI2CBus(path: "/dev/i2c-1", clock: clock)
        bus.attach(DSV(), at: I2CAddress(UInt8(0x6B)))
        let findings = try IMUFamilies.probe(bus)
        #expect(findings.map(\.part) == ["LSM6DSV/LSM6DSV16X"])
        #expect(findings.first?.warnings.first?.hasPrefix("not supported yet: its register map differs") == true)
        do {
            _ = try SensorOptions.identify(bus: bus, address: nil, part: nil, clock: clock)
            Issue.record("the LSM6DSV was driven")
        } catch {
            guard case .failure(let message, _) = error else { Issue.record("expected a failure, got \(error)"); return }
            #expect(message.hasPrefix("0x70 at 0x6b on /dev/i2c-1 is an LSM6DSV/LSM6DSV16X, which Plumb does not support yet"))
        }
    }
}
