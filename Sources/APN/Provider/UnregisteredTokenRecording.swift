import APNSupport
import Dispatch
import Foundation
import Synchronization

/// Records every 410 a ``Provider`` is answered into an ``UnregisteredTokenRecorder``, in
/// batches, on a serial queue of its own: set it in ``Provider/Options/unregisteredTokens``.
///
/// ```swift
/// let recording = UnregisteredTokenRecording(try TokenStore(path: "tokens.sqlite"))
/// options.unregisteredTokens = recording
/// let provider = Provider(options: options)
/// …
/// await provider.shutdown()              // returns once every 410 is recorded, or kept
/// if let error = recording.report.error { print(error, recording.report.notRecorded) }
/// ```
///
/// The provider's I/O thread only appends a token to a list and, when none is scheduled,
/// schedules a drain: a million-token send that meets many 410s never waits for the
/// recorder. While one batch is recorded the next ones gather, so a slow recorder gets
/// larger batches (at most ``batchSize`` each), not more calls.
///
/// Nothing is lost when the recorder fails: from the batch that failed on, every token goes
/// to `notRecorded` — ``Report/notRecorded`` or the handler given at `init` — and none to the
/// recorder (which keeps its order: what it holds is everything before the failure), as
/// `apn feedback-service` does with a commit that failed. ``Provider/shutdown()`` returns once
/// every token its provider was answered is recorded or there.
public final class UnregisteredTokenRecording: Sendable {
    /// What became of the tokens so far.
    public struct Report: Sendable {
        /// Tokens the recorder took.
        public internal(set) var recorded = 0
        /// The error that stopped the recording, if one did.
        public internal(set) var error: (any Error)?
        /// How many tokens were not recorded (from the failed batch on).
        public internal(set) var notRecordedCount = 0
        /// The tokens not recorded, in the order answered; empty when a handler took them.
        public internal(set) var notRecorded: [UnregisteredToken] = []
    }

    private struct State {
        var pending: [UnregisteredToken] = []
        var drainScheduled = false
        var report = Report()
    }

    /// Tokens handed to the recorder at once, at most.
    public let batchSize: Int
    private let recorder: Lock<any UnregisteredTokenRecorder>
    private let state = Lock(State())
    private let notRecorded: (@Sendable ([UnregisteredToken], any Error) -> Void)?
    private let queue = DispatchQueue(label: "swift-apn.provider.unregistered-tokens")

    /// Records into `recorder`, which from now on is used only on this recording's queue.
    ///
    /// - Parameters:
    ///   - batchSize: tokens per ``UnregisteredTokenRecorder/record(_:)`` call at most.
    ///   - notRecorded: called on the recording's queue with each batch not recorded once the
    ///     recorder failed, and the error that stopped it; those tokens are then not kept in
    ///     ``Report/notRecorded``. Without it they are.
    public init(
        _ recorder: sending any UnregisteredTokenRecorder, batchSize: Int = 1_000,
        notRecorded: (@Sendable ([UnregisteredToken], any Error) -> Void)? = nil
    ) {
        self.recorder = Lock(recorder)
        self.batchSize = max(1, batchSize)
        self.notRecorded = notRecorded
    }

    /// What became of the tokens so far (after ``flush()``: of all taken before it).
    public var report: Report { state.withLock { $0.report } }

    /// Takes a token to record (the provider calls it with each 410; anyone may): returns
    /// at once, the recorder sees it on the recording's queue.
    public func take(_ token: UnregisteredToken) {
        let schedules = state.withLock { state -> Bool in
            state.pending.append(token)
            defer { state.drainScheduled = true }
            return !state.drainScheduled
        }
        if schedules { queue.async { self.drain() } }
    }

    /// Takes `response`'s token when it is a 410; `now`: the time of a 410 without a timestamp.
    func take(_ response: ProviderResponse, now: @Sendable () -> Date) {
        if let token = UnregisteredToken(response, now: now) { take(token) }
    }

    /// Returns once every token taken before the call is recorded or not recorded, with the
    /// report then.
    @discardableResult
    public func flush() async -> Report {
        await withCheckedContinuation { continuation in
            flush { continuation.resume(returning: $0) }
        }
    }

    /// ``flush()`` with a completion, called on the recording's queue.
    func flush(completion: @escaping @Sendable (Report) -> Void) {
        queue.async {
            self.drain()
            completion(self.report)
        }
    }

    /// On the queue: records what is pending, a batch at a time, until nothing is.
    private func drain() {
        while true {
            let taken = state.withLock { state -> [UnregisteredToken] in
                if state.pending.isEmpty { state.drainScheduled = false }
                var taken: [UnregisteredToken] = []
                swap(&taken, &state.pending)
                return taken
            }
            guard !taken.isEmpty else { return }
            for start in stride(from: 0, to: taken.count, by: batchSize) {
                record(Array(taken[start..<min(start + batchSize, taken.count)]))
            }
        }
    }

    private func record(_ batch: [UnregisteredToken]) {
        var failure = state.withLock { $0.report.error }
        if failure == nil {
            do {
                try recorder.withLock { try $0.record(batch) }
                state.withLock { $0.report.recorded += batch.count }
                return
            } catch {
                failure = error
            }
        }
        guard let failure else { return }
        let keeps = notRecorded == nil
        state.withLock { state in
            state.report.error = state.report.error ?? failure
            state.report.notRecordedCount += batch.count
            if keeps { state.report.notRecorded += batch }
        }
        notRecorded?(batch, failure)
    }
}
