import Testing
import PlumbHAL
import PlumbDrivers
@testable import PlumbSimulation

/// The emulators answer as the chips do after power-on and after their reset bits, checked
/// through the same `RegisterEditor` that `plumb regs` uses, against the drivers' register maps.
@Suite struct EmulatorRegisterStateTests {
    static let chips = SimulatedChips.all.map(\.key)

    private func open(_ key: String) -> (SimulatedSensor, RegisterEditor) {
        let sensor = SimulatedSensor(model: SimulatedChips.model(key)!)
        let map = IMUFamilies.registerMap(forPart: key)!
        return (sensor, RegisterEditor(map: map, bus: sensor.bus, address: sensor.model.address))
    }

    /// Every described register that a dump reads holds its datasheet reset value (factory-
    /// programmed ones excepted); every undescribed address reads 0.
    private func expectPowerOnState(_ editor: RegisterEditor, _ key: String) throws {
        for r in try editor.dump() {
            guard let value = r.value else { continue }
            if let row = editor.map[r.address] {
                // Factory codes are the part's own; measured outputs and status change as soon
                // as a sensor runs (the MPU-6500 generation powers up awake).
                if row.isFactoryProgrammed || (row.access == .readOnly && row.name != "WHO_AM_I") { continue }
                #expect(value == row.resetValue, "\(key) \(row.name) 0x\(registerHex(r.address)) = 0x\(registerHex(value)), datasheet 0x\(registerHex(row.resetValue))")
            } else {
                #expect(value == 0, "\(key) undescribed 0x\(registerHex(r.address)) = 0x\(registerHex(value))")
            }
        }
    }

    @Test(arguments: chips) func powerOnValuesAreTheDatasheetResetValues(_ key: String) throws {
        let (_, editor) = open(key)
        try expectPowerOnState(editor, key)
    }

    @Test func handWrittenResetValues() throws {
        // Written out by hand from the datasheets so a wrong table entry is caught here.
        let expected: [(String, UInt8, UInt8)] = [
            ("mpu6050", 0x6B, 0x40), ("mpu6050", 0x75, 0x68), ("mpu6050", 0x1A, 0x00),   // RM-MPU-6000A-00 rev 4.2 §3
            ("mpu9250", 0x6B, 0x01), ("mpu9250", 0x75, 0x71), ("mpu9250", 0x1A, 0x00),   // RM-MPU-9250A-00 rev 1.4 §3
            ("icm20602", 0x6B, 0x41), ("icm20602", 0x1A, 0x80), ("icm20602", 0x75, 0x12), // ICM-20602 register map
            ("lsm6ds3", 0x12, 0x04), ("lsm6ds3", 0x18, 0x38), ("lsm6ds3", 0x19, 0x38), ("lsm6ds3", 0x0F, 0x69),
            ("lsm6dsl", 0x12, 0x04), ("lsm6dsl", 0x18, 0xE0), ("lsm6dsl", 0x0F, 0x6A),
            ("lsm6dso", 0x02, 0x3F), ("lsm6dso", 0x12, 0x04), ("lsm6dso", 0x18, 0xE0), ("lsm6dso", 0x0F, 0x6C),
        ]
        for (key, register, value) in expected {
            let (_, editor) = open(key)
            #expect(try editor.read(register).value == value, "\(key) 0x\(registerHex(register))")
        }
    }

