import APNSupport
import Dispatch
import Foundation

/// What a ``Feedback`` runs: the polling thread, each visit's batching, and delivery on the
/// callback queue. Separate from `Feedback` so the polling thread does not keep the public
/// object alive: releasing it cancels the polling.
///
/// One polling thread at most, so visits never overlap; it exists while a visit is wanted
/// or the interval runs, and ends when neither is (`cancel()`, unusable credentials, or a
/// `start()` without an interval that has made its visit).
final class FeedbackPoller: Sendable {
    let options: Feedback.Options
    let hub = ListenerHub<FeedbackEvent>()
    let context: ClientContextCache
    private let queue: DispatchQueue
    private let schedule: FeedbackSchedule
    /// Raised by ``cancel()`` to end the polling thread's visit at once (visits never
    /// overlap, so one signal serves them all; only the visiting thread resets it).
    private let wake: WakeSignal

    /// The serial queue events are delivered on, in order (it targets the callback queue).
    var deliveries: DispatchQueue { queue }

    init(options: Feedback.Options) {
        do {
            wake = try WakeSignal()
        } catch {
            preconditionFailure("\(error)")
        }
        self.options = options
        self.context = ClientContextCache(options.access, log: options.log)
        self.queue = DispatchQueue(label: "swift-apn.feedback.callbacks", target: options.callbackQueue)
        self.schedule = FeedbackSchedule(clock: options.clock, interval: options.interval)
    }

    func start() {
        let spawn = schedule.update { [hub] state, now in
            hub.reopenStreams()
            return state.start(now: now)
        }
        guard spawn else { return }
        ClientThread.start("apn-feedback", threads: options.threadStarter, log: options.log) { [self] in run() }
    }

    func cancel() {
        schedule.update { [hub, queue] state, _ in
            let visiting = state.cancel()
            let streams = hub.closeStreams()
            if visiting {
                // The visit's last events come first: the polling thread ends these then.
                state.streamsToEnd += streams
            } else if !streams.isEmpty {
                // Enqueued under the lock, so after every event already delivered.
                queue.async { hub.finishStreams(streams) }
            }
        }
        // After the state says cancelled: the visit, woken, finds it so.
        wake.signal()
    }

    /// One visit for ``Feedback/read()``, not ended by `cancel()` but by `isCancelled`
    /// (the awaiting Task's cancellation, which then raises `wake`), with the entries read
    /// until then.
    func readOnce(isCancelled: @escaping @Sendable () -> Bool, wake: WakeSignal) -> Result<[Feedback.Entry], APNError> {
        var entries: [Feedback.Entry] = []
        let reader = FeedbackReader(options: options, context: context, isCancelled: isCancelled, wake: wake)
        switch reader.read(onEntry: { entries.append($0) }) {
        case .finished, .cancelled: return .success(entries)
        case .failed(let error), .credentialsFailed(let error): return .failure(error)
        }
    }

    private func run() {
        while let generation = schedule.nextStep() {
            let visit = poll(generation: generation)
            // Logged here, not under the schedule's lock below: the handler is the user's code.
            visit.closing.forEach(options.log.record)
            schedule.update { [hub, queue] state, now in
                state.endVisit(now: now, stop: visit.stop)
                // Enqueued under the lock: a cancel() or start() that sees the visit over
                // orders its own work after these events.
                visit.closing.forEach(deliver)
                let streams = state.takeStreamsToEnd() + (visit.stop ? hub.closeStreams() : [])
                if !streams.isEmpty { queue.async { hub.finishStreams(streams) } }
            }
        }
    }

    /// How a visit ended: whether polling must stop, and the events that close it (the
    /// final batch, an error), not yet delivered.
    private struct Visit {
        var stop: Bool
        var closing: [FeedbackEvent]
    }

    /// One visit, delivering entries per node-apn's batching rules as they arrive; the
    /// closing events are left to the caller.
    private func poll(generation: Int) -> Visit {
        var batch: [Feedback.Entry] = []
        let batchSize = options.batchSize
        let batched = options.batchFeedback
        let reader = FeedbackReader(
            options: options, context: context,
            isCancelled: { [schedule] in schedule.isCancelled(generation) }, wake: wake)
        let end = reader.read { entry in
            if !batched {
                options.log.record(.feedback([entry]))
                deliver(.feedback([entry]))
                return
            }
            batch.append(entry)
            if batchSize > 0, batch.count == batchSize {
                options.log.record(.feedback(batch))
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
            return Visit(stop: false, closing: rest)
        }
    }

    /// Delivers an event on the callback queue: first to the `feedback` option, then to
    /// the listeners, in the order they were added.
    private func deliver(_ event: FeedbackEvent) {
        let callback = options.feedback
        queue.async { [hub] in
            if let callback, case .feedback(let entries) = event { callback.call(with: entries) }
            for listener in hub.snapshot() { listener(event) }
        }
    }
}
