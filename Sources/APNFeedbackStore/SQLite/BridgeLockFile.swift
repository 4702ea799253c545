import Glibc

/// Byte-range locks on a file beside a SQLite store, one byte per bridge instance: a bridge
/// holds its own for as long as its process lives (the kernel drops a process's locks when
/// it exits, however it exits), so another that can take a bridge's byte knows that bridge
/// is dead. Open file description locks (`F_OFD_SETLK`), not classic `fcntl` ones: those
/// belong to the process, so two bridges in one process (tests) would each see the other's
/// byte as free, and closing either store would drop both bridges' locks.
final class BridgeLockFile {
    private let descriptor: Int32

    /// Opens (creating) `path`.
    init(path: String) throws(StoreError) {
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.cannotOpen, "opening the bridges' lock file \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(descriptor) }

    /// `F_OFD_SETLK` (Linux 3.15; glibc declares it only under `_GNU_SOURCE`, which Swift
    /// does not see).
    private static let setOpenFileDescriptionLock: Int32 = 37

    /// Takes `instance`'s byte without waiting; returns whether it was free.
    func tryLock(_ instance: Int64) -> Bool {
        set(instance, type: Int16(F_WRLCK))
    }

    /// Releases `instance`'s byte.
    func unlock(_ instance: Int64) {
        _ = set(instance, type: Int16(F_UNLCK))
    }

    private func set(_ instance: Int64, type: Int16) -> Bool {
        var lock = Glibc.flock()
        lock.l_type = type
        lock.l_whence = Int16(SEEK_SET)
        // A positive offset below 2^40 (instances are random 63-bit numbers).
        lock.l_start = off_t(instance & ((1 << 40) - 1))
        lock.l_len = 1
        return fcntl(descriptor, Self.setOpenFileDescriptionLock, &lock) == 0
    }
}
