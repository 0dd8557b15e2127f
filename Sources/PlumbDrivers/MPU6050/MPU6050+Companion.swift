import PlumbHAL

/// Telling an MPU-9150 from an MPU-6050: both answer WHO_AM_I 0x68, but the MPU-9150 carries an
/// AK8975 magnetometer die on its auxiliary I2C bus.
///
/// | Fact | Source |
/// |---|---|
/// | With INT_PIN_CFG.I2C_BYPASS_EN = 1 and USER_CTRL.I2C_MST_EN = 0 the host reaches the auxiliary bus directly | MPU-6000/MPU-6050 Register Map rev 4.2, register 55 (the MPU-9150 holds an MPU-6050 die) |
/// | The bypass is an analog switch; it needs setting once, not per transfer, and holds while the chip sleeps (the kernel sets it, then powers the chip down, and reaches the magnetometer through it afterwards) | Linux commit "iio: imu: inv_mpu6050: enable i2c aux mux bypass only once" (J.-B. Maneyrol, InvenSense, 2020) |
/// | The AK8975 answers at 0x0C–0x0F by CAD1/CAD0; inside the MPU-9150 at 0x0C | AK8975 datasheet address table, as Zephyr's `CONFIG_AK8975_I2C_ADDR` help quotes it ("If the AK8975 sensor is part of a MPU9150 chip, the I2C address needs to be 0x0C") |
/// | WIA (0x00) reads 0x48 | AK8975 datasheet register map; Linux `ak8975.c` `AK8975_REG_WIA`, `AK8975_DEVICE_ID` |
///
/// The AK8963 of an MPU-9250 also reads 0x48, but that part answers WHO_AM_I 0x71 and never
/// gets here. The probe runs on the chip as identify finds it, possibly asleep (its power-on
/// state); register writes are taken while asleep (i2cdevlib's `MPU6050::initialize` sets the
/// clock and ranges before clearing SLEEP), which was not checked on an MPU-9150 here.
/// Boards such as the GY-87 hang other magnetometers on an MPU-6050's auxiliary bus
/// (HMC5883L at 0x1E, QMC5883L at 0x0D): they are not at 0x0C, so they do not count.
extension MPU6050 {
    /// A die on the auxiliary I2C bus that marks a part: where it answers through the bypass and
    /// what its identity register reads.
    public struct CompanionDie: Sendable, Equatable, Hashable {
        /// As the vendor writes it: "AK8975".
        public var part: String
        /// Its 7-bit address on the auxiliary bus (and so on the host bus through the bypass).
        public var address: UInt8
        /// Its identity register.
        public var identityRegister: UInt8
        /// What the identity register reads.
        public var identity: UInt8

        public init(part: String, address: UInt8, identityRegister: UInt8, identity: UInt8) {
            self.part = part; self.address = address; self.identityRegister = identityRegister; self.identity = identity
        }

        /// The MPU-9150's AK8975: 0x0C, WIA (0x00) = 0x48 (see the table above).
        public static let ak8975 = CompanionDie(part: "AK8975", address: 0x0C, identityRegister: 0x00, identity: 0x48)
    }

    /// What ``detectCompanion(_:registers:)`` found.
    public enum CompanionProbe: Sendable, Equatable {
        /// The die answered its identity at its address with the bypass on, and nothing answered
        /// there with the bypass off: it sits behind this chip.
        case found
        /// Nothing answered at the address with the bypass on (or something answered another
        /// identity): a part without the die.
        case absent
        /// Something answers at the address with the bypass off: a chip on the host's own bus,
        /// not behind this one, so the address says nothing about this part.
        case occupied
        /// The probe could not tell (a bus error, the auxiliary I2C master on): the reason.
        case undetermined(String)

        /// Whether the probe told (every case but ``undetermined(_:)``).
        public var told: Bool {
            if case .undetermined = self { return false }
            return true
        }
    }

