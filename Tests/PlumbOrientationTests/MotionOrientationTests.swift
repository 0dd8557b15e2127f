import Foundation
import PlumbDrivers
import PlumbSimulation
import Synchronization
import Testing
@testable import PlumbOrientation

@Suite("MotionOrientation")
struct MotionOrientationTests {
    @Test func startIsIdempotentAndStopStops() async {
        let log = SourceLog()
        let motion = MotionOrientation(source: { ProfileSource(.rest(), log: log) })
        motion.start(); motion.start(); motion.start()
        #expect(await eventually { motion.isSensorRunning })
        #expect(await eventually { log.reads > 20 })
        #expect(log.made == 1)
        #expect(log.starts.count == 1)
        motion.stop(); motion.stop()
        // Stopped, the source lets go of what the next one will ask for (its data-ready line).
        #expect(await eventually { !motion.isSensorRunning && log.stops == 1 && log.closes == 1 })
        let reads = log.reads
        try? await Task.sleep(for: .milliseconds(50))
        #expect(log.reads == reads, "no reads after stop")
        #expect(!motion.isEnabled)
        motion.start()
        #expect(await eventually { motion.isSensorRunning && log.made == 2 })
        motion.stop()
        #expect(await eventually { !motion.isSensorRunning && log.stops == 2 && log.closes == 2 })
    }

    @Test func notificationsUseTheSeedsNamesAndKeys() async throws {
        #expect(MotionOrientationChangedNotification.rawValue == "MotionOrientationChangedNotification")
        #expect(MotionOrientationInterfaceOrientationChangedNotification.rawValue == "MotionOrientationInterfaceOrientationChangedNotification")
        #expect(Notification.Name.motionOrientationChanged == MotionOrientationChangedNotification)
        #expect(Notification.Name.motionOrientationInterfaceOrientationChanged == MotionOrientationInterfaceOrientationChangedNotification)
        #expect(kMotionOrientationDeviceOrientationKey == "MotionOrientationDeviceOrientationKey")
        #expect(kMotionOrientationInterfaceOrientationKey == "MotionOrientationInterfaceOrientationKey")
        #expect(kMotionOrientationKey == "MotionOrientationKey")

        let log = SourceLog()
        let motion = MotionOrientation(source: { ProfileSource(portraitThenLandscapeLeft(), log: log, end: 6) })
        let queue = DispatchQueue(label: "test.notifications")
        motion.notificationQueue = queue
        struct Seen: Sendable { var device: [DeviceOrientation] = []; var interface: [InterfaceOrientation] = []; var onQueue = true; var sender = true }
        let seen = Mutex(Seen())
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        #expect(motion.latestGravity == nil)
        let center = NotificationCenter.default
        let a = center.addObserver(forName: MotionOrientationChangedNotification, object: motion, queue: nil) { note in
            let device = note.userInfo?[kMotionOrientationDeviceOrientationKey] as? DeviceOrientation
            let sender = note.userInfo?[kMotionOrientationKey] as? MotionOrientation
            let onQueue = DispatchQueue.getSpecific(key: key) == 7
            seen.withLock { s in
                if let device { s.device.append(device) }
                s.onQueue = s.onQueue && onQueue
                s.sender = s.sender && sender === motion
            }
        }
        let b = center.addObserver(forName: .motionOrientationInterfaceOrientationChanged, object: motion, queue: nil) { note in
            if let i = note.userInfo?[kMotionOrientationInterfaceOrientationKey] as? InterfaceOrientation {
                seen.withLock { $0.interface.append(i) }
            }
        }
        defer { center.removeObserver(a); center.removeObserver(b) }
        motion.start()
        #expect(await eventually { seen.withLock { $0.device.count } >= 2 })
        #expect(await eventually { !motion.isSensorRunning })
        queue.sync {}
        let s = seen.withLock { $0 }
        #expect(s.device == [.portrait, .landscapeLeft])
        // Portrait is the initial interface orientation: only landscape posts one.
        #expect(s.interface == [.landscapeRight])
        #expect(s.onQueue)
        #expect(s.sender)
        #expect(motion.deviceOrientation == .landscapeLeft)
        #expect(motion.interfaceOrientation == .landscapeRight)
        #expect(motion.affineTransform == InterfaceOrientation.landscapeRight.affineTransform)
        #expect(motion.gravity.x < -0.99)
        // The gravity's time is its last sample's, on the source's (virtual) clock: the source
        // ends after 6 s of samples 10 ms apart.
        let latest = try #require(motion.latestGravity)
        #expect(latest.gravity == motion.gravity)
        #expect((5_900_000_000...6_100_000_000).contains(latest.sampleNanoseconds), "\(latest.sampleNanoseconds)")
    }

    @Test func eachSubscriberGetsEveryChangeAndKeepsTheSensorRunning() async {
        let log = SourceLog()
        // The reader starts with the first subscriber: the source waits for the second, which
        // under load subscribed after portrait was published and missed it.
        let gate = DispatchSemaphore(value: 0)
        let motion = MotionOrientation(source: { ProfileSource(portraitThenLandscapeLeft(), log: log, end: 5, startGate: gate) })
        let first = motion.orientationChanges
        let second = motion.orientationChanges
        #expect(motion.subscriberCount == 2)
        gate.signal()
        // No start(): the subscribers alone run the sensor; the streams end with the source.
        async let a = first.reduce(into: [DeviceOrientation]()) { $0.append($1.deviceOrientation) }
        async let b = second.reduce(into: [DeviceOrientation]()) { $0.append($1.deviceOrientation) }
        let (x, y) = await (a, b)
        #expect(x == [.portrait, .landscapeLeft])
        #expect(y == x)
        #expect(await eventually { !motion.isSensorRunning && motion.subscriberCount == 0 })
    }

