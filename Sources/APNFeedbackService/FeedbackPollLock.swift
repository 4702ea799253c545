import APNFeedbackStore
import Foundation

/// The lock that lets one feedback service poll a store at a time, held while the service
/// runs: for SQLite `flock(2)` on `STORE.lock`, refused at once when held; for PostgreSQL the
/// store's lease (``FeedbackPollLease``), waited for as a hot standby
/// (FeedbackPollLock+Standby.swift).
///
/// Two pollers on one store would each take tuples the other never sees (the feedback
/// service serves each once) and share one recovery story badly. Why an OS lock on a file
/// beside the store rather than a row in it: the kernel releases it however the process
/// ends — SIGKILL, a crash, a power cut — so there is never a stale lock to clear by hand,
/// which a lock row (with its owner's pid and a heartbeat) would need (the lease is the
/// same idea on the server: a session lock). Why not a lock on the
/// store file itself: SQLite holds POSIX locks there, and closing any descriptor of that file
/// drops them all. Like SQLite's own locking, it holds on one machine's file system.
final class FeedbackPollLock {
    /// Another process holds the lock.
    struct Held: Error, CustomStringConvertible {
        let store: String
        let lockFile: String
        /// What the holder wrote into the lock file (its pid), if it could be read.
        let holder: String?
        /// Not a lock conflict but the lock file itself failing (a read-only folder).
        let failure: String?

        var description: String {
            if let failure { return "cannot lock \(lockFile): \(failure)" }
            return "another apn feedback-service\(holder.map { " (pid \($0))" } ?? "") is polling \(store) "
                + "(it holds \(lockFile)); two would each take feedback the other never sees. Stop it first."
        }
    }

    /// What holds the lock: the lock file's descriptor, or the PostgreSQL lease.
    private enum Hold {
        case file(Int32)
        case lease(FeedbackPollLease)
    }

    private let hold: Hold

    /// The PostgreSQL lease, taken (``FeedbackPollLock/take(store:stop:events:)``).
    init(lease: FeedbackPollLease) {
        hold = .lease(lease)
    }

    /// Takes the lock for the SQLite `store`, without waiting.
    init(store: String) throws(Held) {
        // Beside the file the path leads to, not the path as typed: a symlink or another
        // spelling of the same store must meet the same lock.
        let path = Self.resolved(store) + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw Held(
                store: store, lockFile: path, holder: nil,
                failure: "\(String(cString: strerror(errno))) (the lock beside the store \(store))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = Self.contents(descriptor)
            close(descriptor)
            let failure = code == EWOULDBLOCK ? nil : String(cString: strerror(code))
            throw Held(store: store, lockFile: path, holder: holder, failure: failure)
        }
        // The pid, for the second one's message; the lock, not the text, is what counts.
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        hold = .file(descriptor)
    }

    /// Nil while the lock is held; what went wrong when the PostgreSQL lease was lost (a
    /// file lock cannot be lost while the process lives).
    func lost() -> String? {
        guard case .lease(let lease) = hold else { return nil }
        do throws(StoreError) {
            try lease.confirm()
            return nil
        } catch {
            return error.description
        }
    }

    deinit {
        if case .file(let descriptor) = hold { close(descriptor) }
    }

    /// `store` with every symlink resolved (the folder's, when the store does not exist yet).
    private static func resolved(_ store: String) -> String {
        if let real = realpath(store, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        let folder = (store as NSString).deletingLastPathComponent
        guard let real = realpath(folder.isEmpty ? "." : folder, nil) else { return store }
        defer { free(real) }
        return (String(cString: real) as NSString).appendingPathComponent((store as NSString).lastPathComponent)
    }

    private static func contents(_ descriptor: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