    /// Looks for `die` behind the chip at `registers.address`, leaving INT_PIN_CFG as it found it.
    ///
    /// 1. Read INT_PIN_CFG and USER_CTRL. With USER_CTRL.I2C_MST_EN set the bypass cannot join
    ///    the buses: undetermined.
    /// 2. Bypass off (cleared first if it was on): read one byte at the die's address, with no
    ///    register-pointer write (a chip of the user's own there is sent nothing). Anything
    ///    answering there is on the host's bus: ``CompanionProbe/occupied``.
    /// 3. Bypass on: read the die's identity register. The die's identity is ``CompanionProbe/found``; no answer,
    ///    or another value, is ``CompanionProbe/absent``.
    /// 4. Write INT_PIN_CFG back as it was read.
    ///
    /// Both reads at the die's address go through ``IMUFamilies/probeRead(_:_:)``, as the
    /// probe's identity reads do: an address that is not acknowledged counts as empty whether the
    /// adapter says ENXIO, ENODEV (i2c-stub) or, on every one of ``IMUFamilies/probeAttempts``
    /// tries, EREMOTEIO (the Raspberry Pi's `i2c-bcm2835` and `i2c-designware` report an address
    /// NACK so). EREMOTEIO is also a passing fault, and one passing fault would otherwise name an
    /// MPU-9150 an MPU-6050 (or, with the bypass off, make a stand-alone AK8975 look like it sits
    /// behind the chip); the first look has no earlier answer to fall back on
    /// (``MPU6050/identify()`` settles later ones). EPROTO (the kernel's fault codes: the target
    /// did not keep to the protocol, so something answered), EIO (on `i2c-bcm2835` a
    /// clock-stretch timeout: something held the clock) and any other failure make the probe
    /// undetermined; none is thrown, so a start never fails here.
    ///
    /// Four to six transfers to the chip and two reads at the die's address, once per
    /// ``MPU6050/identify()`` that needs it. The tries of those reads are the bus's where the bus
    /// retries: on a Pi (`LinuxI2CBus`, three tries 1 ms then 2 ms apart) an MPU-6050's identify
    /// makes 6 transfers at 0x0C and waits 6 ms; on a bus that does not retry (the emulator) the
    /// driver makes the three tries itself, without waiting.
    ///
    /// - Parameter registers: register access to the MPU; the die's reads go over the same bus
    ///   to the die's address (``I2CBus`` takes an address per transfer).
    public static func detectCompanion(_ die: CompanionDie, registers: RegisterAccess) -> CompanionProbe {
        let pinConfig: UInt8, userControl: UInt8
        do {
            pinConfig = try registers.readRegister(Register.intPinConfig)
            userControl = try registers.readRegister(Register.userControl)
        } catch {
            return .undetermined("reading INT_PIN_CFG and USER_CTRL failed: \(error)")
        }
        if userControl & Bits.userI2CMaster != 0 {
            return .undetermined("its auxiliary I2C master is on (USER_CTRL.I2C_MST_EN), so the \(die.part) cannot be reached through the bypass")
        }
        let bypassOff = pinConfig & ~Bits.i2cBypass
        var outcome: CompanionProbe
        do {
            if pinConfig != bypassOff { try registers.writeRegister(Register.intPinConfig, bypassOff) }
            let bypassOffRead = acknowledges(die, bus: registers.bus)
            switch bypassOffRead.read {
            case .answered:
                outcome = .occupied
            case .failed(let error):
                outcome = .undetermined("\(bypassOffRead.what) failed: \(error)")
            case .nothingAnswers:
                try registers.writeRegister(Register.intPinConfig, bypassOff | Bits.i2cBypass)
                let identityRead = readIdentity(die, bus: registers.bus)
                switch identityRead.read {
                case .answered(let value): outcome = value == die.identity ? .found : .absent
                case .nothingAnswers: outcome = .absent
                case .failed(let error): outcome = .undetermined("\(identityRead.what) failed: \(error)")
                }
            }
        } catch {
            outcome = .undetermined("setting INT_PIN_CFG.I2C_BYPASS_EN failed: \(error)")
        }
        do {
            try registers.writeRegister(Register.intPinConfig, pinConfig)
        } catch {
            return .undetermined("INT_PIN_CFG could not be written back to 0x\(hex(pinConfig)) (\(error)); I2C_BYPASS_EN may be left set")
        }
        return outcome
    }

