import PlumbHAL

/// The streaming engine: one reader per sensor, generic over any ``IMU``.
///
/// Each ``step(into:)`` blocks once and drains once:
/// - **Waiting.** A chip whose pin signals a FIFO watermark (LSM6DS) is waited on with
///   `waitForEdge`, with a watchdog timeout of 1.5 times the longest a watermark can take (one
///   watermark, or more when the FIFO compresses, ``IMU/maximumSamplesPerWatermark``), and at
///   least two samples more than it at small watermarks. A chip whose pin signals
///   every sample (MPU family, which has no watermark interrupt) is slept until the FIFO should
///   hold a watermark's worth, and the edges queued meanwhile are collected without blocking:
///   they time the samples. Either way the reader wakes about ODR / watermark times a second.
/// - **Watchdog.** When edges stop (two watermark timeouts, or three drains with data but no
///   edge) the reader falls back to polling on the estimated period and says so; when edges
///   come back it returns to them. Until the first data after a start the watchdog allows the
///   sensors' turn-on time too (``Options/startUpNanoseconds``).
/// - **Storms.** Edges beyond what the chip can give (more than two per sample period, or per
///   watermark on a watermark chip, in the time since the last wake-up) are not handed to the
///   driver, whose sample times they would corrupt. A wake-up is spurious when its edges are
///   beyond that, or when it was woken by an edge that found no new data (less than half a
///   watermark on a watermark chip, no sample on a chip that signals each sample and is waited
///   on per sample). Half of the last 16 edge wake-ups spurious (a floating or noisy input, the
///   wrong line: a fast storm gives eight in a row, a slow one, such as a floating pin picking
///   up mains hum, at least one spurious edge per real one) and the reader polls, saying so,
///   instead of waking on every edge. It returns to edges once they come at a plausible rate
///   again, and not before it has polled for ``Options/stormRetryNanoseconds``; the return holds
///   (and is announced) once 16 edge wake-ups pass and the last 12 of them found new data (so at
///   most 4 of 16 were spurious, half the storm's threshold), so a storm near the threshold, or
///   one whose edges often coincide with data, is not announced, found back and announced again.
///   A storm found again before the return holds is the same storm (no new notice), and doubles
///   that wait, up to 64 times.
/// - **Recovery.** Bus errors are retried by the driver; a drain that still fails is retried
///   with a growing pause (1 ms doubling to 100 ms). After five failures in a row, or when the
///   chip's configuration reads back wrong (checked every second, and at once when a drain
///   that was due finds the FIFO empty), the chip is identified again (it may be another chip),
///   reset, re-configured, restarted and read back (a brown-out in the middle of the writes is
///   tried again), and a `.chipReset` gap is reported. Overflow and lost reads are the driver's
///   gaps, passed on; data the drains lost is not a stall.
/// - **Scale check.** The first still window (``gravityWindow`` samples) must read about 1 g; a
///   chip driven with the wrong scale (an LSM6DSO32 found as an LSM6DSO reads 0.5 g) is named in
///   a notice once.
/// - **Bus budget.** Given the bus's clock (``busClock``), ``start(_:)`` compares the bus time the
///   stream needs (``BusBudget``) with it once, and says in a notice when the stream needs more
///   than ``BusBudget/safeShare`` of it, with how to raise the clock and the highest rate that fits.
/// - **Integrity.** Only whole records are decoded (the drivers' contract), timestamps never go
///   backwards, and every loss is a ``StreamGap``.
public final class IMUStream {
    /// How the reader is being woken.
    public enum Mode: String, Sendable, Equatable { case interrupts, polling }

    /// Something the reader wants the user to know, beyond samples and gaps.
    public struct Notice: Sendable, Equatable {
        public var timeNanoseconds: UInt64
        public var message: String
        /// The failure the notice reports, when it reports one the reader keeps retrying (the
        /// chip could not be set up again), so that its owner can word the fix for its users
        /// (``IMUError/bus(_:)`` with ``I2CError/mayMeanNothingAnswers``: the chip does not
        /// answer); `nil` for the others.
        public var error: IMUError? = nil
        /// Whether the failures behind the notice found nothing answering at the chip's address
        /// (``I2CError/mayMeanNothingAnswers``: the re-initialisation after failed reads of a chip
        /// that went): a part of a loss, which an owner that logs losses may log with it (`plumb
        /// run` holds such lines while the chip keeps coming and going).
        public var nothingAnswers = false
    }

