import APN
import APNFeedbackService
import APNFeedbackStore
import Foundation

/// What `apn` says about the tuples it was handed and could not commit, and where it keeps
/// them: every tuple from the failed batch on goes to standard error as a JSON line and to a
/// ``FeedbackRecoveryFile`` beside the store, in the form `apn tokens import` replays.
/// Standard error comes first and always: on a full disk the file may well fail.
///
/// `apn feedback-service` gets the same steps as events of its ``FeedbackService`` and says
/// them with the static messages here; `apn send --http2 --store` keeps the 410s it could not
/// commit with an instance, with its own ``Wording``.
///
/// The tuples are the operator's data, written to be replayed, which is why tokens appear
/// here and in no log line.
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
    private var recoveryFile: FeedbackRecoveryFile?
    /// Tuples kept so far.
    private(set) var count = 0

    init(store: String, wording: Wording = Wording()) {
        self.store = store
        self.wording = wording
    }

    /// Whether a commit failed: from then on every tuple comes here, none to the store.
    var isActive: Bool { recoveryFile != nil }

    /// The recovery file when it holds every tuple kept (nil when it could not be written).
    var file: String? { recoveryFile?.file }

    /// Starts keeping, after the commit that failed with `error`: creates the file and says so.
    func begin(after error: any Error, at date: Date) {
        let recoveryFile = FeedbackRecoveryFile(store: store, unixTime: Int(date.timeIntervalSince1970.rounded(.down)))
        self.recoveryFile = recoveryFile
        Self.sayBegun(wording, error: error, file: recoveryFile.path, fileFailure: recoveryFile.failure)
    }

    /// Writes `entries` to standard error and to the file.
    func keep(_ entries: [Feedback.Entry]) {
        guard !entries.isEmpty, let recoveryFile else { return }
        let bytes = Self.writeToStandardError(entries)
        count += entries.count
        if let reason = recoveryFile.append(bytes) { Self.sayAbandoned(wording, path: recoveryFile.path ?? "?", reason: reason) }
    }

    /// Makes the file durable, then says where the tuples are and how to apply them.
    func finishAndAnnounce() {
        guard let recoveryFile else { return }
        if let reason = recoveryFile.finish() { Self.sayAbandoned(wording, path: recoveryFile.path ?? "?", reason: reason) }
        Self.sayWhere(wording, count: count, file: recoveryFile.file, fileFailure: recoveryFile.failure, store: store)
    }

    /// The tuples' JSON lines on standard error; returns their bytes, for the file.
    @discardableResult
    static func writeToStandardError(_ entries: [Feedback.Entry]) -> [UInt8] {
        let bytes = FeedbackRecoveryFile.lines(for: entries)
        LineWriter.write(bytes: bytes, to: STDERR_FILENO)
        return bytes
    }

    /// A commit failed: from now on the tuples go to `file` (or only standard error).
    static func sayBegun(_ wording: Wording, error: any Error, file: String?, fileFailure: String?) {
        let destination = file.map { "to \($0) and below" }
            ?? "below (the recovery file could not be created: \(fileFailure ?? "?"))"
        LineWriter.stderr(
            "\(wording.program): a batch \(wording.tuples) could not be committed: \(error). "
                + "\(wording.why)every tuple from this batch on is written \(destination), "
                + "one JSON line each, not to the store.")
    }

    /// The file could not be written and was removed.
    static func sayAbandoned(_ wording: Wording, path: String, reason: String) {
        LineWriter.stderr("\(wording.program): the recovery file \(path) could not be written (\(reason)); "
            + "removed: the JSON lines on standard error are the only copy")
    }

    /// Where the `count` tuples are and the command that applies them.
    static func sayWhere(_ wording: Wording, count: Int, file: String?, fileFailure: String?, store: String) {
        let noun = count == 1 ? "tuple" : "tuples"
        if let path = file {
            LineWriter.stderr(
                "\(wording.program): \(count) \(noun) \(wording.tuples) are not in the store; "
                    + "they are in \(path) (and above). Once the store can be written, apply them with:\n"
                    + "  apn tokens import \(shellWord(path)) --store \(shellWord(TokenStore.redacted(store)))")
        } else {
            LineWriter.stderr(
                "\(wording.program): \(count) \(noun) \(wording.tuples) are not in the store, and "
                    + "the recovery file could not be written (\(fileFailure ?? "?")): the JSON lines above are their "
                    + "only copy. Save them to a file (the lines starting with {) and, once the store can be written, "
                    + "apply them with:\n"
                    + "  apn tokens import FILE --store \(shellWord(TokenStore.redacted(store)))")
        }
    }

    /// `text` as one word for a POSIX shell: as it is when plain, else in single quotes.
    static func shellWord(_ text: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%".unicodeScalars)
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy(safe.contains)
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
