import Dispatch
import Foundation

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
/// polling runs on a thread of its own, which ends at ``cancel()`` or when the poller is
/// released. Thread-safe.
public final class Feedback: Sendable {
    /// The options the poller was created with.
    public let options: Options
    private let poller: FeedbackPoller

    /// Creates a poller; nothing connects until ``start()`` or ``read()``.
    public init(options: Options = Options()) {
        self.options = options
        self.poller = FeedbackPoller(options: options)
    }

    /// Stops polling, as ``cancel()``.
    deinit {
        poller.cancel()
    }

    /// Polls now, then every ``Options/interval`` until ``cancel()`` or a credential
    /// failure. Calling it while polling does nothing; with no interval, each call polls
    /// once. After ``cancel()`` it does nothing: create a new poller.
    public func start() {
        poller.start()
    }

    /// Stops polling (a read in progress ends within 100 ms; what it read is still
    /// delivered) and then ends the ``entries`` sequences and drops the listeners.
    /// Idempotent.
    public func cancel() {
        poller.cancel()
    }

    /// One visit to the service now, independent of ``start()`` and ``cancel()``: every
    /// entry it sends.
    /// - Throws: the connection or credential failure.
    public func read() async throws(APNError) -> [Entry] {
        let poller = poller
        let result: Result<[Entry], APNError> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: poller.readOnce())
            }
        }
        return try result.get()
    }

    /// Calls `listener` with every event from now on, on the callback queue.
    @discardableResult
    public func on(_ listener: @escaping @Sendable (FeedbackEvent) -> Void) -> Connection.ListenerID {
        Connection.ListenerID(value: poller.hub.add(listener) ?? 0)
    }

    /// Stops calling a listener added with ``on(_:)``.
    public func removeListener(_ id: Connection.ListenerID) {
        poller.hub.remove(id.value)
    }

    /// Every entry the polls started by ``start()`` read from now on, one at a time; ends
    /// after ``cancel()`` or when polling stops on a credential failure.
    public var entries: AsyncStream<Entry> {
        let (stream, continuation) = AsyncStream.makeStream(of: Entry.self)
        let hub = poller.hub
        let id = hub.add(
            { event in
                if case .feedback(let entries) = event { for entry in entries { continuation.yield(entry) } }
            }, onFinish: { continuation.finish() })
        if let id { continuation.onTermination = { _ in hub.remove(id) } }
        return stream
    }
}
