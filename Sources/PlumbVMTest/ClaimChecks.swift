// I2CDeviceClaim on a real i2c-dev node, against a second process: this program started again as
// `plumb-vmtest --hold-claim PATH ADDRESS`, which claims the chip, says "held" and keeps it until
// its stdin closes. Checks that the kernel takes record locks on a character device node and that
// a claim really keeps a second process off the chip (a polled chip has no GPIO line to do it).
import Glibc
import PlumbHAL
import PlumbLinux

extension VMChecks {
    static let claim: [VMCheck] = [
        VMCheck(name: "i2c.claim-keeps-another-process-off") { env in
            let path = "/dev/i2c-\(env.i2cBus)"
            let (a, b) = (env.stubAddresses[0], env.stubAddresses[1])
            let holder = try ClaimHolder(path: path, address: a)
            let bus = try LinuxI2CBus(path: path)
            var refusal: I2CDeviceInUse?
            do throws(I2CDeviceInUse) { try bus.claim(a) } catch { refusal = error }
            guard let refusal else {
                holder.end()
                throw CheckFailure("claimed \(a) on \(path) while another process held it")
            }
            try require(refusal.description == "the chip at \(a) on \(path) is in use by another plumb process",
                        "refused with \"\(refusal)\"")
            try bus.claim(b)   // another chip on the same bus is free
            let status = holder.end()
            try require(status == 0, "the holding process exited with status \(status)")
            let again = try LinuxI2CBus(path: path)
            try again.claim(a)
            return "\(a) refused while another process held it, \(b) free, \(a) claimed once that process ended"
        },
        // `plumb probe`'s mark: F_OFD_GETLK on the node tells another process's claim, takes none.
        VMCheck(name: "i2c.claim-told-without-taking-it") { env in
            let path = "/dev/i2c-\(env.i2cBus)"
            let (a, b) = (env.stubAddresses[0], env.stubAddresses[1])
            try require(I2CDeviceClaim.isClaimedElsewhere(path: path, address: a) == false, "\(a) told claimed before anyone claimed it")
            let holder = try ClaimHolder(path: path, address: a)
            let held = I2CDeviceClaim.isClaimedElsewhere(path: path, address: a)
            let other = I2CDeviceClaim.isClaimedElsewhere(path: path, address: b)
            let status = holder.end()
            try require(held == true, "\(a) held by another process told \(held.map(String.init) ?? "unknown")")
            try require(other == false, "\(b), which nobody holds, told \(other.map(String.init) ?? "unknown")")
            try require(status == 0, "the holding process exited with status \(status)")
            try require(I2CDeviceClaim.isClaimedElsewhere(path: path, address: a) == false, "\(a) still told claimed after its holder ended")
            let bus = try LinuxI2CBus(path: path)
            try bus.claim(a)   // the looks took nothing
            return "\(a) told claimed while another process held it (F_OFD_GETLK), \(b) free, \(a) free and claimed once it ended"
        },
    ]
}

/// `plumb-vmtest --hold-claim PATH ADDRESS`: claims the chip, says "held" on stdout, waits for
/// stdin to close, exits 0 (1 when the claim is refused, 2 on bad arguments).
func holdClaim(_ arguments: [String]) -> Never {
    guard arguments.count == 2, let value = Int(arguments[1]), let address = I2CAddress(value) else {
        say("plumb-vmtest: --hold-claim PATH ADDRESS (decimal)")
        exit(2)
    }
    let claim: I2CDeviceClaim
    do { claim = try I2CDeviceClaim.acquire(path: arguments[0], address: address) } catch {
        say("refused: \(error)")
        exit(1)
    }
    say(claim.isHeld ? "held" : "not held")
    var byte: UInt8 = 0
    while read(0, &byte, 1) > 0 {}
    withExtendedLifetime(claim) {}
    exit(0)
}

/// A second plumb-vmtest process holding a claim, started with posix_spawn and two pipes.
final class ClaimHolder {
    private var pid: pid_t = 0
    private var input: Int32 = -1
    private var ended = false

    init(path: String, address: I2CAddress) throws {
        var toChild: [Int32] = [0, 0], fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { throw CheckFailure("pipe: errno \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        for fd in toChild + fromChild { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv = ["/proc/self/exe", "--hold-claim", path, String(address.rawValue)]
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) } }
        let r = posix_spawn(&pid, "/proc/self/exe", &actions, nil, &cArgs, environ)
        close(toChild[0]); close(fromChild[1])
        input = toChild[1]
        guard r == 0 else { close(fromChild[0]); close(input); throw CheckFailure("posix_spawn: errno \(r)") }
        var said: [UInt8] = []
        var byte: UInt8 = 0
        while read(fromChild[0], &byte, 1) == 1, byte != 0x0A { said.append(byte) }
        close(fromChild[0])
        let line = String(decoding: said, as: UTF8.self)
        guard line == "held" else {
            _ = end()
            throw CheckFailure("the holding process said \"\(line)\", not \"held\"")
        }
    }

    /// Closes the child's stdin and waits for it; its exit status (-1 when it did not exit).
    @discardableResult
    func end() -> Int32 {
        guard !ended else { return 0 }
        ended = true
        close(input)
        var status: Int32 = 0
        guard waitpid(pid, &status, 0) == pid else { return -1 }
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    }

    deinit { end() }
}
