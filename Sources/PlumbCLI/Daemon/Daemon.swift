import PlumbConfiguration
import PlumbHAL

/// What the daemon runs between start and stop: one sensor session feeding every configured output.
protocol DaemonPipeline: AnyObject {
    /// One line for the log and systemd's STATUS: what runs where.
    var summary: String { get }
    /// systemd's STATUS: the ``summary`` while the sensor runs; what the session waits for and
    /// the fix while it waits for a chip that does not answer. Sent again when it changes.
    var status: String { get }
    /// Waits at most `timeoutNanoseconds` for sensor data, processes it and drives the outputs.
    /// Returns what happened worth logging (orientation changes, gaps).
    func step(timeoutNanoseconds: UInt64) throws -> [DaemonEvent]
    /// Stops the sensor and puts every output back as it was (display rotation, LEDs), but those
    /// handed over by ``handOver(to:)``. Returns what is worth logging that is no failure: a chip
    /// that was not answering could not be put to sleep (``SensorPipeline/shutdown()``). Throws
    /// when an output could not be put back or the chip refused its stop otherwise, after
    /// putting back every output it could.
    @discardableResult
    func shutdown() throws -> [DaemonEvent]
    /// Before a reload's ``shutdown()``: leaves the outputs whose target `next` keeps as they are
    /// (the kiosk's screen at its rotation) and returns them for the pipeline built from `next`.
    func handOver(to next: DaemonSetup) -> DaemonHandover
}

extension DaemonPipeline {
    var status: String { summary }
}

/// Thrown by ``DaemonPipeline/step(timeoutNanoseconds:)`` when a bounded source (a recording
/// given with --replay) has played to its end: the daemon stops as on SIGTERM, with exit 0.
struct DaemonSourceFinished: Error, Equatable {
    var name: String
}

/// Something the pipeline reports.
struct DaemonEvent: Sendable, Equatable {
    var level: LogLevel
    var message: String
    /// The line only follows the chip coming or going (it answers again, the part found at its
    /// start, HasAccelerometer turned, the sensor paused without its stop): while the chip flaps,
    /// such lines below warning are held and counted instead (``PresenceFlapLog``). Not part of
    /// equality: it says how the line is logged, not what it says.
    var followsPresence = false

    init(level: LogLevel, message: String, followsPresence: Bool = false) {
        self.level = level
        self.message = message
        self.followsPresence = followsPresence
    }

    static func == (a: DaemonEvent, b: DaemonEvent) -> Bool { a.level == b.level && a.message == b.message }
}

/// Where the daemon tells the service manager how it is doing (systemd's notify socket).
protocol ServiceNotifier: AnyObject {
    func notify(_ state: String) throws
    /// How often WATCHDOG=1 must be sent, or `nil` when no watchdog is configured.
    var watchdogIntervalNanoseconds: UInt64? { get }
}

/// The loaded configuration and the board it resolved to.
struct DaemonSetup: Sendable {
    var path: String
    var configuration: Configuration
    var board: BoardSelection
    /// Where each value was written in the file at `path`, for the line and column of a setting
    /// the chip refuses at start (``DaemonFactory/locatingSettings(_:error:positions:)``); `nil`
    /// when no file was read (the defaults, or a configuration made in code).
    var positions: ConfigurationPositions? = nil
}

/// `plumb run`'s life cycle, independent of the sensor and of systemd so it can be tested:
/// load, build, notify READY=1, step until a signal, reload on SIGHUP (keeping the old
/// configuration when the new one is invalid), and stop cleanly on SIGTERM.
final class Daemon {
    let log: DaemonLog
    let notifier: ServiceNotifier
    let clock: MonotonicClock
    /// The signals received since the last call.
    let takeSignals: () -> [PlumbDaemonSignal]
    /// Reads and validates the configuration (called at start and on every SIGHUP).
    let load: () throws(CLIError) -> DaemonSetup
    /// Builds the pipeline for a configuration, taking what a reload hands over (`nil` at the start).
    let build: (DaemonSetup, DaemonHandover?) throws -> DaemonPipeline
    /// Stop by itself after this long (`--duration`), or run until signalled.
    let duration: UInt64?
    /// The longest one step may wait for the sensor, so signals are seen promptly.
    let stepTimeout: UInt64

