import Dispatch
import Foundation

/// What a ``Feedback`` runs: the interval loop on its own thread, each visit's batching,
/// and delivery on the callback queue. Separate from `Feedback` so the polling thread does
/// not keep the public object alive: releasing it cancels the polling.
final class FeedbackPoller: Sendable {
    let options: Feedback.Options
    let hub = ListenerHub<FeedbackEvent>()
    private let context = FeedbackContextCache()
    private let queue: DispatchQueue
    private let schedule: FeedbackSchedule

    init(options: Feedback.Options) {
        self.options = options
        self.queue = DispatchQueue(label: "swift-apn.feedback.callbacks", target: options.callbackQueue)
        self.schedule = FeedbackSchedule(clock: options.clock)
    }

    func start() {
        guard schedule.begin() else { return }
        let thread = Thread { [self] in runSchedule() }
        thread.name = "swift-apn.feedback"
        thread.start()
    }

    func cancel() {
        // A running schedule ends the listeners itself, after delivering what its last
        // visit read; otherwise end them here.
        if !schedule.cancel() { finishListeners() }
    }

    /// One visit for ``Feedback/read()``, not ended by `cancel()`.
    func readOnce() -> Result<[Feedback.Entry], APNError> {
        var entries: [Feedback.Entry] = []
        let reader = FeedbackReader(options: options, context: context, isCancelled: { false })
        switch reader.read(onEntry: { entries.append($0) }) {
        case .finished, .cancelled: return .success(entries)
        case .failed(let error), .credentialsFailed(let error): return .failure(error)
        }
    }

    private func finishListeners() {
        queue.async { [hub] in hub.finish() }
    }

    private func runSchedule() {
        var next = options.clock.now()
        var stopped = false
        while !schedule.isCancelled {
            if case .stop = poll() {
                stopped = true
                break
            }
            guard let interval = options.interval, interval > .zero else { break }
            // After a slow visit, the next one waits a whole interval rather than
            // following at once to catch up.
            next = max(next + interval, options.clock.now())
            guard schedule.wait(until: next) else { break }
        }
        if schedule.end() || stopped { finishListeners() }
    }

    private enum Continuation { case goOn, stop }

    /// One visit, delivering entries per node-apn's batching rules.
    private func poll() -> Continuation {
        var batch: [Feedback.Entry] = []
        let batchSize = options.batchSize
        let batched = options.batchFeedback
        let reader = FeedbackReader(options: options, context: context, isCancelled: { [schedule] in schedule.isCancelled })
        let end = reader.read { entry in
            if !batched {
                deliver(.feedback([entry]))
                return
            }
            batch.append(entry)
            if batchSize > 0, batch.count == batchSize {
                deliver(.feedback(batch))
                batch.removeAll(keepingCapacity: true)
            }
        }
        switch end {
        case .finished:
            if batched { deliver(.feedback(batch)) }  // the final batch, even empty
            return .goOn
        case .failed(let error):
            if batched, !batch.isEmpty { deliver(.feedback(batch)) }  // served, so not again
            deliver(.feedbackError(error))
            return .goOn
        case .credentialsFailed(let error):
            deliver(.error(error))
            return .stop
        case .cancelled:
            if batched, !batch.isEmpty { deliver(.feedback(batch)) }
            return .stop
        }
    }

    private func deliver(_ event: FeedbackEvent) {
        queue.async { [hub] in
            for listener in hub.snapshot() { listener(event) }
        }
    }
}
