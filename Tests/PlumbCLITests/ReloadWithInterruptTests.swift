import Foundation
import PlumbConfiguration
import PlumbDrivers
import PlumbHAL
import PlumbSimulation
import Testing
@testable import PlumbCLI
@testable import PlumbLinux

/// A reload (SIGHUP, `systemctl reload plumb`) of a daemon whose IMU wakes it on a data-ready line
/// (imu.interrupt, or the board's). The kernel grants a GPIO line to one request at a time, this
/// process's own earlier request included (EBUSY), and a request is let go only when it is freed.
/// The pipeline built for the reloaded file asks for the line again, so the running one must have
/// let go of it by then, whatever still refers to it.
@Suite struct ReloadWithInterruptTests {
    /// The kernel's rule for line 17 of gpiochip0: one holder at a time, let go when freed.
    final class ExclusiveLine: @unchecked Sendable {
        var held = false
        var requests = 0
        var refused = 0

        func request(_ inner: any InterruptLine) throws(GPIOError) -> any InterruptLine {
            requests += 1
            if held {
                refused += 1
                throw lineHeldByPlumb(heldHere: false)
            }
            held = true
            return Request(inner, owner: self)
        }

        /// One granted request: the emulated chip's line, let go when this is freed.
        final class Request: InterruptLine {
            let inner: any InterruptLine
            let owner: ExclusiveLine
            init(_ inner: any InterruptLine, owner: ExclusiveLine) { self.inner = inner; self.owner = owner }
            deinit { owner.held = false }
            var name: String { inner.name }
            func waitForEdge(timeoutNanoseconds: UInt64) throws(GPIOError) -> EdgeEvent? {
                try inner.waitForEdge(timeoutNanoseconds: timeoutNanoseconds)
            }
            func readQueuedEdges() throws(GPIOError) -> [EdgeEvent] { try inner.readQueuedEdges() }
        }
    }

    final class Notifier: ServiceNotifier {
        var states: [String] = []
        var watchdogIntervalNanoseconds: UInt64? { nil }
        func notify(_ state: String) throws { states.append(state) }
    }

    /// Two reloads, with and without --wait-for-sensor (the shipped unit passes it): each builds
    /// the new pipeline on the line the old one let go of, at once, with no wait and no failure.
    @Test(arguments: [false, true])
    func aReloadTakesTheDataReadyLineTheRunningPipelineLetGoOf(waitsForSensor: Bool) throws {
        let sensor = PlumbSimulation.SimulatedSensor(model: try #require(SimulatedChips.model("mpu6050")), seed: 1)
        let line = ExclusiveLine()
        var factory = DaemonFactory(source: .hardware, context: .capturing(), realClock: sensor.clock)
        factory.sysfsRoot = NSTemporaryDirectory() + "plumb-no-sysfs"
        factory.waitsForSensor = waitsForSensor
        factory.openBus = { _ in (sensor.bus, sensor.clock) }
        factory.claimNode = nil
        factory.openLine = { selector throws(GPIOError) in
            #expect(selector == GPIOLineSelector(chip: "gpiochip0", line: .offset(17)))
            return try line.request(sensor.line)
        }
        let notifier = Notifier()
        let err = Output.capture()
        var turn = 0
        var reloads = 0
        let daemon = Daemon(
            log: DaemonLog(output: err, format: .plain, level: .info), notifier: notifier, clock: sensor.clock,
            takeSignals: {
                turn += 1
                let started = notifier.states.last?.hasPrefix("STATUS=IMU at 0x68") == true
                    || notifier.states.last?.hasPrefix("READY=1\nSTATUS=IMU at 0x68") == true
                if turn % 20 == 0, reloads < 2, started {
                    reloads += 1
                    return [.reload]
                }
                return turn > 200 || (reloads == 2 && turn % 20 == 10) ? [.terminate] : []
            },
            load: { () throws(CLIError) -> DaemonSetup in
                DaemonSetup(path: "plumb.json", configuration: Configuration(), board: wired)
            },
            build: { setup, handover in try factory.build(setup, handover: handover) },
            duration: Nanoseconds.seconds(60))
        let status = daemon.run()
        let log = err.captured
        #expect(status == ExitCode.success, "\(log)")
        #expect(reloads == 2, "\(notifier.states)")
        #expect(log.components(separatedBy: "plumb: info: reloaded plumb.json").count == 3, "\(log)")
        #expect(!log.contains("reload failed") && !log.contains("busy") && !log.contains("waiting for"), "\(log)")
        #expect(line.requests == 3 && line.refused == 0, "requests \(line.requests), refused \(line.refused): \(log)")
        #expect(sensor.bus.counters.transactions > 0)
    }
}
