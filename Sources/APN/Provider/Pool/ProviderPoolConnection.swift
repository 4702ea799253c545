import APNHTTP2

/// What the ``ProviderPool`` knows of one HTTP/2 connection: its nghttp2 session (framing
/// only, no I/O), which request each open stream carries, and the clocks of its liveness
/// checks. The socket itself is the driver's (``ProviderSocket``); the two share `number`.
final class ProviderPoolConnection {
    /// A stream in flight: the request it carries and the token it was sent with.
    struct OpenStream {
        let id: ProviderScheduler.ID
        let tokenIssuedAt: Int64?
        /// The request names no device (``ProviderRequest/Template/isExchange``): its
        /// answer's extra fields and body are kept. (In the padding: the stride stays 24.)
        var isExchange = false
    }

    let number: Int
    let session: HTTP2Session
    /// `host:port`, for events.
    let peer: String
    /// Open streams: the request each carries and the provider token it was sent with; a
    /// stream leaves when its answer or its end arrives.
    ///
    /// Unchecked exclusivity: the table is changed once or twice for every request, and the
    /// run-time check of each change (this is a class) cost more than the change. Safe: only
    /// the provider's I/O thread touches a connection, and no change of the table calls out
    /// to code that could reach it again.
    @exclusivity(unchecked) var streams = OpenStreamTable<OpenStream>()
    /// GOAWAY received (or the connection is being given up): no new streams.
    var draining = false
    /// When bytes last arrived: the idle time before a PING.
    var lastActivity: Timestamp
    /// When bytes were last written, or the output last ran empty: a server that stops
    /// reading for `pingTimeout` with our bytes waiting is given up.
    var lastWriteProgress: Timestamp
    /// The socket would not take all our bytes at the last flush: the server is not reading.
    var writeBlocked = false
    /// When the unanswered PING was sent.
    var pingSentAt: Timestamp?
    /// Why the connection must close, once known.
    var failure: ProviderError?
    /// The peer closed cleanly (TLS close_notify or the end of the HTTP/2 session).
    var ended = false
    /// The server's first SETTINGS arrived. Until then one stream at most: Apple's servers
    /// allow one until a provider token is verified, and nghttp2 would otherwise assume
    /// 100, which such a server refuses.
    var settingsReceived = false
    /// Answers received on this connection (a connection that ends having answered none
    /// counts as a failed attempt).
    var answered = 0
    /// Since when streams have been open with no answer: set as the first stream opens on a
    /// connection with none open and at every answer while streams stay open; nil while none
    /// is. A server that answers nothing for `requestTimeout` while streams wait is hung (it
    /// may still answer PINGs), and the connection is given up.
    var busySince: Timestamp?
    /// Given up as hung: counts as a failed attempt even if it answered before.
    var hung = false
    /// Streams ever opened on it: a connection that carried none and closes (an idle one
    /// Apple times out) is no failed attempt.
    var carried = 0
    /// Already counted as a failed attempt.
    var countedAsFailedAttempt = false
    /// The error code of a GOAWAY that came before any answer.
    var goawayBeforeAnswer: UInt32?

    init(number: Int, session: HTTP2Session, peer: String, now: Timestamp) {
        self.number = number
        self.session = session
        self.peer = peer
        self.lastActivity = now
        self.lastWriteProgress = now
    }

    var isUsable: Bool { failure == nil && !ended && !draining }

    /// Whether it is over: failed, closed by the peer, drained, or its session is done.
    var isDone: Bool {
        failure != nil || ended || (draining && streams.isEmpty) || (!session.wantsRead && !session.wantsWrite)
    }

    /// How many more streams may be opened now: the server's limit and `limit`, less those
    /// open.
    func capacity(limit: Int) -> Int {
        guard isUsable else { return 0 }
        let allowed = settingsReceived ? min(Int(session.remoteMaxConcurrentStreams), limit) : 1
        return max(0, allowed - streams.count)
    }
}
