/// An I2C adapter's functionality mask, as returned by the `I2C_FUNCS` ioctl.
///
/// Bit values from the kernel's `<linux/i2c.h>` (`I2C_FUNC_*`). `i2c-stub` reports 0x0c7f0000:
/// SMBus quick, byte, byte-data, word-data and I2C-block, but not `I2C_FUNC_I2C`.
///
/// The corresponding ioctl is `I2C_FUNCS`.
public struct I2CFunctionality: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Plain I2C messages and combined transfers (`I2C_RDWR`).
    public static let i2c = Self(rawValue: 0x0000_0001)
    public static let tenBitAddress = Self(rawValue: 0x0000_0002)
    public static let protocolMangling = Self(rawValue: 0x0000_0004)
    public static let smbusPEC = Self(rawValue: 0x0000_0008)
    public static let noStart = Self(rawValue: 0x0000_0010)
    public static let slave = Self(rawValue: 0x0000_0020)
    public static let smbusBlockProcessCall = Self(rawValue: 0x0000_8000)
    public static let smbusQuick = Self(rawValue: 0x0001_0000)
    public static let smbusReadByte = Self(rawValue: 0x0002_0000)
    public static let smbusWriteByte = Self(rawValue: 0x0004_0000)
    public static let smbusReadByteData = Self(rawValue: 0x0008_0000)
    public static let smbusWriteByteData = Self(rawValue: 0x0010_0000)
    public static let smbusReadWordData = Self(rawValue: 0x0020_0000)
    public static let smbusWriteWordData = Self(rawValue: 0x0040_0000)
    public static let smbusProcessCall = Self(rawValue: 0x0080_0000)
    public static let smbusReadBlockData = Self(rawValue: 0x0100_0000)
    public static let smbusWriteBlockData = Self(rawValue: 0x0200_0000)
    /// I2C-like block reads with a one-byte register address (at most 32 bytes).
    public static let smbusReadI2CBlock = Self(rawValue: 0x0400_0000)
    public static let smbusWriteI2CBlock = Self(rawValue: 0x0800_0000)
    public static let smbusHostNotify = Self(rawValue: 0x1000_0000)

    /// Each known bit with its kernel name, in bit order.
    public static let names: [(Self, String)] = [
        (.i2c, "I2C"), (.tenBitAddress, "10BIT_ADDR"), (.protocolMangling, "PROTOCOL_MANGLING"),
        (.smbusPEC, "SMBUS_PEC"), (.noStart, "NOSTART"), (.slave, "SLAVE"),
        (.smbusBlockProcessCall, "SMBUS_BLOCK_PROC_CALL"), (.smbusQuick, "SMBUS_QUICK"),
        (.smbusReadByte, "SMBUS_READ_BYTE"), (.smbusWriteByte, "SMBUS_WRITE_BYTE"),
        (.smbusReadByteData, "SMBUS_READ_BYTE_DATA"), (.smbusWriteByteData, "SMBUS_WRITE_BYTE_DATA"),
        (.smbusReadWordData, "SMBUS_READ_WORD_DATA"), (.smbusWriteWordData, "SMBUS_WRITE_WORD_DATA"),
        (.smbusProcessCall, "SMBUS_PROC_CALL"), (.smbusReadBlockData, "SMBUS_READ_BLOCK_DATA"),
        (.smbusWriteBlockData, "SMBUS_WRITE_BLOCK_DATA"), (.smbusReadI2CBlock, "SMBUS_READ_I2C_BLOCK"),
        (.smbusWriteI2CBlock, "SMBUS_WRITE_I2C_BLOCK"), (.smbusHostNotify, "SMBUS_HOST_NOTIFY"),
    ]

    /// The kernel names of the bits set, such as ["SMBUS_QUICK", "SMBUS_READ_BYTE", …].
    public var decoded: [String] {
        Self.names.filter { contains($0.0) }.map(\.1)
    }

    /// "0x0c7f0000".
    public var hexString: String {
        let digits = String(rawValue, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    /// "0x0c7f0000 (SMBUS_QUICK, SMBUS_READ_BYTE, …)".
    public var description: String {
        "\(hexString) (\(decoded.joined(separator: ", ")))"
    }
}
