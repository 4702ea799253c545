import Dispatch
import Foundation

/// What a ``Feedback`` runs: the interval loop on its own thread, each visit's batching,
/// and delivery on the callback queue. Separate from `Feedback` so the polling thread does
/// not keep the public object alive: releasing it cancels the polling.
final class FeedbackPoller: Sendable {
    let options: Feedback.Options
    let hub = ListenerHub<FeedbackEvent>()
    private let context: ClientContextCache
    private let queue: DispatchQueue
    private let schedule: FeedbackSchedule

    init(options: Feedback.Options) {
        self.options = options
        self.context = ClientContextCache(options.credentials)
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
            let visit = poll()
            if visit.stop {
                visit.closing.forEach(deliver)
                stopped = true
                break
            }
            guard let interval = options.interval, interval > .zero else {
                // One visit only: mark polling as over before its last batch is delivered,
                // so a listener that sees it can start() again at once.
                let cancelled = schedule.end()
                visit.closing.forEach(deliver)
                if cancelled { finishListeners() }
                return
            }
            visit.closing.forEach(deliver)
            // After a slow visit, the next one waits a whole interval rather than
            // following at once to catch up.
            next = max(next + interval, options.clock.now())
            guard schedule.wait(until: next) else { break }
        }
        if schedule.end() || stopped { finishListeners() }
    }

    /// How a visit ended: whether polling must stop, and the events that close it (the
    /// final batch, an error), not yet delivered.
    private struct Visit {
        var stop: Bool
        var closing: [FeedbackEvent]
    }

    /// One visit, delivering entries per node-apn's batching rules as they arrive; the
    /// closing events are left to the caller.
    private func poll() -> Visit {
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
        let rest: [FeedbackEvent] = batched && !batch.isEmpty ? [.feedback(batch)] : []
        switch end {
        case .finished:
            // The final batch, even empty.
            return Visit(stop: false, closing: batched ? [.feedback(batch)] : [])
        case .failed(let error):
            return Visit(stop: false, closing: rest + [.feedbackError(error)])  // served, so delivered
        case .credentialsFailed(let error):
            return Visit(stop: true, closing: [.error(error)])
        case .cancelled:
            return Visit(stop: true, closing: rest)
        }
    }

    private func deliver(_ event: FeedbackEvent) {
        queue.async { [hub] in
            for listener in hub.snapshot() { listener(event) }
        }
    }
}
