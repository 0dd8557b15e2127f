// plumb-vmtest: runs the VM checks and prints one line per check, then "N passed, N failed".
//
//   plumb-vmtest [--only PREFIX]... [--list]
//
// Exit status: 0 when every selected check passed, 1 otherwise, 2 when the environment is missing.
import Glibc
import PlumbLinux

/// Writes one line to stdout unbuffered, so a crash loses nothing already reported.
func say(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(1, $0, strlen($0)) }
}

var prefixes: [String] = []
var listOnly = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--only":
        guard let p = arguments.next() else { say("plumb-vmtest: --only needs a check name prefix"); exit(2) }
        prefixes.append(p)
    case "--list":
        listOnly = true
    case "--hold-claim":
        // The second process of the check i2c.claim-keeps-another-process-off (ClaimChecks.swift).
        holdClaim(Array(arguments))
    default:
        say("plumb-vmtest: unknown argument \(argument); usage: plumb-vmtest [--only PREFIX]... [--list]")
        exit(2)
    }
}

let selected = VMChecks.all.filter { check in prefixes.isEmpty || prefixes.contains { check.name.hasPrefix($0) } }
if listOnly {
    for check in selected { say(check.name) }
    exit(0)
}

let tag = "libgpiod \(GPIOD.libraryVersion)"
let env: VMEnvironment
do {
    env = try VMEnvironment.discover()
} catch {
    say("FAIL environment: \(error)")
    say("0 passed, \(selected.count) failed")
    exit(2)
}
say("plumb-vmtest (\(tag)): /dev/i2c-\(env.i2cBus), \(env.gpioChip) [\(env.gpioLabel)], \(selected.count) checks")

var passed = 0
var failed = 0
for check in selected {
    let start = env.clock.nowNanoseconds
    do {
        let detail = try check.run(env)
        passed += 1
        say("PASS \(check.name) (\(milliseconds(env.clock.nowNanoseconds - start)))\(detail.isEmpty ? "" : ": \(detail)")")
    } catch {
        failed += 1
        say("FAIL \(check.name): \(error)")
    }
}
say("\(passed) passed, \(failed) failed")
exit(failed == 0 ? 0 : 1)
