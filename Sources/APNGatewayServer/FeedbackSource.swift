package import APNTLS

/// What a feedback server plugs in: the tuples to serve each client, and the news of
/// whether they reached it. The mock's source is its queue (taken is gone, as at Apple);
/// the bridge's is its token store, which deletes tuples only once they were served.
package protocol FeedbackSource: Sendable {
    /// What ``settle(_:served:)`` needs to know which visit it settles (the tuples taken,
    /// say); `Void` for a source that forgets what it hands out.
    associatedtype Receipt = Void

    /// The encoded tuples to serve the client whose TLS handshake completed, presenting
    /// `peer` (`nil` when it sent no certificate), and the receipt for settling; `nil`
    /// closes the connection at once. Called on the connection's thread.
    func take(for peer: TLSCertificate?) -> (batch: FeedbackBatch, receipt: Receipt)?

    /// Whether every byte of the batch taken with `receipt` was written (`served`), or the
    /// write failed, timed out or the server stopped first; called once per batch, before
    /// the connection closes.
    func settle(_ receipt: Receipt, served: Bool)
}

extension FeedbackSource where Receipt == Void {
    /// Nothing to settle.
    package func settle(_ receipt: Void, served: Bool) {}
}

/// The feedback tuples one connection serves, encoded, and how to write them: at once by
/// default, or (the mock's faults) in small records with pauses between.
package struct FeedbackBatch: Sendable {
    /// The tuples, encoded back to back.
    package var bytes: [UInt8]
    /// Write at most this many bytes a record; `nil`: all at once.
    package var writeSize: Int?
    /// Wait this long between two writes of ``writeSize`` bytes; each write then has 10 s
    /// of its own to complete, rather than the visit.
    package var pause: Duration

    /// A batch of `bytes`, written so.
    package init(bytes: [UInt8], writeSize: Int? = nil, pause: Duration = .zero) {
        self.bytes = bytes
        self.writeSize = writeSize
        self.pause = pause
    }
}
