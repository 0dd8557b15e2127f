extension MPU6050 {
    /// A register generation: which map and which self-test method.
    public enum Generation: String, Sendable, Equatable, Hashable {
        /// MPU-6050, MPU-6000, MPU-9150: accel offsets at 0x06 (2-byte stride), self-test codes
        /// in 0x0D–0x10, no ACCEL_CONFIG_2.
        case mpu6050
        /// MPU-6500, MPU-9250, MPU-9255, MPU-6515: accel offsets at 0x77 (3-byte stride),
        /// self-test OTP codes in 0x00–0x02 / 0x0D–0x0F, ACCEL_CONFIG_2.
        case mpu6500
        /// ICM-20602, ICM-20608, ICM-20689: the MPU-6500 layout for every register used here.
        case icm
    }

    /// One row of the variant table: everything that differs between parts.
    ///
    /// Facts from the Linux driver `inv_mpu6050` (`inv_mpu_iio.h` WHO_AM_I values, `hw_info`
    /// FIFO sizes and temperature offset/scale, `inv_mpu6050_init_config` signal-path reset list),
    /// cited per field.
    public struct Variant: Sendable, Equatable, Hashable {
        /// The `--part`/`--chip` name: "mpu6050".
        public var key: String
        /// As the vendor writes it: "MPU-6050".
        public var part: String
        /// The kernel's device-tree compatible string, "invensense,mpu6050".
        public var compatible: String
        /// WHO_AM_I (0x75).
        public var whoAmI: UInt8
        public var generation: Generation
        /// FIFO size in bytes (`hw_info.fifo_size`), with ``fifoSizeSelect`` written.
        public var fifoSize: Int
        /// ACCEL_CONFIG_2 (0x1D) FIFO_SIZE bits 7:6 the part needs for ``fifoSize``; 0 on parts
        /// without the field. The ICM-20689 has a 512-byte FIFO until FIFO_SIZE = 3 selects 4 KB
        /// (00 = 512 B, 01 = 1 KB, 10 = 2 KB, 11 = 4 KB: the IAM-20680HT register map, the same
        /// field); the Linux driver ORs `INV_ICM20689_BITS_FIFO_SIZE_MAX` (0xC0) into ACCEL_CONFIG_2
        /// for it ("set FIFO size to maximum value", `inv_mpu6050_set_lpf_regs`).
        public var fifoSizeSelect: UInt8
        /// Temperature sensitivity, LSB per °C.
        public var temperatureSensitivity: Double
        /// Temperature at raw value 0, °C.
        public var temperatureOffset: Double
        /// Whether the kernel writes SIGNAL_PATH_RESET after H_RESET for this part.
        public var signalPathResetAfterReset: Bool
        /// The temperature must be in every FIFO record (ICM-20602, `inv_icm20602_scan_masks`).
        public var temperatureInFIFORequired: Bool
        /// Engine start-up times in milliseconds (`INV_MPU6050_ACCEL_UP_TIME` and friends).
        public var accelerometerStartupMilliseconds: Int
        public var gyroscopeStartupMilliseconds: Int
        /// The second die on the part's auxiliary I2C bus by which detection tells it apart from
        /// an earlier row with the same WHO_AM_I (the MPU-9150's AK8975); `nil` on every other
        /// row. See ``MPU6050/CompanionDie``.
        public var companion: CompanionDie? = nil

        /// The address of XA_OFFS_H and the distance between axes.
        ///
        /// The MPU-6500 generation uses a 3-byte stride: XA_OFFSET_H/L at 0x77/0x78, YA at
        /// 0x7A/0x7B, ZA at 0x7D/0x7E (MPU-9250 Register Map RM-MPU-9250A-00 rev 1.4, §3 Table 1
        /// and §4.39, "Registers 119, 120, 122, 123, 125, 126"). The Linux driver's
        /// `0x77 + axis * 2` is wrong for Y and Z on these parts; i2cdevlib (PR #455) agrees
        /// with the register map. The MPU-6050 generation packs them at 0x06/0x08/0x0A.
        public var accelerometerOffsetRegister: UInt8 { generation == .mpu6050 ? 0x06 : 0x77 }
        public var accelerometerOffsetStride: UInt8 { generation == .mpu6050 ? 2 : 3 }

        /// The register map of this part's generation.
        public var registerMap: RegisterMap { MPU6050.registerMap(generation, whoAmI: whoAmI, part: part) }

        /// Whether INT_PIN_CFG.INT_RD_CLEAR is set: any register read then clears INT_STATUS and a
        /// latched pin. Only on the MPU-9150, as Linux `inv_mpu_core_probe` ("Acking interrupts by
        /// status register does not work reliably but seem to work when this bit is set"); every
        /// other part is acknowledged by the INT_STATUS read that starts each drain.
        ///
        /// With the bit set, every byte of a FIFO burst clears a latched pin and every sample taken
        /// during the burst raises it again: an edge (a GPIO interrupt on the host) per sample
        /// read during the burst instead of one per drain. Byte-timed emulation showed it: an
        /// MPU-6500 at 500 Hz, watermark 16, gave 464 edges in 5 s for 155 drains, 160 without it.
        public var acknowledgesOnAnyRead: Bool { key == "mpu9150" }

        /// Converts a raw temperature to °C.
        public func temperature(raw: Int16) -> Double { Double(raw) / temperatureSensitivity + temperatureOffset }
    }

    /// Every supported part. Detection takes the first row whose WHO_AM_I matches, so the
    /// MPU-6050 row comes before the MPU-6000 and MPU-9150 rows that share 0x68; a driver that
    /// can reach the bus then looks for a later row's ``Variant/companion`` die (the MPU-9150's
    /// magnetometer, ``MPU6050/detectCompanion(_:registers:)``). The MPU-6000 has no such mark
    /// (it differs by its SPI interface) and is driven as an MPU-6050 unless named.
    public static let variants: [Variant] = [
        row("mpu6050", "MPU-6050", 0x68, .mpu6050, fifo: 1024, temp: 340, 36.53, signalPathReset: false, startup: (20, 60)),
        row("mpu6000", "MPU-6000", 0x68, .mpu6050, fifo: 1024, temp: 340, 36.53, signalPathReset: true, startup: (20, 60)),
        row("mpu9150", "MPU-9150", 0x68, .mpu6050, fifo: 1024, temp: 340, 36.53, signalPathReset: false, startup: (20, 60),
            companion: .ak8975),
        row("mpu6500", "MPU-6500", 0x70, .mpu6500, fifo: 512, temp: 333.87, 21, signalPathReset: true, startup: (30, 70)),
        row("mpu9250", "MPU-9250", 0x71, .mpu6500, fifo: 512, temp: 333.87, 21, signalPathReset: true, startup: (30, 70)),
        row("mpu9255", "MPU-9255", 0x73, .mpu6500, fifo: 512, temp: 333.87, 21, signalPathReset: true, startup: (30, 70)),
        row("mpu6515", "MPU-6515", 0x74, .mpu6500, fifo: 512, temp: 333.87, 21, signalPathReset: true, startup: (30, 70)),
        row("icm20602", "ICM-20602", 0x12, .icm, fifo: 1008, temp: 326.8, 25, signalPathReset: false, startup: (20, 100), tempInFIFO: true),
        row("icm20608", "ICM-20608", 0xAF, .icm, fifo: 512, temp: 326.8, 25, signalPathReset: false, startup: (30, 70)),
        row("icm20689", "ICM-20689", 0x98, .icm, fifo: 4096, temp: 326.8, 25, signalPathReset: false, startup: (30, 70), fifoSizeSelect: 0xC0),
    ]

    private static func row(_ key: String, _ part: String, _ who: UInt8, _ generation: Generation, fifo: Int,
                            temp sensitivity: Double, _ offset: Double, signalPathReset: Bool,
                            startup: (Int, Int), tempInFIFO: Bool = false, fifoSizeSelect: UInt8 = 0,
                            companion: CompanionDie? = nil) -> Variant {
        Variant(key: key, part: part, compatible: "invensense,\(key)", whoAmI: who, generation: generation, fifoSize: fifo,
                fifoSizeSelect: fifoSizeSelect,
                temperatureSensitivity: sensitivity, temperatureOffset: offset, signalPathResetAfterReset: signalPathReset,
                temperatureInFIFORequired: tempInFIFO, accelerometerStartupMilliseconds: startup.0, gyroscopeStartupMilliseconds: startup.1,
                companion: companion)
    }

    /// A WHO_AM_I value seen on boards in the wild that is not (only) the part the board is sold as.
    public struct CloneNote: Sendable, Equatable {
        public var whoAmI: UInt8
        /// The row used to drive it.
        public var driveAs: String
        /// What to tell the user.
        public var warning: String
    }

    /// Clone and mislabelled IDs: accepted, with a warning that says what the chip is.
    ///
    /// - 0x98: 13 of 20 "MPU-6050" modules in ElectronicCats/mpu6050#21; the ICM-20689's ID.
    /// - 0x72: no InvenSense part answers 0x72 (Levi--G/IMU-WhoAmIVerifier#1); driven with the
    ///   MPU-6050 map, the common subset of the family.
    /// - 0x70: "MPU-6050"/"MPU-9250" boards carrying an MPU-6500 (adafruit/Adafruit_MPU6050#47,
    ///   Klipper3d/klipper#5871, bolderflight/invensense-imu#51).
    public static let cloneNotes: [CloneNote] = [
        CloneNote(whoAmI: 0x98, driveAs: "icm20689",
                  warning: "WHO_AM_I 0x98 is an ICM-20689-compatible chip (often sold as MPU-6050); driving it as ICM-20689"),
        CloneNote(whoAmI: 0x72, driveAs: "mpu6050",
                  warning: "WHO_AM_I 0x72 is no InvenSense part (a clone sold as MPU-6050); driving it with the MPU-6050 register map"),
        CloneNote(whoAmI: 0x70, driveAs: "mpu6500",
                  warning: "WHO_AM_I 0x70 is an MPU-6500 (boards sold as MPU-6050 or MPU-9250 often carry one; it has no magnetometer)"),
    ]

    /// The row for a `--part` name, or `nil`.
    public static func variant(named key: String) -> Variant? {
        variants.first { $0.key == key.lowercased() }
    }

    /// The row and any warnings for a WHO_AM_I value, or `nil` when it is no known part or clone.
    public static func variant(whoAmI: UInt8) -> (variant: Variant, warnings: [String])? {
        let note = cloneNotes.first { $0.whoAmI == whoAmI }
        if let note, let v = variant(named: note.driveAs) { return (v, [note.warning]) }
        if let v = variants.first(where: { $0.whoAmI == whoAmI }) { return (v, []) }
        return nil
    }

    /// Every WHO_AM_I value the driver accepts, in table order.
    public static var acceptedIdentities: [UInt8] {
        var seen: [UInt8] = []
        for v in variants.map(\.whoAmI) + cloneNotes.map(\.whoAmI) where !seen.contains(v) { seen.append(v) }
        return seen
    }
}
