// swift-tools-version:6.0
//
// libFuzzer harnesses for Plumb: the code that eats bytes Plumb does not control (FIFO data and
// status registers from a glitching bus, interrupt edges, files the user writes, what sysfs,
// procfs and the device tree say, other programs' output and D-Bus replies). A package of
// its own, so the fuzz targets never enter the normal build; scripts/fuzz builds it with
// -sanitize=fuzzer,address into .build-fuzz. See README.md, "Fuzzing".
import PackageDescription
import Foundation

// The main package by path; its identity is its folder's name (whatever the checkout is called).
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let plumb = root.lastPathComponent

func plumbProduct(_ name: String) -> Target.Dependency { .product(name: name, package: plumb) }

let harnesses = ["mpu6050", "lsm6ds", "decoders", "configuration", "recording", "system", "listings"]

let package = Package(
    name: "PlumbFuzz",
    dependencies: [.package(path: root.path)],
    targets: [
        .target(name: "FuzzSupport",
                dependencies: ["PlumbHAL", "PlumbDrivers", "PlumbSimulation", "PlumbFusion", "PlumbOrientation", "PlumbConfiguration", "PlumbMQTT",
                               "PlumbLinux", "PlumbDisplay", "PlumbDBus"]
                    .map(plumbProduct),
                swiftSettings: [.swiftLanguageMode(.v6)]),
        // Writes fuzz/corpus (scripts/fuzz --seeds): not a fuzzer.
        .executableTarget(name: "fuzz-seeds",
                          dependencies: ["FuzzSupport"] + ["PlumbHAL", "PlumbDrivers", "PlumbSimulation", "PlumbConfiguration"].map(plumbProduct),
                          swiftSettings: [.swiftLanguageMode(.v6)]),
    ] + harnesses.map { name in
        .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzSupport"], swiftSettings: [.swiftLanguageMode(.v6)])
    }
)
