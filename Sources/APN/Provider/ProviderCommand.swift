import APNTLS

/// What other threads ask of a provider's I/O thread, in the order they asked.
enum ProviderCommand: Sendable {
    /// Send these requests; each completion is called once, on the I/O thread, with the
    /// request's response. Completions must be quick and must not block.
    case send([ProviderSubmission])
    /// The sender of request `id` gave up waiting (Task cancelled).
    case cancel(ProviderScheduler.ID)
    /// A connection attempt finished.
    case connectResult(attempt: Int, ProviderConnectResult)
    /// Finish what is in flight and queued, close every connection, then call `reply`.
    case close(reply: @Sendable () -> Void)
    /// The ``Provider`` is gone: close if not yet, then end the thread.
    case release
    /// Answers once every command posted before it has been handled.
    case barrier(reply: @Sendable () -> Void)
    /// The ``ManualClock`` moved: check timers.
    case clockAdvanced
}

/// One request handed to the I/O thread, with its identity (made by the caller, so it can
/// cancel) and what to call with its response.
struct ProviderSubmission: Sendable {
    let id: ProviderScheduler.ID
    let request: ProviderRequest
    let completion: @Sendable (ProviderResponse) -> Void
}

/// A connected, HTTP/2-speaking TLS socket, or why there is none.
enum ProviderConnectResult: Sendable {
    case connected(ConnectionHandoff)
    case failed(ProviderError)
}