    /// Whether anything answers at the die's address on the host's bus, by a one-byte read with no
    /// register-pointer write: a chip of the user's own there (not behind this one) is sent nothing,
    /// as `i2cdetect -r` probes (a one-byte write is a command to some chips). An adapter without
    /// that transfer (EOPNOTSUPP: an SMBus adapter without "receive byte") gets the identity
    /// register read instead, as before.
    private static func acknowledges(_ die: CompanionDie, bus: any I2CBus) -> (read: ProbeRead, what: String) {
        let address = I2CAddress(die.address)
        let read = IMUFamilies.probeRead(bus) { () throws(I2CError) -> UInt8 in
            var operations: [I2COperation] = [.read(count: 1)]
            try bus.transfer(&operations, address: address)
            return operations[0].bytes.first ?? 0
        }
        if case .failed(let error) = read, error.kind == .unsupported { return readIdentity(die, bus: bus) }
        return (read, "reading a byte at \(address), where the \(die.part) answers,")
    }

    private static func readIdentity(_ die: CompanionDie, bus: any I2CBus) -> (read: ProbeRead, what: String) {
        let address = I2CAddress(die.address)
        let read = IMUFamilies.probeRead(bus) { () throws(I2CError) -> UInt8 in
            try bus.readRegister(die.identityRegister, address: address)
        }
        return (read, "reading \(die.part) register 0x\(hex(die.identityRegister)) at \(address)")
    }

    /// The row for `whoAmI` with its warnings, after looking for the companion die of a later row
    /// that answers the same WHO_AM_I (``Variant/companion``): the MPU-9150 found behind 0x68.
    ///
    /// `probe` is the outcome, `nil` when no row needed one (every WHO_AM_I but 0x68, and the
    /// clone IDs). An undetermined probe keeps the first row and says so in a warning, naming
    /// `--part`; an occupied address keeps it silently (another chip on the bus is no fault).
    /// - Parameter cached: an earlier outcome to reuse instead of probing again.
    /// - Parameter leavingBusyChipsAlone: for `plumb probe` (``IMUFamilies/probe(_:refiningWith:leavingAlone:)``)
    ///   and `plumb regs` (``MPU6050/leavesBusyChipsAlone``), which may run while another program
    ///   streams from the chip: a chip with INT_ENABLE set or
    ///   USER_CTRL.FIFO_EN on (what ``MPU6050/startStreaming()`` sets and
    ///   ``MPU6050/stopStreaming()`` clears) is not looked behind, so nothing is written to it;
    ///   the outcome is undetermined, with a warning that says why.
    public static func detect(whoAmI: UInt8, registers: RegisterAccess, cached: CompanionProbe? = nil,
                              leavingBusyChipsAlone: Bool = false) -> (variant: Variant, warnings: [String], probe: CompanionProbe?)? {
        guard let match = variant(whoAmI: whoAmI) else { return nil }
        guard match.warnings.isEmpty, match.variant.whoAmI == whoAmI,
              let twin = variants.first(where: { $0.whoAmI == whoAmI && $0.key != match.variant.key && $0.companion != nil }),
              let die = twin.companion else {
            return (match.variant, match.warnings, nil)
        }
        var busy: CompanionProbe?
        if cached == nil, leavingBusyChipsAlone {
            do {
                let interrupts = try registers.readRegister(Register.intEnable)
                let user = try registers.readRegister(Register.userControl)
                if interrupts != 0 || user & Bits.userFIFOEnable != 0 {
                    busy = .undetermined("the chip is in use (INT_ENABLE 0x\(hex(interrupts)), USER_CTRL 0x\(hex(user)): another program streams from it), so nothing is written to it; stop that program and run this again")
                }
            } catch {
                busy = .undetermined("reading INT_ENABLE and USER_CTRL failed: \(error)")
            }
        }
        let probe = cached ?? busy ?? detectCompanion(die, registers: registers)
        switch probe {
        case .found:
            return (twin, [], probe)
        case .absent, .occupied:
            return (match.variant, [], probe)
        case .undetermined(let reason):
            let warning = "WHO_AM_I 0x\(hex(whoAmI)) is an \(match.variant.part) or an \(twin.part), and the \(twin.part)'s \(die.part) "
                + "could not be looked for: \(reason); driving it as \(match.variant.part) (pass --part \(twin.key) if it is an \(twin.part))"
            return (match.variant, [warning], probe)
        }
    }
}
