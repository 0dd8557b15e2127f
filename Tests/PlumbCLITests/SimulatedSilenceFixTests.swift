import Testing
@testable import PlumbCLI
import PlumbHAL
import PlumbSimulation

/// Under `--simulate` nothing is wired, but a silent emulated bus got the hardware fix: "Check the
/// wiring with the power off: VCC to 3.3 V (pin 1), … then 'i2cdetect -y 1' should show 68 …"
/// (`plumb read`, `calibrate`, `regs`), and `plumb probe` "check the wiring and power; 'i2cdetect
/// -y N' …". The fix now names the simulator's options; real buses keep the wiring fix.
@Suite struct SimulatedSilenceFixTests {
    @Test func readAtAnAddressTheEmulatedChipDoesNotHave() {
        let r = runPlumb(["read", "--simulate", "--part", "mpu6050", "--address", "0x69", "--count", "1"])
        #expect(r.status == 1)
        #expect(r.err == """
            Error: no IMU answers on simulated bus (nothing acknowledged at 0x69)
            Fix: Nothing is wired under --simulate: the emulated MPU-6050 (--chip mpu6050) answers at 0x68 only, so give --address 0x68 or leave it out; a --faults window such as nack@T+D keeps it silent on purpose.

            """)
    }

    @Test func readWhileAFaultWindowSilencesTheChip() {
        let r = runPlumb(["read", "--simulate", "--chip", "lsm6dso", "--faults", "nack@0s+2s", "--count", "1"])
        #expect(r.status == 1)
        #expect(r.err == """
            Error: no IMU answers on simulated bus (nothing acknowledged at 0x68, 0x69, 0x6a or 0x6b)
            Fix: Nothing is wired under --simulate: the emulated LSM6DSO (--chip lsm6dso) answers at 0x6a only, so give --address 0x6a or leave it out; a --faults window such as nack@T+D keeps it silent on purpose.

            """)
    }

    @Test func regsHasNoFaultsOption() {
        let r = runPlumb(["regs", "dump", "--simulate", "--part", "mpu6050", "--address", "0x69"])
        #expect(r.status == 1)
        #expect(r.err == """
            Error: no IMU answers on simulated bus (nothing acknowledged at 0x69)
            Fix: Nothing is wired under --simulate: the emulated MPU-6050 (--chip mpu6050) answers at 0x68 only, so give --address 0x68 or leave it out.

            """)
    }

    @Test func probeHasNoAddressOption() {
        let r = runPlumb(["probe", "--simulate", "--faults", "nack@0s+1s"])
        #expect(r.status == 0)
        #expect(r.out == """
            simulated bus  emulated MPU-6050  [I2C]
              bus clock: 400 kHz (emulated)
              no IMU answers at 0x68, 0x69, 0x6a or 0x6b. Nothing is wired under --simulate: the emulated MPU-6050 (--chip mpu6050) answers at 0x68 only; a --faults window such as nack@T+D keeps it silent on purpose.

            """)
    }

    /// A real bus (here an emulated adapter standing for /dev/i2c-1, no `simulated` model) keeps
    /// the wiring fix, word for word.
    @Test func aRealBusKeepsTheWiringFix() {
        let bus = EmulatedI2CBus(path: "/dev/i2c-1", clock: VirtualClock())
        #expect(throws: CLIError.failure("no IMU answers on /dev/i2c-1 (nothing acknowledged at 0x68)", fix: I2CHelp.wiringFix)) {
            _ = try SensorOptions.identify(bus: bus, address: I2CAddress(0x68), part: "mpu6050", clock: bus.clock)
        }
        #expect(I2CHelp.wiringFix == "Check the wiring with the power off: VCC to 3.3 V (pin 1), GND (pin 6), SDA to pin 3, SCL to pin 5; then 'i2cdetect -y 1' should show 68 (MPU-6050) or 6a/6b (LSM6DS).")
        #expect(Probe.text(Probe.Adapter(path: "/dev/i2c-1", name: "bcm2835 (i2c@7e804000)", clock: "100 kHz", clockHz: 100_000,
                                         functionality: ["I2C"], error: nil, devices: []))
            == "/dev/i2c-1  bcm2835 (i2c@7e804000)  [I2C]\n  bus clock: 100 kHz\n  no IMU answers at 0x68, 0x69, 0x6a or 0x6b (check the wiring and power; 'i2cdetect -y 1' shows every address that answers)\n")
    }

    /// The fix names the bus and the address looked for: a configuration at 0x69 on /dev/i2c-0
    /// was told to look for 68 with 'i2cdetect -y 1', on the header's pins.
    @Test func theWiringFixNamesTheBusAndTheAddress() {
        #expect(I2CHelp.wiringFix(bus: "/dev/i2c-0", address: I2CAddress(0x69))
            == "Check the wiring with the power off: VCC to 3.3 V, GND, SDA and SCL to /dev/i2c-0's pins; then 'i2cdetect -y 0' should show 69.")
        #expect(I2CHelp.wiringFix(bus: "/dev/i2c-1", address: I2CAddress(0x6A))
            == "Check the wiring with the power off: VCC to 3.3 V (pin 1), GND (pin 6), SDA to pin 3, SCL to pin 5; then 'i2cdetect -y 1' should show 6a.")
        #expect(I2CHelp.wiringFix(bus: "/dev/i2c-1", address: I2CAddress(0x68)) == I2CHelp.wiringFix)
        let bus = EmulatedI2CBus(path: "/dev/i2c-3", clock: VirtualClock())
        #expect(throws: CLIError.failure("no IMU answers on /dev/i2c-3 (nothing acknowledged at 0x6b)",
                                         fix: "Check the wiring with the power off: VCC to 3.3 V, GND, SDA and SCL to /dev/i2c-3's pins; then 'i2cdetect -y 3' should show 6b.")) {
            _ = try SensorOptions.identify(bus: bus, address: I2CAddress(0x6B), part: "lsm6dso", clock: bus.clock)
        }
    }
}
