// `plumb regs` over the real kernel path: an MPU-6050 register image seeded into i2c-stub at 0x68,
// identified by the MPU-6050 driver, dumped and decoded by the same RegisterEditor the CLI uses
// (LinuxI2CBus in SMBus mode: one read_byte_data per register), then a checked write.
//
// i2c-stub is a plain 256-byte register file, so the image is what the check writes: the
// MPU-6050's power-on state (RM-MPU-6000A-00 rev 4.2 §3: 0x00 except PWR_MGMT_1 0x40 and
// WHO_AM_I 0x68), then a configuration a driver would leave: 100 Hz, DLPF 44 Hz, ±2000 °/s,
// ±8 g, latched active-low interrupt, awake on the X-gyro PLL.
import PlumbHAL
import PlumbLinux
import PlumbDrivers

extension VMChecks {
    static let regs: [VMCheck] = [
        VMCheck(name: "regs.dump-mpu6050-image") { env in
            let bus = try LinuxI2CBus(bus: env.i2cBus)
            let a = env.stubAddresses[0]
            try seedMPU6050(bus, a)
            let imu = try MPU6050(bus: bus, address: a, clock: env.clock)
            let id = try imu.identify()
            try require(id.partKey == "mpu6050", "identified \(id.part) (\(id.partKey)) from WHO_AM_I \(hexByte(id.whoAmI))")
            guard let map = IMUFamilies.registerMap(forPart: id.partKey) else { throw CheckFailure("no register map for \(id.partKey)") }
            let editor = RegisterEditor(map: map, bus: bus, address: a)
            let lines = try editor.dump().map(\.text)
            try require(lines.count == 128, "dump has \(lines.count) lines, expected 128 (0x00...0x7F)")
            let expected = [
                "(unknown) 0x00 = 0x00",
                "SMPLRT_DIV 0x19 = 0x09  SMPLRT_DIV=9",
                "CONFIG 0x1A = 0x03  EXT_SYNC_SET=FSYNC input disabled, DLPF_CFG=44 / 42 Hz",
                "GYRO_CONFIG 0x1B = 0x18  FS_SEL=±2000 °/s",
                "ACCEL_CONFIG 0x1C = 0x10  AFS_SEL=±8 g",
                "INT_PIN_CFG 0x37 = 0xA0  INT_LEVEL=active low, INT_OPEN=push-pull, LATCH_INT_EN=held until cleared, INT_RD_CLEAR=cleared by reading INT_STATUS",
                "INT_ENABLE 0x38 = 0x01  DATA_RDY_EN=1",
                "INT_STATUS 0x3A  (not read: reading clears it)",
                "ACCEL_ZOUT_H 0x3F = 0x10",
                "PWR_MGMT_1 0x6B = 0x01  CLKSEL=PLL, X gyro reference",
                "FIFO_R_W 0x74  (not read: reading pops the FIFO)",
                "WHO_AM_I 0x75 = 0x68  WHO_AM_I=MPU-6050",
            ]
            for line in expected {
                try require(lines.contains(line), "dump lacks \"\(line)\"; lines near it: \(lines.filter { $0.hasPrefix(String(line.prefix(8))) })")
            }
            // Read-to-clear and FIFO registers must not be read: i2c-stub keeps what was seeded
            // either way, so count the transfers instead: 128 addresses, 3 left unread
            // (I2C_MST_STATUS and INT_STATUS clear on read, FIFO_R_W pops).
            let before = bus.statistics.transfers
            let unread = try editor.dump().filter { $0.value == nil }.map(\.address)
            let transfers = bus.statistics.transfers - before
            try require(unread == [0x36, 0x3A, 0x74], "unread \(unread.map(hexByte)), expected 0x36, 0x3a, 0x74")
            try require(transfers == 125, "a dump took \(transfers) transfers, expected 125 (one per address read)")
            return "\(id.part) image at \(a): 128 addresses decoded in \(transfers) reads"
        },

        VMCheck(name: "regs.set-read-modify-write") { env in
            let bus = try LinuxI2CBus(bus: env.i2cBus)
            let a = env.stubAddresses[0]
            try seedMPU6050(bus, a)
            let editor = RegisterEditor(map: MPU6050.registerMap(.mpu6050), bus: bus, address: a)
            let plan = try editor.plan(0x1C, ["AFS_SEL=±4 g", "XA_ST=1"], force: false) { () throws(I2CError) -> UInt8 in
                try bus.readRegister(0x1C, address: a)
            }
            try require(plan.before == 0x10 && plan.value == 0x88, "plan \(String(describing: plan.before)) -> \(plan.value), expected 0x10 -> 0x88")
            try editor.write(plan)
            let line = try editor.read(0x1C).text
            try require(line == "ACCEL_CONFIG 0x1C = 0x88  XA_ST=1, AFS_SEL=±4 g", "read back \"\(line)\"")
            do {
                _ = try editor.plan(0x6B, ["DEVICE_RESET=1"], force: false) { () throws(I2CError) -> UInt8 in try bus.readRegister(0x6B, address: a) }
                throw CheckFailure("DEVICE_RESET was planned without --force")
            } catch let error as RegisterEditError {
                try require(error == .needsForce(register: "PWR_MGMT_1", fields: ["DEVICE_RESET (reset)"]), "refusal \(error)")
            }
            let pwr = try bus.readRegister(0x6B, address: a)
            try require(pwr == 0x01, "PWR_MGMT_1 changed to \(hexByte(pwr)) by a refused write")
            return "ACCEL_CONFIG 0x10 -> 0x88 through read_byte_data/write_byte_data; DEVICE_RESET refused"
        },
    ]

    /// Writes the MPU-6050 image described at the top of this file at `a`.
    static func seedMPU6050(_ bus: LinuxI2CBus, _ a: I2CAddress) throws {
        for start in stride(from: 0, to: 0x80, by: 32) {
            try bus.write([UInt8(start)] + [UInt8](repeating: 0, count: 32), to: a)
        }
        let image: [(UInt8, UInt8)] = [
            (0x75, 0x68), (0x19, 0x09), (0x1A, 0x03), (0x1B, 0x18), (0x1C, 0x10), (0x37, 0xA0), (0x38, 0x01),
            (0x3A, 0x01), (0x3F, 0x10), (0x6B, 0x01),
        ]
        for (register, value) in image { try bus.writeRegister(register, value, address: a) }
    }
}
