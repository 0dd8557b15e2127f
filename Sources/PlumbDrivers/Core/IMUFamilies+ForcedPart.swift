import PlumbHAL

extension IMUFamilies {
    /// The part of another family that answers at `address`, for a driver told to drive a part
    /// (`--part`, `imu.part`) whose own WHO_AM_I named none of its family's parts.
    ///
    /// A forced part is meant for a clone whose WHO_AM_I is unknown, so such a value alone is no
    /// error. But the families' WHO_AM_I registers differ (0x75 on the MPU-6050 family, 0x0F on
    /// the LSM6DS family), and reading one family's register on the other's chip returns some
    /// other register's value: an MPU-6050's 0x0F is SELF_TEST_Z (factory trim, any value, 0x6D
    /// among them: the LSM6DST's WHO_AM_I), an LSM6DSO's 0x75 is Z_OFS_USR (0x00 after reset).
    /// Driving a chip of the other family with the wrong register map would name it wrongly and
    /// write registers it does not have, so each other family whose addresses include `address`
    /// has its own WHO_AM_I read; the first that names one of its parts is returned. The address
    /// sets are disjoint (the MPU-6050 family answers at 0x68/0x69, the LSM6DS family at
    /// 0x6A/0x6B), so a clone at its own family's address costs no extra read and cannot be
    /// mistaken by chance for a part of the other family.
    ///
    /// - Parameters:
    ///   - family: the forced part's family (``IMUFamily/name``), which is not read again.
    ///   - read: reads one register of the chip at `address`, as the driver reads it.
    /// - Returns: the identity found, or `nil` when no other family names a part there.
    /// - Throws: the failure of `read`.
    public static func partOfOtherFamily(besides family: String, address: I2CAddress, bus: String,
                                         read: (UInt8) throws(IMUError) -> UInt8) throws(IMUError) -> IMUIdentity? {
        for other in all where other.name != family && other.addresses.contains(address) {
            let value = try read(other.identityRegister)
            if let match = other.match(value) {
                return IMUIdentity(part: match.part, partKey: match.key, whoAmI: value, address: address, bus: bus,
                                   warnings: match.warnings)
            }
        }
        return nil
    }
}
