import APNHTTP2

/// The logic of a ``Provider``'s connections: which requests go out on which connection,
/// when connections open, back off, drain, are PINGed and given up, and what becomes of the
/// requests they carried. A pure state machine like ``ConnectionPool`` on the binary side:
/// it owns the request ``ProviderScheduler``, the provider token and each connection's
/// HTTP/2 session (nghttp2 framing, bytes in and out, no I/O), but no socket, thread or
/// clock. The driver (``ProviderLoop``) feeds it inputs with the time and performs the
/// ``ProviderPoolAction``s it drains with ``nextAction()``.
///
/// ## Transitions
/// | state | input | what happens |
/// |---|---|---|
/// | open | `send` | each request queued (``ProviderScheduler``); at the end of the turn handed to connections with room |
/// | closing, closed | `send` | each completes `shutDown` at once |
/// | any | `send` already cancelled, `cancel` | the send's requests complete `cancelled`; streams in flight are reset |
/// | end of turn | requests ready, every usable connection full (or none), fewer than `maxConnections` usable, fewer than twice that open, no attempt under way, no backoff | `connect(attempt)` |
/// | connecting | `connected` | a connection (one stream until the server's SETTINGS); `connected` event; the failure count stays until its first answer |
/// | connecting | `connectFailed` | failed attempt (below) |
/// | any | a failed attempt: connect failed, the session could not start, or a connection that carried a stream and ends (or sends GOAWAY) having answered nothing, or hangs | count + 1 (once per connection); the next attempt waits `backoff(count)`; at `connectionRetryLimit` (or at once for a credential failure), with no usable connection left, every waiting request fails with the attempt's error and the count restarts |
/// | any | the provider token cannot be made | every waiting request fails `authentication` |
/// | open connection | an answer | its request completes or is retried (``ProviderScheduler``); the failure count restarts |
/// | open connection | 403 `ExpiredProviderToken` | the token is renewed (when the request went with the current one and Apple allows it now); the request goes again once |
/// | open connection | 503 `Shutdown` | the request is retried; the connection takes no new streams (it drains) |
/// | open connection | REFUSED_STREAM, or a stream above a GOAWAY's last stream id | the request goes again first, on any connection |
/// | open connection | another stream reset, a malformed answer | the request fails, may have been delivered |
/// | open connection | the server allows no streams while requests wait | given up (as below) |
/// | open connection | GOAWAY | it drains: no new streams; those below last-stream-id are still answered |
/// | open connection | silent for `pingInterval` (for `min(pingInterval, pingTimeout)` while streams wait) | PING |
/// | open connection | PING unanswered for `pingTimeout`; our bytes refused for `pingTimeout` | given up: `close`, its open streams fail `connectionFailed`, may have been delivered |
/// | open connection | streams open and nothing answered for `requestTimeout` (hung) | given up: the streams time out (`timedOut`, may have been delivered), the rest as above |
/// | open connection | the peer closed it, a read or write failed, it broke HTTP/2 | the same |
/// | open connection | drained (GOAWAY, nothing open) | `close` |
/// | open | `shutdown(reply)` | closing: new sends refused; queued and in-flight requests finish |
/// | any | `withdraw(reply)` | closing; every request not answered completes `shutDown` at once (in flight: its stream reset, may have been delivered) |
/// | closing | nothing left | every connection gets GOAWAY and `close`; `finish` (events end, replies answered) |
/// | closed | `shutdown(reply)` | answered at once |
/// | any | `release` | closing; once closed, `stop` |
/// | any | `barrier(reply)` | answered in order with the completions and events before it |
/// | not connecting that attempt | `connected`, `connectFailed` | ignored (the driver closes the socket) |
///
/// ## Contract with the driver
/// After every input, drain ``nextAction()`` and perform the actions in order. Answer every
/// `connect` with `connected` (which names the connection the socket is for) or
/// `connectFailed`. Feed each connection's bytes with ``received(_:on:now:)``, and say when
/// its socket ends on its own (``socketEnded(_:failure:now:)``); write what
/// ``appendOutput(of:to:)`` gives and report each flush (``flushed(_:progressed:blocked:now:)``).
/// Call ``endOfTurn(now:)`` once per turn after the inputs, and sleep no later than
/// ``nextDeadline()``.
struct ProviderPool: ~Copyable {
    struct Configuration {
        var scheduler: ProviderScheduler.Configuration
        var session: HTTP2Session.Configuration
        var maxConnections: Int
        var maxConcurrentStreams: Int
        var connectionRetryLimit: Int
        var pingInterval: Duration?
        var pingTimeout: Duration
    }

