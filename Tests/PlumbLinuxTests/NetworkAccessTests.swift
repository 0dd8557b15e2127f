import Foundation
import Glibc
import Testing
@testable import PlumbLinux

@Suite struct NetworkAccessTests {
    static let header = """
        Inter-|   Receive                                                |  Transmit
         face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed

        """
    static let loOnly = header + "    lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0\n"
    static let withWiFi = loOnly + " wlan0: 2948559765   63770    0    0    0     0          0         0  2693004   39764    0    0    0     0       0          0\n"

    /// A kernel whose socket(2) answers `socket` and whose /proc/self/net/dev reads `netDev`.
    func kernel(socket: MockingDriver.Reply = .value(0), netDev: MockingDriver.Reply) -> MockingDriver {
        MockingDriver { call in
            switch call {
            case .socket(family: AF_INET): socket
            case .readFile(path: "/proc/self/net/dev"): netDev
            default: .fail(errno: ENOSYS)
            }
        }
    }

    @Test func restrictedAddressFamiliesAreFound() {
        // systemd's RestrictAddressFamilies=AF_UNIX: socket(AF_INET) fails with EAFNOSUPPORT.
        let driver = kernel(socket: .fail(errno: EAFNOSUPPORT), netDev: .text(Self.withWiFi))
        let problem = driver.withMocking { NetworkAccess.problem(host: "broker.lan") }
        #expect(problem == .socketsRefused(errno: EAFNOSUPPORT))
        #expect(problem?.description.contains("socket(AF_INET)") == true)
        // Even a broker on the board itself is out of reach then.
        #expect(driver.withMocking { NetworkAccess.problem(host: "127.0.0.1") } == .socketsRefused(errno: EAFNOSUPPORT))
        for refusal in [EPERM, EACCES] {
            #expect(kernel(socket: .fail(errno: refusal), netDev: .text(Self.withWiFi)).withMocking {
                NetworkAccess.problem(host: "broker.lan") } == .socketsRefused(errno: refusal))
        }
    }

    @Test func aPrivateNetworkNamespaceIsFound() {
        let driver = kernel(netDev: .text(Self.loOnly))
        #expect(driver.withMocking { NetworkAccess.problem(host: "broker.lan") } == .loopbackOnly)
        #expect(driver.withMocking { NetworkAccess.problem(host: "192.168.1.10") } == .loopbackOnly)
    }

    @Test func aLoopbackBrokerIsNotJudgedByTheInterfaces() {
        // A board with only lo (Wi-Fi disabled, no Ethernet) still reaches a broker running on itself.
        let driver = kernel(netDev: .text(Self.loOnly))
        for host in ["localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "::1"] {
            #expect(driver.withMocking { NetworkAccess.problem(host: host) } == nil, "\(host)")
        }
        #expect(driver.withMocking { NetworkAccess.problem(host: "127.0.0.1.example") } == .loopbackOnly)
    }

    @Test func anOrdinaryNetworkHasNoProblem() {
        #expect(kernel(netDev: .text(Self.withWiFi)).withMocking { NetworkAccess.problem(host: "broker.lan") } == nil)
        // Other socket failures (out of descriptors) say nothing about the sandbox.
        #expect(kernel(socket: .fail(errno: EMFILE), netDev: .text(Self.withWiFi)).withMocking {
            NetworkAccess.problem(host: "broker.lan") } == nil)
    }

    @Test func anUnreadableInterfaceListClaimsNothing() {
        #expect(kernel(netDev: .fail(errno: ENOENT)).withMocking { NetworkAccess.problem(host: "broker.lan") } == nil)
        #expect(kernel(netDev: .text(Self.header)).withMocking { NetworkAccess.problem(host: "broker.lan") } == nil)
    }

    @Test func interfaceNamesAreReadFromProcNetDev() {
        #expect(NetworkAccess.interfaceNames(procNetDev: Self.withWiFi) == ["lo", "wlan0"])
    }

    /// fuzz system (the blanks of RotationToolDiagnosisTests.blanksBeforeCombiningMarksStillSeparate):
    /// a blank before a combining mark is one Character, which the name's blanks filter kept.
    @Test func blanksBeforeCombiningMarksAreDropped() {
        #expect(NetworkAccess.interfaceNames(procNetDev: Self.header + "  eth0 \u{301}: 1 2\n") == ["eth0\u{301}"])
    }

    /// fuzz system: a carriage return before a line's end made one Character of "\r\n" (Swift
    /// splits on Characters), so the line did not end there, and an interface name ran on into the
    /// next line. Every line end ends a line.
    @Test func carriageReturnsDoNotJoinLines() {
        let crlf = Self.withWiFi.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(NetworkAccess.interfaceNames(procNetDev: crlf) == ["lo", "wlan0"])
        let names = NetworkAccess.interfaceNames(procNetDev: Self.header + "\u{1E}[State]\r\r\r\n eth0: 1 2\n")
        #expect(names == ["eth0"])
    }
}
