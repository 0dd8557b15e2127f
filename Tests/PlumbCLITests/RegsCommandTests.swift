import Testing
import PlumbHAL
import PlumbDrivers
import PlumbSimulation
@testable import PlumbCLI

private func run(_ arguments: [String]) -> (status: Int32, out: String, err: String) {
    let context = CommandContext.capturing()
    let status = PlumbTool.main(arguments, context: context)
    return (status, context.out.captured, context.err.captured)
}

private let setUsage = "Usage: plumb regs set [--bus <PATH>] [--address <ADDR>] [--part <NAME>] [--format <FORMAT>] [--simulate] [--chip <NAME>] [--force] <REG> <VALUE> ...\n  See 'plumb regs set --help' for more information.\n"
private let forceFix = "Fix: add --force if you mean it (a reset reloads every register; a power bit can stop the sensor; I2C_DISABLE cuts the bus off)\n"
private let dsoWarning = "warning: WHO_AM_I 0x6c is also LSM6DSO32 (--part lsm6dso32); driving it as LSM6DSO\n"

@Suite struct RegsCommandTests {
    @Test func dumpShowsEveryAddressOfThePowerOnMPU6050() {
        let r = run(["regs", "dump", "--simulate"])
        #expect(r.status == 0)
        #expect(r.err == "")
        let lines = r.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 1 + 128 + 1) // header, 0x00...0x7F, final newline
        #expect(lines[0] == "MPU-6050 at 0x68 on simulated bus (WHO_AM_I 0x68)")
        #expect(lines[1] == "(unknown) 0x00 = 0x00")
        // RM-MPU-6000A-00 rev 4.2 §3: everything resets to 0x00 but PWR_MGMT_1 (0x40) and WHO_AM_I (0x68).
        for expected in [
            "SMPLRT_DIV 0x19 = 0x00",
            "CONFIG 0x1A = 0x00  EXT_SYNC_SET=FSYNC input disabled, DLPF_CFG=260 Hz accel / 256 Hz gyro, gyro at 8 kHz",
            "GYRO_CONFIG 0x1B = 0x00  FS_SEL=±250 °/s",
            "ACCEL_CONFIG 0x1C = 0x00  AFS_SEL=±2 g",
            "INT_STATUS 0x3A  (not read: reading clears it)",
            "SIGNAL_PATH_RESET 0x68 = 0x00",
            "PWR_MGMT_1 0x6B = 0x40  SLEEP=1, CLKSEL=internal 8 MHz",
            "PWR_MGMT_2 0x6C = 0x00  LP_WAKE_CTRL=1.25 Hz",
            "FIFO_R_W 0x74  (not read: reading pops the FIFO)",
            "WHO_AM_I 0x75 = 0x68  WHO_AM_I=MPU-6050",
            "(unknown) 0x7F = 0x00",
        ] {
            #expect(lines.contains(expected), "missing: \(expected)")
        }
    }

    @Test func dumpAsJSONHasOneObjectPerRegister() {
        let r = run(["regs", "dump", "--simulate", "--chip", "mpu9250", "--format", "json"])
        #expect(r.status == 0)
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.first == #"{"part":"MPU-9250","bus":"simulated bus","device":"0x68","registers":["#)
        #expect(lines.last == "]}")
        #expect(lines.count == 2 + 128)
        #expect(lines.contains(#"{"address":"0x1C","name":"ACCEL_CONFIG","access":"RW","value":"0x00","fields":{"XA_ST":{"value":0},"YA_ST":{"value":0},"ZA_ST":{"value":0},"AFS_SEL":{"value":0,"meaning":"±2 g"}}},"#))
        #expect(lines.contains(#"{"address":"0x75","name":"WHO_AM_I","access":"RO","value":"0x71","fields":{"WHO_AM_I":{"value":113,"meaning":"MPU-9250"}}},"#))
        #expect(lines.contains(#"{"address":"0x74","name":"FIFO_R_W","access":"RW","value":null,"fields":{},"skipped":"reading pops the FIFO"},"#))
    }

    @Test func getByNameAndByAddress() {
        #expect(run(["regs", "get", "--simulate", "PWR_MGMT_1"]) == (0, "PWR_MGMT_1 0x6B = 0x40  SLEEP=1, CLKSEL=internal 8 MHz\n", ""))
        #expect(run(["regs", "get", "--simulate", "0x6b"]) == (0, "PWR_MGMT_1 0x6B = 0x40  SLEEP=1, CLKSEL=internal 8 MHz\n", ""))
        #expect(run(["regs", "get", "--simulate", "--chip", "lsm6ds3", "ctrl9_xl"])
                == (0, "CTRL9_XL 0x18 = 0x38  ZEN_XL=1, YEN_XL=1, XEN_XL=1\n",
                    "warning: WHO_AM_I 0x69 is also LSM6DS3H (--part lsm6ds3h); driving it as LSM6DS3\n"))
        #expect(run(["regs", "get", "--simulate", "--chip", "icm20602", "CONFIG", "--format", "json"])
                == (0, #"{"address":"0x1A","name":"CONFIG","access":"RW","value":"0x80","fields":{"FIFO_MODE":{"value":0,"meaning":"overwrite oldest when full"},"EXT_SYNC_SET":{"value":0,"meaning":"FSYNC input disabled"},"DLPF_CFG":{"value":0,"meaning":"260 Hz accel / 256 Hz gyro, gyro at 8 kHz"}}}"# + "\n", ""))
    }

    @Test func setWritesReadModifyWriteAndReadsBack() {
        #expect(run(["regs", "set", "--simulate", "ACCEL_CONFIG", "AFS_SEL=±8 g"])
                == (0, "ACCEL_CONFIG 0x1C: 0x00 -> 0x10\nACCEL_CONFIG 0x1C = 0x10  AFS_SEL=±8 g\n", ""))
        #expect(run(["regs", "set", "--simulate", "ACCEL_CONFIG", "XA_ST=1", "AFS_SEL=3"])
                == (0, "ACCEL_CONFIG 0x1C: 0x00 -> 0x98\nACCEL_CONFIG 0x1C = 0x98  XA_ST=1, AFS_SEL=±16 g\n", ""))
        #expect(run(["regs", "set", "--simulate", "--chip", "lsm6dso", "CTRL2_G", "ODR_G=208 Hz", "FS_G=3"])
                == (0, "CTRL2_G 0x11: 0x00 -> 0x5C\nCTRL2_G 0x11 = 0x5C  ODR_G=208 Hz, FS_G=±2000 dps\n", dsoWarning))
        // Waking the chip is a power bit: allowed with --force.
        #expect(run(["regs", "set", "--simulate", "PWR_MGMT_1", "SLEEP=0", "--force"])
                == (0, "PWR_MGMT_1 0x6B: 0x40 -> 0x00\nPWR_MGMT_1 0x6B = 0x00  CLKSEL=internal 8 MHz\n", ""))
    }

    @Test func refusalsHaveExactMessagesAndStatuses() {
        #expect(run(["regs", "set", "--simulate", "WHO_AM_I", "0x12"])
                == (1, "", "Error: WHO_AM_I (0x75) is read-only on the MPU-6050: the chip ignores writes.\nFix: only registers with access RW can be written: 'plumb regs dump --format json' lists each register's access\n"))
        #expect(run(["regs", "set", "--simulate", "ACCEL_CONFIG", "AFS_SEL=4"])
                == (64, "", "Error: The value '4' does not fit ACCEL_CONFIG.AFS_SEL: expected 0...3 (0 = ±2 g, 1 = ±4 g, 2 = ±8 g, 3 = ±16 g).\n" + setUsage))
        #expect(run(["regs", "set", "--simulate", "PWR_MGMT_1", "DEVICE_RESET=1"])
                == (1, "", "Error: writing PWR_MGMT_1 changes DEVICE_RESET (reset); refusing without --force.\n" + forceFix))
        #expect(run(["regs", "set", "--simulate", "--chip", "lsm6dso", "CTRL3_C", "SW_RESET=1"])
                == (1, "", dsoWarning + "Error: writing CTRL3_C changes SW_RESET (reset); refusing without --force.\n" + forceFix))
        #expect(run(["regs", "set", "--simulate", "--chip", "lsm6dsl", "CTRL4_C", "I2C_DISABLE=1"])
                == (1, "", "Error: writing CTRL4_C changes I2C_DISABLE (interface); refusing without --force.\n" + forceFix))
        #expect(run(["regs", "set", "--simulate", "0x01", "5"])
                == (1, "", "Error: 0x01 is not in the MPU-6050 register map (reserved or undocumented).\nFix: give a register name, or add --force to write the raw address anyway\n"))
        #expect(run(["regs", "set", "--simulate", "ACCEL_CONFIG", "FOO=1"])
                == (64, "", "Error: ACCEL_CONFIG has no field 'FOO': its fields are XA_ST, YA_ST, ZA_ST, AFS_SEL.\n" + setUsage))
        #expect(run(["regs", "get", "--simulate", "FOO"]).status == 64)
        #expect(run(["regs", "dump", "--chip", "mpu6050"]).err.hasPrefix("Error: '--chip' needs '--simulate'.\n"))
    }

    @Test func partOverrideAndAddress() {
        #expect(run(["regs", "get", "--simulate", "--chip", "icm20689", "--part", "mpu6050", "WHO_AM_I"])
                == (0, "WHO_AM_I 0x75 = 0x98  WHO_AM_I=152\n", "warning: WHO_AM_I 0x98 (ICM-20689) but driving it as MPU-6050 as requested\n"))
        #expect(run(["regs", "dump", "--simulate", "--address", "0x69"])
                == (1, "", "Error: no IMU answers at 0x69 on simulated bus, but MPU-6050 answers at 0x68\nFix: Give --address 0x68, or leave --address out: the address is found by probing.\n"))
    }

    @Test func resetWithForceStartsTheReset() {
        // The emulator holds DEVICE_RESET set while the reset runs (it then clears itself; see
        // EmulatorRegisterStateTests), exactly as the chip reads back.
        #expect(run(["regs", "set", "--simulate", "PWR_MGMT_1", "DEVICE_RESET=1", "--force"])
                == (0, "PWR_MGMT_1 0x6B: 0x40 -> 0xC0\nPWR_MGMT_1 0x6B = 0xC0  DEVICE_RESET=1, SLEEP=1, CLKSEL=internal 8 MHz\n", ""))
    }

    @Test func helpListsTheSubcommands() {
        let r = run(["regs", "--help"])
        #expect(r.status == 0)
        #expect(r.out.contains("dump"))
        #expect(r.out.contains("get"))
        #expect(r.out.contains("set"))
    }
}

