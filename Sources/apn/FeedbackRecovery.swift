import APN
import APNFeedbackStore
import Foundation

/// Where `apn feedback-service` keeps the tuples it was handed and could not commit. The
/// feedback service serves each tuple once, so once a commit fails these lines are the only
/// copy: every tuple from the failed batch on goes to standard error as a ``FeedbackLine``,
/// and to a recovery file beside the store when that can be written, in the form
/// `apn tokens import` replays. Standard error comes first and always: on a full disk the
/// file may well fail.
///
/// The tuples are the operator's data, written to be replayed, which is why tokens appear
/// here and in no log line.
///
/// `apn send --http2 --store` keeps the 410s it could not commit the same way, in the same
/// form, with its own ``Wording``.
final class FeedbackRecovery {
    /// What the messages call the program and the tuples.
    struct Wording {
        /// `apn feedback-service`.
        var program = "apn feedback-service"
        /// What the tuples are: `the feedback service handed over`.
        var tuples = "the feedback service handed over"
        /// Why only the recovery output keeps them, a sentence.
        var why = "The service serves each tuple once: "

        /// `apn send --http2 --store`'s.
        static let send = Wording(
            program: "apn send", tuples: "of Apple's 410 answers",
            why: "Apple answers a 410 again only at the next send to the token: ")
    }

    private let store: String
    private let wording: Wording
    /// The recovery file, once created.
    private(set) var path: String?
    private var descriptor: Int32 = -1
    /// Why the file could not be written (then it was removed), if it could not.
    private var fileFailure: String?
    /// Tuples kept so far.
    private(set) var count = 0
    /// Whether a commit failed: from then on every tuple comes here, none to the store.
    private(set) var isActive = false

    init(store: String, wording: Wording = Wording()) {
        self.store = store
        self.wording = wording
    }

    /// Starts keeping, after the commit that failed with `error`: creates the file and says so.
    func begin(after error: any Error, at date: Date) {
        isActive = true
        create(at: date)
        let destination = path.map { "to \($0) and below" }
            ?? "below (the recovery file could not be created: \(fileFailure ?? "?"))"
        LineWriter.stderr(
            "\(wording.program): a batch \(wording.tuples) could not be committed: \(error). "
                + "\(wording.why)every tuple from this batch on is written \(destination), "
                + "one JSON line each, not to the store.")
    }

    /// Writes `entries` to standard error and to the file.
    func keep(_ entries: [Feedback.Entry]) {
        guard !entries.isEmpty else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(entries.count * 128)
        for entry in entries {
            bytes += FeedbackLine.line(for: entry).text.utf8
            bytes.append(UInt8(ascii: "\n"))
        }
        LineWriter.write(bytes: bytes, to: STDERR_FILENO)
        count += entries.count
        guard descriptor >= 0 else { return }
        if !LineWriter.write(bytes: bytes, to: descriptor) { abandonFile(reason: String(cString: strerror(errno))) }
    }

    /// The recovery file when it holds every tuple kept (nil when it could not be written).
    var file: String? { fileFailure == nil ? path : nil }

    /// Makes the file durable; ``file`` is then final.
    func finish() {
        if descriptor >= 0 {
            // The tuples exist nowhere else once the process exits: on the disk before we say so.
            if fsync(descriptor) != 0 {
                abandonFile(reason: String(cString: strerror(errno)))
            } else {
                close(descriptor)
                descriptor = -1
                syncFolder()
            }
        }
    }

    /// Says where the tuples are and how to apply them; after ``finish()``.
    func announce() {
        let noun = count == 1 ? "tuple" : "tuples"
        if let path = file {
            LineWriter.stderr(
                "\(wording.program): \(count) \(noun) \(wording.tuples) are not in the store; "
                    + "they are in \(path) (and above). Once the store can be written, apply them with:\n"
                    + "  apn tokens import \(Self.shellWord(path)) --store \(Self.shellWord(TokenStore.redacted(store)))")
        } else {
            LineWriter.stderr(
                "\(wording.program): \(count) \(noun) \(wording.tuples) are not in the store, and "
                    + "the recovery file could not be written (\(fileFailure ?? "?")): the JSON lines above are their "
                    + "only copy. Save them to a file (the lines starting with {) and, once the store can be written, "
                    + "apply them with:\n"
                    + "  apn tokens import FILE --store \(Self.shellWord(TokenStore.redacted(store)))")
        }
    }

    /// `<store>.feedback-recovery-<UTC time>.jsonl`, never an existing file (0600: tokens).
    private func create(at date: Date) {
        let stamp = FeedbackCommand.isoDate(date).filter { $0 != "-" && $0 != ":" }
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
                fileFailure = "\(candidate): \(String(cString: strerror(errno)))"
                return
            }
        }
        fileFailure = "every name tried beside \(TokenStore.redacted(base)) exists"
    }

    /// Removes a file that missed some tuples, so that nobody replays it as the whole set.
    private func abandonFile(reason: String) {
        fileFailure = "\(path ?? "?"): \(reason); removed"
        close(descriptor)
        descriptor = -1
        if let path { unlink(path) }
        LineWriter.stderr("\(wording.program): the recovery file \(path ?? "?") could not be written (\(reason)); "
            + "removed: the JSON lines on standard error are the only copy")
    }

    /// The folder's entry for the new file, durable too.
    private func syncFolder() {
        let parent = PathText.parent(of: path ?? "")
        let folder = open(parent.isEmpty ? "." : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return }
        fsync(folder)
        close(folder)
    }

    /// `text` as one word for a POSIX shell: as it is when plain, else in single quotes.
    static func shellWord(_ text: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%".unicodeScalars)
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy(safe.contains)
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
