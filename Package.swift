// swift-tools-version:6.0
//
// Plumb: which way is down, for a Linux board with an I2C IMU.
//
// The module layout follows ../shared/DESIGN.md. A module's target exists only once its folder
// under Sources/ does (and a test target once its folder under Tests/ does), so a module appears
// here as its contents arrive and the dependency rules live in one table below.
import PackageDescription
import Foundation

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
func exists(_ relative: String) -> Bool {
    FileManager.default.fileExists(atPath: root + "/" + relative)
}

/// An optional prefix holding a libgpiod build other than the system's (for example 2.1.3 from
/// bookworm-backports unpacked by scripts/libgpiod-v2): headers under include/, library under lib/.
let gpiodPrefix = ProcessInfo.processInfo.environment["PLUMB_LIBGPIOD_PREFIX"].flatMap { $0.isEmpty ? nil : $0 }

/// What each module may import (DESIGN.md, "Modules").
let modules: [(name: String, dependencies: [String])] = [
    ("PlumbHAL", []),
    ("CGPIOD", []),
    ("PlumbLinux", ["PlumbHAL", "CI2C", "CGPIOD", "CPlumbLinux", "CSystemd"]),
    ("CPlumbLinux", []),
    ("PlumbFusion", []),
    ("PlumbConfiguration", ["PlumbHAL"]),
    ("PlumbDrivers", ["PlumbHAL"]),
    ("PlumbSimulation", ["PlumbHAL", "PlumbDrivers"]),
    ("PlumbOrientation", ["PlumbHAL", "PlumbDrivers", "PlumbFusion"]),
    ("CImageIO", []),
    ("PlumbDisplay", ["PlumbHAL", "PlumbOrientation", "CImageIO"]),
    ("PlumbCLI", [
        "PlumbHAL",
        "PlumbLinux",
        "PlumbDrivers",
        "PlumbSimulation",
        "PlumbFusion",
        "PlumbOrientation",
        "PlumbDisplay",
        "PlumbConfiguration",
        "CBench",
        "CFusionReference",
        "CPixman",
        "PlumbDBus",
        "PlumbMQTT",
    ]),
    ("CBench", []),
    // The C speed reference of `plumb bench fusion` (Madgwick's equations, compiled with -O2).
    ("CFusionReference", []),
    ("CSDBus", []),
    ("PlumbDBus", ["PlumbHAL", "CSDBus", "PlumbOrientation"]),
    // The MQTT publisher (issue 9): libmosquitto through the system library CMosquitto.
    ("PlumbMQTT", ["CMosquitto"]),
]

let present = Set(modules.map(\.name).filter { exists("Sources/\($0)") } + ["CI2C", "CPixman", "CSystemd", "CMosquitto"].filter { exists("Sources/\($0)") })

func cSettings(for name: String) -> [CSetting] {
    if name == "CFusionReference" { return [.unsafeFlags(["-O2"])] }
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

var targets: [Target] = []
if present.contains("CI2C") {
    targets.append(.systemLibrary(name: "CI2C", path: "Sources/CI2C", providers: [.apt(["libi2c-dev"])]))
}
if present.contains("CPixman") {
    targets.append(.systemLibrary(name: "CPixman", path: "Sources/CPixman", pkgConfig: "pixman-1", providers: [.apt(["libpixman-1-dev"])]))
}
if present.contains("CSystemd") {
    // sd_notify(3) for Type=notify readiness, reload and watchdog.
    targets.append(.systemLibrary(name: "CSystemd", path: "Sources/CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]))
}
if present.contains("CMosquitto") {
    targets.append(.systemLibrary(name: "CMosquitto", path: "Sources/CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]))
}
for module in modules where present.contains(module.name) {
    let dependencies = module.dependencies.filter(present.contains).map { Target.Dependency(stringLiteral: $0) }
    if module.name.hasPrefix("C") {
        targets.append(.target(name: module.name, dependencies: dependencies,
                               cSettings: cSettings(for: module.name), linkerSettings: linkerSettings(for: module.name)))
    } else {
        targets.append(.target(name: module.name, dependencies: dependencies,
                               swiftSettings: [.swiftLanguageMode(.v6)]))
    }
    if exists("Tests/\(module.name)Tests") {
        var testDependencies = [Target.Dependency(stringLiteral: module.name)]
        // Tests drive drivers and the notifier through the emulators.
        if module.name != "PlumbSimulation", present.contains("PlumbSimulation"),
           ["PlumbDrivers", "PlumbOrientation", "PlumbCLI", "PlumbDisplay", "PlumbDBus"].contains(module.name) {
            testDependencies.append("PlumbSimulation")
        }
        targets.append(.testTarget(name: "\(module.name)Tests", dependencies: testDependencies,
                                   resources: exists("Tests/\(module.name)Tests/Fixtures") ? [.copy("Fixtures")] : nil,
                                   swiftSettings: [.swiftLanguageMode(.v6)]))
    }
}
targets.append(.executableTarget(name: "plumb", dependencies: ["PlumbCLI"], swiftSettings: [.swiftLanguageMode(.v6)]))

var products: [Product] = [.executable(name: "plumb", targets: ["plumb"])]

// The checks scripts/vm-test runs inside a QEMU guest against the real kernel (i2c-stub, gpio-sim,
// vfb). Built release with --static-swift-stdlib; kept free of Foundation so the guest image stays small.
if exists("Sources/PlumbVMTest") {
    let dependencies = ["PlumbHAL", "PlumbLinux", "PlumbDrivers"].filter(present.contains).map { Target.Dependency(stringLiteral: $0) }
    targets.append(.executableTarget(name: "PlumbVMTest", dependencies: dependencies, swiftSettings: [.swiftLanguageMode(.v6)]))
    products.append(.executable(name: "plumb-vmtest", targets: ["PlumbVMTest"]))
}
for library in ["PlumbHAL", "PlumbLinux", "PlumbDrivers", "PlumbSimulation", "PlumbFusion", "PlumbOrientation", "PlumbDisplay", "PlumbDBus", "PlumbMQTT"]
where present.contains(library) {
    products.append(.library(name: library, targets: [library]))
}

let package = Package(
    name: "Plumb",
    platforms: [.macOS(.v15)],
    products: products,
    targets: targets
)