    let configuration: Configuration
    var scheduler: ProviderScheduler
    private(set) var authorization: ProviderAuthorization
    var connections: [ProviderPoolConnection] = []
    var actions = RingBuffer<ProviderPoolAction>(minimumCapacity: 64)
    /// The completions the `.complete` actions stand for, in the same order.
    var completions = RingBuffer<ProviderScheduler.Completion>(minimumCapacity: 64)
    /// The `authorization` field of the current provider token, laid out for nghttp2 once.
    var authorizationBlock: HTTP2HeaderBlock?
    /// The attempt under way, if any.
    var connecting: Int?
    var attempts = 0
    /// Consecutive failed attempts (connects, and connections that answered nothing).
    var failedAttempts = 0
    var nextAttemptAt: Timestamp?
    var nextConnectionNumber = 0
    var closeReplies: [@Sendable () -> Void] = []
    /// `shutdown()` was called: new requests are refused.
    var closing = false
    /// Everything was answered and the connections are closed.
    var closed = false
    /// The provider is gone: once closed, the driver stops.
    var released = false
    var stopped = false

    init(configuration: Configuration, authorization: ProviderAuthorization) {
        self.configuration = configuration
        self.scheduler = ProviderScheduler(configuration: configuration.scheduler)
        self.authorization = authorization
    }

    /// Credentials reloaded: requests written from now on carry `authorization`'s token,
    /// on new connections — Apple refuses a connection's token changed within 20 minutes
    /// (`TooManyProviderTokenUpdates`), and a new certificate is presented only by a new
    /// connection — so every open one drains: it takes no new stream and closes once its
    /// last is answered. A stream answered "expired token" is sent again with the new one
    /// (``ProviderPoolConnection/OpenStream/tokenIssuedAt`` differs).
    mutating func replaceAuthorization(_ authorization: ProviderAuthorization) {
        self.authorization = authorization
        authorizationBlock = nil
        for index in connections.indices { connections[index].draining = true }
    }

    /// The next thing for the driver to do.
    mutating func nextAction() -> ProviderPoolAction? {
        if let action = actions.popFirst() { return action }
        actions.releaseMemoryIfEmpty(above: 4_096)
        completions.releaseMemoryIfEmpty(above: 4_096)
        return nil
    }

    /// Performs a `.complete` action: calls its completion's sink with the response (lent:
    /// the sink copies what it keeps). Returns the response when `reportingFailures` and it
    /// failed for a device (the listeners hear of it: ``ProviderScheduler/Completion/isDeviceFailure``).
    mutating func performCompletion(reportingFailures: Bool) -> ProviderResponse? {
        // Moved out to a local, once: read where it lay (through the ring's subscript or a
        // pointer), it was copied for the call all the same, a retain of each reference.
        let completion = completions.removeFirst()
        completion()
        return reportingFailures && completion.isDeviceFailure ? completion.response : nil
    }

    /// Every request not yet complete.
    var requestCount: Int { scheduler.count }

    // MARK: Sends and commands

    /// Requests to send, each response to `target`; its cancellation, if any, can withdraw
    /// them all.
    mutating func send(_ submissions: [ProviderSubmission], to target: ProviderReplyTarget) {
        let cancellation = target.cancellation
        if let refusal = refusal(cancellation) {
            for submission in submissions {
                refuse(
                    ProviderResponse(submission.request, error: refusal, answer: nil, attempts: 0),
                    ProviderReply(index: submission.index, target: target))
            }
            return
        }
        if submissions.count > 1 { scheduler.reserve(submissions.count) }
        var ids: Range<Int>?
        for submission in submissions {
            let id = scheduler.enqueue(submission.request, completion: ProviderReply(index: submission.index, target: target))
            ids = (ids?.lowerBound ?? id)..<id + 1
        }
        // One send's requests get consecutive ids: cancelling it withdraws that range.
        if let cancellation, let ids { cancellation.note(ids) }
    }

    /// One notification to a run of devices, each request made as it is queued; the
    /// target's cancellation, if any, can withdraw them all.
    mutating func send(_ run: ProviderDeviceRun) {
        let cancellation = run.target.cancellation
        if let refusal = refusal(cancellation) {
            for index in run.devices.indices {
                refuse(
                    ProviderResponse(device: run.devices[index], error: refusal, status: nil, apnsID: nil, uniqueID: nil, attempts: 0),
                    ProviderReply(index: index - run.indexBase, target: run.target))
            }
            return
        }
        guard !run.devices.isEmpty else { return }
        scheduler.reserve(run.devices.count)
        var first: Int?
        var last = 0
        for index in run.devices.indices {
            last = scheduler.enqueue(
                run.template.request(to: run.devices[index]),
                completion: ProviderReply(index: index - run.indexBase, target: run.target))
            if first == nil { first = last }
        }
        if let cancellation, let first { cancellation.note(first..<last + 1) }
    }

    /// Why requests sent now are refused at once: the provider is closing, or their sender
    /// already gave up (cancelled); nil when they are taken.
    private func refusal(_ cancellation: ProviderCancellation?) -> ProviderError? {
        if closing { return ProviderError(code: .shutDown, message: "the provider is closed") }
        if cancellation?.isCancelled == true {
            return ProviderError(code: .cancelled, message: "the task awaiting it was cancelled")
        }
        return nil
    }

    /// Answers a request refused before it was queued.
    private mutating func refuse(_ response: ProviderResponse, _ completion: ProviderReply) {
        complete(ProviderScheduler.Completion(id: 0, response: response, completion: completion, stream: nil))
    }

