#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file a command writes as its result (`plumb fuse --output`, `plumb level --png`), put in
/// place only once all of it was written.
///
/// A regular file, or a path where none exists yet, is written under a temporary name in the same
/// directory (so rename(2) is atomic) and renamed over the path by ``commit()``: a reader never
/// sees half a file, and a command that fails on the way (a recording bad on line 56,942) leaves
/// what was there before, where writing in place had emptied it or left the rows before the bad
/// line as if complete. A replaced file keeps its permission bits and, when run as root, its owner
/// (set before any byte is written: a snapshot kept at 0640 came back 0644, and `sudo plumb level`
/// gave root a user's file); a new one gets 0666 less the umask, as open(2) gives it. Through a
/// symlink the file the link leads to is replaced and the link stays.
///
/// Anything else the path leads to (a FIFO, a terminal, `/dev/stdout`, a dangling symlink) cannot
/// be replaced: it is opened once where it leads, as a shell's `>` opens it (opened twice, a FIFO's
/// reader saw its only writer close and took it for the end). So is a file in a directory this
/// user may not write to (a file made writable for them in /var/log): in place, as before.
///
/// Without ``commit()`` (an error thrown on the way), the temporary file is removed at deinit.
public final class ReplacedFile {
    /// The path as given, for messages.
    public let path: String
    private var fd: Int32 = -1
    /// The temporary file and the path it replaces at ``commit()``; nil when written in place.
    private var pending: (temporary: String, target: String)?

    /// Opens `path` for writing (see the type's discussion).
    ///
    /// - Throws: ``ReplacedFileError`` with stage `open`: the path is a directory, its directory
    ///   does not exist, it may not be written.
    public init(path: String) throws(ReplacedFileError) {
        self.path = path
        // An empty path made "./..plumb-…", then failed only at the rename, after all the work.
        guard !path.isEmpty else { throw ReplacedFileError(path: path, stage: .open, code: ENOENT) }
        var target = path
        var existing = stat()
        var inPlace = false
        var replacing = false
        if lstat(path, &existing) == 0 {
            if existing.st_mode & S_IFMT == S_IFLNK {
                if let resolved = realpath(path, nil) {
                    target = String(cString: resolved)
                    free(resolved)
                    if stat(target, &existing) != 0 || existing.st_mode & S_IFMT != S_IFREG { inPlace = true }
                } else {
                    inPlace = true
                }
            } else if existing.st_mode & S_IFMT == S_IFDIR {
                throw ReplacedFileError(path: path, stage: .open, code: EISDIR)
            } else if existing.st_mode & S_IFMT != S_IFREG {
                inPlace = true
            }
            replacing = !inPlace
            // Replaced by a rename, a file this user may not write (0444, another user's) would be
            // replaced all the same wherever the directory lets them: refused as open(2) refuses it.
            if replacing, access(target, W_OK) != 0 { throw ReplacedFileError(path: path, stage: .open, code: errno) }
        }
        if !inPlace {
            let slash = target.lastIndex(of: "/")
            let directory = slash.map { String(target[..<$0]) } ?? "."
            let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
            for _ in 0..<8 {
                let temporary = (directory.isEmpty ? "" : directory) + "/." + name + ".plumb-" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
                fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                if fd >= 0 {
                    var problem: Int32 = 0
                    if replacing {
                        if fchmod(fd, existing.st_mode & 0o7777) != 0 { problem = errno }
                        if problem == 0, geteuid() == 0, fchown(fd, existing.st_uid, existing.st_gid) != 0 { problem = errno }
                    } else {
                        let mask = Self.umask
                        if fchmod(fd, 0o666 & ~mask) != 0 { problem = errno }
                    }
                    guard problem == 0 else {
                        close(fd)
                        unlink(temporary)
                        fd = -1
                        throw ReplacedFileError(path: path, stage: .open, code: problem)
                    }
                    pending = (temporary, target)
                    return
                }
                if errno != EEXIST { break }
            }
            if errno == ENOENT { throw ReplacedFileError(path: path, stage: .open, code: ENOENT) }
        }
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw ReplacedFileError(path: path, stage: .open, code: errno) }
    }

    deinit {
        if fd >= 0 { close(fd) }
        if let pending { unlink(pending.temporary) }
    }

    /// This process's umask, read from /proc/self/status ("Umask:\t0022", Linux 4.7) rather than
    /// set and put back with umask(2), which would change it for every thread meanwhile; 022 when
    /// it cannot be read.
    static var umask: mode_t {
        guard let file = fopen("/proc/self/status", "r") else { return 0o022 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("Umask:") {
                let digits = text.dropFirst(6).filter { $0 >= "0" && $0 <= "7" }
                return mode_t(digits, radix: 8) ?? 0o022
            }
        }
        return 0o022
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(ReplacedFileError) {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw ReplacedFileError(path: path, stage: .write, code: errno)
            }
            offset += n
        }
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: [UInt8]) throws(ReplacedFileError) {
        var failure: ReplacedFileError?
        bytes.withUnsafeBytes { raw in
            do throws(ReplacedFileError) { try write(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Closes the file and, when it was written under a temporary name, renames it over the path.
    public func commit() throws(ReplacedFileError) {
        let result = close(fd)
        let code = errno
        fd = -1
        guard result == 0 else { throw ReplacedFileError(path: path, stage: .commit, code: code) }
        guard let pending else { return }
        guard rename(pending.temporary, pending.target) == 0 else { throw ReplacedFileError(path: path, stage: .commit, code: errno) }
        self.pending = nil
    }
}

/// Why a ``ReplacedFile`` could not be written.
public struct ReplacedFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Stage: Sendable, Equatable {
        /// Opening it, or making its temporary file.
        case open
        case write
        /// Closing it, or renaming it over the path.
        case commit
    }

    public var path: String
    public var stage: Stage
    /// The errno.
    public var code: Int32

    public init(path: String, stage: Stage, code: Int32) {
        self.path = path
        self.stage = stage
        self.code = code
    }

    /// strerror(3) of ``code``.
    public var reason: String { String(cString: strerror(code)) }

    /// The directory part of ``path`` ("." when it has none).
    public var directory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// "cannot be opened for writing (No such file or directory)", "write failed (No space left
    /// on device)", "cannot be put in place (…)": the path is the caller's to say.
    public var description: String {
        switch stage {
        case .open: "cannot be opened for writing (\(reason))"
        case .write: "write failed (\(reason))"
        case .commit: "cannot be put in place (\(reason))"
        }
    }
}
