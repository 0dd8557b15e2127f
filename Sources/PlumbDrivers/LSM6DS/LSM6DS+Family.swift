import PlumbHAL

extension LSM6DS {
    /// The LSM6DS family row of ``IMUFamilies``: 0x6A/0x6B, WHO_AM_I at 0x0F.
    ///
    /// A known ST part this driver does not speak (LSM6DSV, 0x70) is matched by name so `probe`
    /// lists it and opening it fails with the "not supported yet" reason from ``identify()``,
    /// rather than as an unknown chip.
    public static let family = IMUFamily(
        name: "LSM6DS family", addresses: [I2CAddress(UInt8(0x6A)), I2CAddress(UInt8(0x6B))], identityRegister: Register.whoAmI,
        parts: Variant.all.map { ($0.key, $0.name, $0.whoAmI) },
        match: { who in
            if let unsupported = unsupportedParts.first(where: { $0.whoAmI == who }), Variant.matching(whoAmI: who).isEmpty {
                return (unsupported.name, unsupported.key, ["not supported yet: \(unsupported.reason)"])
            }
            do {
                let id = try identity(whoAmI: who, address: I2CAddress(UInt8(0x6A)), bus: "")
                return (id.part, id.partKey, id.warnings)
            } catch {
                return nil // not an LSM6DS: the caller reports the value
            }
        },
        open: { bus, address, clock, part throws(IMUError) in try LSM6DS(bus: bus, address: address, clock: clock, partKey: part) })
}
