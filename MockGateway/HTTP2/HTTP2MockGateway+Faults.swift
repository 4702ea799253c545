public import APNWire
public import Foundation

extension HTTP2MockGateway {
    /// The misbehaviour an ``HTTP2MockGateway`` injects on top of Apple's validation. Set
    /// it in ``Configuration/faults`` or change it while running with
    /// ``HTTP2MockGateway/setFaults(_:)`` / ``HTTP2MockGateway/updateFaults(_:)``.
    ///
    /// Answer faults (``rejectedTokens``, ``unregisteredTokens``, ``failingRequests``,
    /// ``throttledRequests``) apply to requests that passed validation, in that order, when
    /// the request is judged; the first that matches decides the answer and nothing is
    /// recorded. Connection faults (``goawayAfterRequests``, ``resetAfterRequests``,
    /// ``stallAfterRequests``, ``responseDelay``, ``idleTimeout``) act on every connection and are picked up by a
    /// connection at its next read.
    public struct Faults: Sendable, Hashable {
        /// Answer requests for these device tokens (lowercase hex) with a reason and its
        /// status instead of accepting them.
        public var rejectedTokens: [String: Refusal]
        /// Answer requests for these device tokens (lowercase hex) with 410 `Unregistered`
        /// and the time since when the token is inactive (`timestamp`, milliseconds since
        /// 1970, in the body).
        public var unregisteredTokens: [String: Date]
        /// Answer this many of the next requests with ``failingReason`` (a 500 or 503), then
        /// accept again: counts down by one per request answered so.
        public var failingRequests: Int
        /// The reason ``failingRequests`` answers with: `InternalServerError` (500) by default.
        public var failingReason: ProviderReason
        /// Once ``throttleAfterAccepting`` notifications have been accepted overall, answer
        /// this many requests with 429 `TooManyRequests`, then accept again.
        public var throttledRequests: Int
        /// How many notifications are accepted before ``throttledRequests`` begins; 0 (the
        /// default) begins at once.
        public var throttleAfterAccepting: Int
        /// Send GOAWAY on each connection once it has received this many requests, with the
        /// last of them as the last-stream-id: requests on higher streams are never
        /// processed (the client sees them closed with REFUSED_STREAM), those up to it are
        /// answered — before the GOAWAY is sent, so that no client sees a GOAWAY while a
        /// stream it covers is unanswered — then the connection closes.
        public var goawayAfterRequests: Int?
        /// The reason in the GOAWAY's debug data (`{"reason":"Shutdown"}` by default), as
        /// Apple puts its JSON in a GOAWAY that ends a connection.
        public var goawayReason: ProviderReason
        /// Reset each connection (TCP RST) when its N-th request arrives: that request, the
        /// others of the same read and every answer not yet written are lost. Requests judged
        /// in earlier reads stay recorded even when their answers were still held back
        /// (``responseDelay``) or unsent, as when a real connection dies.
        public var resetAfterRequests: Int?
        /// Make each connection go silent when its N-th request arrives, as a hung server
        /// does: that request and everything after it (PINGs included) are read and dropped,
        /// never answered; the TCP connection stays open until the client leaves. A client
        /// learns of it only by its own timeouts (an unanswered PING, a request timeout).
        public var stallAfterRequests: Int?
        /// Hold every answer back this long (`.zero` by default): the connection keeps
        /// reading meanwhile and writes each answer when its time comes.
        public var responseDelay: Duration
        /// Close a connection that has received nothing for this long: a GOAWAY with
        /// `{"reason":"IdleTimeout"}` once its open streams are answered, then the close.
        /// `nil` (the default) leaves it to ``Configuration/idleTimeout``.
        public var idleTimeout: Duration?
        /// Answer every broadcast and channel management request that passed validation with
        /// 400 `FeatureNotEnabled`, as Apple does for an app without the Broadcast capability
        /// (`false` by default). It comes before ``failingRequests`` and ``throttledRequests``,
        /// which apply to those requests as to device requests.
        public var broadcastDisabled: Bool

        /// No faults: the gateway behaves as Apple's does.
        public init() {
            rejectedTokens = [:]
            unregisteredTokens = [:]
            failingRequests = 0
            failingReason = .internalServerError
            throttledRequests = 0
            throttleAfterAccepting = 0
            goawayAfterRequests = nil
            goawayReason = .shutdown
            resetAfterRequests = nil
            stallAfterRequests = nil
            responseDelay = .zero
            idleTimeout = nil
            broadcastDisabled = false
        }

        /// Answers requests for `token` (hex, either case) with `reason` and its status
        /// (``ProviderReason/status``, or 400 for a reason Apple does not document), or
        /// with `status` when given.
        public mutating func rejectToken(_ token: String, reason: ProviderReason, status: Int? = nil) {
            rejectedTokens[token.lowercased()] = Refusal(reason: reason, status: status ?? reason.status ?? 400)
        }

        /// Answers requests for `token` (hex, either case) with 410 `Unregistered`, inactive
        /// since `since`.
        public mutating func unregisterToken(_ token: String, since: Date) {
            unregisteredTokens[token.lowercased()] = since
        }

        /// Answers the next `count` requests with `reason` (`InternalServerError`, 500, or
        /// `ServiceUnavailable`, 503), then accepts again.
        public mutating func failNextRequests(_ count: Int, reason: ProviderReason = .internalServerError) {
            failingRequests = count
            failingReason = reason
        }

        /// Once ``HTTP2MockGateway/recordCount`` has reached `accepted`, answers the next
        /// `count` requests with 429 `TooManyRequests`, then accepts again.
        public mutating func throttle(afterAccepting accepted: Int, refusing count: Int) {
            throttleAfterAccepting = accepted
            throttledRequests = count
        }

        /// Whether any answer fault is set: when none is, judging is just recording.
        var judgesRequests: Bool {
            !rejectedTokens.isEmpty || !unregisteredTokens.isEmpty || failingRequests > 0 || throttledRequests > 0
        }
    }

    /// A refusal: the status and the reason in the JSON body.
    public struct Refusal: Sendable, Hashable {
        /// The reason (`{"reason":"…"}`).
        public var reason: ProviderReason
        /// The HTTP status.
        public var status: Int

        /// A refusal with `reason` and `status` (by default the reason's own status).
        public init(reason: ProviderReason, status: Int? = nil) {
            self.reason = reason
            self.status = status ?? reason.status ?? 400
        }
    }
}
