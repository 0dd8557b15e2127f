import FuzzSupport

/// libFuzzer's entry point: one run of the `system` harness on `size` bytes.
@main struct Fuzz {
    static func main() { runLibFuzzer(fuzzOne) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    SystemHarness.run(input)
    return 0
}