@Suite struct RegsHelpTests {
    @Test func getHelpIsExact() {
        let parts = "mpu6050, mpu6000, mpu9150, mpu6500, mpu9250, mpu9255, mpu6515, icm20602, icm20608, icm20689, lsm6ds3, lsm6ds3h, lsm6ds33, lsm6ds3trc, lsm6dsl, lsm6dsm, ism330dlc, lsm6dso, lsm6dsox, lsm6dso32, lsm6dsr, ism330dhcx"
        let r = run(["regs", "get", "--help"])
        #expect(r.status == 0)
        #expect(r.err == "")
        #expect(r.out == """
            OVERVIEW: Read one register by name or address and decode it.

            Reads the register even when reading has a side effect (INT_STATUS clears, FIFO data pops).

            USAGE: plumb regs get [--bus <PATH>] [--address <ADDR>] [--part <NAME>] [--format <FORMAT>] [--simulate] [--chip <NAME>] <REG>

            ARGUMENTS:
              <REG>                   A datasheet name (ACCEL_CONFIG) or an address (0x1C).

            OPTIONS:
              --bus <PATH>            The I2C bus, such as /dev/i2c-1 or just 1 (default: the first bus with an IMU).
              --address <ADDR>        The chip's address, such as 0x68 (default: found by probing).
              --part <NAME>           Decode as this part whatever its WHO_AM_I says, unless it answers as another family's part (\(parts)).
              --format <FORMAT>       text or json. Default text.
              --simulate              Use an emulated chip (in its power-on state) instead of hardware.
              --chip <NAME>           The emulated part (\(parts)). Default mpu6050.
              -h, --help              Show help information.

            """)
    }
}

/// `plumb regs` reads a chip it does not own, possibly while plumbd or another program streams
/// from it. Finding the chip must not write to it: the MPU-9150 look (INT_PIN_CFG.I2C_BYPASS_EN
/// set and put back) is left out on a chip with INT_ENABLE or USER_CTRL.FIFO_EN set, as
/// `plumb probe` leaves it out (the same check, ``MPU6050/detect(whoAmI:registers:cached:leavingBusyChipsAlone:)``).
@Suite struct RegsLeavesAStreamingChipAloneTests {
    let mpu: I2CAddress = I2CAddress(0x68)

    /// Transfers that wrote a register of the chip at `address` (a write with data after the pointer).
    static func writes(_ trace: [I2CEvent]?, to address: I2CAddress) -> [[UInt8]] {
        (trace ?? []).filter { $0.address == address && $0.operations.count == 1 && $0.operations[0].direction == .write
                                && $0.operations[0].bytes.count > 1 }.map { $0.operations[0].bytes }
    }

    /// An emulated MPU-9150 that another driver streams from.
    static func streamingMPU9150() throws -> SimulatedSensor {
        let sensor = SimulatedSensor(model: try #require(SimulatedChips.model("mpu9150")))
        let other = try MPU6050(bus: sensor.bus, address: I2CAddress(0x68), clock: sensor.clock)
        _ = try other.identify()
        try other.reset()
        try other.apply(IMUConfiguration(outputDataRate: 100))
        try other.startStreaming()
        return sensor
    }

    @Test func dumpOnAStreamingMPU9150WritesNothing() throws {
        let sensor = try Self.streamingMPU9150()
        let chip = try #require(sensor.chip as? MPU6050Emulator)
        let reads = chip.magnetometer?.identityReads ?? -1
        let before = try sensor.bus.readRegister(0x37, address: mpu)
        sensor.bus.trace = []
        let context = CommandContext.capturing()
        let target = try Regs.target(bus: sensor.bus, address: nil, part: nil, clock: sensor.clock, simulation: sensor, context: context)
        let readings = try target.editor.dump()
        #expect(Self.writes(sensor.bus.trace, to: mpu) == [])
        #expect(sensor.bus.trace?.contains { $0.address == I2CAddress(0x0C) } == false)
        #expect(chip.magnetometer?.identityReads == reads)
        #expect(try sensor.bus.readRegister(0x37, address: mpu) == before)
        #expect(target.identity.partKey == "mpu6050")
        #expect(context.err.captured.hasPrefix("warning: WHO_AM_I 0x68 is an MPU-6050 or an MPU-9150, and the MPU-9150's AK8975 could not be looked for: the chip is in use (INT_ENABLE 0x01, USER_CTRL 0x40: another program streams from it), so nothing is written to it"))
        #expect(readings.contains { $0.name == "INT_ENABLE" && $0.value == 0x01 })
    }

    /// Idle (nothing streams from it), the chip is looked behind and named.
    @Test func anIdleMPU9150IsNamed() {
        let r = run(["regs", "dump", "--simulate", "--chip", "mpu9150"])
        #expect(r.status == 0)
        #expect(r.err == "")
        #expect(r.out.hasPrefix("MPU-9150 at 0x68 on simulated bus (WHO_AM_I 0x68)\n"))
    }
}