    /// Tuning, with defaults that suit 10 Hz–1 kHz.
    public struct Options: Sendable, Equatable {
        /// Consecutive failed drains before the chip is re-initialised. Default 5.
        public var failuresBeforeReinitialise = 5
        /// How often the configuration is read back, nanoseconds. Default 1 s.
        public var verifyIntervalNanoseconds: UInt64 = Nanoseconds.perSecond
        /// Longest pause between failed attempts, nanoseconds. Default 100 ms.
        public var maximumBackoffNanoseconds: UInt64 = 100 * Nanoseconds.perMillisecond
        /// The shortest time the reader polls after finding a storm before it tries edges
        /// again, nanoseconds; doubled each time the storm is found again at once. Default 1 s.
        public var stormRetryNanoseconds: UInt64 = Nanoseconds.perSecond
        /// Added to the watermark watchdog until the first data after a start or a
        /// re-initialisation, nanoseconds: the sensors' turn-on time, which delays the first
        /// watermark. Default 150 ms, above the slowest engine start-up Linux gives for the parts
        /// driven here (ICM-20602 gyroscope 100 ms; MPU-6050 60 ms, MPU-6500 70 ms:
        /// `inv_mpu6050` start-up times, reference/drivers.md §B1). Without it a first sample 100 ms
        /// late at 1666 Hz cost a "no interrupt ... polling" notice and its return
        /// (StartUpTurnOnTests).
        public var startUpNanoseconds: UInt64 = 150 * Nanoseconds.perMillisecond
        public init() {}
    }

    /// The I2C bus's clock as the caller found it (PlumbLinux reads it from the device tree), and
    /// how the user can change what the bus budget notice suggests.
    public struct BusClock: Sendable, Equatable {
        /// The SCL clock, hertz.
        public var hertz: Double
        /// Where the figure came from, for the notice: "device tree".
        public var source: String
        /// The adapter's longest read (32 for SMBus-only adapters), or `nil`.
        public var maximumReadLength: Int?
        /// The setting that holds the output data rate, for the notice: "imu.rate", "--rate".
        public var rateSetting: String
        /// How to raise the clock to ``raisedHertz``, or `nil` when the notice cannot say:
        /// "set dtparam=i2c_arm_baudrate=400000 in /boot/firmware/config.txt and reboot".
        public var raiseInstruction: String?
        /// The clock ``raiseInstruction`` gives, hertz. Default 400 kHz (Fast-mode, UM10204 §3.1:
        /// the highest rating every supported part has; above it several parts and clones misbehave).
        public var raisedHertz: Double

        public init(hertz: Double, source: String, maximumReadLength: Int? = nil, rateSetting: String,
                    raiseInstruction: String? = nil, raisedHertz: Double = 400_000) {
            self.hertz = hertz; self.source = source; self.maximumReadLength = maximumReadLength
            self.rateSetting = rateSetting; self.raiseInstruction = raiseInstruction; self.raisedHertz = raisedHertz
        }
    }

    /// Counts for reports and benchmarks.
    public struct Statistics: Sendable, Equatable {
        /// Times the reader blocked (a wait for an edge or a sleep) and woke again.
        public var wakeups = 0
        public var drains = 0
        public var samples = 0
        public var gaps = 0
        public var lostSamples = 0
        public var failedDrains = 0
        public var reinitialisations = 0
        public var pollingSteps = 0
        public var edges = 0
        public init() {}
    }

    public let imu: any IMU
    /// The data-ready line, until ``releaseLine()``.
    public private(set) var line: (any InterruptLine)?
    public let clock: any MonotonicClock
    public var options: Options
    public private(set) var mode: Mode
    public private(set) var statistics = Statistics()
    /// Notices since the last ``takeNotices()``, at most ``maximumPendingNotices``: an owner
    /// that never takes them (a program reading samples only) must not grow this for months.
    public private(set) var notices: [Notice] = []
    /// The most notices kept for ``takeNotices()``; older ones are dropped and counted.
    public static let maximumPendingNotices = 64
    /// Notices dropped since the last ``takeNotices()`` because nobody took them.
    public private(set) var droppedNotices = 0
    /// The bus's clock, when known; `nil` (unknown: no device tree, i2c-stub, a simulation)
    /// checks nothing. Set before ``start(_:)``.
    public var busClock: BusClock?
    /// The bus budget was checked (once per stream: a restart with another configuration, such
    /// as the low-energy mode's, does not say it again).
    private var busBudgetChecked = false
    /// The configuration the chip runs (as the driver reported it).
    public private(set) var configuration: IMUConfiguration

    private var requested: IMUConfiguration
    private var lastSampleTime: UInt64?
    /// The sample time ``wake(bySampleAt:)`` asked for, until the next wait uses it.
    private var earlyWake: UInt64?
    private var lastDrainHadData = false
    /// Data came since the last start or re-initialisation (until then the watchdog allows
    /// ``Options/startUpNanoseconds`` more).
    private var dataSinceStart = false
    /// The last wake-up came before a batch was due (``wake(bySampleAt:)``): an empty FIFO then
    /// says nothing about the chip.
    private var wokeEarly = false
    /// A drain found the FIFO empty although a batch was due: the configuration is read back
    /// at once, not at the next ``Options/verifyIntervalNanoseconds``.
    private var verifySoon = false
    private var edgelessDrains = 0
    private var edgefulSteps = 0
    private var watchdogTimeouts = 0
    private var consecutiveFailures = 0
    private var lastVerify: UInt64 = 0
    private var lastDataTime: UInt64 = 0
    /// When a drain last reported data lost (which the chip gave: no stall).
    private var lastLossTime: UInt64 = 0
    private var stallReported = false
    private var started = false
    /// When the last wake-up collected its edges; the last 16 edge wake-ups, one bit each (1:
    /// spurious), and how many of them there are; whether the reader polls because of a storm,
    /// since when, and for how long at least.
    private var lastCollection: UInt64 = 0
    private var stormHistory: UInt16 = 0
    private var stormSteps = 0
    private var inStorm = false
    private var stormSince: UInt64 = 0
    private var stormRetry: UInt64 = 0
    /// Edge wake-ups since the reader returned from a storm, while a storm found again counts as
    /// the same one; `nil` once the return held.
    private var stormProbation: Int?
    /// A re-initialisation failed; the next step tries again instead of draining.
    private var needsReinitialise: StreamGap.Reason?
    /// The gravity check (``checkGravity(_:)``): done once a still window was seen; the window
    /// being gathered.
    private var gravityChecked = false
    private var stillWindow = (count: 0, sum: 0.0, sumOfSquares: 0.0, largestRate: 0.0)

