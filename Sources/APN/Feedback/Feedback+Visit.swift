
extension Feedback {
    /// How a ``Feedback/visit(batchSize:cancellation:_:)`` ended without an error.
    public enum VisitEnd: Sendable, Hashable {
        /// The service closed after sending what it had: every entry was handed over.
        case finished
        /// The visit was cancelled or the batch closure returned false: the connection
        /// was closed early, after every entry read so far was handed over.
        case stopped
    }

    /// One visit to the service on the calling thread, for a consumer that must keep each
    /// batch (store it durably) before any more is read: `body` gets the entries in batches
    /// of at most `batchSize`, and nothing more is read from the socket until it returns.
    ///
    /// A batch ends at `batchSize` entries or at the end of a socket read, whichever comes
    /// first, so the connection is never read while an entry read earlier is still waiting
    /// for `body`: a consumer killed at any moment has lost only what it had not yet been
    /// handed (and what the network still held), never a backlog. Entries delivered with
    /// ``Options/feedback`` or ``on(_:)`` come instead on the callback queue while the poller
    /// keeps reading, which cannot promise that.
    ///
    /// Independent of ``start()``, ``cancel()`` and the interval, as ``read()``: meant for a
    /// poller whose ``Options/interval`` is zero. Blocks until the service closes, `body`
    /// returns false, or `cancellation` is cancelled — which wakes the visit at once,
    /// connecting or reading:
    ///
    /// ```swift
    /// let stop = try Feedback.Cancellation()          // stop.cancel() from any thread
    /// try feedback.visit(cancellation: stop) { entries in store(entries) }
    /// ```
    ///
    /// - Parameters:
    ///   - batchSize: the most entries per call of `body`; at least 1.
    ///   - cancellation: ends the visit early, at once, when cancelled; one already
    ///     cancelled ends it before it connects. `nil`: only `body` can end it early.
    ///   - body: keeps one batch; returns false to end the visit (e.g. it could not).
    /// - Throws: the connection, credential or decoding failure — after every entry read
    ///   before it was handed to `body`.
    @discardableResult
    public func visit(
        batchSize: Int = 1000, cancellation given: Cancellation? = nil,
        _ body: ([Entry]) -> Bool
    ) throws(APNError) -> VisitEnd {
        let limit = max(1, batchSize)
        var batch: [Entry] = []
        batch.reserveCapacity(min(limit, 4096))
        var accepted = true
        func flush() -> Bool {
            guard !batch.isEmpty else { return accepted }
            accepted = body(batch)
            batch.removeAll(keepingCapacity: true)
            return accepted
        }
        let cancellation: Cancellation
        if let given { cancellation = given } else { cancellation = try Cancellation() }
        let reader = FeedbackReader(
            options: options, context: poller.context, isCancelled: { cancellation.isCancelled },
            wake: cancellation.wake)
        let end = reader.read(
            onEntry: { entry in
                batch.append(entry)
                return batch.count < limit || flush()
            },
            afterRead: { flush() && !cancellation.isCancelled })
        switch end {
        case .finished:
            return flush() ? .finished : .stopped
        case .cancelled:
            _ = flush()
            return .stopped
        case .failed(let error), .credentialsFailed(let error):
            _ = flush()
            throw error
        }
    }
}
