/// Every check the VM test runs, in order.
///
/// To add checks: create a file `<Area>Checks.swift` here with
/// `extension VMChecks { static let area: [VMCheck] = [VMCheck(name: "area.what") { env in ...; return "detail" }] }`
/// and append `area` below. See scripts/vm-test for adding kernel modules or guest setup.
enum VMChecks {
    static var all: [VMCheck] {
        i2c + claim + gpio + mpu6050 + lsm6ds + display + regs
    }
}
