package import APN
import APNFeedbackStore
import APNSupport
import Glibc

/// Where the tuples go that were handed over and could not be committed:
/// `<store>.feedback-recovery-<UTC time>.jsonl` beside a store file (in the current folder
/// for a PostgreSQL store), never an existing file, 0600 (tokens), one
/// ``line(for:)`` per tuple — the form `apn tokens import` replays. Once a commit fails the
/// feedback service (which serves each tuple once) and Apple (which answers a 410 again only
/// at the next send) keep no copy, so these lines are the only one: the file is made durable
/// (`fsync`, and its folder's entry) before anyone is told it is complete, and a file that
/// missed some tuples is removed, so that nobody replays it as the whole set.
///
/// The caller writes the same lines somewhere else first (standard error, for `apn`): on a
/// full disk this file may well fail.
package final class FeedbackRecoveryFile {
    /// The file, once created (also when later abandoned).
    package private(set) var path: String?
    /// Why the file could not be created or written (then it was removed), if it could not.
    package private(set) var failure: String?
    private var descriptor: Int32 = -1

    /// Creates the file for `store`, stamped with `unixTime`; on failure, ``failure`` says why.
    package init(store: String, unixTime: Int) {
        let stamp = UTCDateText.iso8601(seconds: unixTime).filter { $0 != "-" && $0 != ":" }
        // Beside a store file; for a PostgreSQL store (a URL, no folder), in the current one.
        let base = TokenStore.isPostgreSQL(store) ? "apn" : store
        for attempt in 0..<100 {
            let candidate = "\(base).feedback-recovery-\(stamp)\(attempt == 0 ? "" : "-\(attempt)").jsonl"
            let opened = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if opened >= 0 {
                descriptor = opened
                path = candidate
                return
            }
            if errno != EEXIST {
                failure = "\(candidate): \(String(cString: strerror(errno)))"
                return
            }
        }
        failure = "every name tried beside \(TokenStore.redacted(base)) exists"
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The file when it holds every tuple appended (nil when it could not be written).
    package var file: String? { failure == nil ? path : nil }

    /// The JSON line of `entry`, newline included:
    /// `{"event":"feedback","time":UNIX,"date":"ISO-8601","token":"<hex>"}`.
    package static func line(for entry: Feedback.Entry) -> String {
        "{\"event\":\"feedback\",\"time\":\(entry.unixTime),\"date\":\"\(UTCDateText.iso8601(seconds: Int(entry.unixTime)))\","
            + "\"token\":\"\(entry.device.hexString)\"}\n"
    }

    /// The lines of `entries`, as bytes.
    package static func lines(for entries: [Feedback.Entry]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(entries.count * 128)
        for entry in entries { bytes += line(for: entry).utf8 }
        return bytes
    }

    /// Appends `bytes` (``lines(for:)``). Returns the reason when this write failed and the
    /// file was therefore removed (``failure`` says so from now on); nil otherwise.
    package func append(_ bytes: [UInt8]) -> String? {
        guard descriptor >= 0, !bytes.isEmpty else { return nil }
        let written = bytes.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += count
            }
            return true
        }
        guard !written else { return nil }
        let reason = String(cString: strerror(errno))
        abandon(reason: reason)
        return reason
    }

    /// Makes the file durable; ``file`` is then final. Returns the reason when that failed
    /// (the file is then removed).
    package func finish() -> String? {
        guard descriptor >= 0 else { return nil }
        // The tuples exist nowhere else once the process exits: on the disk before we say so.
        guard fsync(descriptor) == 0 else {
            let reason = String(cString: strerror(errno))
            abandon(reason: reason)
            return reason
        }
        close(descriptor)
        descriptor = -1
        syncFolder()
        return nil
    }

    /// Removes a file that missed some tuples.
    private func abandon(reason: String) {
        failure = "\(path ?? "?"): \(reason); removed"
        close(descriptor)
        descriptor = -1
        if let path { unlink(path) }
    }

    /// The folder's entry for the new file, durable too.
    private func syncFolder() {
        guard let path else { return }
        let parent = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
        let folder = open(parent.isEmpty ? (path.hasPrefix("/") ? "/" : ".") : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return }
        fsync(folder)
        close(folder)
    }
}
