/// Which requests a ``Provider`` sends next, which it retries and when, and which have run
/// out of time: the pure part of the provider, driven by its I/O loop and by table tests.
///
/// | input | what happens |
/// |---|---|
/// | enqueue | the request waits in `ready` (FIFO); waiting has no deadline (time in our own queue is not the server's fault) |
/// | take | the oldest ready request is handed to a connection; `attempts` + 1; its deadline is `requestTimeout` from now, the write |
/// | answered 200 | complete: delivered |
/// | answered 429 | within `retryLimit` retries: waits `backoff(retries)` (from `initialBackoff`, doubling, capped), then ready again at the front; past it: complete `retriesExhausted` with the last status and reason |
/// | answered 5xx | the same, the wait starting from `serverErrorBackoff` (Apple asks for back-off when its servers fail) |
/// | answered 403 ExpiredProviderToken | once per request, when the loop could renew the token: ready again at the front; otherwise complete `rejected` |
/// | answered anything else | complete `rejected` (4xx reasons cannot succeed when sent again) |
/// | refused (REFUSED_STREAM, above a GOAWAY's last stream id) | never processed by the server: ready again at the front (not counted against `retryLimit`: nothing was answered), at most `refusalLimit` times; past it: `retriesExhausted` |
/// | lost (the connection ended with the stream open, no answer) | complete `connectionFailed`, marked may-have-been-delivered: the server may have processed it, so it is not sent again |
/// | tick past an in-flight request's deadline | complete `timedOut`, marked may-have-been-delivered; the loop resets its stream |
/// | failWaiting | every request not in flight completes with the error (no connection could be made; no provider token) |
struct ProviderScheduler: ~Copyable {
    /// A request's identity inside one provider.
    typealias ID = Int

    struct Configuration {
        var requestTimeout: Duration
        var retryLimit: Int
        var initialBackoff: Duration
        /// The first wait after a 5xx answer.
        var serverErrorBackoff: Duration
        var maxBackoff: Duration
        /// How often one request may be refused unprocessed before it fails (a server that
        /// refuses everything must not keep a request circling until its deadline).
        var refusalLimit = 100
    }

    /// Where a request is.
    enum Place: Equatable {
        case ready
        case backingOff(until: Timestamp)
        case inFlight
    }

    struct Entry {
        let request: ProviderRequest
        /// Called once with the response (on the I/O thread).
        let completion: ProviderReply
        /// The connection and stream carrying it while in flight.
        var stream: (socket: Int, stream: Int32)?
        var place: Place
        var attempts = 0
        var retries = 0
        var refusals = 0
        var renewedToken = false
    }

    /// What the loop must do with a finished request: call `completion` with `response`.
    struct Completion {
        let id: ID
        let response: ProviderResponse
        let completion: ProviderReply
        /// Where it was in flight (its stream, to reset when it timed out or was cancelled).
        let stream: (socket: Int, stream: Int32)?

        /// Whether it failed for a device (not an exchange): what the provider's listeners
        /// hear of (``ProviderEvent/failed(_:)``).
        var isDeviceFailure: Bool { !response.isSuccess && response.exchange == nil }

        /// Reports the response to the sender (lent: the sink copies what it keeps).
        func callAsFunction() { completion(response) }
    }

    let configuration: Configuration
    private var entries = ProviderEntryTable<Entry>()
    private var ready = RingBuffer<ID>()
    /// Requests waiting out a backoff, soonest first (few: only 429 and 5xx answers).
    private var backingOff: [(until: Timestamp, id: ID)] = []
    /// Each write's deadline in write order, which is deadline order (every one is
    /// `requestTimeout` after its write). An element is stale once its request was answered
    /// or written again (`attempt` no longer its count); stale ones leave from the front, so
    /// one request long unanswered keeps the writes after it here until its deadline (at
    /// most `requestTimeout` of writes, 24 bytes each).
    private var deadlines = RingBuffer<(deadline: Timestamp, id: ID, attempt: Int)>()

    /// `configuration.requestTimeout` in nanoseconds: every write adds it to the clock, and
    /// `Duration`'s 128-bit arithmetic would cost more than the rest of `take`.
    private let requestTimeoutNanoseconds: Int64

    init(configuration: Configuration) {
        self.configuration = configuration
        requestTimeoutNanoseconds = configuration.requestTimeout.nanosecondsSaturated
    }

