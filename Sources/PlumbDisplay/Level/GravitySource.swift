import Foundation

/// One gravity estimate: the unit vector towards the earth in the device frame (x right of the
/// screen, y up the screen, z out of it), and when it was measured.
public struct GravityReading: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var z: Double
    /// Nanoseconds on the source's clock.
    public var timestampNanoseconds: UInt64

    public init(x: Double, y: Double, z: Double, timestampNanoseconds: UInt64 = 0) {
        self.x = x; self.y = y; self.z = z; self.timestampNanoseconds = timestampNanoseconds
    }

    /// The gravity a device sees when turned clockwise (seen from the front) by `radians` from
    /// upright, screen vertical: (sin θ, −cos θ, 0).
    public static func turned(by radians: Double, timestampNanoseconds: UInt64 = 0) -> GravityReading {
        GravityReading(x: sin(radians), y: -cos(radians), z: 0, timestampNanoseconds: timestampNanoseconds)
    }

    /// The angle that keeps a picture level for this gravity (``LevelAngle``).
    public var levelAngle: Double { LevelAngle.from(gravityX: x, gravityY: y) }

    /// True when the screen faces up or down closely enough (within `degrees` of flat) that the
    /// level angle means little: gravity's part in the screen's plane is under sin(degrees).
    public func isNearlyFlat(within degrees: Double = 10) -> Bool {
        (x * x + y * y).squareRoot() < sin(degrees * .pi / 180)
    }
}

/// A stream of gravity estimates: the simulator through fusion, a live IMU, or a fixed value.
///
/// `plumb level` and ``LevelSession`` read one estimate per frame; a source that produces faster
/// than that hands over its latest estimate.
public protocol GravitySource: AnyObject {
    /// A name for messages ("simulated MPU-6050, tour profile", "fixed 30°").
    var name: String { get }
    /// The next estimate, waiting for it if need be; nil when the source has ended.
    func nextGravity() throws -> GravityReading?
}

/// The same gravity every time: for `--angle`, snapshots and tests.
public final class FixedGravity: GravitySource {
    public let reading: GravityReading
    public let name: String

    public init(_ reading: GravityReading, name: String? = nil) {
        self.reading = reading
        self.name = name ?? "fixed gravity (\(reading.x), \(reading.y), \(reading.z))"
    }

    /// A device turned clockwise by `degrees`: the picture is drawn turned back by as much.
    public convenience init(deviceTurnedBy degrees: Double) {
        self.init(.turned(by: degrees * .pi / 180), name: "device turned \(degrees)°")
    }

    public func nextGravity() throws -> GravityReading? { reading }
}

/// A given list of readings, then the end: for tests and replays.
public final class ScriptedGravity: GravitySource {
    public let name: String
    private var readings: [GravityReading]
    private var index = 0

    public init(_ readings: [GravityReading], name: String = "script") {
        self.readings = readings
        self.name = name
    }

    public func nextGravity() throws -> GravityReading? {
        guard index < readings.count else { return nil }
        defer { index += 1 }
        return readings[index]
    }
}

/// Another source that ends (nil) once `shouldStop` says so: `plumb level` and `plumb led` on
/// the simulator or a fixed angle, stopped by SIGINT, SIGTERM or SIGHUP as the board's IMU is,
/// so that the command cleans up as at a normal end. `shouldStop` is asked before each estimate.
public final class StoppableGravity: GravitySource {
    public let source: any GravitySource
    /// True once `shouldStop` ended the source (not the source's own end).
    public private(set) var wasStopped = false
    private let shouldStop: () -> Bool

    public var name: String { source.name }

    public init(_ source: any GravitySource, shouldStop: @escaping () -> Bool) {
        self.source = source
        self.shouldStop = shouldStop
    }

    public func nextGravity() throws -> GravityReading? {
        if wasStopped || shouldStop() {
            wasStopped = true
            return nil
        }
        return try source.nextGravity()
    }
}
