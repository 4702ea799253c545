import APNSupport
import APN
import APNFeedbackStore
import Foundation
import Synchronization

/// `apn send --http2 --store FILE`: every 410 Apple answers goes into the token store by the
/// feedback service's rule (``TokenStore`` as the provider's ``UnregisteredTokenRecorder``),
/// committed in batches off the provider's I/O thread. Before anything is sent the store
/// must take a write and have `--min-free` bytes of room (``TokenStore/checkWritable(freeBytes:)``);
/// if a commit fails anyway, the tuples from that batch on go to a ``FeedbackRecovery`` file
/// (and standard error) that `apn tokens import` replays, and the summary says how many.
final class ProviderSendStore: Sendable {
    /// The recording to set in ``Provider/Options/unregisteredTokens``.
    let recording: UnregisteredTokenRecording
    private let recovery: SharedRecovery

    /// Opens and checks the store; throws a ``StoreError`` when it cannot take a write.
    init(path: String, minimumFreeBytes: Int) throws(StoreError) {
        let store = try TokenStore(location: path)
        try store.checkWritable(freeBytes: minimumFreeBytes)
        let recovery = SharedRecovery(FeedbackRecovery(store: path, wording: .send))
        self.recovery = recovery
        recording = UnregisteredTokenRecording(store) { batch, error in
            // On the recording's queue, one batch at a time, from the one that failed on.
            recovery.kept.withLock { recovery in
                if !recovery.isActive { recovery.begin(after: error, at: Date()) }
                recovery.keep(batch.map(\.feedbackEntry))
            }
        }
    }

    /// After every 410 was recorded (the provider closed, or ``UnregisteredTokenRecording/flush()``):
    /// makes the recovery file durable, says where it is, and returns the summary's keys:
    /// `unregistered` (410s answered), `stored` (committed), `not_stored`, `recovery_file`.
    func finish(_ report: UnregisteredTokenRecording.Report) -> [(String, JSONValue)] {
        var keys: [(String, JSONValue)] = [
            ("unregistered", .integer(report.recorded + report.notRecordedCount)), ("stored", .integer(report.recorded)),
            ("not_stored", .integer(report.notRecordedCount)),
        ]
        let file = recovery.kept.withLock { recovery -> String? in
            guard recovery.isActive else { return nil }
            recovery.finishAndAnnounce()
            return recovery.file
        }
        if report.notRecordedCount > 0 { keys.append(("recovery_file", file.map { JSONValue.string($0) } ?? .null)) }
        return keys
    }
}

/// The recovery output, written on the recording's queue and read once it is done.
private final class SharedRecovery: Sendable {
    let kept: Lock<FeedbackRecovery>

    init(_ recovery: sending FeedbackRecovery) {
        kept = Lock(recovery)
    }
}