    /// - Parameters:
    ///   - imu: the driver; the stream owns it while running.
    ///   - line: the data-ready line, or `nil` to poll.
    ///   - clock: the same clock the driver and the line use.
    public init(imu: any IMU, line: (any InterruptLine)?, clock: any MonotonicClock, options: Options = Options()) {
        self.imu = imu
        self.line = line
        self.clock = clock
        self.options = options
        self.mode = line == nil ? .polling : .interrupts
        self.configuration = imu.configuration
        self.requested = imu.configuration
    }

    /// Identifies, resets, configures and starts the chip.
    ///
    /// - Returns: the configuration the chip runs.
    @discardableResult
    public func start(_ configuration: IMUConfiguration) throws(IMUError) -> IMUConfiguration {
        requested = configuration
        if imu.identity == nil { _ = try imu.identify() }
        let identified = imu.identity
        try imu.reset()
        noticeIdentityChangedByReset(from: identified)
        self.configuration = try imu.apply(configuration)
        checkBusBudget()
        try imu.startStreaming()
        try confirmConfiguration()
        discardQueuedEdges() // stale edges from before the start mean nothing
        started = true
        // A start that took is a chip set up afresh: a re-initialisation still pending from before
        // (a chip lost, then paused and started again) is done, and a loss after it is a new one,
        // told again (``reinitialise(reason:)`` says its first failure only).
        needsReinitialise = nil
        consecutiveFailures = 0
        lastVerify = clock.nowNanoseconds
        lastDataTime = clock.nowNanoseconds
        lastCollection = clock.nowNanoseconds
        lastSampleTime = nil
        stormRetry = options.stormRetryNanoseconds
        dataSinceStart = false
        // A watchdog timeout under the old configuration says nothing about the new one's
        // edges (a switch to or from the low-energy mode): two in a row must both be this one's.
        watchdogTimeouts = 0
        return self.configuration
    }

    /// Stops the chip's stream.
    public func stop() throws(IMUError) {
        started = false
        try imu.stopStreaming()
    }

    /// Asks the next ``step(into:)`` to return once the chip holds the sample taken at
    /// `sampleNanoseconds` (on the samples' clock), even when the FIFO is short of its watermark.
    ///
    /// The orientation notifier asks this in its low-energy mode while a turn is in progress: a
    /// new face waiting out its settle time needs the next sample or two, not the rest of a
    /// 0.56 s batch. One-shot: the step after it waits for the watermark again. Ignored when
    /// the watermark comes sooner anyway, and before the first sample (its time is unknown).
    /// A wake-up this early is the reader's choice, not a missing edge: it neither counts
    /// towards the watchdog nor makes a storm.
    public func wake(bySampleAt sampleNanoseconds: UInt64) {
        earlyWake = min(earlyWake ?? .max, sampleNanoseconds)
    }

    /// Returns and forgets the notices collected so far (with a first one saying how many older
    /// ones were dropped, when there were more than ``maximumPendingNotices``).
    public func takeNotices() -> [Notice] {
        defer { notices.removeAll(); droppedNotices = 0 }
        guard droppedNotices > 0, let first = notices.first else { return notices }
        return [Notice(timeNanoseconds: first.timeNanoseconds, message: "\(droppedNotices) earlier notices were dropped (not taken in time)")] + notices
    }

    private var period: Double { 1e9 / max(configuration.outputDataRate, 1e-3) }
    private var watermark: Int { max(1, configuration.fifoWatermark) }

