import Testing
@testable import PlumbCLI

/// `plumb read`'s t_s column is seconds since the first sample, signed: a sample stamped before
/// the first one (here an LSM6DSO driven as an LSM6DSL, which `--part` allows with a warning, so
/// its FIFO is read in the wrong format) printed as 18446744073.6 s, the difference wrapped.
@Suite struct ReadTimeColumnTests {
    @Test func aSampleStampedBeforeTheFirstIsNotWrapped() throws {
        let r = runPlumb(["read", "--simulate", "--chip", "lsm6dso", "--part", "lsm6dsl", "--count", "6"])
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").dropFirst()
        #expect(lines.count == 6)
        for line in lines {
            let t = try #require(Double(line.split(separator: ",")[0]), "\(line)")
            #expect(abs(t) < 60, "t_s \(t) in \(line)")
        }
    }
}