    /// Requests waiting for a connection (ready now); `ready` may also hold the ids of
    /// requests that completed while waiting, which this does not count.
    private(set) var readyCount = 0
    /// Every request not yet complete.
    var count: Int { entries.count }

    /// Adds a request, which may be sent at once; returns its id. The reply's cancellation,
    /// if any, can withdraw it (``cancel(_:)-(ProviderCancellation)``).
    @discardableResult
    mutating func enqueue(_ request: ProviderRequest, completion: ProviderReply = .ignored) -> ID {
        let id = entries.append(Entry(request: request, completion: completion, place: .ready))
        ready.append(id)
        readyCount += 1
        return id
    }

    /// Makes room for `count` more requests at once (a large `send(_:to: [Device])`), so
    /// the table grows once rather than doubling its way up.
    mutating func reserve(_ count: Int) {
        entries.reserve(count)
    }

    /// The next request to send, now in flight with its deadline; nil when none is ready.
    mutating func take(now: Timestamp) -> (id: ID, request: ProviderRequest)? {
        take(now: now) { request in copy request }.map { ($0.id, $0.result) }
    }

    /// The next request to send, now in flight with its deadline, lent to `send` where it
    /// lies: its id and what `send` returned; nil when none is ready. (Copied out, as
    /// ``take(now:)`` does, a request's three references were retained and released for
    /// every write.)
    mutating func take<Result>(
        now: Timestamp, _ send: (borrowing ProviderRequest) -> Result
    ) -> (id: ID, result: Result)? {
        while let id = ready.popFirst() {
            // A request that completed while queued (cancelled, failed) leaves its id behind.
            let taken: (result: Result, attempt: Int)? = withEntry(id) { entry in
                guard entry.place == .ready else { return nil }
                entry.place = .inFlight
                entry.attempts += 1
                return (send(entry.request), entry.attempts)
            }
            if let taken {
                readyCount -= 1
                deadlines.append((now.adding(nanoseconds: requestTimeoutNanoseconds), id, taken.attempt))
                return (id, taken.result)
            }
        }
        return nil
    }

    /// Whether `element` still stands for a request in flight on that write.
    private func isLive(_ element: (deadline: Timestamp, id: ID, attempt: Int)) -> Bool {
        guard let entry = entries[element.id] else { return false }
        return entry.place == .inFlight && entry.attempts == element.attempt
    }

    /// Drops stale deadlines from the front, so that the ring holds about the requests in
    /// flight, not every write of the last `requestTimeout`.
    private mutating func dropStaleDeadlines() {
        while let first = deadlines.first, !isLive(first) { _ = deadlines.popFirst() }
        deadlines.releaseMemoryIfEmpty(above: 65_536)
    }

    /// Notes where request `id` is in flight.
    mutating func sent(_ id: ID, socket: Int, stream: Int32) {
        withEntry(id) { $0.stream = (socket, stream) }
    }

    /// Runs `body` on entry `id` in place (no copy); nil if there is none.
    private mutating func withEntry<T>(_ id: ID, _ body: (inout Entry) -> T?) -> T? {
        entries.modify(id, body)
    }