    /// Blocks once, drains once, recovers if needed.
    ///
    /// - Parameter samples: receives the new samples, oldest first.
    /// - Returns: the gaps found in this step.
    public func step(into samples: inout [IMUSample]) -> [StreamGap] {
        precondition(started, "start(_:) the stream before stepping it")
        var gaps: [StreamGap] = []
        let edges = block()
        statistics.edges += edges.count
        let collected = clock.nowNanoseconds
        let span = collected &- lastCollection
        lastCollection = collected
        // Edges the chip cannot have given are noise: they must not time samples.
        var suspicious = mode == .interrupts && edges.count > plausibleEdges(in: span)
        let handed = suspicious ? [] : edges

        let before = samples.count
        if let reason = needsReinitialise {
            if let gap = reinitialise(reason: reason) { gaps.append(gap) }
            statistics.gaps += gaps.count
            statistics.lostSamples += gaps.reduce(0) { $0 + ($1.lostSamples ?? 0) }
            return gaps
        }
        do {
            let result = try imu.drain(into: &samples, edges: handed)
            statistics.drains += 1
            consecutiveFailures = 0
            gaps += result.gaps
            // Samples the driver holds back until it can time them, and samples dropped while the
            // filters settled after start-up, came from the chip too: they show the data flowing
            // and explain the edge that announced them.
            let found = result.sampleCount + result.heldSamples + result.settlingDiscards
            if result.sampleCount > 0 { lastSampleTime = samples.last?.timestampNanoseconds }
            let lostData = result.gaps.contains { $0.reason == .fifoOverflow || ($0.lostSamples ?? 0) > 0 }
            if found > 0 {
                lastDataTime = clock.nowNanoseconds
                stallReported = false
                dataSinceStart = true
            }
            if lostData { lastLossTime = clock.nowNanoseconds }
            lastDrainHadData = result.sampleCount > 0
            trackEdges(edges: edges, hadData: found > 0)
            // An edge that woke the reader must find new data: a watermark's worth (half, for
            // the words that arrive late or were read with the previous batch), or on a chip
            // waited on per sample, a sample. Held and settling samples count, and so does data
            // the drain lost (an overflow found by a late reader, a burst lost on the bus): the
            // edge announced it.
            if !edges.isEmpty, wokenByEdges {
                let expected = imu.interruptSignal == .watermark ? max(1, watermark / 2) : 1
                if found < expected, !lostData { suspicious = true }
            }
            trackStorm(suspicious: suspicious, edges: edges.count)
            // Nothing at all when a batch was due (not an early wake-up, not a stray edge, no
            // loss the driver reported): the chip may have lost its configuration. A brown-out
            // stops the sensors and empties the FIFO (MPU-6000/6050 Register Map rev 4.2 §4.28:
            // PWR_MGMT_1 resets to SLEEP; LSM6DSO DS12140 §9: CTRL1_XL and CTRL2_G reset to
            // power-down), so every drain after it is empty until the chip is configured again.
            if found == 0, result.gaps.isEmpty, !suspicious, !wokeEarly { verifySoon = true }
        } catch {
            samples.removeSubrange(before...)
            statistics.failedDrains += 1
            consecutiveFailures += 1
            lastDrainHadData = false
            let backoff = min(options.maximumBackoffNanoseconds, Nanoseconds.perMillisecond << UInt64(min(consecutiveFailures - 1, 16)))
            clock.sleep(nanoseconds: backoff)
            statistics.wakeups += 1
            if consecutiveFailures >= options.failuresBeforeReinitialise {
                var silent = false
                if case .bus(let bus) = error { silent = bus.mayMeanNothingAnswers }
                notice("\(consecutiveFailures) failed reads in a row (\(error)); re-initialising the chip", nothingAnswers: silent)
                if let gap = reinitialise(reason: .busError) { gaps.append(gap) }
            }
        }

        let now = clock.nowNanoseconds
        let quietNanoseconds = UInt64(max(3 * Double(watermark), 1.5 * Double(imu.maximumSamplesPerWatermark)) * period)
            + 20 * Nanoseconds.perMillisecond
        let quiet = now &- lastDataTime > quietNanoseconds
        // An empty drain that was due reads the configuration back at once (a few bytes, once
        // per wake-up at most, and only while data is missing); a stall with the configuration
        // intact is said once, by the quiet check.
        if started, consecutiveFailures == 0, quiet || verifySoon || now &- lastVerify >= options.verifyIntervalNanoseconds {
            lastVerify = now
            verifySoon = false
            do {
                if try !imu.verifyConfiguration() {
                    notice("\(chipName) lost its configuration (a reset or brown-out); re-initialising (if this repeats, check the sensor's supply)")
                    if let gap = reinitialise(reason: .chipReset) { gaps.append(gap) }
                } else if quiet, !stallReported, now &- lastLossTime > quietNanoseconds {
                    // Data the drains lost meanwhile (an overflow, bursts that came back zeroed)
                    // came from the chip: not a stall. Said as one, three zeroed reads in a row at
                    // 12.5 Hz (1.7 s) gave a `.stall` gap of 21 samples on top of their own gaps.
                    stallReported = true
                    let lost = Int(Double(now &- lastDataTime) / period)
                    gaps.append(StreamGap(reason: .stall, afterNanoseconds: lastSampleTime, detectedNanoseconds: now, lostSamples: lost))
                    notice("no data from \(chipName) for \(Double(now &- lastDataTime) / 1e6) ms although it holds its configuration")
                }
            } catch {
                consecutiveFailures += 1
            }
        }
        if !gravityChecked, samples.count > before { checkGravity(samples[before...]) }
        statistics.samples += samples.count - before
        statistics.gaps += gaps.count
        statistics.lostSamples += gaps.reduce(0) { $0 + ($1.lostSamples ?? 0) }
        return gaps
    }

    /// Lets go of the data-ready line (the request is freed with the last reference to it), after
    /// the stream's last stop: a pipeline built next (a reload) asks for the same line, which the
    /// kernel refuses while this request lives (EBUSY, even within one process). A stream started
    /// again afterwards would poll.
    public func releaseLine() {
        line = nil
        mode = .polling
    }

