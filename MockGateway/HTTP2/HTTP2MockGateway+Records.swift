public import APNWire

extension HTTP2MockGateway {
    /// A notification the gateway accepted (answered 200), as it arrived.
    public struct Record: Sendable, Hashable {
        /// The connection it came on: 1 for the first connection that completed its TLS
        /// handshake with ALPN `h2`, then 2, 3, …
        public var connection: Int
        /// Its place among every accepted notification: 1, 2, 3, … across connections.
        public var sequence: Int
        /// The device token from `:path`, in lowercase hex.
        public var token: String
        /// The topic it went to: `apns-topic`, or the certificate's only topic when the
        /// request named none.
        public var topic: String
        /// `apns-push-type`, when sent.
        public var pushType: PushType?
        /// `apns-priority` (10, 5 or 1), when sent; Apple takes 10 when it is not.
        public var priority: Int?
        /// `apns-expiration` in UNIX seconds, when sent.
        public var expiration: Int?
        /// `apns-collapse-id`, when sent.
        public var collapseID: String?
        /// The `apns-id` answered: the request's own, or the one the gateway made for it
        /// (lowercase).
        public var apnsID: String
        /// The payload bytes, as sent.
        public var payload: [UInt8]
        /// How the request was authenticated.
        public var authentication: Authentication

        /// Creates a record (tests build the records they expect with it).
        public init(
            connection: Int, sequence: Int, token: String, topic: String, pushType: PushType?, priority: Int?,
            expiration: Int?, collapseID: String?, apnsID: String, payload: [UInt8], authentication: Authentication
        ) {
            self.connection = connection
            self.sequence = sequence
            self.token = token
            self.topic = topic
            self.pushType = pushType
            self.priority = priority
            self.expiration = expiration
            self.collapseID = collapseID
            self.apnsID = apnsID
            self.payload = payload
            self.authentication = authentication
        }
    }

    /// How a request was authenticated.
    public enum Authentication: Sendable, Hashable {
        /// By the client certificate its connection presented.
        case certificate
        /// By a provider token (`authorization: bearer …`) signed with key `keyID` of team
        /// `teamID`.
        case token(keyID: String, teamID: String)
    }

    /// What the gateway has done so far: answers by status and reason, connections, and
    /// the faults that ended connections. ``HTTP2MockGateway/summary`` while it runs,
    /// ``HTTP2MockGateway/stop(timeout:)`` at the end.
    public struct Summary: Sendable, Hashable {
        /// Notifications accepted (recorded): ``HTTP2MockGateway/recordCount``.
        public var accepted = 0
        /// Broadcasts accepted (recorded): ``HTTP2MockGateway/broadcastCount``. Their 200s are
        /// in ``statuses``, as are the answers to channel management (201, 200, 204).
        public var broadcasts = 0
        /// Answers decided, by HTTP status (200 included). An answer held back by
        /// ``Faults/responseDelay`` counts when decided, even if its connection ends first.
        public var statuses: [Int: Int] = [:]
        /// Refusals by reason.
        public var reasons: [ProviderReason: Int] = [:]
        /// Connections served: TLS handshake done, with `h2` agreed or no ALPN offered.
        public var connections = 0
        /// Connections refused: the TLS handshake failed or timed out (an untrusted
        /// certificate, say), or the client offered ALPN without `h2` — the sum of
        /// ``handshakeFailures`` and ``alpnRefusals``.
        public var refusedConnections = 0
        /// Connections whose TLS handshake failed or timed out, ALPN refusals apart.
        public var handshakeFailures = 0
        /// Connections refused in the handshake (the no_application_protocol alert) because
        /// the client offered ALPN without `h2`. A client offering no ALPN is served.
        public var alpnRefusals = 0
        /// Connections ended because the client broke HTTP/2 (a bad preface, a flood, a
        /// connection error): a GOAWAY saying so was sent.
        public var protocolErrors = 0
        /// Streams reset because a request passed a limit (header list or body size).
        public var rejectedStreams = 0
        /// GOAWAY frames sent by ``Faults/goawayAfterRequests`` and ``Faults/idleTimeout``.
        public var goaways = 0
        /// Connections reset by ``Faults/resetAfterRequests``.
        public var resets = 0
        /// Connections gone silent by ``Faults/stallAfterRequests``.
        public var stalls = 0
        /// Connections closed at once because ``Configuration/maxConnections`` were open.
        public var connectionsOverLimit = 0
        /// Connections closed at once because the system would not start a thread for them.
        public var threadStartFailures = 0
        /// Connections dropped after ``Configuration/idleTimeout`` without a byte from the client.
        public var idleTimeouts = 0
        /// Accepted notifications no longer kept in memory (``Configuration/recordRetention``,
        /// ``HTTP2MockGateway/releaseRecords(through:)``).
        public var discardedRecords = 0
        /// From ``HTTP2MockGateway/stop(timeout:)``: whether every thread finished in time.
        /// `false` in a summary taken while running.
        public var stoppedCleanly = false

        /// An empty summary.
        public init() {}
    }
}

extension HTTP2MockGateway {
    /// Appends the record file's lines (`apn mock-gateway --record`) of at most `limit`
    /// records from position `start` on (as ``records(from:limit:)`` picks them) to `lines`,
    /// and returns the position after the last one appended (`start` when none was).
    /// Copied under the gateway's lock, formatted after it is released.
    package func appendRecordLines(from start: Int, limit: Int, to lines: inout RecordLineBuffer) -> Int {
        shared.appendRecordLines(from: start, limit: limit, to: &lines)
    }
}