    /// Apple answered request `id`. `canRenewToken` says whether the loop may renew the
    /// provider token now (it renews before sending the request again). Completing it, the
    /// completion is appended to `completions` (built there, not returned to be moved on:
    /// the pool's queue for the driver) and the result is true; false when the request goes
    /// on (sent again, backing off) or was not in flight.
    mutating func answered(
        _ id: ID, _ answer: ProviderAnswer, now: Timestamp, canRenewToken: Bool,
        into completions: inout RingBuffer<Completion>
    ) -> Bool {
        // Checked in place: copying the entry out costs a retain of each of its references,
        // and most answers only complete it.
        guard withEntry(id, { $0.place == .inFlight ? true : nil }) != nil else { return false }
        // A success first, before the disposition (which compares reasons as strings).
        if ProviderAnswer.isSuccess(answer.status) {
            completions.append(complete(id, error: nil, answer: answer))
            return true
        }
        guard var entry = entries[id] else { return false }
        switch answer.disposition {
        case .renewTokenAndRetry where canRenewToken && !entry.renewedToken:
            entry.renewedToken = true
            sendFirst(id, entry)
            return false
        case .retryAfterBackoff where answer.status >= 500 && !entry.request.template.retriesServerErrors:
            // The server may have acted on it (a channel created): not sent again; the caller
            // decides.
            let error = ProviderError(
                code: .rejected,
                message: "Apple answered a server error; the request is not sent again, as Apple may have acted on it",
                status: answer.status, reason: answer.reason, apnsID: answer.apnsID,
                requestID: answer.exchange?.requestID, mayHaveBeenDelivered: true)
            completions.append(complete(id, error: error, answer: answer))
            return true
        case .retryAfterBackoff:
            guard entry.retries < configuration.retryLimit else {
                let error = ProviderError.answered(
                    answer, code: .retriesExhausted, after: entry.attempts, exchange: entry.request.template.isExchange)
                completions.append(complete(id, error: error, answer: answer))
                return true
            }
            entry.retries += 1
            entry.stream = nil
            let wait = backoff(afterRetry: entry.retries, serverError: answer.status >= 500)
            let until = now + wait
            entry.place = .backingOff(until: until)
            _ = entries.modify(id) { $0 = entry }
            let index = backingOff.firstIndex { $0.until > until } ?? backingOff.endIndex
            backingOff.insert((until, id), at: index)
            return false
        case .delivered, .fail, .renewTokenAndRetry, .retryNow:  // .delivered: completed above (a 2xx)
            let error = ProviderError.answered(
                answer, code: .rejected, after: entry.attempts, exchange: entry.request.template.isExchange)
            completions.append(complete(id, error: error, answer: answer))
            return true
        }
    }

    /// The server refused request `id`'s stream without processing it.
    mutating func refused(_ id: ID) -> Completion? {
        guard var entry = entries[id], entry.place == .inFlight else { return nil }
        guard entry.refusals < configuration.refusalLimit else {
            return complete(
                id,
                error: ProviderError(
                    code: .retriesExhausted,
                    message: "the server refused the stream \(entry.refusals + 1) times without processing it"))
        }
        entry.refusals += 1
        sendFirst(id, entry)
        return nil
    }

    /// Request `id` was in flight when it ended without an answer (`error` says how).
    mutating func failInFlight(_ id: ID, _ error: ProviderError) -> Completion? {
        guard let entry = entries[id], entry.place == .inFlight else { return nil }
        return complete(id, error: error)
    }

    /// Request `id` is withdrawn by its sender (cancelled); nil if it already completed. One
    /// in flight may have been delivered all the same.
    mutating func cancel(_ id: ID) -> Completion? {
        guard let place = entries[id]?.place else { return nil }
        return complete(id, error: place == .inFlight ? Self.cancelledInFlight : Self.cancelled)
    }

    /// Every request still waiting or in flight under `cancellation` is withdrawn (the ids it
    /// noted when they were enqueued: one send's, consecutive).
    mutating func cancel(_ cancellation: ProviderCancellation) -> [Completion] {
        cancellation.ids.compactMap { id in
            entries[id]?.completion.cancellation === cancellation ? cancel(id) : nil
        }
    }

    /// Every request not yet complete is withdrawn (a stop that cannot wait): those not
    /// written, or waiting out a backoff (answered, so not delivered), complete `shutDown`
    /// and are known undelivered; those in flight complete `shutDown` marked
    /// may-have-been-delivered (the loop resets their streams).
    mutating func withdrawAll() -> [Completion] {
        entries.ids.compactMap { id in
            guard let place = entries[id]?.place else { return nil }
            return complete(id, error: place == .inFlight ? Self.withdrawnInFlight : Self.withdrawn)
        }
    }

    private static let withdrawn = ProviderError(
        code: .shutDown, message: "withdrawn unsent: the provider was stopped without waiting")
    private static let withdrawnInFlight = ProviderError(
        code: .shutDown, message: "withdrawn after it was written: the provider was stopped without waiting; it may have been delivered",
        mayHaveBeenDelivered: true)
    private static let cancelled = ProviderError(code: .cancelled, message: "the task awaiting it was cancelled")
    private static let cancelledInFlight = ProviderError(
        code: .cancelled, message: "the task awaiting it was cancelled after it was written; it may have been delivered",
        mayHaveBeenDelivered: true)

