import Glibc

/// Whether this process can reach a network host at all, asked before connecting to one (the MQTT
/// broker), so that a sandbox that forbids it gives one clear error instead of endless reconnects.
///
/// Two sandboxes are found, both of which `plumb.service` sets up unless its network drop-in is
/// installed (systemd.exec(5)):
/// - `RestrictAddressFamilies=AF_UNIX`: socket(2) for `AF_INET` fails with EAFNOSUPPORT (a
///   seccomp filter or an LSM may answer EPERM or EACCES instead);
/// - `PrivateNetwork=yes` (or `unshare --net`, or a container without a network): the process has
///   a network namespace of its own whose only interface is a loopback device of its own, so even a
///   broker on the same board (127.0.0.1) is out of reach. `/proc/self/net/dev` lists the
///   interfaces of the calling process's namespace (proc(5), /proc/pid/net).
public enum NetworkAccess {
    /// Why no host can be reached.
    public enum Problem: Sendable, Equatable, CustomStringConvertible {
        /// socket(AF_INET) failed with this errno.
        case socketsRefused(errno: Int32)
        /// The only network interface is loopback.
        case loopbackOnly

        public var description: String {
            switch self {
            case .socketsRefused(let e):
                "this process may not open network sockets (socket(AF_INET): \(Sys.describe(errno: e)))"
            case .loopbackOnly:
                "this process sees no network interface but its own loopback (lo), as in a private network namespace"
            }
        }
    }

    /// The reason `host` cannot be reached from this process, or `nil` when nothing stands in the way
    /// that can be seen from here (a cable, a route or a firewall can still).
    ///
    /// A loopback host (`localhost`, 127.0.0.0/8, `::1`) is not judged by the interfaces: a board with
    /// no network device but `lo` still reaches a broker running on itself, and from inside a private
    /// namespace that cannot be told apart without privileges.
    public static func problem(host: String) -> Problem? {
        let result = Sys.socketProbe(family: AF_INET)
        if result == -EAFNOSUPPORT || result == -EPERM || result == -EACCES {
            return .socketsRefused(errno: -result)
        }
        if isLoopback(host) { return nil }
        var error: Int32 = 0
        // Unreadable (no /proc): nothing can be said, so nothing is claimed.
        guard let text = Sys.readFile("/proc/self/net/dev", error: &error) else { return nil }
        let names = interfaceNames(procNetDev: text)
        if !names.isEmpty, names.allSatisfy({ $0 == "lo" }) { return .loopbackOnly }
        return nil
    }

    /// `localhost`, an address in 127.0.0.0/8, or `::1`.
    public static func isLoopback(_ host: String) -> Bool {
        let h = host.lowercased()
        if h == "localhost" || h == "localhost." || h.hasSuffix(".localhost") || h == "::1" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The interface names in the text of `/proc/net/dev`: two header lines, then `name: counters`
    /// (proc(5), /proc/net/dev; the kernel's dev_seq_show prints "%6s:" then the counters).
    public static func interfaceNames(procNetDev text: String) -> [String] {
        // Read on Unicode scalars: Characters would join "\r\n", or a blank and a combining mark
        // after it, into one, which a split on "\n" or a filter of blanks would not take for a
        // line end or a blank (found by scripts/fuzz system).
        text.unicodeScalars.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).dropFirst(2).compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            // Names hold no blanks; the kernel right-aligns them with spaces.
            let name = String(String.UnicodeScalarView(line[..<colon].filter { $0 != " " && $0 != "\t" }))
            return name.isEmpty ? nil : name
        }
    }
}