    @Test func theSensorStopsWhenTheLastSubscriberLeaves() async {
        let log = SourceLog()
        let motion = MotionOrientation(source: { ProfileSource(.rest(), log: log) })
        // Subscribed here, not inside the task: the sensor starts on its own thread whether or not
        // the busy cooperative pool has run the task yet.
        let changes = motion.orientationChanges
        let task = Task {
            for await _ in changes {}
        }
        #expect(await eventually { motion.isSensorRunning })
        task.cancel()
        #expect(await eventually { !motion.isSensorRunning && log.stops == 1 && motion.subscriberCount == 0 })
    }

    @Test func lowEnergyModeForcedAndAutomatic() async {
        let log = SourceLog()
        let monitor = TestPowerMonitor()
        let energy = EnergySettings(pollInterval: 0.5)
        let motion = MotionOrientation(source: { ProfileSource(.rest(), log: log) }, energy: energy, monitor: monitor)
        motion.start()
        defer { motion.stop() }
        #expect(await eventually { motion.sensorConfiguration == energy.normal })
        motion.setLowEnergeModeForcely(true)
        #expect(await eventually { motion.sensorConfiguration == energy.lowEnergy && motion.isLowEnergyModeActive })
        #expect(motion.sensorConfiguration?.gyroscopeEnabled == false)
        motion.setLowEnergyModeForcibly(false)
        #expect(await eventually { motion.sensorConfiguration == energy.normal })
        monitor.set(PowerState(hot: true, reasons: ["thermal_zone0 85.0 °C"]))
        #expect(await eventually { motion.sensorConfiguration == energy.lowEnergy })
        #expect(motion.powerState.hot)
        monitor.set(PowerState())
        #expect(await eventually { motion.sensorConfiguration == energy.normal })
        motion.automaticLowEnergyMode = false
        monitor.set(PowerState(powerSaver: true))
        #expect(await eventually { motion.powerState.powerSaver })
        try? await Task.sleep(for: .milliseconds(30))
        #expect(motion.sensorConfiguration == energy.normal)
    }

    @Test func aBlankedDisplayStopsTheSensorUntilUnblank() async {
        let log = SourceLog()
        let monitor = TestPowerMonitor()
        let motion = MotionOrientation(source: { ProfileSource(.rest(), log: log) }, energy: EnergySettings(pollInterval: 0.2), monitor: monitor)
        motion.start()
        defer { motion.stop() }
        #expect(await eventually { motion.isSensorRunning })
        monitor.set(PowerState(displayBlanked: true))
        #expect(await eventually { !motion.isSensorRunning && log.stops == 1 })
        let reads = log.reads
        try? await Task.sleep(for: .milliseconds(30))
        #expect(log.reads == reads, "no reads while blanked")
        monitor.set(PowerState())
        #expect(await eventually { motion.isSensorRunning && log.starts.count == 2 })
        // The switch off: blanking no longer stops it.
        var settings = motion.energySettings
        settings.pausesWhileDisplayBlanked = false
        motion.energySettings = settings
        monitor.set(PowerState(displayBlanked: true))
        #expect(await eventually { motion.powerState.displayBlanked })
        try? await Task.sleep(for: .milliseconds(30))
        #expect(motion.isSensorRunning)
        // On the same source, not started again: the switch is not the chip's.
        #expect(log.made == 1)
        #expect(log.starts.count == 2)
    }

    @Test func aSourceThatFailsIsReportedAndMadeAgain() async {
        let log = SourceLog()
        let motion = MotionOrientation(source: { FlakySource(ProfileSource(.rest(), log: log), failAfter: 10) })
        // Retried after 10 ms of wall time rather than a second (the pause on the source's
        // virtual clock takes none).
        motion.state.withLock { $0.retryWallInterval = 0.01 }
        motion.start()
        defer { motion.stop() }
        #expect(await eventually { log.made >= 2 && motion.isSensorRunning })
        #expect(motion.lastError?.contains("timed out waiting for FIFO data") == true)
        #expect(motion.isEnabled)
    }

    @Test func aFailingSourceIsReported() async {
        let motion = MotionOrientation(source: { () throws(MotionSourceError) -> any MotionSampleSource in
            throw .recording("trial.csv:3: column acc_x is missing or not a number")
        })
        motion.start()
        #expect(await eventually { motion.lastError != nil && !motion.isEnabled })
        #expect(motion.lastError?.contains("trial.csv:3") == true)
    }
}

/// What the seed's users find missing: a start() that cannot run says why, and the seed's name
/// for the shared instance.
@Suite struct MotionOrientationSeedTests {
    @Test func startWithoutASourceSaysSoUntilOneIsConfigured() async {
        let motion = MotionOrientation()
        #expect(motion.lastError == nil)
        motion.start()
        motion.start()
        #expect(motion.lastError == "start(): no sensor source to read; call configure(source:) with one (the sensor starts then)")
        #expect(motion.isEnabled)
        #expect(!motion.isSensorRunning)
        // Given one, the started notifier runs, and the message no longer holds.
        let log = SourceLog()
        motion.configure(source: { ProfileSource(.rest(), log: log) })
        #expect(motion.lastError == nil)
        #expect(await eventually { motion.isSensorRunning })
        motion.stop()
        #expect(await eventually { !motion.isSensorRunning })
    }

    @Test func sharedInstanceIsTheSeedsSpellingOfShared() {
        #expect(MotionOrientation.sharedInstance() === MotionOrientation.shared)
    }
}
