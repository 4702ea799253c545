import Dispatch
import Foundation
import Synchronization

/// node-apn 1.x's feedback poller: connects to the feedback service (port 2196) with the
/// push certificate, reads the (time, device) entries until the service closes, and does
/// so again every ``Options/interval``.
///
/// ```swift
/// var options = Feedback.Options()
/// options.cert = "cert.pem"
/// options.key = "key.pem"
/// let feedback = Feedback(options: options)
/// let entries = try await feedback.read()   // one visit
/// ```
///
/// The service forgets what it served, so only one consumer per certificate should poll.
/// Events (``on(_:)``) and ``entries`` are delivered in order on the callback queue; the
/// polling runs on a thread of its own. Thread-safe.
public final class Feedback: Sendable {
    /// The options the poller was created with.
    public let options: Options
    private let context = FeedbackContextCache()
    let hub = ListenerHub<FeedbackEvent>()
    private let queue: DispatchQueue
    private let schedule: FeedbackSchedule

    /// Creates a poller; nothing connects until ``start()`` or ``read()``.
    public init(options: Options = Options()) {
        self.options = options
        self.queue = DispatchQueue(label: "swift-apn.feedback.callbacks", target: options.callbackQueue)
        self.schedule = FeedbackSchedule(clock: options.clock)
    }

    deinit {
        schedule.cancel()
    }

    /// Polls now, then every ``Options/interval`` until ``cancel()`` or a credential
    /// failure. Calling it while polling does nothing.
    public func start() {
        guard schedule.begin() else { return }
        let thread = Thread { [self] in runSchedule() }
        thread.name = "swift-apn.feedback"
        thread.start()
    }

    /// Stops polling (a read in progress ends within 100 ms) and ends the ``entries``
    /// sequences. Idempotent.
    public func cancel() {
        schedule.cancel()
        queue.async { [hub] in hub.finish() }
    }

    /// One visit to the service now, independent of ``start()`` and ``cancel()``: every
    /// entry it sends.
    /// - Throws: the connection or credential failure.
    public func read() async throws(APNError) -> [Entry] {
        let result: Result<[Entry], APNError> = await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                var entries: [Entry] = []
                // Not ended by `cancel()`, which stops the interval polling only.
                let reader = FeedbackReader(options: options, context: context, isCancelled: { false })
                switch reader.read(onEntry: { entries.append($0) }) {
                case .finished: continuation.resume(returning: .success(entries))
                case .failed(let error), .credentialsFailed(let error): continuation.resume(returning: .failure(error))
                case .cancelled: continuation.resume(returning: .success(entries))
                }
            }
        }
        return try result.get()
    }

    /// Calls `listener` with every event from now on, on the callback queue.
    @discardableResult
    public func on(_ listener: @escaping @Sendable (FeedbackEvent) -> Void) -> Connection.ListenerID {
        Connection.ListenerID(value: hub.add(listener) ?? 0)
    }

    /// Stops calling a listener added with ``on(_:)``.
    public func removeListener(_ id: Connection.ListenerID) {
        hub.remove(id.value)
    }

    /// Every entry the polls started by ``start()`` read from now on, one at a time; ends
    /// at ``cancel()`` or when polling stops on a credential failure.
    public var entries: AsyncStream<Entry> {
        let (stream, continuation) = AsyncStream.makeStream(of: Entry.self)
        let id = hub.add(
            { event in
                if case .feedback(let entries) = event { for entry in entries { continuation.yield(entry) } }
            }, onFinish: { continuation.finish() })
        if let id { continuation.onTermination = { [hub] _ in hub.remove(id) } }
        return stream
    }

    // MARK: Polling

    private func reader() -> FeedbackReader {
        FeedbackReader(options: options, context: context, isCancelled: { [schedule] in schedule.isCancelled })
    }

    private func runSchedule() {
        var next = options.clock.now()
        while !schedule.isCancelled {
            if case .stop = poll() { break }
            guard let interval = options.interval, interval > .zero else { break }
            next = next + interval
            guard schedule.wait(until: next) else { break }
        }
        queue.async { [hub] in hub.finish() }
    }

    private enum Continuation { case goOn, stop }

    /// One visit, delivering entries per node-apn's batching rules.
    private func poll() -> Continuation {
        var batch: [Entry] = []
        let batchSize = options.batchSize
        let batched = options.batchFeedback
        let end = reader().read { entry in
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
