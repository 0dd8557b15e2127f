import PlumbDrivers
import PlumbHAL
import PlumbOrientation
import Testing
@testable import PlumbCLI

/// `plumb run`'s source on a chip that is lost, set up again by a start (the session's every-second
/// try while it awaits the chip, or a claim), and lost again before any sample came. The source
/// told each loss once, cleared only by samples: the second loss was not told, so the session
/// still took the chip as present (HasAccelerometer true while nothing answered) and, with a
/// claim running it, ended after the stall limit ("no samples … for 10 s") instead of waiting.
/// A start that succeeds ends the loss: the next one is told.
@Suite struct LostAgainTests {
    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aChipLostAgainBeforeItsSamplesIsToldLostAgain(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let at = I2CAddress(UInt8(0x68))
        let imu = try DaemonFactory.makeIMU(bus: board, address: at, clock: board.clock, part: nil)
        let source = StreamSampleSource(name: "IMU at \(at) on /dev/i2c-1, polling", imu: imu, line: nil, clock: board.clock)
        _ = try source.start(IMUConfiguration())
        var samples: [IMUSample] = []
        func readUntilLost() throws -> Bool {
            for _ in 0..<200 {
                samples.removeAll()
                _ = try source.read(into: &samples, timeoutNanoseconds: 100_000_000)
                if source.takeNotices().contains(where: { $0.kind == .lost }) { return true }
            }
            return false
        }
        board.plugged = false
        #expect(try readUntilLost(), "the first loss was not told")

        board.plugged = true
        _ = try source.start(IMUConfiguration())
        board.plugged = false
        #expect(try readUntilLost(), "the loss after a start that succeeded was not told: \(source.takeEvents().map(\.message).suffix(5))")
    }
}