    @Test(arguments: chips) func whoAmIIsReadOnly(_ key: String) throws {
        let (sensor, editor) = open(key)
        let who = editor.map.address("WHO_AM_I")
        let before = try editor.read(who).value
        try sensor.bus.writeRegister(who, 0x00, address: editor.address)
        #expect(try editor.read(who).value == before)
        #expect(throws: RegisterEditError.readOnly("WHO_AM_I", address: who, part: editor.map.name, access: .readOnly)) {
            _ = try editor.plan(who, ["0x00"], force: true) { () throws(I2CError) -> UInt8 in 0 }
        }
    }

    /// Writes every plain read/write register, sets the reset bit, and expects the power-on state
    /// back with the reset bit cleared by itself.
    @Test(arguments: chips) func resetBitRestoresPowerOnStateAndClears(_ key: String) throws {
        let (sensor, editor) = open(key)
        let isMPU = MPU6050.variant(named: key) != nil
        let resetRegister = isMPU ? "PWR_MGMT_1" : "CTRL3_C"
        let resetField = isMPU ? "DEVICE_RESET" : "SW_RESET"
        // Registers with side effects on the emulator's sampling or bank are left alone.
        let skip: Set<String> = ["PWR_MGMT_1", "PWR_MGMT_2", "CTRL3_C", "CTRL4_C", "FUNC_CFG_ACCESS", "USER_CTRL", "SIGNAL_PATH_RESET",
                                 "FIFO_R_W", "TIMESTAMP2_REG", "CTRL1_XL", "CTRL2_G", "CTRL10_C", "FIFO_CTRL5", "FIFO_CTRL4", "TAP_CFG"]
        var written = 0
        for row in editor.map.registers where row.access == .readWrite && !row.isFactoryProgrammed && !skip.contains(row.name) {
            try sensor.bus.writeRegister(row.address, row.resetValue ^ 0x01, address: editor.address)
            #expect(try editor.read(row.address).value == row.resetValue ^ 0x01, "\(key) \(row.name) did not keep a write")
            written += 1
        }
        #expect(written > 10)
        let reset = editor.map.field(resetRegister, resetField)
        let plan = try editor.plan(reset.address, ["\(resetField)=1"], force: true) { () throws(I2CError) -> UInt8 in
            try sensor.bus.readRegister(reset.address, address: editor.address)
        }
        #expect(plan.triggersReset)
        try editor.write(plan)
        sensor.clock.advance(by: 20 * Nanoseconds.perMillisecond)
        let after = try editor.read(reset.address).value ?? 0
        #expect(after & reset.mask == 0, "\(key) \(resetRegister).\(resetField) did not clear itself")
        try expectPowerOnState(editor, key)
    }

    @Test func mpuSignalPathResetClearsItselfAndKeepsTheSensorRegisters() throws {
        let (sensor, editor) = open("mpu6050")
        try sensor.bus.writeRegister(0x6B, 0x01, address: editor.address) // wake: samples flow
        sensor.clock.advance(by: 20 * Nanoseconds.perMillisecond)
        let accelZ = try editor.read(0x3F).value
        #expect(accelZ != 0)
        let chip = sensor.chip as! MPU6050Emulator
        chip.scheduledResets = []
        try sensor.bus.writeRegister(0x68, 0x07, address: editor.address)
        // RM-MPU-6000A-00 rev 4.2 §4.26: "does not clear the sensor registers" (1 g at ±2 g is 0x40xx).
        #expect((0x3E...0x40).contains(chip.registers[0x3F]))
        #expect(try editor.read(0x68).value == 0)
    }

    @Test(arguments: chips) func setThenDumpRoundTrips(_ key: String) throws {
        let (sensor, editor) = open(key)
        let isMPU = MPU6050.variant(named: key) != nil
        let (register, assignments, expectedText): (String, [String], String) = isMPU
            ? ("ACCEL_CONFIG", ["AFS_SEL=±8 g"], "ACCEL_CONFIG 0x1C = 0x10  AFS_SEL=±8 g")
            : ("CTRL1_XL", ["FS_XL=8g", "ODR_XL=4"], "CTRL1_XL 0x10 = 0x4C  ODR_XL=104 Hz, FS_XL=±8 g")
        let address = try editor.resolve(register)
        let plan = try editor.plan(address, assignments, force: false) { () throws(I2CError) -> UInt8 in
            try sensor.bus.readRegister(address, address: editor.address)
        }
        try editor.write(plan)
        let dump = try editor.dump()
        let line = try #require(dump.first { $0.address == address }).text
        if key == "lsm6ds3" || key == "lsm6ds3h" || key == "lsm6ds33" {
            #expect(line == expectedText + ", BW_XL=400 Hz")
        } else {
            #expect(line == expectedText)
        }
        // No other writable register moved.
        let (_, fresh) = open(key)
        let reference = try fresh.dump()
        for (a, b) in zip(dump, reference) where a.address != address && editor.map[a.address]?.access == .readWrite {
            #expect(a.value == b.value, "\(key) 0x\(registerHex(a.address)) changed")
        }
    }
}
