import APNSupport
import Dispatch
import Foundation
import Synchronization

/// node-apn 1.x's feedback poller: connects to the feedback service (port 2196) with the
/// push certificate and reads the (time, device) entries until the service closes — when
/// it is created and then every ``Options/interval``, as node-apn.
///
/// ```swift
/// var options = Feedback.Options()
/// options.cert = "cert.pem"
/// options.key = "key.pem"
/// options.feedback = .batch { entries in print(entries) }  // in place before the first visit
/// let feedback = Feedback(options: options)                // visits now, then every hour
/// ```
///
/// With ``Options/interval`` `nil` or zero nothing happens until ``start()``, and
/// ``read()`` makes one visit and returns what it read.
///
/// The service forgets what it served, so only one consumer per certificate should poll.
/// The ``Options/feedback`` closure, events (``on(_:)``) and ``entries`` are delivered in
/// order on the callback queue. A listener or sequence sees what is delivered after it was
/// added: the first visit's events come no sooner than it has connected and read, but to
/// be certain of seeing them use ``Options/feedback``, or an interval of zero, add the
/// listeners, then call ``start()``. Visits run on a thread of their own, one at a time,
/// which ends at ``cancel()`` or when the poller is released. Thread-safe.
public final class Feedback: Sendable {
    /// The options the poller was created with.
    public let options: Options
    let poller: FeedbackPoller

    /// Creates a poller; with an ``Options/interval`` above zero it visits the service now
    /// and then every interval, as node-apn; else nothing connects until ``start()`` or
    /// ``read()``.
    public init(options: Options = Options()) {
        self.options = options
        self.poller = FeedbackPoller(options: options)
        if let interval = options.interval, interval > .zero { poller.start() }
    }

    /// Reads the credentials `options` name now — certificate and key, or PKCS#12, and the
    /// trusted CAs — and throws what a visit would fail with (`apn feedback-service`'s
    /// SIGHUP checks new credentials before it uses them).
    ///
    /// - Throws: ``APNError`` with code ``APNError/Code/credentials``, naming the file.
    package static func checkCredentials(_ options: Options) throws(APNError) {
        _ = try ClientContextLoader.load(options.access, applicationProtocols: [])
    }

    /// Stops polling, as ``cancel()``.
    deinit {
        poller.cancel()
    }

    /// Polls now and (re)starts the interval from now: node-apn's `start()`. Also after
    /// ``cancel()`` or a credential failure; with no interval, each call polls once.
    ///
    /// Called while a visit is in progress, that visit is the one it asked for (visits
    /// never overlap, and the service has nothing more to tell a second one); only the
    /// interval starts again from now. A visit still ending after ``cancel()`` is not: a
    /// new one follows it.
    public func start() {
        poller.start()
    }

    /// Stops polling until ``start()``: no more visits, a visit in progress ends at once
    /// (what it read is still delivered), and then the ``entries`` sequences end.
    /// Listeners added with ``on(_:)`` stay. Idempotent.
    public func cancel() {
        poller.cancel()
    }

    /// One visit to the service now, independent of ``start()`` and ``cancel()``: every
    /// entry it sends. Meant for a poller whose ``Options/interval`` is zero: a visit of
    /// the interval running at the same time gets part of the entries instead.
    ///
    /// Cancelling the Task awaiting it ends the visit at once — connecting or reading — and
    /// returns the entries read until then (the service sends each entry once: they are
    /// not dropped).
    /// - Throws: the connection or credential failure.
    public func read() async throws(APNError) -> [Entry] {
        let poller = poller
        let cancellation = try Cancellation()
        let result: Result<[Entry], APNError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let started = poller.options.threadStarter.start("apn-feedback-rd") {
                    continuation.resume(
                        returning: poller.readOnce(isCancelled: { cancellation.isCancelled }, wake: cancellation.wake))
                }
                if !started {
                    continuation.resume(
                        returning: .failure(APNError(code: .connectionFailed, message: ClientConnector.threadNotStartedMessage)))
                }
            }
        } onCancel: {
            cancellation.cancel()
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

    /// Every entry the polls read from now on, one at a time; ends after ``cancel()``, or
    /// when polling stops on a credential failure. One made after that and before the
    /// next ``start()`` gets no entry and ends on the callback queue, after the events
    /// already on their way (the credential failure's ``FeedbackEvent/error(_:)`` above all).
    public var entries: AsyncStream<Entry> {
        let (stream, continuation) = AsyncStream.makeStream(of: Entry.self)
        let hub = poller.hub
        let id = hub.add(
            { event in
                if case .feedback(let entries) = event { for entry in entries { continuation.yield(entry) } }
            }, onFinish: { continuation.finish() }, finishingRefusedOn: poller.deliveries)
        if let id { continuation.onTermination = { _ in hub.remove(id) } }
        return stream
    }
}
