import APNSupport
import APNTLS
import Synchronization

/// What other threads ask of a provider's I/O thread, in the order they asked.
enum ProviderCommand: Sendable {
    /// Send these requests; each completion is called once, on the I/O thread, with the
    /// request's response. Completions must be quick and must not block. The cancellation,
    /// if any, can withdraw them all.
    case send([ProviderSubmission], ProviderCancellation?)
    /// Send one notification to each of a run of devices (``ProviderDeviceRun``): as
    /// ``send(_:_:)``, each request made as it is queued.
    case sendToDevices(ProviderDeviceRun, ProviderCancellation?)
    /// The sender of the requests sent with this cancellation gave up waiting (Task cancelled).
    case cancel(ProviderCancellation)
    /// A connection attempt finished.
    case connectResult(attempt: Int, ProviderConnectResult)
    /// Finish what is in flight and queued, close every connection, then call `reply`.
    case shutdown(reply: @Sendable () -> Void)
    /// Withdraw every request not yet answered, close every connection, then call `reply`.
    case withdraw(reply: @Sendable () -> Void)
    /// The ``Provider`` is gone: close if not yet, then end the thread.
    case release
    /// Answers once every command posted before it has been handled.
    case barrier(reply: @Sendable () -> Void)
    /// The ``ManualClock`` moved: check timers.
    case clockAdvanced
    /// New credentials, read and checked (``Provider/reloadCredentials(_:)``): the
    /// authorization for requests from now on, the TLS context for connections opened
    /// from now on.
    case reloadCredentials(Provider.Options, TLSClientContext)
    /// Connect once as the pool would (TCP, TLS with the credentials in use, ALPN `h2`),
    /// then close: `reply` gets nil, or why it failed (``Provider/probe(_:)``).
    case probe(reply: @Sendable (ProviderError?) -> Void)
}

/// One request handed to the I/O thread, and what to call with its response.
struct ProviderSubmission: Sendable {
    let request: ProviderRequest
    let completion: ProviderReply
}

/// One notification's requests for a run of devices, as the I/O thread takes them: the
/// template, the devices and the sink. Each request is made where it is queued; built on
/// the sender's thread as ``ProviderSubmission``s, every request was made, copied into the
/// queue and destroyed with the command (a retain and a release of each of its four
/// references, twice).
struct ProviderDeviceRun: Sendable {
    let template: ProviderRequest.Template
    /// The devices, in the sender's numbering: `devices[i]`'s response goes to `sink` with
    /// index `i - indexBase`.
    let devices: ArraySlice<Device>
    let indexBase: Int
    let sink: ProviderReply.Sink
}

/// Where one request's response goes: the closure every request of one send (or forward)
/// shares, and the request's index there — one closure per send, not one per request.
struct ProviderReply: Sendable {
    /// What a response is handed to, with its request's index. Lent the response: a sink
    /// that keeps it copies it (``Provider/send(_:to:)-(_,[Device])`` gathers them all),
    /// one that reads it (the bridge) does not; handed over, every answer was copied out of
    /// its completion first.
    typealias Sink = @Sendable (Int, ProviderResponse) -> Void

    let index: Int
    let sink: Sink

    /// Hands `response` to the sink with the request's index.
    func callAsFunction(_ response: ProviderResponse) { sink(index, response) }

    /// A reply nobody reads (tests of the scheduler).
    static let ignored = ProviderReply(index: 0) { _, _ in }
}

/// A connected, HTTP/2-speaking TLS socket, or why there is none.
enum ProviderConnectResult: Sendable {
    case connected(Handoff<TLSConnection>)
    case failed(ProviderError)
}

/// What one `send` shares so that cancelling its task withdraws all of its requests: an
/// identity the I/O thread matches, and a flag for a cancellation that comes before the
/// requests do.
final class ProviderCancellation: Sendable {
    private let cancelled = Atomic<Bool>(false)
    /// The ids its requests were given (by the I/O thread, which alone reads them back):
    /// consecutive, so a range.
    private let range = Lock<Range<Int>?>(nil)

    /// Marks it cancelled.
    func cancel() { cancelled.store(true, ordering: .releasing) }

    /// Whether it was cancelled.
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Notes the ids a batch of its requests was given. A long send comes in several
    /// batches, another send's between them perhaps: the range spans them all, and
    /// cancelling checks each entry's cancellation.
    func note(_ ids: Range<Int>) {
        range.withLock { range in
            range = range.map { min($0.lowerBound, ids.lowerBound)..<max($0.upperBound, ids.upperBound) } ?? ids
        }
    }

    /// The ids of its requests.
    var ids: Range<Int> { range.withLock { $0 } ?? 0..<0 }
}
