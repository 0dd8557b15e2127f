import Foundation
import PlumbDBus
import PlumbHAL
import PlumbOrientation
import Synchronization
import Testing
@testable import PlumbCLI

/// `plumb dbus` on the board's IMU, unplugged during a claim (the ``DBusBoard`` fixture): the
/// source tells the service the chip is absent, so HasAccelerometer turns false, and present once
/// it answers again. Before, the notices said it on standard error and HasAccelerometer stayed
/// true. Both ways a chip is lost: before the claim's sensor could start (the notifier's failure,
/// then "reading again after"), and while the claim's stream runs (its re-initialisation fails).
@Suite(.serialized) struct DBusPresenceTests {
    static func absent(_ presence: [SensorPresence]) -> Int {
        presence.filter { if case .absent = $0 { true } else { false } }.count
    }

    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aChipGoneAtTheClaimIsAbsentUntilItAnswers(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let context = CommandContext.capturing()
        let source = try board.dbusSource(address: 0x68, context: context)
        board.plugged = false
        let told = Mutex<[SensorPresence]>([])
        let reports = Mutex<[AccelerometerOrientation]>([])
        try source.start(report: { value in reports.withLock { $0.append(value) } },
                         presence: { presence in told.withLock { $0.append(presence) } })
        defer { source.stop() }
        DBusStartTests.waitUntil("the chip to be told absent (have \(told.withLock { $0 }))") { !told.withLock { $0 }.isEmpty }
        #expect(told.withLock { $0 } == [.absent("IMU at 0x68 on /dev/i2c-1, polling: \(DBusStartTests.nothing(at: "0x68", errno: errno))")])
        board.plugged = true
        DBusStartTests.waitUntil("the chip to be told present (have \(told.withLock { $0 }))") { told.withLock { $0.last } == .present }
        DBusStartTests.waitUntil("the orientation after the chip came back") { reports.withLock { $0.last } == .normal }
        #expect(told.withLock { $0.count } == 2)
    }

    @Test(arguments: [Errno.ENXIO, Errno.EREMOTEIO])
    func aChipGoneWhileClaimedIsAbsentUntilItAnswersAgain(errno: Int32) throws {
        let board = DBusBoard(nothingAnswersErrno: errno)
        let context = CommandContext.capturing()
        let source = try board.dbusSource(address: 0x68, context: context)
        let told = Mutex<[SensorPresence]>([])
        let reports = Mutex<[AccelerometerOrientation]>([])
        try source.start(report: { value in reports.withLock { $0.append(value) } },
                         presence: { presence in told.withLock { $0.append(presence) } })
        defer { source.stop() }
        DBusStartTests.waitUntil("the first orientation") { reports.withLock { $0.last } == .normal }
        #expect(told.withLock { $0 }.isEmpty, "a chip that answers is not told")
        board.plugged = false
        DBusStartTests.waitUntil("the chip to be told absent (have \(told.withLock { $0 }))") { !told.withLock { $0 }.isEmpty }
        #expect(told.withLock { $0 } == [.absent("IMU at 0x68 on /dev/i2c-1, polling: re-initialising failed: \(DBusStartTests.nothing(at: "0x68", errno: errno)); trying again")])
        board.plugged = true
        DBusStartTests.waitUntil("the chip to be told present (have \(told.withLock { $0 }))") { told.withLock { $0.last } == .present }
        #expect(Self.absent(told.withLock { $0 }) == 1, "one loss is told once: \(told.withLock { $0 })")
        // The log has the stream's lines and, once back, the notifier's "reading again after".
        DBusStartTests.waitUntil("reading again (have \(context.err.captured))") { context.err.captured.contains("reading again after") }
        #expect(context.err.captured.contains("""
            plumb dbus: IMU at 0x68 on /dev/i2c-1, polling: reading again after: re-initialising failed: \(DBusStartTests.nothing(at: "0x68", errno: errno)); trying again
            """))
    }
}
