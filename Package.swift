// swift-tools-version:6.0
//
// Plumb: which way is down, for a Linux board with an I2C IMU.
//
// The module layout follows ../shared/DESIGN.md; the table `modules` below is the one place that
// says what each module may import. Every module has a test target `<Module>Tests` unless it is a
// C shim. Adding a module means adding a row here (a plain list, so SwiftPM's manifest cache always
// sees it: an earlier version discovered folders on disk, which the cache hid until Package.swift
// itself changed).
import PackageDescription
import Foundation

/// An optional prefix holding a libgpiod build other than the system's (for example 2.1.3 from
/// bookworm-backports unpacked by scripts/libgpiod-v2): headers under include/, library under lib/.
let gpiodPrefix = ProcessInfo.processInfo.environment["PLUMB_LIBGPIOD_PREFIX"].flatMap { $0.isEmpty ? nil : $0 }

/// A module: its name, what it may import, and whether its tests carry a Fixtures folder.
struct Module {
    var name: String
    var dependencies: [String]
    var tested = true
    var fixtures = false
    /// Modules whose tests also drive the chip emulators.
    var testsUseSimulation = false
}

/// What each module may import (DESIGN.md, "Modules").
let modules: [Module] = [
    Module(name: "PlumbHAL", dependencies: []),
    Module(name: "PlumbLinux", dependencies: ["PlumbHAL", "CI2C", "CGPIOD", "CPlumbLinux", "CSystemd"]),
    Module(name: "PlumbFusion", dependencies: [], fixtures: true),
    Module(name: "PlumbConfiguration", dependencies: ["PlumbHAL"], fixtures: true),
    Module(name: "PlumbDrivers", dependencies: ["PlumbHAL"], testsUseSimulation: true),
    Module(name: "PlumbSimulation", dependencies: ["PlumbHAL", "PlumbDrivers"]),
    Module(name: "PlumbOrientation", dependencies: ["PlumbHAL", "PlumbDrivers", "PlumbFusion"], testsUseSimulation: true),
    Module(name: "PlumbDisplay", dependencies: ["PlumbHAL", "PlumbOrientation", "CImageIO"], fixtures: true, testsUseSimulation: true),
    Module(name: "PlumbDBus", dependencies: ["PlumbHAL", "CSDBus", "PlumbOrientation"], fixtures: true, testsUseSimulation: true),
    // The MQTT publisher (issue 9): libmosquitto through the system library CMosquitto.
    Module(name: "PlumbMQTT", dependencies: ["CMosquitto"]),
    Module(name: "PlumbCLI", dependencies: [
        "PlumbHAL",
        "PlumbLinux",
        "PlumbDrivers",
        "PlumbSimulation",
        "PlumbFusion",
        "PlumbOrientation",
        "PlumbDisplay",
        "PlumbConfiguration",
        "PlumbDBus",
        "PlumbMQTT",
        "CFusionReference",
        "CPixman",
    ], testsUseSimulation: true),
    // C shims (compiled C targets).
    Module(name: "CGPIOD", dependencies: [], tested: false),
    Module(name: "CPlumbLinux", dependencies: [], tested: false),
    Module(name: "CImageIO", dependencies: [], tested: false),
    Module(name: "CSDBus", dependencies: [], tested: false),
    // The C speed reference of `plumb bench fusion` (Madgwick's equations; a release build, the
    // only kind bench measures, compiles C with -O2: no unsafe flag, which would keep a package
    // depending on this one by version from using the PlumbCLI product).
    Module(name: "CFusionReference", dependencies: [], tested: false),
]

func cSettings(for name: String) -> [CSetting] {
    guard name == "CGPIOD", let prefix = gpiodPrefix else { return [] }
    return [.unsafeFlags(["-I\(prefix)/include"])]
}

func linkerSettings(for name: String) -> [LinkerSetting] {
    switch name {
    case "CGPIOD":
        guard let prefix = gpiodPrefix else { return [.linkedLibrary("gpiod")] }
        // The library file by path: a -L for the prefix can lose to a system -L that another
        // target's pkg-config flags put earlier on the link line, which would link v1 silently.
        return [.unsafeFlags(["-Xlinker", "\(prefix)/lib/libgpiod.so", "-Xlinker", "-rpath", "-Xlinker", "\(prefix)/lib"])]
    case "CImageIO":
        return [.linkedLibrary("jpeg"), .linkedLibrary("png16")]
    case "CSDBus":
        return [.linkedLibrary("systemd")]
    default:
        return []
    }
}

var targets: [Target] = [
    .systemLibrary(name: "CI2C", path: "Sources/CI2C", providers: [.apt(["libi2c-dev"])]),
    .systemLibrary(name: "CPixman", path: "Sources/CPixman", pkgConfig: "pixman-1", providers: [.apt(["libpixman-1-dev"])]),
    // sd_notify(3) for Type=notify readiness, reload and watchdog.
    .systemLibrary(name: "CSystemd", path: "Sources/CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
    // libmosquitto, the MQTT client behind PlumbMQTT.
    .systemLibrary(name: "CMosquitto", path: "Sources/CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),
]
for module in modules {
    let dependencies = module.dependencies.map { Target.Dependency(stringLiteral: $0) }
    if module.name.hasPrefix("C") {
        targets.append(.target(name: module.name, dependencies: dependencies,
                               cSettings: cSettings(for: module.name), linkerSettings: linkerSettings(for: module.name)))
        continue
    }
    targets.append(.target(name: module.name, dependencies: dependencies, swiftSettings: [.swiftLanguageMode(.v6)]))
    guard module.tested else { continue }
    var testDependencies = [Target.Dependency(stringLiteral: module.name)]
    if module.testsUseSimulation { testDependencies.append("PlumbSimulation") }
    targets.append(.testTarget(name: "\(module.name)Tests", dependencies: testDependencies,
                               resources: module.fixtures ? [.copy("Fixtures")] : nil,
                               swiftSettings: [.swiftLanguageMode(.v6)]))
}
targets.append(.executableTarget(name: "plumb", dependencies: ["PlumbCLI"], swiftSettings: [.swiftLanguageMode(.v6)]))
// The checks scripts/vm-test runs inside a QEMU guest against the real kernel (i2c-stub, gpio-sim,
// vfb). Built release with --static-swift-stdlib; kept free of Foundation so the guest image stays small.
targets.append(.executableTarget(name: "PlumbVMTest", dependencies: ["PlumbHAL", "PlumbLinux", "PlumbDrivers", "PlumbDisplay"],
                                 swiftSettings: [.swiftLanguageMode(.v6)]))

let products: [Product] = [
    .executable(name: "plumb", targets: ["plumb"]),
    .executable(name: "plumb-vmtest", targets: ["PlumbVMTest"]),
] + ["PlumbHAL", "PlumbLinux", "PlumbDrivers", "PlumbSimulation", "PlumbFusion", "PlumbOrientation", "PlumbDisplay", "PlumbDBus", "PlumbMQTT",
       "PlumbConfiguration", // for the fuzz harnesses (fuzz/Package.swift)
       "PlumbCLI"] // BoardSensor: the board's IMU, the power monitor and the paced simulator for programs of their own
    .map { Product.library(name: $0, targets: [$0]) }

let package = Package(
    name: "Plumb",
    platforms: [.macOS(.v15)],
    products: products,
    targets: targets
)