    /// The task awaiting the requests sent with `cancellation` was cancelled.
    mutating func cancel(_ cancellation: ProviderCancellation) {
        for completion in scheduler.cancel(cancellation) { complete(completion) }
    }

    /// Finish what is queued and in flight, then close and answer `reply`.
    mutating func shutdown(reply: @escaping @Sendable () -> Void) {
        closing = true
        if closed { actions.append(.reply(reply)) } else { closeReplies.append(reply) }
    }

    /// Stop now: every request not yet answered is withdrawn (``ProviderScheduler/withdrawAll()``),
    /// then the connections close as after ``shutdown(reply:)`` and `reply` is answered.
    mutating func withdraw(reply: @escaping @Sendable () -> Void) {
        closing = true
        for completion in scheduler.withdrawAll() { complete(completion) }
        if closed { actions.append(.reply(reply)) } else { closeReplies.append(reply) }
    }

    /// Nobody holds the provider any more: close, then stop.
    mutating func release() {
        closing = true
        released = true
        if closed { stop() }
    }

    /// Answers `reply` in order with the completions and events before it.
    mutating func barrier(reply: @escaping @Sendable () -> Void) {
        actions.append(.reply(reply))
    }

    private mutating func stop() {
        guard !stopped else { return }
        stopped = true
        actions.append(.stop)
    }

    // MARK: Reports

    /// Reports `completion` (resetting its stream when it was in flight: timed out,
    /// cancelled; not for an answer, whose stream has ended).
    mutating func complete(_ completion: consuming ProviderScheduler.Completion?, resettingStream: Bool = true) {
        // Consumed, and moved on into the action: borrowed, it was copied there (a retain of
        // each of its references) and the caller's destroyed (a release of each), for every
        // answer.
        guard let completion = consume completion else { return }
        if resettingStream, let stream = completion.stream { resetStream(stream) }
        completions.append(completion)
        actions.append(.complete)
    }

    mutating func event(_ event: ProviderEvent) {
        actions.append(.event(event))
    }

    /// Resets the stream a request completed early (timed out, cancelled) was in flight on.
    private mutating func resetStream(_ location: (socket: Int, stream: Int32)) {
        guard let connection = connection(location.socket),
            connection.streams.removeValue(forKey: location.stream) != nil
        else { return }
        connection.session.resetStream(location.stream, errorCode: .cancel)
        if connection.streams.isEmpty { connection.busySince = nil }
    }

    func connection(_ number: Int) -> ProviderPoolConnection? {
        connections.first { $0.number == number }
    }

    // MARK: The end of a turn

    /// Timers, liveness, closing what ended, handing out work, opening a connection,
    /// finishing a close: once per turn, after the inputs.
    mutating func endOfTurn(now: Timestamp) {
        fireTimers(now: now)
        closeEndedConnections(now: now)
        assignWork(now: now)
        // After the work is handed out: what is left ready, with every connection full,
        // is what another connection would take.
        maintainConnections(now: now)
        finishCloseIfDone(now: now)
    }

    /// Once closing and every request is answered: GOAWAY and close each connection, end
    /// the event streams, answer `shutdown()`. Later sends complete `shutDown`.
    private mutating func finishCloseIfDone(now: Timestamp) {
        guard closing, !closed, scheduler.count == 0 else { return }
        for connection in connections {
            connection.session.terminate(errorCode: .noError)
            actions.append(.close(connection: connection.number, lastBytes: lastBytes(of: connection)))
            event(.disconnected(connection.peer, nil))
        }
        connections.removeAll()
        closed = true
        actions.append(.finish(replies: closeReplies))
        closeReplies.removeAll()
        if released { stop() }
    }

    /// What `connection`'s session still has to send (a GOAWAY), for the driver to write
    /// before it closes the socket.
    func lastBytes(of connection: ProviderPoolConnection) -> [UInt8] {
        var bytes: [UInt8] = []
        while connection.session.appendOutput(to: &bytes) > 0 {}
        return bytes
    }

    /// The earliest time ``endOfTurn(now:)`` has something to do; `now` itself when it has
    /// something to do at once (a connection to open with nothing holding it back).
    mutating func nextDeadline(now: Timestamp) -> Timestamp? {
        var earliest = scheduler.nextDeadline()
        func consider(_ time: Timestamp?) {
            guard let time else { return }
            earliest = min(earliest ?? time, time)
        }
        if wantsConnection {
            // Nothing holds the next connection back (a connection just ended after the
            // last `maintainConnections`): go round again at once.
            guard let nextAttemptAt else { return now }
            consider(nextAttemptAt)
        }
        for connection in connections {
            if let interval = configuration.pingInterval {
                consider(
                    connection.pingSentAt.map { $0 + configuration.pingTimeout }
                        ?? connection.lastActivity + silenceBeforePing(connection, interval: interval))
            }
            if connection.failure == nil && connection.writeBlocked {
                consider(connection.lastWriteProgress + configuration.pingTimeout)
            }
            if let busySince = connection.busySince {
                consider(busySince + configuration.scheduler.requestTimeout)
            }
        }
        return earliest
    }
}
