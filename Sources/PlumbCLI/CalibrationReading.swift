import Foundation
import PlumbConfiguration
import PlumbDrivers

extension Calibration {
    /// The calibration in `data`, the bytes of `file` (`--calibration`, plumb.json's
    /// "calibration", the file `plumb calibrate --gyro-only` writes over): every command reads
    /// one through here, so each says the same of the same file.
    ///
    /// The shape is checked by PlumbConfiguration's ``CalibrationFile`` (syntax errors with their
    /// line and column, "expected 3 numbers", an unknown key or part with the nearest known one);
    /// the mounting must be a rotation (``Mounting/init(matrix:)``) and every value plausible
    /// (``Calibration/implausibleValue``), each refusal placed at its key's value.
    /// Whether the calibration suits the chip is known only once the chip is:
    /// ``Calibration/check(fits:file:)`` when the sensor starts.
    ///
    /// Public for programs that run the IMU themselves (a robot's attitude loop over ``IMUStream``
    /// and a filter of PlumbFusion): they correct each sample with ``Calibration/apply(_:)``.
    ///
    /// - Throws: the first ``ConfigurationError`` found, in the compiler's `file:line:column:` form.
    public static func read(_ data: Data, file: String) throws(ConfigurationError) -> Calibration {
        let contents = try CalibrationFile.decode(data, file: file)
        let mounting: PlumbDrivers.Mounting
        do { mounting = try PlumbDrivers.Mounting(matrix: contents.mountingRows) } catch {
            throw contents.error("mounting.rows", error.description)
        }
        let calibration = Calibration(gyroscopeBias: contents.gyroscopeBias, accelerometerOffset: contents.accelerometerOffset,
                                      accelerometerScale: contents.accelerometerScale, mounting: mounting,
                                      part: contents.part, temperature: contents.temperature)
        if let (key, message) = calibration.implausibleValue { throw contents.error(key, message) }
        return calibration
    }
}
