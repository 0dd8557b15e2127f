import PlumbHAL

/// The AK8975 magnetometer die of an MPU-9150, as far as the host can see it without measuring:
/// its identity and control registers in power-down mode.
///
/// Register map (AK8975 datasheet §8; Linux `ak8975.c` names): WIA 0x00 = 0x48 (read-only), INFO
/// 0x01, ST1 0x02, HXL…HZH 0x03–0x08, ST2 0x09 (read-only, zero: no measurement has been made),
/// CNTL 0x0A (MODE bits 3:0: 0 power-down, 1 single measurement, 8 self-test, 0xF fuse ROM
/// access), ASTC 0x0C (SELF bit 6), I2CDIS 0x0F, ASAX/ASAY/ASAZ 0x10–0x12 (the fuse ROM's
/// sensitivity adjustments, read as given only in fuse ROM access mode, zero otherwise). The
/// pointer auto-increments. A measurement request is not modelled: the data registers stay zero
/// and CNTL keeps the mode written. Plumb never reads the magnetometer; the die is here so that
/// detection can tell an MPU-9150 from an MPU-6050 (``MPU6050Emulator/magnetometer``).
public final class AK8975Emulator: RegisterTarget {
    /// Where the die answers on the MPU-9150's auxiliary bus (CAD0 = CAD1 = 0).
    public static let address: I2CAddress = I2CAddress(0x0C)
    /// WIA (0x00).
    public static let deviceID: UInt8 = 0x48

    public var registerPointer: UInt8 = 0
    /// CNTL (0x0A) MODE, bits 3:0.
    public private(set) var mode: UInt8 = 0
    /// ASTC (0x0C).
    public private(set) var selfTestControl: UInt8 = 0
    /// I2CDIS (0x0F).
    public private(set) var i2cDisable: UInt8 = 0
    /// The fuse ROM's ASAX, ASAY, ASAZ.
    public var sensitivityAdjustment: [UInt8]
    /// Host reads of WIA, for tests that count how often detection looked.
    public private(set) var identityReads = 0

    /// - Parameter sensitivityAdjustment: ASAX/ASAY/ASAZ. Default 0x80 each (a factor of 1.0:
    ///   `Hadj = H × ((ASA − 128) × 0.5 / 128 + 1)`).
    public init(sensitivityAdjustment: [UInt8] = [0x80, 0x80, 0x80]) {
        precondition(sensitivityAdjustment.count == 3, "ASAX, ASAY and ASAZ: three values")
        self.sensitivityAdjustment = sensitivityAdjustment
    }

    public func advance(to nanoseconds: UInt64) {}

    public func readRegister(_ address: UInt8) -> UInt8 {
        switch address {
        case 0x00:
            identityReads += 1
            return Self.deviceID
        case 0x0A: return mode
        case 0x0C: return selfTestControl
        case 0x0F: return i2cDisable
        case 0x10...0x12: return mode == 0x0F ? sensitivityAdjustment[Int(address - 0x10)] : 0
        default: return 0
        }
    }

    public func writeRegister(_ address: UInt8, _ value: UInt8) {
        switch address {
        case 0x0A: mode = value & 0x0F
        case 0x0C: selfTestControl = value & 0x40
        case 0x0F: i2cDisable = value
        default: break // read-only or reserved
        }
    }
}