    /// Waits for an edge or sleeps until a watermark's worth of samples is due.
    private func block() -> [EdgeEvent] {
        statistics.wakeups += 1
        let now = clock.nowNanoseconds
        let batch = Double(watermark) * period
        let early = earlyDue()
        if let line, mode == .interrupts, imu.interruptSignal == .watermark || watermark == 1 {
            let watchdog = watchdogNanoseconds + (dataSinceStart ? 0 : options.startUpNanoseconds)
            let timeout = early.map { min(watchdog, $0 > now ? $0 - now : 0) } ?? watchdog
            wokeEarly = timeout < watchdog
            do {
                if let edge = try line.waitForEdge(timeoutNanoseconds: timeout) {
                    watchdogTimeouts = 0
                    return [edge] + (try line.readQueuedEdges())
                }
            } catch {
                notice("waiting on \(line.name) failed (\(error)); polling")
                switchMode(to: .polling)
                return []
            }
            // Woken early on purpose: the watermark was not due yet.
            if timeout < watchdog { return [] }
            watchdogTimeouts += 1
            if watchdogTimeouts >= 2 {
                notice("no interrupt from \(line.name) for \(Double(2 * timeout) / 1e6) ms; polling")
                switchMode(to: .polling)
            }
            return []
        }
        if mode == .polling { statistics.pollingSteps += 1 }
        wokeEarly = false
        var due: UInt64
        // A watermark chip is polled no faster than its FIFO can reach the threshold, so the
        // pin still rises between polls and the return of edges can be seen (a compressing
        // FIFO takes up to ``IMU/maximumSamplesPerWatermark`` samples to get there).
        let batchSamples = imu.interruptSignal == .watermark ? max(watermark, imu.maximumSamplesPerWatermark) : watermark
        if lastDrainHadData, let last = lastSampleTime {
            // Edge-timed samples are exact; polled ones are known to half a period, so wait a
            // whole period more rather than wake to find a sample short.
            let margin = mode == .interrupts ? 0.25 : 1.0
            due = UInt64(max(0, min(Double(last) + (Double(batchSamples) + margin) * period, 1.8e19)))
        } else {
            due = now + UInt64(batch)
        }
        // The sample time is the driver's word: one that is wrong (a corrupted chip timestamp)
        // must not put the reader to sleep for longer than a batch takes.
        due = min(due, now + UInt64(2 * (Double(batchSamples) + 1) * period) + 10 * Nanoseconds.perMillisecond)
        if let early, early < due { due = early; wokeEarly = true }
        if due > now { clock.sleep(nanoseconds: due - now) }
        guard let line else { return [] }
        do {
            let edges = try line.readQueuedEdges()
            if inStorm, mode == .polling, edges.count > plausibleEdges(in: clock.nowNanoseconds &- lastCollection) {
                // Still storming: the edges time nothing, and do not count as a return.
                edgefulSteps = 0
                return []
            }
            if mode == .polling, !edges.isEmpty {
                edgefulSteps += 1
                // A slow storm's edges look plausible while polling: try edges again only after
                // the storm's wait, and say they are back once that holds (``trackStorm``).
                if edgefulSteps >= 2, !inStorm || clock.nowNanoseconds &- stormSince >= stormRetry {
                    if inStorm {
                        stormProbation = 0
                    } else {
                        stormProbation = nil
                        notice("interrupts from \(line.name) are back")
                    }
                    inStorm = false
                    switchMode(to: .interrupts)
                }
            } else if mode == .polling {
                edgefulSteps = 0
            }
            return edges
        } catch {
            return []
        }
    }

    /// How long the reader waits for an edge before it drains anyway, nanoseconds: half as long
    /// again as the longest a watermark can take (one watermark, or up to about three when the
    /// FIFO compresses, ``IMU/maximumSamplesPerWatermark``), and 10 ms for the wake-up itself.
    ///
    /// The wait starts after a drain, and the next watermark (or, waited on per sample, the next
    /// sample) comes at most one watermark's time later, so half a watermark is margin enough
    /// for the chip's oscillator (a few percent) and the reader's own delay. A timeout is how a
    /// lost edge and a chip that stopped (a brown-out powers its sensors down and no edge comes)
    /// are found. Three watermarks, as before, was 1.7 s at the low-energy mode's 12.5 Hz and
    /// 7 samples: a lost edge held data the chip had back for 1.7 s, past the 1 s the low-energy
    /// mode promises, and an LSM6DSO's brown-out was found 1.7 s after the last drain, 22–26
    /// instants without a sample where there are 12–15 now (LowRateFaultCostTests).
    ///
    /// At least two samples more than the longest, too: a threshold can take one instant more
    /// than its watermark (the LSM6DSO's counts a timestamp word that comes once in 32 instants,
    /// 2w + 1 words, so after a drain that emptied the FIFO the pin rises after w + 1 instants),
    /// and at small watermarks half a watermark is no margin for that. At watermark 1 and 12.5 Hz
    /// (120 ms for two instants, 160 ms) the watchdog fired before every other edge, and with the
    /// chip's oscillator 9 % slow twice in a row: a healthy stream went to polling and back, over
    /// and over (WatchdogMarginTests). From watermark 4 on, 1.5 watermarks is the longer.
    private var watchdogNanoseconds: UInt64 {
        let longest = Double(max(watermark, imu.maximumSamplesPerWatermark))
        return UInt64(min(max(1.5 * longest, longest + 2) * period, 1e18)) + 10 * Nanoseconds.perMillisecond
    }

