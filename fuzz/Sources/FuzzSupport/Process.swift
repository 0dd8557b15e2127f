#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func fwriteStderr(_ buffer: UnsafeBufferPointer<UInt8>) -> Int {
    write(2, buffer.baseAddress, buffer.count)
}

func abortProcess() -> Never { abort() }

/// libFuzzer's driver (in the toolchain's libclang_rt.fuzzer, linked by `-sanitize=fuzzer`):
/// parses libFuzzer's flags from `argv` and runs `callback` on each input.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

/// Runs libFuzzer on `callback` with this process's arguments, then exits with its status.
///
/// An executable target's entry point: SwiftPM links executables with `main` aliased to the
/// module's own entry (so its tests can link it), which keeps libFuzzer's `main` out; this calls
/// the driver that `main` would have.
public func runLibFuzzer(_ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
}
