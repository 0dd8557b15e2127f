/// Which chips a calibration may correct: the part it was made on, or one that answers as it.
///
/// A calibration holds one chip's own errors (its biases, its scale factors), so applying it to
/// another part makes the samples worse, not better: an MPU-6050's calibration applied to an
/// LSM6DSO turned its y rate of -0.0012 rad/s at rest into +0.0298. Every command that applies
/// a calibration (`plumb read --calibration`, `plumb run` and the commands on the board's IMU
/// through plumb.json's "calibration", `plumb calibrate --gyro-only` keeping an earlier file's
/// accelerometer part) asks ``Calibration/fits(_:)`` once the chip has been identified.
///
/// Parts that answer the same WHO_AM_I in the same family fit each other's calibrations, without
/// a word: detection cannot tell them apart, so the same chip may be named one or the other
/// from one start to the next (an MPU-6050 forced with `--part mpu6000`, or found as an MPU-9150
/// once its magnetometer answers, all 0x68; LSM6DSO, LSM6DSOX and LSM6DSO32 at 0x6C;
/// LSM6DS3TR-C, LSM6DSL, LSM6DSM and ISM330DLC at 0x6A; LSM6DS3, LSM6DS3H and LSM6DS33 at 0x69;
/// LSM6DSR and ISM330DHCX at 0x6B). Refusing there would refuse the chip the calibration was
/// made on. The WHO_AM_I the chip really answered counts too, so a clone driven as another row
/// (`--part mpu6050` on a chip answering 0x98) still fits a calibration made on the row its
/// identity names (ICM-20689). A calibration that names no part (written by hand) fits any chip:
/// there is nothing to compare.
extension Calibration {
    /// Whether this calibration may correct the samples of `chip` (see the discussion above).
    public func fits(_ chip: IMUIdentity) -> Bool { fits(partKey: chip.partKey, whoAmI: chip.whoAmI) }

    /// Whether this calibration may correct a chip driven as the part `partKey` that answered
    /// `whoAmI` (`nil` before the chip answered: `plumb config check` with `imu.part` named).
    public func fits(partKey: String, whoAmI: UInt8? = nil) -> Bool {
        guard let part, part != partKey.lowercased() else { return true }
        guard let made = IMUFamilies.row(forPart: part), let driven = IMUFamilies.row(forPart: partKey),
              made.family == driven.family else { return false }
        return made.whoAmI == driven.whoAmI || made.whoAmI == whoAmI
    }

    /// Refuses to correct `chip` with a calibration made on another part (``fits(_:)``).
    ///
    /// - Parameter file: the calibration's file, which the error names.
    /// - Throws: ``IMUError/calibrationForAnotherPart(file:madeOn:found:)``.
    public func check(fits chip: IMUIdentity, file: String) throws(IMUError) {
        guard let part, !fits(chip) else { return }
        throw .calibrationForAnotherPart(file: file, madeOn: part, found: chip)
    }
}

extension Calibration {
    /// A calibration checked again whenever the chip it corrects changes identity while the
    /// stream runs.
    ///
    /// The stream identifies the chip again at every re-initialisation (``IMUStream``: a board
    /// swapped hot, a clone back from a reset with another WHO_AM_I) and drives what it finds;
    /// a calibration checked only at the start would then correct another chip's samples with
    /// this one's biases and scales. A change of part or WHO_AM_I is checked as a start is
    /// (``Calibration/check(fits:file:)``), so the command that applies it refuses the chip as
    /// it would have at its start.
    public struct PartWatch: Sendable {
        public let calibration: Calibration
        /// The calibration's file, which the error names.
        public let file: String
        private var checked: (partKey: String, whoAmI: UInt8)?

        public init(_ calibration: Calibration, file: String) {
            self.calibration = calibration
            self.file = file
        }

        /// Checks `chip` when it is not the chip checked last (the first call always checks).
        ///
        /// - Throws: ``IMUError/calibrationForAnotherPart(file:madeOn:found:)``; the next call
        ///   with the same chip checks it again, so a refused chip is refused every time.
        public mutating func check(_ chip: IMUIdentity) throws(IMUError) {
            if let checked, checked.partKey == chip.partKey, checked.whoAmI == chip.whoAmI { return }
            checked = nil
            try calibration.check(fits: chip, file: file)
            checked = (chip.partKey, chip.whoAmI)
        }
    }
}