    /// When the sample ``wake(bySampleAt:)`` asked for should be in the FIFO (a quarter period
    /// after it is due, as for edge-timed samples), and forgets the request; `nil` without one,
    /// or before the first sample.
    private func earlyDue() -> UInt64? {
        defer { earlyWake = nil }
        guard let wanted = earlyWake, let last = lastSampleTime, lastDrainHadData else { return nil }
        let samples = max(1, (Double(wanted &- min(wanted, last)) / period).rounded(.up))
        return UInt64(min(Double(last) + (samples + 0.25) * period, 1.8e19))
    }

    private func trackEdges(edges: [EdgeEvent], hadData: Bool) {
        guard mode == .interrupts, let line, imu.interruptSignal == .everySample, watermark > 1 else { return }
        if hadData && edges.isEmpty {
            edgelessDrains += 1
            if edgelessDrains >= 3 {
                notice("samples arrive but \(line.name) shows no edges; timing from the estimated period")
                switchMode(to: .polling)
            }
        } else if !edges.isEmpty {
            edgelessDrains = 0
        }
    }

    /// The most edges the pin can give in `nanoseconds`: two per sample period (a pulse per
    /// sample, both edges watched) or per watermark, and a few for the edges at the window's ends.
    private func plausibleEdges(in nanoseconds: UInt64) -> Int {
        let interval = imu.interruptSignal == .watermark ? Double(watermark) * period : period
        return 2 * Int(min(Double(nanoseconds) / interval, 1e9)) + 4
    }

    /// True when the reader blocks on the line for each wake-up (a watermark chip, or a chip
    /// that signals each sample with a one-sample watermark), so an edge is a wake-up.
    private var wokenByEdges: Bool {
        mode == .interrupts && line != nil && (imu.interruptSignal == .watermark || watermark == 1)
    }

    /// Spurious edge wake-ups of the last 16 that make a storm.
    static let stormThreshold = 8
    /// Edge wake-ups in a row, all finding new data, that let a return from a storm hold (once
    /// the trial saw 16): at most 4 spurious of the last 16, half the threshold, and none lately.
    static let stormClearRun = 12

    /// Counts the edge wake-ups whose edges the data does not explain, over the last 16; when
    /// half of them are, polls.
    private func trackStorm(suspicious: Bool, edges: Int) {
        guard let line, mode == .interrupts, edges > 0 else { return }
        stormHistory = stormHistory << 1 | (suspicious ? 1 : 0)
        stormSteps = min(stormSteps + 1, 16)
        if let n = stormProbation {
            // The return holds once 16 edge wake-ups passed and the last 12 all found new data
            // (``stormClearRun``). "At most 4 spurious of 16" held during a storm near the chip's
            // own edge rate, whose spurious count dips to 4 now and then: a 60 Hz storm on an
            // LSM6DSO at 208 Hz gave 10 storm and 10 'back' notices in 20 s (StormTrialTests).
            // A storm that dies down to a trickle of stray edges is therefore never announced as
            // over; the reader wakes on the edges meanwhile.
            if n + 1 >= 16, stormHistory & ((UInt16(1) << Self.stormClearRun) - 1) == 0 {
                stormProbation = nil
                stormRetry = options.stormRetryNanoseconds
                notice("interrupts from \(line.name) are back")
            } else {
                stormProbation = n + 1
            }
        }
        guard stormHistory.nonzeroBitCount >= Self.stormThreshold else { return }
        if stormProbation != nil {
            // The same storm: poll again, and wait twice as long before the next try.
            stormRetry = min(stormRetry * 2, 64 * options.stormRetryNanoseconds)
        } else {
            let spurious = stormHistory.nonzeroBitCount
            notice("interrupt storm on \(line.name): \(spurious) of the last \(stormSteps) wake-ups by an edge found no new data or more edges than the chip gives; "
                + "polling until it calms (a floating or noisy input: give the pin a pull resistor, and check that this line is the one wired to the chip's INT pin)")
        }
        stormProbation = nil
        inStorm = true
        stormSince = clock.nowNanoseconds
        switchMode(to: .polling)
    }

    private func switchMode(to newMode: Mode) {
        mode = newMode
        edgelessDrains = 0
        edgefulSteps = 0
        watchdogTimeouts = 0
        stormHistory = 0
        stormSteps = 0
    }

    private func discardQueuedEdges() {
        guard let line else { return }
        do { _ = try line.readQueuedEdges() } catch { notice("reading \(line.name) failed: \(error)") }
    }

    /// "the MPU-6050 at 0x68 on /dev/i2c-1", for notices.
    private var chipName: String {
        imu.identity.map { "the \($0.part) at \($0.address) on \($0.bus)" } ?? "the chip"
    }

    /// Samples in one still window of the gravity check: at least this many.
    static let gravityWindow = 64