    init(log: DaemonLog, notifier: ServiceNotifier, clock: MonotonicClock, takeSignals: @escaping () -> [PlumbDaemonSignal],
         load: @escaping () throws(CLIError) -> DaemonSetup, build: @escaping (DaemonSetup, DaemonHandover?) throws -> DaemonPipeline,
         duration: UInt64? = nil, stepTimeout: UInt64 = 100 * Nanoseconds.perMillisecond) {
        self.log = log; self.notifier = notifier; self.clock = clock; self.takeSignals = takeSignals
        self.load = load; self.build = build; self.duration = duration; self.stepTimeout = stepTimeout
    }

    /// Runs until SIGTERM/SIGINT (exit 0), the duration ends (exit 0), a recording ends (exit 0),
    /// or a failure (exit 1).
    func run() -> Int32 {
        var setup: DaemonSetup
        var pipeline: DaemonPipeline
        do {
            setup = try load()
            log.level = setup.configuration.logLevel
            pipeline = try build(setup, nil)
        } catch {
            fail("cannot start", error)
            return ExitCode.failure
        }
        log.info("started with \(setup.path); board \(setup.board.explanation)")
        log.info(pipeline.summary)
        // A session waiting for its chip (--wait-for-sensor) is ready: its outputs are up.
        var status = pipeline.status
        send("READY=1\nSTATUS=\(status)")

        let watchdog = notifier.watchdogIntervalNanoseconds
        if let watchdog { log.debug("watchdog every \(Double(watchdog) / 1e9) s; pinging every \(Double(watchdog) / 2e9) s") }
        let started = clock.nowNanoseconds
        var lastPing = started
        let timeout = min(stepTimeout, watchdog.map { $0 / 4 } ?? stepTimeout)

        while true {
            for signal in takeSignals() {
                switch signal {
                case .terminate:
                    return stop(pipeline, reason: "stopping on SIGTERM")
                case .interrupt:
                    return stop(pipeline, reason: "stopping on SIGINT")
                case .reload:
                    guard let next = reload(current: setup, pipeline: pipeline) else { return ExitCode.failure }
                    (setup, pipeline) = next
                    status = pipeline.status
                }
            }
            if let duration, clock.nowNanoseconds &- started >= duration {
                return stop(pipeline, reason: "stopping after \(Double(duration) / 1e9) s (--duration)")
            }
            do {
                for event in try pipeline.step(timeoutNanoseconds: timeout) { log.log(event.level, event.message) }
            } catch let end as DaemonSourceFinished {
                return stop(pipeline, reason: "stopping: \(end.name) has no more data")
            } catch {
                logFailure("the sensor session failed", error)
                do { logEvents(try pipeline.shutdown()) } catch { log.warning("while stopping: \(describe(error))") }
                send("STATUS=failed: \(describe(error))")
                return ExitCode.failure
            }
            if pipeline.status != status {
                status = pipeline.status
                send("STATUS=\(status)")
            }
            if let watchdog, clock.nowNanoseconds &- lastPing >= watchdog / 2 {
                send("WATCHDOG=1")
                lastPing = clock.nowNanoseconds
            }
        }
    }

