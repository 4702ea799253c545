import Foundation

/// A size-limited tmpfs mounted for one test, so that it can fill a real file system: the
/// full disk `apn feedback-service` must survive. Mounting needs root (or CAP_SYS_ADMIN);
/// tests that use it are enabled only where ``canMount`` (they are skipped, not failed,
/// elsewhere). Detached lazily at the end, so a child still holding a file there cannot
/// keep it mounted.
final class Tmpfs {
    let path: String

    /// Whether this process may mount one: tried once, on a 1 MiB tmpfs, and unmounted.
    static let canMount: Bool = {
        guard let probe = try? Tmpfs(bytes: 1 << 20) else { return false }
        _ = probe
        return true
    }()

    struct Refused: Error, CustomStringConvertible {
        let errno: Int32
        var description: String { "mount -t tmpfs: \(String(cString: strerror(errno)))" }
    }

    /// Mounts a tmpfs of `bytes` on a new folder under the temporary directory.
    init(bytes: Int) throws {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("apnTests-tmpfs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(bytes),mode=0700") == 0 else {
            let code = errno
            rmdir(path)
            throw Refused(errno: code)
        }
    }

    deinit {
        umount2(path, Int32(MNT_DETACH))
        rmdir(path)
    }

    /// Bytes free, as the file system says.
    var freeBytes: Int {
        var figures = statvfs()
        guard statvfs(path, &figures) == 0 else { return 0 }
        return Int(figures.f_bavail) * Int(figures.f_frsize)
    }

    /// Writes a file of zeros until only `leaving` bytes are free (0: until the file system
    /// refuses more, ENOSPC). Deleting the file gives the room back.
    @discardableResult
    func fill(_ name: String, leaving: Int = 0) -> String {
        let file = (path as NSString).appendingPathComponent(name)
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        precondition(descriptor >= 0, "cannot create \(file)")
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0, count: 1 << 16)
        var left = leaving == 0 ? Int.max : max(0, freeBytes - leaving)
        while left > 0 {
            let count = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, min($0.count, left)) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            left -= count
        }
        return file
    }
}