    /// Seconds in one still window of the gravity check: at least this long. Counted in samples
    /// alone, a window at 833 Hz lasted 77 ms, and a smooth push without rotation (a hand lifting
    /// the board, a robot starting off) held the magnitude within 0.02 g at 1.36 g that long: the
    /// storm sweep's ramp gave a notice on a right-scaled LSM6DSO.
    static let gravityWindowSeconds = 0.5

    /// The samples in one still window at the configured rate.
    private var gravityWindowSamples: Int {
        max(Self.gravityWindow, Int((Self.gravityWindowSeconds * configuration.outputDataRate).rounded(.up)))
    }

    /// At rest the accelerometer reads 1 g. The first window of ``gravityWindow`` samples and
    /// ``gravityWindowSeconds`` that is still (the magnitude's spread under 0.02 g, the rate under
    /// 0.05 rad/s) is checked once:
    /// between 0.25 g and 0.8 g, or between 1.25 g and 4 g, the chip's scale is not the one it is
    /// driven with, and a notice says so with the identity's warnings. The case in mind is the
    /// LSM6DSO32, which shares WHO_AM_I 0x6C with the LSM6DSO (ST-C `LSM6DSO32_ID`,
    /// `LSM6DSO_ID`): driven as an LSM6DSO, whose FS_XL codes mean half its ranges
    /// (`lsm6dso32_fs_xl_t`: 0 = ±4 g, 2 = ±8 g, 3 = ±16 g, 1 = ±32 g), it reads 0.5 g. Readings
    /// near 0 g (free fall, a simulated profile without gravity) are left alone.
    private func checkGravity(_ new: ArraySlice<IMUSample>) {
        let g = MotionConstants.standardGravity
        let window = gravityWindowSamples
        for s in new {
            let a = s.acceleration, w = s.angularRate
            let magnitude = ((a * a).sum()).squareRoot() / g
            stillWindow.count += 1
            stillWindow.sum += magnitude
            stillWindow.sumOfSquares += magnitude * magnitude
            stillWindow.largestRate = max(stillWindow.largestRate, ((w * w).sum()).squareRoot())
            guard stillWindow.count >= window else { continue }
            let n = Double(stillWindow.count)
            let mean = stillWindow.sum / n
            let spread = (max(0, stillWindow.sumOfSquares / n - mean * mean)).squareRoot()
            let still = spread < 0.02 && stillWindow.largestRate < 0.05
            stillWindow = (0, 0, 0, 0)
            guard still else { continue }
            gravityChecked = true
            if (0.25...0.8).contains(mean) || (1.25...4).contains(mean) {
                let warnings = imu.identity?.warnings ?? []
                notice("\(chipName) reads \((mean * 100).rounded() / 100) g at rest, not 1 g: the chip's scale is not the one it is driven with"
                    + (warnings.isEmpty ? " (a clone or another part with the same WHO_AM_I: choose the part explicitly)"
                                        : " (\(warnings.joined(separator: "; ")))"))
            }
            return
        }
    }

    /// Compares the bus time the requested stream needs with ``busClock``, once; says when it needs
    /// more than ``BusBudget/safeShare``: the share, the clock and its source, and the fixes (the
    /// raised clock with the share it would leave, and the highest rate that fits this clock).
    private func checkBusBudget() {
        guard !busBudgetChecked, let clock = busClock, clock.hertz > 0, let traffic = imu.streamTraffic(for: requested) else { return }
        busBudgetChecked = true
        let budget = BusBudget(traffic: traffic, busHertz: clock.hertz, maximumReadLength: clock.maximumReadLength)
        guard !budget.fits else { return }
        func percent(_ share: Double) -> String { "\(Int((share * 100).rounded())) %" }
        let bus = imu.identity?.bus ?? "the I2C bus"
        var fixes: [String] = []
        if let raise = clock.raiseInstruction, clock.raisedHertz > clock.hertz {
            let raised = BusBudget(traffic: traffic, busHertz: clock.raisedHertz, maximumReadLength: clock.maximumReadLength)
            fixes.append("\(raise) (then \(percent(raised.share)))")
        }
        if let rate = BusBudget.highestFittingRate(for: imu, configuration: requested, busHertz: clock.hertz,
                                                   maximumReadLength: clock.maximumReadLength) {
            fixes.append("set \(clock.rateSetting) to \(Self.rateText(rate)) or lower")
        } else {
            fixes.append("lower \(clock.rateSetting)")
        }
        notice("\(bus) runs at \(frequencyText(hertz: clock.hertz)) (\(clock.source)) and the \(traffic.part) at \(Self.rateText(traffic.outputDataRate)) Hz "
            + "needs \(percent(budget.share)) of it (\(Int((budget.bitsPerSecond / 1000).rounded())) kbit/s, a FIFO read every \(traffic.samplesPerDrain) samples); "
            + "above \(percent(BusBudget.safeShare)) the FIFO can overflow (gaps in the stream): " + fixes.joined(separator: ", or "))
    }

