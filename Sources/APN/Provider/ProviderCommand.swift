import APNSupport
import APNTLS
import Synchronization

/// What other threads ask of a provider's I/O thread, in the order they asked.
enum ProviderCommand: Sendable {
    /// Send these requests; the target's sink is called once for each, on the I/O thread,
    /// with the request's index and response. Sinks must be quick and must not block. The
    /// target's cancellation, if any, can withdraw them all.
    case send([ProviderSubmission], ProviderReplyTarget)
    /// Send one notification to each of a run of devices (``ProviderDeviceRun``): as
    /// ``send(_:_:)``, each request made as it is queued.
    case sendToDevices(ProviderDeviceRun)
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

/// One request handed to the I/O thread, and its index for the send's sink.
struct ProviderSubmission: Sendable {
    let request: ProviderRequest
    let index: Int
}

/// One notification's requests for a run of devices, as the I/O thread takes them: the
/// template, the devices and the sink. Each request is made where it is queued; built on
/// the sender's thread as ``ProviderSubmission``s, every request was made, copied into the
/// queue and destroyed with the command (a retain and a release of each of its four
/// references, twice).
struct ProviderDeviceRun: Sendable {
    let template: ProviderRequest.Template
    /// The devices, in the sender's numbering: `devices[i]`'s response goes to the
    /// target's sink with index `i - indexBase`.
    let devices: ArraySlice<Device>
    let indexBase: Int
    let target: ProviderReplyTarget
}

/// What every request of one send (or forward) shares: the closure its responses go to,
/// and the cancellation that can withdraw them. One reference a waiting request holds
/// for both (a closure and a cancellation apiece cost a retain and a release more, every
/// request).
final class ProviderReplyTarget: Sendable {
    /// What a response is handed to, with its request's index. Lent the response: a sink
    /// that keeps it copies it (``Provider/send(_:to:)-(_,[Device])`` gathers them all),
    /// one that reads it (the bridge) does not; handed over, every answer was copied out of
    /// its completion first.
    typealias Sink = @Sendable (Int, ProviderResponse) -> Void

    let sink: Sink
    /// Withdraws the send's requests when its task is cancelled; nil when nothing can.
    let cancellation: ProviderCancellation?

    /// The target of a send whose responses go to `sink`, withdrawn by `cancellation`.
    init(cancellation: ProviderCancellation? = nil, sink: @escaping Sink) {
        self.sink = sink
        self.cancellation = cancellation
    }

    /// A target nobody reads (tests of the scheduler and the pool).
    static let ignored = ProviderReplyTarget { _, _ in }
}

/// Where one request's response goes: its send's target, and the request's index there.
struct ProviderReply: Sendable {
    typealias Sink = ProviderReplyTarget.Sink

    let index: Int
    let target: ProviderReplyTarget

    /// Hands `response` to the sink with the request's index.
    func callAsFunction(_ response: ProviderResponse) { target.sink(index, response) }

    /// The cancellation that can withdraw the request, if any.
    var cancellation: ProviderCancellation? { target.cancellation }

    /// A reply nobody reads (tests of the scheduler).
    static let ignored = ProviderReply(index: 0, target: .ignored)
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
