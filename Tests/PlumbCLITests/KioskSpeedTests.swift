import Foundation
import Testing
@testable import PlumbCLI

/// `plumb kiosk --simulate --speed FACTOR` paces the simulated IMU as `plumb watch --speed` does:
/// unpaced, the README's `plumb kiosk --simulate` with a real backend turned a real screen ten times
/// a second (3 250 turns in 4.5 minutes of the rotation profile).
@Suite struct KioskSpeedTests {
    @Test func theSimulatedIMUIsPacedToTheSpeed() {
        let started = Date()
        let r = runPlumb(["kiosk", "--simulate", "--speed", "10", "--duration", "9", "--backend", "command", "--command", "true"],
                         environment: ["PATH": "/usr/bin:/bin"])
        #expect(r.status == 0, "\(r.err)")
        // 9 s of sensor time at 10 × real time: not before 0.9 s (a lower bound only; a loaded
        // machine is slower, never faster).
        #expect(Date().timeIntervalSince(started) >= 0.8)
        #expect(r.out.contains("portrait"), "\(r.out)")
    }

    @Test func speedWithoutTheSimulatorIsRefused() {
        let r = runPlumb(["kiosk", "--speed", "2"])
        #expect(r.status == 64)
        #expect(r.err.contains("'--speed' paces the simulated IMU"), "\(r.err)")
    }
}