    /// SIGHUP: re-read the file; on success replace the pipeline, else keep running the old one.
    /// Outputs whose target the new file keeps (the kiosk's screen) are handed over, not put back;
    /// if neither the new configuration nor the old one can be built again, they are put back.
    private func reload(current: DaemonSetup, pipeline: DaemonPipeline) -> (DaemonSetup, DaemonPipeline)? {
        send("RELOADING=1")
        let next: DaemonSetup
        do { next = try load() } catch {
            logFailure("reload failed, keeping the running configuration", error)
            send("READY=1\nSTATUS=\(pipeline.status) (reload failed: \(describe(error)))")
            return (current, pipeline)
        }
        // A chip the running pipeline had lost (`handover.awaitsSensor`) is awaited by the one
        // built next, and by the previous one built again, as with --wait-for-sensor: the loss
        // was there before the reload, which should not end the daemon over it.
        let handover = pipeline.handOver(to: next)
        do { logEvents(try pipeline.shutdown()) } catch { log.warning("while stopping for reload: \(describe(error))") }
        do {
            let rebuilt = try build(next, handover)
            log.level = next.configuration.logLevel
            log.info("reloaded \(next.path); board \(next.board.explanation)")
            log.info(rebuilt.summary)
            send("READY=1\nSTATUS=\(rebuilt.status)")
            return (next, rebuilt)
        } catch {
            logFailure("reload failed, restarting the previous configuration", error)
            do {
                let old = try build(current, handover)
                send("READY=1\nSTATUS=\(old.status) (reload failed)")
                return (current, old)
            } catch {
                do { try handover.restoreUntaken() } catch { log.error("could not restore the outputs: \(describe(error))") }
                fail("cannot restart the previous configuration", error)
                return nil
            }
        }
    }

    private func stop(_ pipeline: DaemonPipeline, reason: String) -> Int32 {
        send("STOPPING=1")
        log.info(reason)
        // A chip that was not answering is a warning (the pipeline's events): it could not be put
        // to sleep, and the outputs are back, so the stop is clean. A chip that answered and
        // refused its stop, or an output not put back, is a failure (exit 1): the message says
        // which, every other output having been put back.
        do { logEvents(try pipeline.shutdown()) } catch {
            log.error("could not stop cleanly: \(describe(error))")
            return ExitCode.failure
        }
        log.info("stopped")
        return ExitCode.success
    }

    private func logEvents(_ events: [DaemonEvent]) {
        for event in events { log.log(event.level, event.message) }
    }

    private func fail(_ what: String, _ error: Error) {
        logFailure(what, error)
        send("STATUS=\(Self.headed(what, error))")
    }

    /// "what: message" at error priority, then the error's fix on a line of its own.
    private func logFailure(_ what: String, _ error: Error) {
        log.error(Self.headed(what, error))
        if case CLIError.failure(_, let fix?) = error { log.error("fix: \(fix)") }
    }

    /// "what: message", or the message alone when it says `what` itself: a sensor that did not
    /// start is told as "cannot start IMU at 0x68 on /dev/i2c-1, polling: …"
    /// (``SensorPipeline/startFailure(_:source:configurationPath:positions:then:)``), or at
    /// imu.rate's place as "FILE:LINE:COLUMN: imu.rate: cannot start …", which the start's
    /// "cannot start: " before it said twice.
    static func headed(_ what: String, _ error: Error) -> String {
        let message = describe(error)
        return message.hasPrefix("\(what) ") || message.contains(": \(what) ") ? message : "\(what): \(message)"
    }

    private func send(_ state: String) {
        do { try notifier.notify(state) } catch { log.warning("\(describe(error))") }
    }
}

/// A signal the daemon acts on (mirrors PlumbLinux's DaemonSignal so tests need no signals).
/// What the daemon's loop acts on: a reload (SIGHUP), or a stop, by SIGTERM (`systemctl stop`)
/// or SIGINT (Ctrl-C), which stop alike and are logged as what they were.
enum PlumbDaemonSignal: Sendable, Equatable { case reload, terminate, interrupt }

/// One line for an error of any kind.
func describe(_ error: Error) -> String {
    switch error {
    case CLIError.failure(let message, _): message
    case CLIError.usage(let message): message
    case let error as CustomStringConvertible: error.description
    default: "\(error)"
    }
}
