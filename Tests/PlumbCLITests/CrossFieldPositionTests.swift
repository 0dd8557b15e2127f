import Foundation
import Testing
import PlumbConfiguration
import PlumbDrivers
@testable import PlumbCLI

/// The checks that weigh one setting against another after plumb.json is decoded name the line and
/// column as the decoder's own errors do; and the LSM6DS family's top rate is refused as the
/// MPU-6050 family's is, by the driver, so every command and `plumb config check` agree.
@Suite struct CrossFieldPositionTests {
    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("plumb-cross-\(UUID().uuidString).json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// imu.rate too high for the MPU-6050 imu.part names: the error is at the rate's value, on
    /// its own line; it used to name the file alone.
    @Test func aRateThePartCannotRunIsAtTheRatesLineAndColumn() throws {
        let path = try Self.file("""
            {
              "imu": {
                "part": "icm20602",
                "rate": 1200
              }
            }
            """)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = runPlumb(["config", "check", path])
        #expect(r.status == 1)
        #expect(r.err == """
            Error: \(path):4:13: imu.rate: output data rate 1200.0 Hz: the ICM-20602 FIFO runs at 3.9...1000 Hz (imu.part "icm20602")
            Fix: Set imu.rate within the range named above.

            """)
    }

    /// What `plumb config check` lets through for an LSM6DS part, its driver runs: the file's
    /// fastest rate (IMUSettings.rateRange) is within every LSM6DS part's.
    @Test(arguments: LSM6DS.Variant.all.map(\.key))
    func configCheckAgreesWithTheLSM6DSDriverAtTheFilesTopRate(_ part: String) throws {
        let path = try Self.file(#"{"imu": {"part": "\#(part)", "rate": \#(Int(IMUSettings.rateRange.upperBound))}}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = runPlumb(["config", "check", path])
        #expect(r.status == 0, "\(r.err)")
        let variant = try #require(LSM6DS.Variant.named(part))
        var configuration = Configuration()
        configuration.imu.rate = IMUSettings.rateRange.upperBound
        #expect(throws: Never.self) { try LSM6DS.plan(DaemonFactory.imuConfiguration(configuration), for: variant) }
    }
}