    /// Moves requests whose backoff is over back to `ready` (at the front, soonest first),
    /// and completes those in flight past their deadline (the loop resets their streams:
    /// ``Completion/stream``).
    mutating func tick(now: Timestamp) -> [Completion] {
        var completions: [Completion] = []
        while let first = deadlines.first, first.deadline <= now {
            _ = deadlines.popFirst()
            guard isLive(first) else { continue }
            completions.append(
                complete(
                    first.id,
                    error: ProviderError(
                        code: .timedOut,
                        message: "no answer within \(configuration.requestTimeout) of its write (attempt \(first.attempt)); it may have been delivered",
                        mayHaveBeenDelivered: true)))
        }
        let due = backingOff.prefix { $0.until <= now }
        backingOff.removeFirst(due.count)
        for (_, id) in due.reversed() where entries.modify(id, { $0.place = .ready }) != nil {
            ready.prepend(id)
            readyCount += 1
        }
        return completions
    }

    /// The earliest time ``tick(now:)`` has something to do.
    mutating func nextDeadline() -> Timestamp? {
        dropStaleDeadlines()
        let oldest = deadlines.first?.deadline
        switch (oldest, backingOff.first?.until) {
        case (let a?, let b?): return min(a, b)
        case (let a, let b): return a ?? b
        }
    }

    /// Completes every request not in flight with `error`.
    mutating func failWaiting(_ error: ProviderError) -> [Completion] {
        let ids = entries.ids.filter { entries[$0]?.place != .inFlight }
        ready.removeAll()
        readyCount = 0
        backingOff.removeAll()
        return ids.map { complete($0, error: error) }
    }

    /// The wait before retry number `retry` (1 = the first): `initialBackoff` (after a 5xx
    /// answer `serverErrorBackoff`) doubling, at most `maxBackoff`.
    func backoff(afterRetry retry: Int, serverError: Bool = false) -> Duration {
        var wait = serverError ? configuration.serverErrorBackoff : configuration.initialBackoff
        for _ in 1..<max(1, retry) where wait < configuration.maxBackoff { wait *= 2 }
        return min(wait, configuration.maxBackoff)
    }

    /// Stores `entry` for request `id`, back from the wire without a stream, and puts it
    /// first in line: it is sent again before the requests that waited less.
    private mutating func sendFirst(_ id: ID, _ entry: Entry) {
        var entry = entry
        entry.stream = nil
        entry.place = .ready
        _ = entries.modify(id) { $0 = entry }
        ready.prepend(id)
        readyCount += 1
    }

    /// Completes request `id` with Apple's answer (lent: wrapped in an optional, it was
    /// copied, a retain and a release of each of its references, for every answer).
    private mutating func complete(_ id: ID, error: ProviderError?, answer: borrowing ProviderAnswer) -> Completion {
        let entry = removeCompleted(id)
        return completion(
            id, entry, ProviderResponse(entry.request, error: error, answer: answer, attempts: entry.attempts))
    }

    /// Completes request `id` with `error` and no answer (a failure, a withdrawal).
    private mutating func complete(_ id: ID, error: ProviderError) -> Completion {
        let entry = removeCompleted(id)
        return completion(id, entry, ProviderResponse(entry.request, error: error, answer: nil, attempts: entry.attempts))
    }

    /// Takes request `id`'s entry out, and out of the counts.
    private mutating func removeCompleted(_ id: ID) -> Entry {
        let entry = entries.remove(id)!
        if entry.place == .inFlight { dropStaleDeadlines() }
        if entry.place == .ready { readyCount -= 1 }
        return entry
    }

    private func completion(_ id: ID, _ entry: borrowing Entry, _ response: consuming ProviderResponse) -> Completion {
        Completion(
            id: id, response: response, completion: entry.completion,
            stream: entry.place == .inFlight ? entry.stream : nil)
    }
}

extension ProviderError {
    /// Apple's refusal as an error.
    static func answered(
        _ answer: ProviderAnswer, code: Code, after attempts: Int, exchange: Bool = false
    ) -> ProviderError {
        let message = code == .retriesExhausted
            ? "Apple answered each of \(attempts) attempts with a status worth retrying; the last"
            : exchange ? "Apple refused the request" : "Apple refused the notification"
        return ProviderError(
            code: code, message: message, status: answer.status, reason: answer.reason, timestamp: answer.timestamp,
            apnsID: answer.apnsID, requestID: answer.exchange?.requestID)
    }
}
