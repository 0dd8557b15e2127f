import PlumbDrivers
import PlumbHAL
import PlumbLinux
import PlumbOrientation

/// The board's IMU while another plumb process claims it (``I2CDeviceClaim``: a `plumb calibrate`
/// typed while plumb.service started), for `plumb run --wait-for-sensor` and `plumb dbus
/// --wait-for-sensor`: each ``start(_:)`` tries the claim first and, while it is refused, fails
/// with ``I2CError/Kind/claimedByAnotherProcess``, which those sessions await as they await a chip
/// that does not answer (``SensorPipeline/waitsForSensor``, ``DBusSensorWait``) instead of ending.
///
/// Nothing of the chip is touched before the claim is held: the driver, the data-ready line and
/// the stream are made (``DaemonFactory/makeSource(_:imuConfiguration:awaitsClaim:)``'s `build`)
/// only once it is. The data-ready line in particular, which the kernel gives one requester, stays
/// free for the process that holds the chip. A refused try holds nothing afterwards (the claim's
/// description is closed at once), so the other process's next claim of the chip is not refused.
///
/// The other process lets go of the claim a moment before its data-ready line (it closes the
/// claim's description, then releases the line, or the kernel frees both as it exits): a start
/// in between finds the line still held by consumer "plumb" (``DataReadyLineHeld``). That start
/// fails as a refused one does, the claim dropped again before anything was sent to the chip,
/// and the next start tries both again.
final class ClaimAwaitingSource: MotionSampleSource, DaemonEventSource {
    let name: String
    let clock: any MonotonicClock
    /// The bus and address, for the error of a refused try.
    private let bus: String
    private let address: I2CAddress
    private let claim: () throws(I2CDeviceInUse) -> I2CDeviceClaim?
    private let build: (I2CDeviceClaim?) throws -> StreamSampleSource
    /// The source made once the claim was taken.
    private(set) var inner: StreamSampleSource?

    /// - Parameters:
    ///   - name: the source's name as the stream made by `build` will have it.
    ///   - claim: takes the chip's claim (nil when it holds nothing: ``I2CDeviceClaim/isHeld``).
    ///   - build: makes the stream on the chip (the driver, the data-ready line), which keeps the
    ///     claim it is given for as long as it lives; run once, after the claim was taken.
    init(name: String, clock: any MonotonicClock, bus: String, address: I2CAddress,
         claim: @escaping () throws(I2CDeviceInUse) -> I2CDeviceClaim?, build: @escaping (I2CDeviceClaim?) throws -> StreamSampleSource) {
        self.name = name
        self.clock = clock
        self.bus = bus
        self.address = address
        self.claim = claim
        self.build = build
    }

    /// The failure of a start while another process holds the claim.
    static func refusal(_ error: I2CDeviceInUse) -> MotionSourceError {
        .bus(I2CError(errno: 0, bus: error.path, address: error.address, kind: .claimedByAnotherProcess, detail: error.description))
    }

    /// The failure of a start that took the claim but found the chip's data-ready line still held
    /// by the plumb process that let go of the claim: awaited alike (``I2CError/Kind/claimedByAnotherProcess``).
    static func lineRefusal(_ held: DataReadyLineHeld, bus: String, address: I2CAddress) -> MotionSourceError {
        .bus(I2CError(errno: 0, bus: bus, address: address, kind: .claimedByAnotherProcess,
                      detail: "the data-ready line of the chip at \(address) on \(bus) (\(held.line)) is still held by another plumb process"))
    }

    /// When a start first took the claim and found the data-ready line still held by consumer
    /// "plumb" (``DataReadyLineHeld``), nil once the line was taken or the claim refused again.
    private var lineHeldSince: UInt64?

    /// How long a data-ready line stays awaited while the chip's claim is free: a plumb process
    /// letting go frees its line within milliseconds of its claim (or the kernel frees both as it
    /// exits). A line still held after this belongs to a plumb that does not drive this chip, which
    /// no wait ends: the start fails as any busy line does (``DaemonFactory/lineFailure(_:)``).
    static let lineHeldLimitNanoseconds = Nanoseconds.seconds(5)

    func start(_ configuration: IMUConfiguration) throws(MotionSourceError) -> IMUConfiguration {
        if inner == nil {
            var taken: I2CDeviceClaim?
            do { taken = try claim() } catch {
                lineHeldSince = nil
                throw Self.refusal(error)
            }
            do {
                inner = try build(taken)
            } catch let held as DataReadyLineHeld {
                // The line was requested before the driver was made: nothing went to the chip.
                // The claim is dropped now, so the other process's next claim is not refused.
                taken = nil
                let now = clock.nowNanoseconds
                let since = lineHeldSince ?? now
                lineHeldSince = since
                guard now &- since < Self.lineHeldLimitNanoseconds else {
                    // Not a process letting go: another plumb uses the line for itself (a `plumb
                    // led` on the pin, a second IMU configured with the same imu.interrupt).
                    lineHeldSince = nil
                    let waited = "still held \((now &- since) / Nanoseconds.perSecond) s after the chip's claim was free"
                    guard case .failure(let message, let fix) = DaemonFactory.lineFailure(held.error) else { throw .other("\(held.error) (\(waited))") }
                    throw .other("\(message) (\(waited))" + (fix.map { " (\($0))" } ?? ""))
                }
                throw Self.lineRefusal(held, bus: bus, address: address)
            } catch let error as CLIError {
                // A data-ready line another program holds, a part without a driver: not awaited.
                if case .failure(let message, let fix) = error { throw .other(message + (fix.map { " (\($0))" } ?? "")) }
                throw .other(describe(error))
            } catch {
                throw .other(describe(error))
            }
        }
        guard let inner else { throw Self.refusal(I2CDeviceInUse(path: bus, address: address)) }
        return try inner.start(configuration)
    }

    func read(into samples: inout [IMUSample], timeoutNanoseconds: UInt64) throws(MotionSourceError) -> MotionSourceRead {
        guard let inner else { throw Self.refusal(I2CDeviceInUse(path: bus, address: address)) }
        return try inner.read(into: &samples, timeoutNanoseconds: timeoutNanoseconds)
    }

    /// Stops the chip once it was started; before the claim was taken there is nothing to stop
    /// (nothing was sent to it).
    func stop() throws(MotionSourceError) {
        try inner?.stop()
    }

    func wake(bySampleAt sampleNanoseconds: UInt64) { inner?.wake(bySampleAt: sampleNanoseconds) }
    func close() { inner?.close() }
    func takeNotices() -> [SensorNotice] { inner?.takeNotices() ?? [] }
    func takeEvents() -> [DaemonEvent] { inner?.takeEvents() ?? [] }
}

/// The chip's data-ready line is busy, held under Plumb's consumer name by another process
/// (``GPIOError/isHeldByAnotherPlumbProcess``), when the stream was made after the chip's claim
/// was taken: the plumb process that let go of the claim has not released the line yet.
/// ``ClaimAwaitingSource`` awaits it; elsewhere it fails as any busy line (``DaemonFactory/lineFailure(_:)``).
struct DataReadyLineHeld: Error {
    /// The line as configured ("line 17 on gpiochip0").
    let line: String
    let error: GPIOError
}