    /// "333" for 333.3 Hz (a rate the chip runs at or below), "12.5" for 12.5 Hz.
    static func rateText(_ hertz: Double) -> String {
        if hertz >= 100 || hertz == hertz.rounded() { return String(Int(hertz.rounded(.down))) }
        return String((hertz * 10).rounded(.down) / 10)
    }

    /// A driver may name the part again at its reset (the MPU family makes its MPU-9150 look once
    /// more when the first could not tell: ``MPU6050/reset()``); a warning printed from the
    /// identity before the reset then no longer holds, and this says so.
    private func noticeIdentityChangedByReset(from before: IMUIdentity?) {
        guard let before, let now = imu.identity, now.partKey != before.partKey else { return }
        notice("\(now.part) at \(now.address) on \(now.bus): named \(before.part) before its reset, \(now.part) after it (WHO_AM_I 0x\(hex(now.whoAmI)) is both; the look that tells them apart worked only after the reset); driving it as \(now.part)")
    }

    private func notice(_ message: String, error: IMUError? = nil, nothingAnswers: Bool = false) {
        if notices.count >= Self.maximumPendingNotices {
            notices.removeFirst()
            droppedNotices += 1
        }
        notices.append(Notice(timeNanoseconds: clock.nowNanoseconds, message: message, error: error, nothingAnswers: nothingAnswers))
    }

    /// Reads the configuration just written back; if it differs, writes it once more (a
    /// brown-out during the writes is undone by writing them again); if it still differs, this
    /// chip does not read back what it is written (a clone?), not a brown-out. Refusing to stream
    /// would leave no data for good: it streams, and what it reads back now is what later
    /// read-backs compare with (``IMU/acceptReadBack()``), so a brown-out (registers back at their
    /// defaults) is still found, and the chip is not re-initialised, with a gap, every second.
    private func confirmConfiguration() throws(IMUError) {
        guard try !imu.verifyConfiguration() else { return }
        try imu.reset()
        configuration = try imu.apply(requested)
        try imu.startStreaming()
        guard try !imu.verifyConfiguration() else { return }
        try imu.acceptReadBack()
        notice("\(chipName): the configuration did not read back as written, twice in a row; streaming anyway and checking it against what it reads back (a clone whose registers read back differently? 'plumb regs' shows them)")
    }

    /// Identify, reset, configure, restart. Returns the gap, or `nil` when the attempt failed (the
    /// next step tries again).
    ///
    /// WHO_AM_I is read again first: a chip that lost its configuration may be another chip (a
    /// board swapped while running), and driving it with the old variant's row would decode its
    /// data with the wrong layout or formula. Parts that share a WHO_AM_I are told apart again by
    /// the driver's identify (an MPU-9150 swapped in for an MPU-6050 is looked for behind 0x68
    /// again, ``MPU6050/identify()``). A WHO_AM_I that matches no part (all 0x00 or 0xFF
    /// from a bus stuck low or high) fails the attempt with an error naming it.
    private func reinitialise(reason: StreamGap.Reason) -> StreamGap? {
        let detected = clock.nowNanoseconds
        do {
            let before = imu.identity
            let found = try imu.identify()
            if let before, before.whoAmI != found.whoAmI {
                notice("WHO_AM_I at \(found.address) on \(found.bus) changed from 0x\(hex(before.whoAmI)) (\(before.part)) to 0x\(hex(found.whoAmI)) (\(found.part)): another chip answers; driving it as \(found.part)")
            } else if let before, before.partKey != found.partKey {
                // The same WHO_AM_I, another part: the MPU-9150 and MPU-6050 (0x68), told apart by the MPU-9150's magnetometer.
                notice("the chip at \(found.address) on \(found.bus) was named \(before.part) and is named \(found.part) now (both answer WHO_AM_I 0x\(hex(found.whoAmI))): another chip answers; driving it as \(found.part)")
            }
            try imu.reset()
            noticeIdentityChangedByReset(from: found)
            configuration = try imu.apply(requested)
            try imu.startStreaming()
            // Read back before streaming from it: a second brown-out in the middle of the writes
            // leaves the registers written before it at their defaults and those after it set, a
            // chip that samples at its default rate and range while the driver decodes at the
            // configured ones (MPU-6050 at 100 Hz, two resets 147 ms apart: samples at 4 times
            // their value, stamped ahead of the clock, until the next read-back a second later).
            // A brown-out after the read-back stops the chip (its defaults sleep), no harm.
            try confirmConfiguration()
            discardQueuedEdges()
        } catch {
            if needsReinitialise == nil { notice("re-initialising failed: \(error); trying again", error: error) }
            needsReinitialise = reason
            let backoff = min(options.maximumBackoffNanoseconds, 10 * Nanoseconds.perMillisecond)
            clock.sleep(nanoseconds: backoff)
            return nil
        }
        needsReinitialise = nil
        statistics.reinitialisations += 1
        consecutiveFailures = 0
        let now = clock.nowNanoseconds
        let since = lastSampleTime ?? lastDataTime
        let lost = Int(Double(now &- min(since, now)) / period)
        lastDataTime = now
        lastVerify = now
        lastDrainHadData = false
        dataSinceStart = false
        return StreamGap(reason: reason, afterNanoseconds: lastSampleTime, detectedNanoseconds: detected, lostSamples: lost)
    }
}
